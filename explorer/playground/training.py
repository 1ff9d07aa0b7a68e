"""The Training Playground's runner: state, deterministic steps, metrics, layer health, frames.

No Streamlit here: explorer/playground/controller.py drives it (Play, Step, the clock) and the page shows
what comes back; tests call the same functions directly. A `Frame` is what one picture of the
live view needs: the metrics, every weight and bias, and each layer's health.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from dataclasses import dataclass, field, replace

import numpy as np

from autograd import Tensor, nn, no_grad
from explorer.playground import catalogue, datasets, health
from explorer.playground.settings import TrainConfig

try:  # optional: pins BLAS to one thread around the playground's small matrix products
    from threadpoolctl import ThreadpoolController

    _BLAS = ThreadpoolController()
except ImportError:  # pragma: no cover - threadpoolctl missing: BLAS keeps its default threads
    _BLAS = None

GRID = 100  # the engine's reference grid for the boundary (GRID × GRID points)
MAX_FRAMES = 100  # replay frames kept; older ones are thinned out
REPLAY_BYTES = 8_000_000  # ... and at most this many bytes of their weights
HISTORY_POINTS = 400  # curve points kept; beyond, the older ones are thinned out
RECENT_POINTS = 100  # the newest points are never thinned


_held = threading.local()  # .on: this thread is inside one_blas_thread already


@contextlib.contextmanager
def one_blas_thread():
    """Context: BLAS on one thread. NOTE: the playground's matrices are tiny (at most 64 wide),
    so extra BLAS threads only add synchronisation; on a busy 2-core machine they made training
    steps 2-5x slower. Costs ~7 µs per use, but nothing inside another: a tick holds it once for all its steps."""
    if _BLAS is None or getattr(_held, "on", False):
        yield
        return
    with _BLAS.limit(limits=1, user_api="blas"):
        _held.on = True
        try:
            yield
        finally:
            _held.on = False


# ---------------------------------------------------------------------- records


@dataclass(frozen=True)
class Metrics:
    """Loss and accuracy on all training and all test points at one step (NaN where they do
    not apply: no test points, or accuracy of a regression)."""

    step: int
    train_loss: float
    test_loss: float
    train_acc: float
    test_acc: float


@dataclass(frozen=True)
class Frame:
    """One picture of a run: its metrics, every parameter (Linear layers in order, each W (out,
    in) row by row then b, in one float64 array) and each layer's health after the last step."""

    metrics: Metrics
    params: np.ndarray
    health: tuple[health.LayerHealth, ...]

    @property
    def step(self) -> int:
        return self.metrics.step


@dataclass
class History:
    """The curves: one point per call of `step`, the older ones thinned to stay under HISTORY_POINTS."""

    steps: list[int] = field(default_factory=list)
    train_loss: list[float] = field(default_factory=list)
    test_loss: list[float] = field(default_factory=list)
    train_acc: list[float] = field(default_factory=list)
    test_acc: list[float] = field(default_factory=list)

    COLUMNS = ("steps", "train_loss", "test_loss", "train_acc", "test_acc")

    def append(self, m: Metrics) -> None:
        for name, value in zip(self.COLUMNS, (m.step, m.train_loss, m.test_loss, m.train_acc, m.test_acc)):
            getattr(self, name).append(value)
        if len(self.steps) > HISTORY_POINTS:
            cut = len(self.steps) - RECENT_POINTS
            for name in self.COLUMNS:
                values = getattr(self, name)
                setattr(self, name, values[:cut:2] + values[cut:])

    def latest(self) -> Metrics:
        return Metrics(*(getattr(self, name)[-1] for name in self.COLUMNS))


