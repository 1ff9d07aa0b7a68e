"""What a playground network is made of: registries of activations, initialisations, optimisers, losses, inputs.

Each registry maps the name a user picks to one function; the settings table reads the names,
the training runner the functions. Adding an optimiser is one function and one dict line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from autograd import Tensor, nn, optim
from autograd import functional as F
from autograd.nn import init

ACTIVATIONS: dict[str, type] = nn.ACTIVATIONS


# ---------------------------------------------------------------------- initialisations
# How a Linear layer's first weights are drawn. Each scheme fills W (and b) with autograd.nn.init from one
# generator, layer after layer; `code` is the same fill as the exported script writes it (of `layer`, `g`).


@dataclass(frozen=True)
class Initialisation:
    """One way to draw a Linear layer's first weights."""

    fill: Callable[[nn.Linear, np.random.Generator], None]
    code: str  # the fill in Python, of `layer` and the generator `g`
    note: str  # what it is, in a line


def _weights_then_zero_bias(fill_weight: Callable) -> Callable[[nn.Linear, np.random.Generator], None]:
    def fill(layer: nn.Linear, g: np.random.Generator) -> None:
        fill_weight(layer.weight, g)
        if layer.bias is not None:
            init.zeros_(layer.bias)
    return fill


def _pytorch_default(layer: nn.Linear, g: np.random.Generator) -> None:
    layer.reset_parameters(g)


_ZERO_BIAS = "\n    init.zeros_(layer.bias)"
INITS: dict[str, Initialisation] = {
    "PyTorch default": Initialisation(
        _pytorch_default, "layer.reset_parameters(g)",
        "PyTorch's nn.Linear: W and b uniform in ±1/√fan_in (kaiming_uniform_ with a = √5)."),
    "zeros": Initialisation(
        _weights_then_zero_bias(lambda w, g: init.zeros_(w)), "init.zeros_(layer.weight)" + _ZERO_BIAS,
        "Every weight and bias 0: all neurons of a layer compute the same thing, and stay the same."),
    "N(0, 1)": Initialisation(
        _weights_then_zero_bias(lambda w, g: init.normal_(w, 0.0, 1.0, generator=g)),
        "init.normal_(layer.weight, 0.0, 1.0, generator=g)" + _ZERO_BIAS,
        "Weights from a standard normal, biases 0: far too large for wide layers."),
    "N(0, 0.01²)": Initialisation(
        _weights_then_zero_bias(lambda w, g: init.normal_(w, 0.0, 0.01, generator=g)),
        "init.normal_(layer.weight, 0.0, 0.01, generator=g)" + _ZERO_BIAS,
        "Weights from a normal with std 0.01, biases 0: far too small for deep networks."),
    "Xavier uniform": Initialisation(
        _weights_then_zero_bias(lambda w, g: init.xavier_uniform_(w, generator=g)),
        "init.xavier_uniform_(layer.weight, generator=g)" + _ZERO_BIAS,
        "Glorot & Bengio: uniform in ±√(6 / (fan_in + fan_out)), biases 0; made for tanh and sigmoid."),
    "Xavier normal": Initialisation(
        _weights_then_zero_bias(lambda w, g: init.xavier_normal_(w, generator=g)),
        "init.xavier_normal_(layer.weight, generator=g)" + _ZERO_BIAS,
        "Glorot & Bengio: normal with std √(2 / (fan_in + fan_out)), biases 0; made for tanh and sigmoid."),
    "He uniform": Initialisation(
        _weights_then_zero_bias(lambda w, g: init.kaiming_uniform_(w, nonlinearity="relu", generator=g)),
        "init.kaiming_uniform_(layer.weight, nonlinearity='relu', generator=g)" + _ZERO_BIAS,
        "He et al. (Kaiming): uniform in ±√(6 / fan_in), biases 0; made for ReLU."),
    "He normal": Initialisation(
        _weights_then_zero_bias(lambda w, g: init.kaiming_normal_(w, nonlinearity="relu", generator=g)),
        "init.kaiming_normal_(layer.weight, nonlinearity='relu', generator=g)" + _ZERO_BIAS,
        "He et al. (Kaiming): normal with std √(2 / fan_in), biases 0; made for ReLU."),
}
DEFAULT_INIT = "PyTorch default"


