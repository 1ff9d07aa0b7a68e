"""What a playground network is made of: registries of activations, optimisers, losses and extra inputs.

Each registry maps the name a user picks to one function; the settings table reads the names,
the training runner the functions. Adding an optimiser is one function and one dict line.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from autograd import Tensor, nn, optim
from autograd import functional as F

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

# Extra input features, TensorFlow-Playground style: name -> function of the normalised inputs (N, d).
# NOTE: components/live_view/net.js computes the same features in the browser; a browser test
# checks the two agree.
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
# A loss takes the network's output (N, K) and the targets and returns a scalar Tensor. The output
# is one logit for two classes, one logit per class for more, the prediction for regression.


def _cross_entropy(out: Tensor, y: np.ndarray) -> Tensor:
    if out.shape[1] == 1:
        return F.binary_cross_entropy_with_logits(out, Tensor(y.astype(np.float64)[:, None]))
    return F.cross_entropy(out, y)


def _mse(out: Tensor, y: np.ndarray) -> Tensor:
    return F.mse_loss(out, Tensor(y.astype(np.float64)[:, None]))


def _mse_of_probabilities(out: Tensor, y: np.ndarray) -> Tensor:
    """Squared error between the predicted class probabilities and the one-hot labels: the loss a
    teacher compares with cross-entropy (its gradient fades where the model is confidently wrong)."""
    if out.shape[1] == 1:
        return F.mse_loss(F.sigmoid(out), Tensor(y.astype(np.float64)[:, None]))
    return F.mse_loss(F.softmax(out, axis=1), Tensor(np.eye(out.shape[1])[y]))


# task -> loss name -> (function, description)
LOSSES: dict[str, dict[str, tuple[Callable[[Tensor, np.ndarray], Tensor], str]]] = {
    "classification": {
        "cross-entropy": (_cross_entropy, "cross-entropy of the predicted class probabilities"),
        "MSE": (_mse_of_probabilities, "mean squared error between probabilities and one-hot labels"),
    },
    "regression": {
        "MSE": (_mse, "mean squared error"),
    },
}


def loss_names(task: str) -> tuple[str, ...]:
    return tuple(LOSSES[task])
