"""The initialisation and depth lab: a deep MLP at step 0 on one batch, each layer's activations and gradients.

`LabConfig` holds the learner's choices (data set, initialisation, activation, width, depth, batch,
seed), each declared once with its widget and range (explorer.settings.Setting), and
read from a URL by `LabConfig.from_query`. `analyse(config)` builds the network with the engine
(nn.Linear layers drawn by explorer.playground.catalogue.INITS), runs one batch forward and backward, and returns
each hidden layer's activation statistics, histogram and weight-gradient norm; `findings(result)`
says in words what they show (vanishing or exploding gradients, saturation, dead units, symmetry).
No Streamlit here; the page runs `analyse` in the sandbox (it can be large: see MAX_NUMBERS).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from autograd import Tensor, nn
from explorer.numbers import fmt_percent, plain_number, power_of_ten
from explorer.playground import catalogue, datasets, health
from explorer.settings import Setting, read_query, rows, setting, settings_query

MAX_WIDTH = 256
MAX_DEPTH = 50
MAX_BATCH = 1000
#: width × depth × batch: the hidden activations one analysis holds (and as many gradients). 4 million
#: float64 numbers are 32 MB each way, about a second of work on a busy 2-core server.
MAX_NUMBERS = 4_000_000
NOISE = 0.2  # the data set's noise (the Playground's default)
BINS = 41  # histogram bins per layer (odd: 0 is a bin's centre)
STDS = 5.0  # unbounded activations' histograms reach this many of their layer's stds
MOSTLY = 0.5  # a share above this is "most"
VANISHED = 1e-2  # layer 1's gradient below this share of the last layer's: vanishing
EXPLODED = 1e2  # ... above this many times: exploding
SPREAD_CHANGE = 10  # the last layer's activation std this many times smaller or larger than layer 1's
HUGE = 1e6  # every layer's gradient norm above this: no usual learning rate survives a step
TINY = 1e-6  # ... below this: nothing moves


@dataclass(frozen=True)
class LabConfig:
    """One lab setting: the network (init, activation, width, depth) and the batch it sees."""

    dataset: str = setting("two moons", "Data set", "select", "Data", choices=tuple(datasets.DATASETS),
                           help="One batch of these points goes through the network (standardised: mean 0, std 1).")
    init: str = setting("N(0, 1)", "Initialisation", "select", "Network", choices=tuple(catalogue.INITS),
                        help="How every layer's first weights are drawn.")
    activation: str = setting("tanh", "Activation", "select", "Network", choices=tuple(catalogue.ACTIVATIONS))
    width: int = setting(64, "Width (neurons per layer)", "slider", "Network", lo=2, hi=MAX_WIDTH, step=1)
    depth: int = setting(50, "Depth (hidden layers)", "slider", "Network", lo=1, hi=MAX_DEPTH, step=1)
    batch: int = setting(200, "Batch (points)", "slider", "Data", lo=10, hi=MAX_BATCH, step=10,
                         help=f"width × depth × batch is at most {MAX_NUMBERS:,}.")
    seed: int = setting(0, "Seed", "number", "Data", lo=0, hi=10_000, step=1,
                        help="Draws the points and the first weights.")

    def __post_init__(self):
        for s in LAB_SETTINGS:
            s.check(getattr(self, s.name), "")
        if self.numbers > MAX_NUMBERS:
            raise ValueError(
                f"width × depth × batch = {self.width} × {self.depth} × {self.batch} = {self.numbers:,} activations, "
                f"more than the {MAX_NUMBERS:,} the lab computes at once"
            )

    @property
    def numbers(self) -> int:
        return self.width * self.depth * self.batch

    def to_query(self) -> dict[str, str]:
        return settings_query(self, LAB_SETTINGS)

    @classmethod
    def from_query(cls, params: dict[str, str], base: LabConfig | None = None) -> tuple[LabConfig, list[str]]:
        """A config from URL parameters, never raising: out-of-range numbers are clamped, unknown names
        ignored, and each is reported; settings missing from the URL come from `base` (else the defaults)."""
        values, _, problems = read_query(LAB_SETTINGS, params, kept=lambda name: getattr(base or cls, name))
        start = {s.name: getattr(base, s.name) for s in LAB_SETTINGS} if base is not None else {}
        config, why = fitted({**start, **values})
        return config, problems + ([why] if why else [])


LAB_SETTINGS: tuple[Setting, ...] = rows(LabConfig)
#: The parameters the depth lab reads from its link.
LINK_PARAMS: tuple[str, ...] = tuple(s.name for s in LAB_SETTINGS)


def fitted(values: dict[str, Any]) -> tuple[LabConfig, str]:
    """A config of these values, its batch made smaller if width × depth × batch is over MAX_NUMBERS
    (then with a sentence saying so), else ('')."""
    try:
        return LabConfig(**values), ""
    except ValueError:
        pass
    probe = LabConfig(**{**values, "batch": LAB_SETTINGS_BY_NAME["batch"].lo})  # other errors raise here
    step = int(LAB_SETTINGS_BY_NAME["batch"].step)
    batch = max(step, MAX_NUMBERS // (probe.width * probe.depth) // step * step)
    asked = values["batch"]
    return replace(probe, batch=batch), (
        f"width × depth × batch = {probe.width} × {probe.depth} × {asked} = {probe.width * probe.depth * asked:,} "
        f"activations is more than the lab computes at once ({MAX_NUMBERS:,}): using a batch of {batch}"
    )


LAB_SETTINGS_BY_NAME: dict[str, Setting] = {s.name: s for s in LAB_SETTINGS}


# --------------------------------------------------------------------------------------- the analysis


@dataclass(frozen=True)
class LayerStats:
    """One hidden layer (Linear then the activation) on the batch at step 0."""

    layer: int  # 1 = the first hidden layer
    act_mean: float
    act_std: float  # over every point and neuron
    grad_norm: float  # ‖∂L/∂W‖ of this layer's weights (Frobenius)
    saturated: float | None  # share of the activations on tanh's / sigmoid's flat tails (None: no tails)
    zero: float | None  # ReLU: share of the activations that are exactly 0
    dead: float | None  # ReLU: share of the neurons that are 0 for every point
    identical: bool  # every neuron of the layer has the same value on every point


@dataclass(frozen=True)
class LabResult:
    config: LabConfig
    layers: tuple[LayerStats, ...]
    edges: np.ndarray  # BINS + 1 histogram edges, the same for every layer (in stds: see `scaled`)
    hist: np.ndarray  # (depth, BINS): each layer's share of activations per bin (values outside go to the end bins)
    loss: float
    overflow: int | None  # the first layer whose activations or gradients are not finite (None: all finite)


def batch(config: LabConfig) -> tuple[np.ndarray, np.ndarray]:
    """The data set's points, standardised per coordinate (mean 0, std 1), and their labels."""
    X, y = datasets.generate(config.dataset, config.batch, NOISE, config.seed)
    spread = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(spread > 0, spread, 1.0), y