def initialise(layers: list[nn.Linear], name: str, g: np.random.Generator) -> None:
    """Draws every layer's weights with the scheme `name`, in order, from the one generator `g`."""
    for layer in layers:
        INITS[name].fill(layer, g)


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

# Extra input features, TensorFlow-Playground style: name -> function of the normalised inputs (N, d).
# NOTE: components/frontend/live_view/static/live_math.js (inputRows) computes the same features in the
# browser; a browser test checks the two agree.
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


def features_for(task: str) -> dict[str, Callable[[np.ndarray], np.ndarray]]:
    return FEATURES_1D if task == "regression" else FEATURES_2D


# ----------------------------------------------------------------------------- losses
# A loss compares the network's output (N, K) with the labels: one logit for two classes, one logit
# per class for more, the prediction for regression. For one output width it is a `Criterion`: the
# targets it takes (made from the labels), the engine's comparison, and how the expression language
# writes that comparison (the step's graph in the Explorer).


@dataclass(frozen=True)
class Criterion:
    """One loss for one output width."""

    targets: Callable[[np.ndarray], np.ndarray]  # labels (N,) -> float targets (N, K), or class numbers (N,)
    compare: Callable[[Tensor, Tensor | np.ndarray], Tensor]  # (output, targets) -> the scalar loss
    program: str  # the comparison in the expression language, of `out` and the targets `y`

    def __call__(self, out: Tensor, y: np.ndarray) -> Tensor:
        """The loss of `out` for labels `y` (the targets become a constant tensor; class numbers stay numbers)."""
        targets = self.targets(y)
        return self.compare(out, Tensor(targets) if targets.dtype.kind == "f" else targets)


def _column(y: np.ndarray) -> np.ndarray:
    return y.astype(np.float64)[:, None]


def _one_hot(classes: int) -> Callable[[np.ndarray], np.ndarray]:
    return lambda y: np.eye(classes)[y]


def _labels(y: np.ndarray) -> np.ndarray:
    return y


def _cross_entropy(width: int) -> Criterion:
    if width == 1:
        return Criterion(_column, F.binary_cross_entropy_with_logits, "binary_cross_entropy_with_logits(out, y)")
    return Criterion(_labels, F.cross_entropy, "cross_entropy(out, y)")


def _mse_of_probabilities(width: int) -> Criterion:
    """Squared error between the predicted class probabilities and the one-hot labels: the loss a
    teacher compares with cross-entropy (its gradient fades where the model is confidently wrong)."""
    if width == 1:
        return Criterion(_column, lambda out, t: F.mse_loss(F.sigmoid(out), t), "mse_loss(sigmoid(out), y)")
    return Criterion(_one_hot(width), lambda out, t: F.mse_loss(F.softmax(out, axis=1), t),
                     "mse_loss(softmax(out, axis=1), y)")


def _mse(width: int) -> Criterion:
    return Criterion(_column, F.mse_loss, "mse_loss(out, y)")


# task -> loss name -> (output width -> Criterion, description)
LOSSES: dict[str, dict[str, tuple[Callable[[int], Criterion], str]]] = {
    "classification": {
        "cross-entropy": (_cross_entropy, "cross-entropy of the predicted class probabilities"),
        "MSE": (_mse_of_probabilities, "mean squared error between probabilities and one-hot labels"),
    },
    "regression": {
        "MSE": (_mse, "mean squared error"),
    },
}


def criterion(task: str, loss: str, width: int) -> Criterion:
    """The loss `loss` of a `task` network with `width` outputs."""
    return LOSSES[task][loss][0](width)


def loss_names(task: str) -> tuple[str, ...]:
    return tuple(LOSSES[task])