# ------------------------------------------------------------------------ state


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
    xs: np.ndarray  # the picture's axes in raw coordinates
    ys: np.ndarray
    model: nn.MLP
    optimizer: object
    rng: np.random.Generator  # batches
    step: int = 0
    diverged: str | None = None
    history: History = field(default_factory=History)
    frames: list[Frame] = field(default_factory=list)  # for the replay
    frame_every: int = 1  # steps between replay frames; doubles when frames are thinned (MAX_FRAMES)
    health: tuple[health.LayerHealth, ...] = ()  # after the last step
    compute_rate: float = 0.0  # steps per second of compute alone (forward + backward + update)
    # The learning rate and L2 changed while the run trained: {first step with the new values: {"lr": 0.3}},
    # starting with the run's own values at step 1; empty while they never changed (see set_hyperparameters).
    schedule: dict[int, dict[str, float]] = field(default_factory=dict)
    loaded_at: int | None = None  # the step at which this run was loaded from a model file, if it was
    _order: np.ndarray | None = None
    _cursor: int = 0
    _inputs: tuple | None = None  # (what they were made of, the training then test points' inputs): `points_inputs`

    @property
    def task(self) -> str:
        return self.config.task

    @property
    def loss_name(self) -> str:
        """The loss as the page names it: 'binary cross-entropy', 'mean squared error', ..."""
        if self.config.loss == "cross-entropy":
            return "binary cross-entropy" if self.n_classes == 2 else "softmax cross-entropy"
        return catalogue.LOSSES[self.task][self.config.loss][1]

    @property
    def input_names(self) -> list[str]:
        raw = ["x"] if self.task == "regression" else ["x1", "x2"]
        return raw + list(self.config.features)

    @property
    def output_names(self) -> list[str]:
        if self.n_classes > 2:
            return [f"class {k}" for k in range(self.n_classes)]
        return ["ŷ"] if self.task == "regression" else ["p(class 1)"]

    def linears(self) -> list[nn.Linear]:
        return [layer for layer in self.model.layers if isinstance(layer, nn.Linear)]

    @property
    def criterion(self) -> catalogue.Criterion:
        """The loss for this network's output width (its targets, the comparison, its spelling)."""
        return catalogue.criterion(self.task, self.config.loss, self.model.sizes[-1])

    def loss(self, out: Tensor, y: np.ndarray) -> Tensor:
        return self.criterion(out, y)


def new_state(
    config: TrainConfig, data: tuple[np.ndarray, np.ndarray] | datasets.Split | None = None
) -> TrainState:
    """A fresh run: data (generated from the config, or `data` for uploads: the points (X, y), or
    points already split, as a loaded model brings them), model, optimiser."""
    if isinstance(data, datasets.Split):
        split = data
        X = np.vstack([split.X_train, split.X_test]).astype(np.float64)
    else:
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
    if config.init != catalogue.DEFAULT_INIT:  # the MLP drew PyTorch's default; others draw again from the seed
        catalogue.initialise([m for m in model.layers if isinstance(m, nn.Linear)], config.init,
                        np.random.default_rng(config.seed))
    optimizer = catalogue.OPTIMIZERS[config.optimizer](model.parameters(), config.lr, config.l2)
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
    _record(state)
    return state


def refresh(state: TrainState) -> None:
    """After the weights were replaced (a loaded model): the curves and the replay start again
    from the state's step."""
    state.history = History()
    state.frames = []
    state.frame_every = 1
    state.health = ()
    _record(state)