def network(config: LabConfig, n_in: int, n_out: int) -> list[nn.Linear]:
    """depth hidden Linear layers of `width` and the output layer, drawn by the chosen initialisation."""
    sizes = [n_in] + [config.width] * config.depth + [n_out]
    g = np.random.default_rng(config.seed)
    layers = [nn.Linear(a, b, rng=g) for a, b in zip(sizes[:-1], sizes[1:])]  # PyTorch's default draws
    catalogue.initialise(layers, config.init, np.random.default_rng(config.seed))  # the chosen ones, from the seed
    return layers


def analyse(config: LabConfig) -> LabResult:
    """One forward and backward pass of the network on the batch (the engine's own), layer by layer."""
    X, y = batch(config)
    task = datasets.task_of(config.dataset)
    n_classes = int(y.max()) + 1 if task == "classification" else 1
    n_out = n_classes if n_classes > 2 else 1
    layers = network(config, X.shape[1], n_out)
    activation = nn.ACTIVATIONS[config.activation]()
    criterion = catalogue.criterion(task, catalogue.loss_names(task)[0], n_out)
    with np.errstate(all="ignore"):  # NOTE: N(0, 1) with ReLU grows ~√(width/2)× a layer: it may overflow
        x, acts = Tensor(X), []
        for layer in layers[:-1]:
            x = activation(layer(x))
            acts.append(x.data)
        loss = criterion(layers[-1](x), y)
        loss.backward()
        stats = [_stats(i + 1, a, layer.weight.grad, config.activation) for i, (a, layer) in
                 enumerate(zip(acts, layers[:-1]))]
        edges = _edges(config.activation)
        hist = np.array([_histogram(a, edges, config.activation) for a in acts])
    bad = [s.layer for s in stats if not (math.isfinite(s.act_std) and math.isfinite(s.grad_norm))]
    return LabResult(config, tuple(stats), edges, hist, float(loss.data), bad[0] if bad else None)


