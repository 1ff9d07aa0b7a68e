"""The Training Playground's runner: config, state, deterministic steps, frames, one-step program.

No Streamlit here: the page builds a `TrainConfig` from widgets, keeps the `TrainState` in
session state and calls `train_for` / `step`; tests call the same functions directly.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields, replace

import numpy as np

from autograd import Tensor, nn, no_grad, optim
from autograd import functional as F
from explorer import datasets

try:  # optional: pins BLAS to one thread around the playground's small matrix products
    from threadpoolctl import ThreadpoolController

    _BLAS = ThreadpoolController()
except ImportError:  # pragma: no cover - threadpoolctl missing: BLAS keeps its default threads
    _BLAS = None

GRID = 100  # the decision boundary is evaluated on GRID × GRID points
MAX_FRAMES = 100  # replay frames kept; older ones are thinned out
MAX_LAYERS = 8
MAX_WIDTH = 64
PROGRAM_LIMIT = 10_000  # characters the expression language accepts


def one_blas_thread():
    """Context: BLAS on one thread. NOTE: the playground's matrices are tiny (at most 64 wide),
    so extra BLAS threads only add synchronisation; on a busy 2-core machine they made training
    steps 2-5x slower. Costs ~7 µs per use."""
    return _BLAS.limit(limits=1, user_api="blas") if _BLAS is not None else contextlib.nullcontext()


# ------------------------------------------------------------------- registries

ACTIVATIONS: dict[str, type] = nn.ACTIVATIONS


def _sgd(params, lr, l2):
    return optim.SGD(params, lr=lr, weight_decay=l2)


def _momentum(params, lr, l2):
    return optim.SGD(params, lr=lr, momentum=0.9, weight_decay=l2)


def _adam(params, lr, l2):
    return optim.Adam(params, lr=lr, weight_decay=l2)


def _adamw(params, lr, l2):
    return optim.AdamW(params, lr=lr, weight_decay=l2)


# name -> (parameters, lr, l2) -> optimiser. L2 is each optimiser's weight_decay (AdamW: decoupled).
OPTIMIZERS: dict[str, Callable] = {"SGD": _sgd, "momentum": _momentum, "Adam": _adam, "AdamW": _adamw}

# Extra input features, TensorFlow-Playground style: name -> function of the raw inputs (N, d).
FEATURES_2D: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "x1²": lambda X: X[:, 0] ** 2,
    "x2²": lambda X: X[:, 1] ** 2,
    "x1·x2": lambda X: X[:, 0] * X[:, 1],
    "sin x1": lambda X: np.sin(X[:, 0]),
    "sin x2": lambda X: np.sin(X[:, 1]),
}
FEATURES_1D: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "x²": lambda X: X[:, 0] ** 2,
    "x³": lambda X: X[:, 0] ** 3,
    "sin x": lambda X: np.sin(X[:, 0]),
}
FEATURES: dict[str, Callable[[np.ndarray], np.ndarray]] = {**FEATURES_2D, **FEATURES_1D}

LOSS_NAMES = {
    "binary": "binary cross-entropy with logits",
    "multiclass": "softmax cross-entropy",
    "regression": "mean squared error",
}


def features_for(task: str) -> dict[str, Callable[[np.ndarray], np.ndarray]]:
    return FEATURES_1D if task == "regression" else FEATURES_2D


# ----------------------------------------------------------------------- config


@dataclass(frozen=True)
class TrainConfig:
    """Everything that defines a run. Changing anything but `lr` and `l2` means a new run."""

    dataset: str = "two moons"
    noise: float = 0.15
    n: int = 200
    test_fraction: float = 0.3
    hidden: tuple[int, ...] = (8, 8)
    activation: str = "tanh"
    optimizer: str = "Adam"
    lr: float = 0.03
    batch_size: int = 32  # 0 = full batch
    l2: float = 0.0
    seed: int = 0
    features: tuple[str, ...] = ()  # extra inputs from FEATURES; the raw coordinates are always in
    task: str = ""  # "" = from the data set; needed only for uploaded data

    def __post_init__(self):
        task = self.task or (datasets.task_of(self.dataset) if self.dataset in datasets.DATASETS else "")
        if self.dataset not in datasets.DATASETS and self.dataset != datasets.UPLOADED:
            raise ValueError(f"unknown data set {self.dataset!r}; choose one of {', '.join(datasets.DATASETS)}")
        if task not in ("classification", "regression"):
            raise ValueError("uploaded data needs task='classification' or 'regression'")
        object.__setattr__(self, "task", task)
        object.__setattr__(self, "hidden", tuple(int(h) for h in self.hidden))
        object.__setattr__(self, "features", tuple(self.features))
        if not 4 <= self.n <= 5000:
            raise ValueError(f"number of points must be between 4 and 5000, got {self.n}")
        if not 0.0 <= self.noise <= 2.0:
            raise ValueError(f"noise must be between 0 and 2, got {self.noise}")
        if not 0.0 <= self.test_fraction <= 0.9:
            raise ValueError(f"test fraction must be between 0 and 0.9, got {self.test_fraction}")
        if len(self.hidden) > MAX_LAYERS or any(not 1 <= h <= MAX_WIDTH for h in self.hidden):
            raise ValueError(f"up to {MAX_LAYERS} hidden layers of 1..{MAX_WIDTH} neurons, got {list(self.hidden)}")
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"unknown activation {self.activation!r}; choose one of {', '.join(ACTIVATIONS)}")
        if self.optimizer not in OPTIMIZERS:
            raise ValueError(f"unknown optimiser {self.optimizer!r}; choose one of {', '.join(OPTIMIZERS)}")
        if not (self.lr > 0 and math.isfinite(self.lr)):
            raise ValueError(f"learning rate must be a positive number, got {self.lr}")
        if self.batch_size < 0:
            raise ValueError(f"batch size must be 0 (full batch) or positive, got {self.batch_size}")
        if not (self.l2 >= 0 and math.isfinite(self.l2)):
            raise ValueError(f"L2 must be zero or positive, got {self.l2}")
        allowed = features_for(task)
        unknown = [f for f in self.features if f not in allowed]
        if unknown:
            raise ValueError(f"features {unknown} do not apply to {task}; choose from {', '.join(allowed)}")

    def run_key(self) -> tuple:
        """What identifies a run: everything except the live-tunable lr and l2."""
        return tuple(getattr(self, f.name) for f in fields(self) if f.name not in ("lr", "l2"))

    # --- the URL: st.query_params is a str -> str mapping
    def to_query(self) -> dict[str, str]:
        out = {}
        for key, value in asdict(self).items():
            if isinstance(value, tuple):
                out[key] = ",".join(str(v) for v in value) if value else "-"
            else:
                out[key] = str(value)
        return out

    @classmethod
    def from_query(cls, params: dict[str, str]) -> tuple[TrainConfig, list[str]]:
        """A config from URL parameters; bad or unknown values fall back to the default and are
        reported in the returned list of problems (never raises)."""
        default = cls()
        values: dict = {}
        problems: list[str] = []
        for f in fields(cls):
            if f.name not in params:
                continue
            text = str(params[f.name])
            try:
                current = getattr(default, f.name)
                if isinstance(current, tuple):
                    items = [] if text in ("", "-") else text.split(",")
                    values[f.name] = tuple(int(i) for i in items) if f.name == "hidden" else tuple(items)
                else:
                    values[f.name] = type(current)(text)
            except ValueError:
                problems.append(f"{f.name}={_quoted(text)} is not valid")
        try:
            config = cls(**values)
        except ValueError:
            # Keep the valid part: apply the fields one at a time, reporting each one refused.
            config = default
            for name, value in values.items():
                try:
                    config = replace(config, **{name: value})
                except ValueError as err:
                    problems.append(_clipped(str(err), 200))
        return config, problems


def _quoted(text: str, limit: int = 40) -> str:
    """A link's value as the warning quotes it: whole if short, else its start and its length."""
    return repr(text) if len(text) <= limit else f"{text[:limit]!r}… ({len(text):,} characters)"