def _normaliser(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Identity for data already on a unit-ish scale (the built-in sets); else centre and scale
    to about [-2, 2] so uploaded points in any units train with the same learning rates."""
    extent = np.abs(X).max(axis=0)
    if np.all((extent > 0.5) & (extent < 6.0)):
        return np.zeros(X.shape[1]), np.ones(X.shape[1])
    low, high = X.min(axis=0), X.max(axis=0)
    half = (high - low) / 2
    return low + half, np.where(half > 0, half / 2.0, 1.0)


def _grid_axes(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = X.min(axis=0), X.max(axis=0)
    pad = np.where(hi > lo, 0.08 * (hi - lo), 1.0)
    xs = np.linspace(lo[0] - pad[0], hi[0] + pad[0], GRID)
    ys = np.linspace(lo[1] - pad[1], hi[1] + pad[1], GRID) if X.shape[1] > 1 else np.zeros(1)
    return xs, ys


def model_inputs(state: TrainState, X: np.ndarray) -> np.ndarray:
    """Raw coordinates -> the network's input columns (normalised coordinates, then features)."""
    Z = (X - state.shift) / state.scale
    extra = [catalogue.FEATURES[name](Z) for name in state.config.features]
    return np.column_stack([Z, *extra]) if extra else Z


def points_inputs(state: TrainState) -> np.ndarray:
    """The network's inputs of the training points then the test points (`model_inputs` of both, stacked), made once
    per run: kept with the arrays they were made of, and made again if any of those is another (`is`) or the
    features changed."""
    made_of = (state.X_train, state.X_test, state.shift, state.scale, state.config.features)
    kept = state._inputs
    if kept is None or len(kept[0]) != len(made_of) or not all(
            a is b for a, b in zip(kept[0][:4], made_of[:4])) or kept[0][4] != made_of[4]:
        kept = state._inputs = (made_of, model_inputs(state, np.concatenate([state.X_train, state.X_test])))
    return kept[1]


def _accuracy(state: TrainState, out: np.ndarray, y: np.ndarray) -> float:
    if state.task == "regression" or not len(y):
        return float("nan")
    pred = (out[:, 0] > 0).astype(np.int64) if out.shape[1] == 1 else out.argmax(axis=1)
    return float((pred == y).mean())


def _scored(state: TrainState, out: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(loss, accuracy) of the model's outputs `out` (a row per point) against targets y; nan for no points. Call
    it under no_grad."""
    if not len(y):
        return float("nan"), float("nan")
    return float(state.loss(Tensor(out), y).data), _accuracy(state, out, y)


def evaluate(state: TrainState, X: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(loss, accuracy) of the current model on raw points X with targets y (no graph)."""
    if not len(y):
        return float("nan"), float("nan")
    with no_grad(), np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return _scored(state, state.model(Tensor(model_inputs(state, X))).data, y)


def _evaluate_both(state: TrainState) -> tuple[float, float, float, float]:
    """`evaluate` of the training and of the test points, from one pass of the network over both (the same rows
    through the same layers: each row's numbers are those of its own pass): train loss, test loss, train
    accuracy, test accuracy."""
    inputs, n = points_inputs(state), len(state.y_train)
    with no_grad(), np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        out = state.model(Tensor(inputs)).data
        (train_loss, train_acc), (test_loss, test_acc) = (_scored(state, out[:n], state.y_train),
                                                          _scored(state, out[n:], state.y_test))
    return train_loss, test_loss, train_acc, test_acc


def metrics(state: TrainState) -> Metrics:
    """The metrics at the state's current step (recorded by the last `step`)."""
    return state.history.latest()


def flat_params(state: TrainState) -> np.ndarray:
    """Every W (row by row) and b, layer by layer, in one float64 array (a Frame's `params`)."""
    return np.concatenate([a for layer in state.linears() for a in (layer.weight.data.ravel(), layer.bias.data)])


def frame(state: TrainState) -> Frame:
    """The picture of the state as it is now."""
    return Frame(metrics(state), flat_params(state), state.health)


def replay_frames(state: TrainState) -> list[Frame]:
    """The frames the replay scrubs through: the recorded ones, then the run as it is now, so the replay
    covers the run up to the step it was paused at and ends on it (a run that diverged ends on its last
    finite frame)."""
    frames = state.frames
    now = state.history.steps[-1] if state.history.steps else None
    if state.diverged is None and now == state.step and (not frames or frames[-1].step != state.step):
        frames = [*frames, frame(state)]
    return frames


# ------------------------------------------------------------------ rewinding


@dataclass(frozen=True)
class Checkpoint:
    """Everything a run needs to go on from one step exactly as if it had never trained past it: its frame
    (weights, metrics, health), the optimiser's state, the batch generator's state and the epoch's order."""

    frame: Frame
    optimizer: dict
    rng: dict
    order: np.ndarray | None
    cursor: int

    @property
    def step(self) -> int:
        return self.frame.step

    @property
    def nbytes(self) -> int:
        buffers = sum(a.nbytes for entry in self.optimizer["state"].values() for a in entry.values()
                      if isinstance(a, np.ndarray))
        return self.frame.params.nbytes + buffers


def checkpoint(state: TrainState, f: Frame | None = None) -> Checkpoint:
    """The state as it is now (`f`: its frame, if made already)."""
    # NOTE: the epoch's order is replaced, never changed in place (_next_batch), so it is kept by reference.
    return Checkpoint(f or frame(state), state.optimizer.state_dict(), state.rng.bit_generator.state,
                      state._order, state._cursor)


def rewind(state: TrainState, cp: Checkpoint) -> None:
    """Take the run back to `cp` (an earlier step of this same run): weights, optimiser state, batches, step,
    health; the curves, the replay and the schedule of learning-rate / L2 changes keep nothing after it (a
    change the run had made later takes effect at the step after `cp`, with the settings as they are now)."""
    start = 0
    for layer in state.linears():
        for p in (layer.weight, layer.bias):
            p.data[...] = cp.frame.params[start:start + p.data.size].reshape(p.data.shape)
            start += p.data.size
    state.optimizer.load_state_dict(cp.optimizer)
    state.rng.bit_generator.state = cp.rng
    state._order, state._cursor = cp.order, cp.cursor
    state.step, state.health, state.diverged = cp.step, cp.frame.health, None
    h = state.history
    keep = sum(1 for s in h.steps if s <= cp.step)
    for name in h.COLUMNS:
        setattr(h, name, getattr(h, name)[:keep])
    if not h.steps or h.steps[-1] != cp.step:
        h.append(cp.frame.metrics)
    state.frames = [f for f in state.frames if f.step <= cp.step]
    later = sorted(k for k in state.schedule if k > cp.step + 1)
    for k in later:
        state.schedule.setdefault(cp.step + 1, {}).update(state.schedule.pop(k))


# ------------------------------------------------------------------------ steps


def set_hyperparameters(state: TrainState, *, lr: float | None = None, l2: float | None = None) -> None:
    """Change the learning rate and/or L2 mid-training, keeping weights and optimiser state. A change
    after the first step is recorded in `state.schedule` (the Python script replays it at that step)."""
    before = {"lr": state.config.lr, "l2": state.config.l2}
    asked = {"lr": lr, "l2": l2}
    changes = {name: float(v) for name, v in asked.items() if v is not None and float(v) != before[name]}
    if not changes:
        return
    if "lr" in changes:
        state.optimizer.lr = changes["lr"]
    if "l2" in changes:
        state.optimizer.weight_decay = changes["l2"]
    state.config = replace(state.config, **changes)
    if state.step == 0 and 1 in state.schedule:
        state.schedule[1].update(changes)  # not trained yet: the run starts with these
    elif state.step > 0:
        state.schedule.setdefault(1, before)
        state.schedule.setdefault(state.step + 1, {}).update(changes)


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


def step(state: TrainState, n: int = 1) -> Metrics:
    """Run up to `n` optimiser steps; stops at the first non-finite loss or weight.

    Records one history point (loss and accuracy on all train and test points) per call, the
    layers' health after the last step, and a replay frame when one is due.
    """
    if state.diverged is not None or n <= 0:
        return metrics(state)
    inputs = points_inputs(state)[: len(state.y_train)]
    t0 = time.perf_counter()
    # NOTE: overflow on the way to inf is expected for a diverging run; it is caught below.
    with one_blas_thread(), np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        done = _run(state, inputs, n)
    elapsed = time.perf_counter() - t0
    if elapsed > 0 and done:
        rate = done / elapsed
        state.compute_rate = rate if state.compute_rate == 0 else 0.7 * state.compute_rate + 0.3 * rate
    if state.diverged is None:
        with one_blas_thread():
            _record(state)
    return metrics(state)


def _run(state: TrainState, inputs: np.ndarray, n: int) -> int:
    """The optimiser loop; returns the number of steps done. The last step also measures health."""
    for i in range(n):
        last = i == n - 1
        batch = _next_batch(state)
        state.optimizer.zero_grad()
        x = Tensor(inputs[batch])
        hidden = []
        for layer in state.model.layers:
            x = layer(x)
            if last and not isinstance(layer, nn.Linear):
                hidden.append(x.data)  # a hidden layer's activations on the batch
        loss = state.loss(x, state.y_train[batch])
        value = float(loss.data)
        state.step += 1
        if not math.isfinite(value):
            _diverge(state, value, "loss")
            return i + 1
        loss.backward()
        weights = [layer.weight for layer in state.linears()]
        before = [w.data.copy() for w in weights] if last else None
        state.optimizer.step()
        # NOTE: the optimiser's own list: model.parameters() walks the modules (0.1 ms a step, a fifth of one)
        if not all(np.isfinite(p.data).all() for p in state.optimizer.params):
            _diverge(state, float("inf"), "weights")
            return i + 1
        if last:
            state.health = health.layer_health(
                [w.data for w in weights], [w.grad for w in weights], before, hidden, state.config.activation
            )
    return n


def _diverge(state: TrainState, value: float, where: str) -> None:
    what = "nan" if math.isnan(value) else "inf"
    subject = "loss" if where == "loss" else "a weight"
    state.diverged = f"{subject} became {what} at step {state.step} — {_advice(state)}."


def _record(state: TrainState) -> None:
    h = state.history
    if h.steps and h.steps[-1] == state.step:
        return
    h.append(Metrics(state.step, *_evaluate_both(state)))
    last = state.frames[-1].step if state.frames else None
    if last is None or state.step >= last + state.frame_every:
        state.frames.append(frame(state))
        budget = min(MAX_FRAMES, max(2, REPLAY_BYTES // state.frames[-1].params.nbytes))
        if len(state.frames) > budget:
            state.frames = state.frames[::2]
            state.frame_every *= 2


# ------------------------------------------------------------------- pictures
# The browser draws the live view from a Frame's weights (components/frontend/live_view/static/live_math.js); these
# are the engine's own pictures, used by the tests that check the browser's against them.


def grid_points(state: TrainState, resolution: int = GRID) -> np.ndarray:
    """The picture's sample points in raw coordinates: (res², 2) row by row from the bottom
    (y ascending, then x), or (res, 1) along x for regression."""
    xs = np.linspace(state.xs[0], state.xs[-1], resolution)
    if state.task == "regression":
        return xs[:, None]
    ys = np.linspace(state.ys[0], state.ys[-1], resolution)
    gx, gy = np.meshgrid(xs, ys)
    return np.column_stack([gx.ravel(), gy.ravel()])


def layer_outputs(state: TrainState, points: np.ndarray) -> list[np.ndarray]:
    """The network on raw points: each hidden layer's activations, then the prediction
    (class-1 probability (N,) for two classes, softmax (N, C) for more, ŷ (N,) for regression)."""
    x = Tensor(model_inputs(state, points))
    outputs = []
    with no_grad(), one_blas_thread():
        for layer in state.model.layers:
            x = layer(x)
            if not isinstance(layer, nn.Linear):
                outputs.append(x.data)
        out = x.data
    if state.task == "regression":
        outputs.append(out[:, 0])
    elif out.shape[1] == 1:
        outputs.append(Tensor(out[:, 0]).sigmoid().data)
    else:
        outputs.append(Tensor(out).softmax(axis=1).data)
    return outputs


def all_points(state: TrainState) -> tuple[np.ndarray, np.ndarray]:
    """Train and test points together, as they were generated or uploaded (for the CSV download)."""
    return np.vstack([state.X_train, state.X_test]), np.concatenate([state.y_train, state.y_test])