def _stats(layer: int, a: np.ndarray, grad: np.ndarray | None, activation: str) -> LayerStats:
    saturated = zero = dead = None
    if activation == "tanh":
        saturated = float(np.mean(np.abs(a) > health.SATURATED_TANH))
    elif activation == "sigmoid":
        saturated = float(np.mean((a < health.SATURATED_SIGMOID) | (a > 1 - health.SATURATED_SIGMOID)))
    elif activation == "relu":
        zero = float(np.mean(a == 0))
        dead = health.dead_fraction(a)
    return LayerStats(
        layer=layer,
        act_mean=float(a.mean()),
        act_std=float(a.std()),
        grad_norm=health.norm(grad),
        saturated=saturated,
        zero=zero,
        dead=dead,
        identical=bool(a.shape[1] > 1 and np.all(a[:, :1] == a)),
    )


def _edges(activation: str) -> np.ndarray:
    """Bins shared by all layers, so their histograms compare: tanh's and sigmoid's own ranges; for the
    unbounded activations, the value in units of its layer's std (a layer's shape, whatever its scale)."""
    if activation == "tanh":
        return np.linspace(-1.0, 1.0, BINS + 1)
    if activation == "sigmoid":
        return np.linspace(0.0, 1.0, BINS + 1)
    return np.linspace(0.0 if activation == "relu" else -STDS, STDS, BINS + 1)


def scaled(activation: str) -> bool:
    """Whether the histograms count activations in units of their layer's std (the unbounded ones)."""
    return activation not in ("tanh", "sigmoid")


def _histogram(a: np.ndarray, edges: np.ndarray, activation: str) -> np.ndarray:
    values = a[np.isfinite(a)]
    if scaled(activation):
        spread = values.std() if values.size else 0.0
        values = values / spread if spread > 0 else values - values
    counts, _ = np.histogram(np.clip(values, edges[0], edges[-1]), bins=edges)
    return counts / max(a.size, 1)


# ------------------------------------------------------------------------------------------ words


def findings(result: LabResult) -> list[str]:
    """What the numbers show, in plain sentences: the gradient from the last layer to layer 1, the
    activations' spread over depth, saturation or dead units, identical neurons, overflow."""
    layers = result.layers
    first, last = layers[0], layers[-1]
    config = result.config
    said = []
    if result.overflow is not None:
        forward = [s.layer for s in layers if not math.isfinite(s.act_std)]
        said.append(f"The activations overflow (become inf or nan) from layer {forward[0]}: the signal grows faster "
                    "than floating point can follow." if forward else
                    "The gradients overflow (become inf or nan) on the way back: they grow faster than floating point "
                    "can follow.")
    if all(s.identical for s in layers) and config.width > 1:
        said.append("Every neuron of a layer computes the same value for every point (their weights start equal), "
                    "so each gets the same gradient and they stay identical: the layer might as well have one neuron.")
    said.append(_gradient_words(first, last))
    said.append(_size_words([s.grad_norm for s in layers]))
    if result.config.activation in ("tanh", "sigmoid"):
        tails = [s.layer for s in layers if s.saturated is not None and s.saturated > MOSTLY]
        if tails:
            flat = "|a| > 0.99" if config.activation == "tanh" else "a < 0.01 or a > 0.99"
            said.append(f"In {_count(tails, len(layers))} most activations sit on {config.activation}'s flat tails "
                        f"({flat}: {fmt_percent(last.saturated)} in the last layer), where its slope is under 0.02: "
                        "those neurons hardly respond to their input and pass almost no gradient back.")
    said.append(_spread_words(layers))
    if config.activation == "relu" and last.dead is not None and last.dead > MOSTLY and not last.identical:
        said.append(f"{fmt_percent(last.dead)} of the last layer's ReLU neurons output 0 for every point of the batch "
                    "(dead): no gradient reaches their weights from it.")
    return [s for s in said if s]