def _clipped(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, saying how long it was: a link's 5,000-character value
    is not echoed whole in a warning."""
    return text if len(text) <= limit else f"{text[:limit - 1]}… ({len(text):,} characters)"


SETTING_NAMES = {
    "dataset": "data set", "noise": "noise", "n": "points", "test_fraction": "test split",
    "hidden": "hidden layers", "activation": "activation", "optimizer": "optimiser",
    "batch_size": "batch size", "seed": "seed", "features": "input features", "task": "task",
}


def changed_settings(old: TrainConfig, new: TrainConfig) -> list[str]:
    """The settings, by their names on the page, whose change makes `new` a new run of `old`."""
    return [label for name, label in SETTING_NAMES.items() if getattr(old, name) != getattr(new, name)]


# ------------------------------------------------------------------------ state


@dataclass
class History:
    steps: list[int] = field(default_factory=list)
    train_loss: list[float] = field(default_factory=list)
    test_loss: list[float] = field(default_factory=list)
    train_acc: list[float] = field(default_factory=list)
    test_acc: list[float] = field(default_factory=list)
    grad_norms: list[list[float]] = field(default_factory=list)


@dataclass
class TrainState:
    config: TrainConfig
    X_train: np.ndarray  # raw coordinates (N, 2) or (N, 1)
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    n_classes: int  # 1 for regression
    shift: np.ndarray  # model input = (X - shift) / scale, then features
    scale: np.ndarray
    xs: np.ndarray  # grid axes in raw coordinates
    ys: np.ndarray
    model: nn.MLP
    optimizer: object
    rng: np.random.Generator  # batches
    step: int = 0
    diverged: str | None = None
    history: History = field(default_factory=History)
    frames: list[dict] = field(default_factory=list)
    frame_every: int = 10  # steps between replay frames; doubles when frames are thinned
    last_batch_loss: float = float("nan")
    steps_per_sec: float = 0.0
    _order: np.ndarray | None = None
    _cursor: int = 0
    _grid_cache: tuple | None = None

    @property
    def task(self) -> str:
        return self.config.task

    @property
    def loss_kind(self) -> str:
        if self.task == "regression":
            return "regression"
        return "binary" if self.n_classes == 2 else "multiclass"

    @property
    def input_names(self) -> list[str]:
        raw = ["x"] if self.task == "regression" else ["x1", "x2"]
        return raw + list(self.config.features)

    @property
    def output_names(self) -> list[str]:
        if self.loss_kind == "multiclass":
            return [f"class {k}" for k in range(self.n_classes)]
        return ["ŷ"] if self.task == "regression" else ["logit (class 1)"]

    def linears(self) -> list[nn.Linear]:
        return [layer for layer in self.model.layers if isinstance(layer, nn.Linear)]


def new_state(config: TrainConfig, data: tuple[np.ndarray, np.ndarray] | None = None) -> TrainState:
    """A fresh run: data (generated from the config, or `data` for uploads), model, optimiser."""
    if data is None:
        if config.dataset == datasets.UPLOADED:
            raise ValueError("the uploaded data set needs its points: pass data=(X, y)")
        X, y = datasets.generate(config.dataset, config.n, config.noise, config.seed)
    else:
        X, y = (np.asarray(a) for a in data)
    X = X.astype(np.float64)
    split = datasets.train_test_split(X, y, config.test_fraction, config.seed)
    if config.task == "regression":
        n_classes = 1
        y_train, y_test = split.y_train.astype(np.float64), split.y_test.astype(np.float64)
    else:
        y_train, y_test = split.y_train.astype(np.int64), split.y_test.astype(np.int64)
        n_classes = max(2, int(max(y_train.max(initial=0), y_test.max(initial=0))) + 1)
    shift, scale = _normaliser(X)
    xs, ys = _grid_axes(X)
    n_inputs = X.shape[1] + len(config.features)
    n_outputs = n_classes if n_classes > 2 else 1
    model = nn.MLP(
        [n_inputs, *config.hidden, n_outputs], activation=config.activation, rng=np.random.default_rng(config.seed)
    )
    optimizer = OPTIMIZERS[config.optimizer](model.parameters(), config.lr, config.l2)
    state = TrainState(
        config=config,
        X_train=split.X_train,
        y_train=y_train,
        X_test=split.X_test,
        y_test=y_test,
        n_classes=n_classes,
        shift=shift,
        scale=scale,
        xs=xs,
        ys=ys,
        model=model,
        optimizer=optimizer,
        rng=np.random.default_rng(config.seed + 1),
    )
    _record(state, grad_norms=[float("nan")] * len(state.linears()))  # no gradient yet: a gap
    return state


def _normaliser(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Identity for data already on a unit-ish scale (the built-in sets); else centre and scale
    to about [-2, 2] so uploaded points in any units train with the same learning rates."""
    extent = np.abs(X).max(axis=0)
    if np.all((extent > 0.5) & (extent < 6.0)):
        return np.zeros(X.shape[1]), np.ones(X.shape[1])
    centre = (X.max(axis=0) + X.min(axis=0)) / 2
    half = (X.max(axis=0) - X.min(axis=0)) / 2
    return centre, np.where(half > 0, half / 2.0, 1.0)


def _grid_axes(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = X.min(axis=0), X.max(axis=0)
    pad = 0.08 * np.maximum(hi - lo, 1e-9)
    xs = np.linspace(lo[0] - pad[0], hi[0] + pad[0], GRID)
    ys = np.linspace(lo[1] - pad[1], hi[1] + pad[1], GRID) if X.shape[1] > 1 else np.zeros(1)
    return xs, ys


def model_inputs(state: TrainState, X: np.ndarray) -> np.ndarray:
    """Raw coordinates -> the network's input columns (normalised coordinates, then features)."""
    Z = (X - state.shift) / state.scale
    extra = [FEATURES[name](Z) for name in state.config.features]
    return np.column_stack([Z, *extra]) if extra else Z


def _loss(state: TrainState, out: Tensor, y: np.ndarray) -> Tensor:
    kind = state.loss_kind
    if kind == "binary":
        return F.binary_cross_entropy_with_logits(out, Tensor(y.astype(np.float64)[:, None]))
    if kind == "multiclass":
        return F.cross_entropy(out, y)
    return F.mse_loss(out, Tensor(y[:, None]))


def _accuracy(state: TrainState, out: np.ndarray, y: np.ndarray) -> float:
    if state.task == "regression" or not len(y):
        return float("nan")
    pred = (out[:, 0] > 0).astype(np.int64) if state.loss_kind == "binary" else out.argmax(axis=1)
    return float((pred == y).mean())


def evaluate(state: TrainState, X: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(loss, accuracy) of the current model on raw points X with targets y (no graph)."""
    if not len(y):
        return float("nan"), float("nan")
    with no_grad():
        out = state.model(Tensor(model_inputs(state, X)))
        loss = float(_loss(state, out, y).data)
    return loss, _accuracy(state, out.data, y)


# ------------------------------------------------------------------------ steps


def set_hyperparameters(state: TrainState, *, lr: float | None = None, l2: float | None = None) -> None:
    """Change the learning rate and/or L2 mid-training, keeping weights and optimiser state."""
    changes = {}
    if lr is not None:
        state.optimizer.lr = float(lr)
        changes["lr"] = float(lr)
    if l2 is not None:
        state.optimizer.weight_decay = float(l2)
        changes["l2"] = float(l2)
    if changes:
        state.config = replace(state.config, **changes)


def _next_batch(state: TrainState) -> np.ndarray:
    n = len(state.y_train)
    size = state.config.batch_size
    if size == 0 or size >= n:
        return np.arange(n)
    if state._order is None or state._cursor + size > n:
        state._order = state.rng.permutation(n)
        state._cursor = 0
    batch = state._order[state._cursor : state._cursor + size]
    state._cursor += size
    return batch


def _advice(state: TrainState) -> str:
    lr = state.optimizer.lr
    if state.config.optimizer in ("SGD", "momentum"):
        return f"lower the learning rate (now {lr:g}) or switch to Adam"
    return f"lower the learning rate (now {lr:g}), use fewer layers, or press Reset"


def step(state: TrainState, n: int = 1) -> dict:
    """Run up to `n` optimiser steps; stops at the first non-finite loss or weight.

    Records one history point (full train and test loss) per call and a replay frame when due.
    Returns the metrics of the last step.
    """
    if state.diverged is not None or n <= 0:
        return metrics(state)
    inputs = model_inputs(state, state.X_train)
    t0 = time.perf_counter()
    # NOTE: overflow on the way to inf is expected for a diverging run; it is caught below.
    with one_blas_thread(), np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        done, norms = _run(state, inputs, n)
    elapsed = time.perf_counter() - t0
    if elapsed > 0 and done:
        rate = done / elapsed
        state.steps_per_sec = rate if state.steps_per_sec == 0 else 0.7 * state.steps_per_sec + 0.3 * rate
    if state.diverged is None:
        with one_blas_thread():
            _record(state, grad_norms=norms)
    return metrics(state)


def _run(state: TrainState, inputs: np.ndarray, n: int) -> tuple[int, list[float]]:
    """The optimiser loop: (steps done, per-layer weight-grad norms of the last step)."""
    done = 0
    for _ in range(n):
        batch = _next_batch(state)
        state.optimizer.zero_grad()
        loss = _loss(state, state.model(Tensor(inputs[batch])), state.y_train[batch])
        value = float(loss.data)
        state.step += 1
        done += 1
        if not math.isfinite(value):
            _diverge(state, value, "loss")
            break
        loss.backward()
        state.optimizer.step()
        state.last_batch_loss = value
        if not all(np.isfinite(p.data).all() for p in state.model.parameters()):
            _diverge(state, float("inf"), "weights")
            break
    return done, [_norm(layer.weight.grad) for layer in state.linears()]


def _norm(grad: np.ndarray | None) -> float:
    return float(np.sqrt(np.sum(grad * grad))) if grad is not None else 0.0


def _diverge(state: TrainState, value: float, where: str) -> None:
    what = "nan" if math.isnan(value) else "inf"
    subject = "loss" if where == "loss" else "a weight"
    state.diverged = f"{subject} became {what} at step {state.step} — {_advice(state)}."


def train_for(state: TrainState, seconds: float, *, max_steps: int = 10_000, chunk: int = 5) -> dict:
    """Train in chunks of `chunk` steps until `seconds` pass or `max_steps` are done."""
    deadline = time.perf_counter() + seconds
    done = 0
    result = metrics(state)
    while done < max_steps and state.diverged is None:
        take = min(chunk, max_steps - done)
        result = step(state, take)
        done += take
        if time.perf_counter() >= deadline:
            break
    return result


def train_frames(state: TrainState, seconds: float, *, max_steps: int, frames: int = 3) -> list[dict]:
    """Train up to `max_steps` steps in `frames` equal parts sharing a time box of `seconds`
    (each part trains at least one chunk), and return a snapshot after each part:
    {'step', 'grid', 'metrics'}. The live chart paints the snapshots one after another, so the
    picture moves several times per round trip to the browser."""
    per_part = max(1, -(-max_steps // frames))
    deadline = time.perf_counter() + seconds
    shots = []
    done = 0
    while done < max_steps and state.diverged is None:
        take = min(per_part, max_steps - done)
        m = train_for(state, max(deadline - time.perf_counter(), 0.0), max_steps=take, chunk=min(take, 10))
        done += take
        shots.append({"step": state.step, "grid": prediction_grid(state), "metrics": m})
    return shots


def metrics(state: TrainState) -> dict:
    h = state.history
    return {
        "step": state.step,
        "batch_loss": state.last_batch_loss,
        "train_loss": h.train_loss[-1] if h.train_loss else float("nan"),
        "test_loss": h.test_loss[-1] if h.test_loss else float("nan"),
        "train_acc": h.train_acc[-1] if h.train_acc else float("nan"),
        "test_acc": h.test_acc[-1] if h.test_acc else float("nan"),
        "steps_per_sec": state.steps_per_sec,
        "diverged": state.diverged,
    }


def _record(state: TrainState, grad_norms: list[float]) -> None:
    h = state.history
    if h.steps and h.steps[-1] == state.step:
        return
    train_loss, train_acc = evaluate(state, state.X_train, state.y_train)
    test_loss, test_acc = evaluate(state, state.X_test, state.y_test)
    h.steps.append(state.step)
    h.train_loss.append(train_loss)
    h.test_loss.append(test_loss)
    h.train_acc.append(train_acc)
    h.test_acc.append(test_acc)
    h.grad_norms.append(grad_norms)
    if len(h.steps) > 2000:  # keep curves light: thin out the older half
        for name in ("steps", "train_loss", "test_loss", "train_acc", "test_acc", "grad_norms"):
            values = getattr(h, name)
            setattr(h, name, values[:1000:2] + values[1000:])
    if state.step == 0 or state.step >= (state.frames[-1]["step"] if state.frames else 0) + state.frame_every:
        state.frames.append({"step": state.step, "loss": train_loss, "grid": prediction_grid(state)})
        if len(state.frames) > MAX_FRAMES:
            state.frames = state.frames[::2]
            state.frame_every *= 2


# ------------------------------------------------------------------- pictures


def prediction_grid(state: TrainState) -> np.ndarray:
    """Classification: class-1 probability (GRID, GRID) or softmax (GRID, GRID, C) over the grid.
    Regression: the prediction at each of the GRID x positions. Cached per step."""
    if state._grid_cache is not None and state._grid_cache[0] == state.step:
        return state._grid_cache[1]
    if state.task == "regression":
        points = state.xs[:, None]
    else:
        gx, gy = np.meshgrid(state.xs, state.ys)
        points = np.column_stack([gx.ravel(), gy.ravel()])
    with no_grad(), one_blas_thread():
        out = state.model(Tensor(model_inputs(state, points))).data
    if state.task == "regression":
        result = out[:, 0].copy()
    elif state.loss_kind == "binary":
        result = (0.5 * (1.0 + np.tanh(0.5 * out[:, 0]))).reshape(GRID, GRID)  # stable sigmoid
    else:
        shifted = out - out.max(axis=1, keepdims=True)
        e = np.exp(shifted)
        result = (e / e.sum(axis=1, keepdims=True)).reshape(GRID, GRID, -1)
    state._grid_cache = (state.step, result)
    return result


def hidden_activations(state: TrainState, resolution: int = 40) -> list[np.ndarray]:
    """Each hidden layer's outputs over a coarse grid: one (res, res, width) array per layer."""
    if state.task == "regression":
        return []
    xs = np.linspace(state.xs[0], state.xs[-1], resolution)
    ys = np.linspace(state.ys[0], state.ys[-1], resolution)
    gx, gy = np.meshgrid(xs, ys)
    x = Tensor(model_inputs(state, np.column_stack([gx.ravel(), gy.ravel()])))
    outputs = []
    with no_grad():
        for layer in state.model.layers[:-1]:
            x = layer(x)
            if not isinstance(layer, nn.Linear):  # after each activation: one hidden layer
                outputs.append(x.data.reshape(resolution, resolution, -1))
    return outputs


def weights(state: TrainState) -> list[np.ndarray]:
    return [layer.weight.data for layer in state.linears()]


# ---------------------------------------------------------------- one-step program

def _literal(a: np.ndarray, digits: int) -> str:
    if a.ndim == 1:
        return "[" + ", ".join(_num(v, digits) for v in a) + "]"
    return "[" + ", ".join(_literal(row, digits) for row in a) + "]"


def _num(v: float, digits: int) -> str:
    text = f"{float(v):.{digits}g}"
    return "0" if text == "-0" else text


def one_step_program(state: TrainState, batch: int = 4) -> str:
    """One training step's forward pass on the first `batch` training points, as a program in the
    expression language (autograd.expr): inputs, weights (transposed to (in, out) so the program
    reads X @ W + b), the activations and the loss. Numbers are rounded to fit the language's
    10,000-character limit; raises ValueError if the network is too large even so."""
    rows = np.arange(min(batch, len(state.y_train)))
    X = model_inputs(state, state.X_train[rows])
    y = state.y_train[rows]
    act = None if state.config.activation == "linear" else state.config.activation
    kind = state.loss_kind
    for digits in (4, 3, 2):
        lines = [
            f"# One training step of the playground's {state.model.sizes} MLP at step {state.step}",
            f"# on {len(rows)} training points; loss: {LOSS_NAMES[kind]}.",
            f"X = {_literal(X, digits)}",
        ]
        if kind == "binary":
            lines.append(f"y = {_literal(y.astype(np.float64)[:, None], digits)}")
        elif kind == "regression":
            lines.append(f"y = {_literal(y[:, None], digits)}")
        linears = state.linears()
        h = "X"
        for i, layer in enumerate(linears, start=1):
            lines.append(f"W{i} = {_literal(layer.weight.data.T, digits)}")
            lines.append(f"b{i} = {_literal(layer.bias.data, digits)}")
            expr = f"{h} @ W{i} + b{i}"
            if i < len(linears):
                expr = f"{act}({expr})" if act else expr
                lines.append(f"h{i} = {expr}")
                h = f"h{i}"
            else:
                lines.append(f"out = {expr}")
        if kind == "binary":
            lines.append("loss = binary_cross_entropy_with_logits(out, y)")
        elif kind == "multiclass":
            labels = "[" + ", ".join(str(int(v)) for v in y) + "]"
            lines.append(f"loss = cross_entropy(out, tensor({labels}))")
        else:
            lines.append("loss = mse_loss(out, y)")
        text = "\n".join(lines) + "\n"
        if len(text) <= PROGRAM_LIMIT:
            return text
    raise ValueError(
        f"this network has {sum(p.data.size for p in state.model.parameters())} weights: too many to "
        f"show as a program under {PROGRAM_LIMIT:,} characters. Use smaller hidden layers "
        "(e.g. 2 layers of 8) to see a step's graph."
    )


def parse_hidden(text: str) -> tuple[int, ...]:
    """'8, 8' -> (8, 8); '' or '0' -> () (no hidden layer). Raises ValueError saying what is wrong."""
    text = text.strip()
    if text in ("", "0", "-"):
        return ()
    widths = []
    for part in text.replace(";", ",").replace(" ", ",").split(","):
        if not part:
            continue
        if not part.isdigit():
            raise ValueError(f"hidden layer widths are whole numbers separated by commas; {part!r} is not one")
        widths.append(int(part))
    if len(widths) > MAX_LAYERS:
        raise ValueError(f"at most {MAX_LAYERS} hidden layers, got {len(widths)}")
    bad = [w for w in widths if not 1 <= w <= MAX_WIDTH]
    if bad:
        raise ValueError(f"each hidden layer has 1 to {MAX_WIDTH} neurons; got {bad[0]}")
    return tuple(widths)


def all_points(state: TrainState) -> tuple[np.ndarray, np.ndarray]:
    """Train and test points together, as they were generated or uploaded (for the CSV download)."""
    return np.vstack([state.X_train, state.X_test]), np.concatenate([state.y_train, state.y_test])