def _gradient_words(first: LayerStats, last: LayerStats) -> str:
    if first.layer == last.layer:
        return (f"With one hidden layer there is no depth to lose the gradient in "
                f"(its norm is {plain_number(first.grad_norm)}).")
    if not (math.isfinite(first.grad_norm) and math.isfinite(last.grad_norm)):
        return ""
    if last.grad_norm == 0 and first.grad_norm == 0:
        return "No gradient reaches the hidden layers' weights: every one of them is exactly 0, so they never move."
    if first.grad_norm == 0:
        return (f"The gradient at layer 1 is exactly 0 while the last layer's (layer {last.layer}) is "
                f"{plain_number(last.grad_norm)}: nothing flows back to the first layers.")
    if last.grad_norm == 0:
        return f"The last layer's gradient is exactly 0 while layer 1's is {plain_number(first.grad_norm)}."
    ratio = first.grad_norm / last.grad_norm
    where = f"the last layer's (layer {last.layer})"
    if ratio < VANISHED:
        return (f"The gradient at layer 1 is {power_of_ten(ratio)} of {where}: vanishing gradients. "
                "The first layers would barely learn.")
    if ratio > EXPLODED:
        return (f"The gradient at layer 1 is {power_of_ten(ratio)} times {where}: exploding gradients. "
                "The first layers would take huge steps.")
    return f"The gradient keeps its size through the depth: layer 1's is {plain_number(ratio)} times {where}."


def _size_words(norms: list[float]) -> str:
    finite = [v for v in norms if math.isfinite(v)]
    if not finite or max(finite) == 0:
        return ""
    if min(finite) > HUGE:
        return (f"Every layer's gradient is huge (from {plain_number(min(finite))} to {plain_number(max(finite))}): "
                "a step at any usual learning rate would blow the weights up.")
    if max(finite) < TINY:
        return (f"Every layer's gradient is tiny (at most {plain_number(max(finite))}): at any usual learning rate "
                "the weights would not move.")
    return ""


def _spread_words(layers: tuple[LayerStats, ...]) -> str:
    stds = [s.act_std for s in layers]
    first, last = stds[0], stds[-1]
    if not all(math.isfinite(v) for v in stds):
        return ""
    if max(stds) == 0:
        return "Every activation is the same on every point (their spread is 0 in every layer): the input is lost."
    if len(stds) == 1:
        return f"The activations' spread (std) is {plain_number(first)}."
    span = f"from {plain_number(first)} in layer 1 to {plain_number(last)} in layer {layers[-1].layer}"
    if last * SPREAD_CHANGE < first:
        fades = " The signal fades away." if last < first * VANISHED else ""
        return f"The activations shrink with depth: their spread (std) falls {span}.{fades}"
    if last > first * SPREAD_CHANGE:
        explodes = " The signal explodes." if last > first * EXPLODED else ""
        return f"The activations grow with depth: their spread (std) rises {span}.{explodes}"
    low, high = min(stds), max(stds)
    return (f"The activations' spread (std) stays between {plain_number(low)} and {plain_number(high)} "
            f"in all {len(stds)} layers.")


def _count(layer_numbers: list[int], total: int) -> str:
    if len(layer_numbers) == total:
        return f"all {total} layers"
    if layer_numbers == list(range(layer_numbers[0], layer_numbers[-1] + 1)):
        return f"layers {layer_numbers[0]}–{layer_numbers[-1]}"
    return f"{len(layer_numbers)} of the {total} layers"
