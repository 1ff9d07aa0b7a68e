"""Functions over Tensors: activations, losses and array helpers (PyTorch's torch.nn.functional).

Each is a primitive of autograd.ops (its registry entry lists it under `functions`); the ones that
take a single tensor also accept arrays, lists and numbers.
"""

from autograd import ops
from autograd.ops import (
    binary_cross_entropy_with_logits,
    concat,
    cross_entropy,
    linear,
    maximum,
    minimum,
    mse_loss,
    stack,
    where,
)

__all__ = [
    "relu", "tanh", "sigmoid", "gelu", "silu", "softmax", "log_softmax", "exp", "log", "sqrt", "abs",
    "linear", "mse_loss", "binary_cross_entropy_with_logits", "cross_entropy", "embedding",
    "concat", "stack", "where", "maximum", "minimum",
]


def _t(x):
    return ops.as_tensor(x)


def relu(x):
    return ops.relu(_t(x))


def tanh(x):
    return ops.tanh(_t(x))


def sigmoid(x):
    return ops.sigmoid(_t(x))


def gelu(x):
    return ops.gelu(_t(x))


def silu(x):
    return ops.silu(_t(x))


def softmax(x, axis=-1):
    return ops.softmax(_t(x), axis=axis)


def log_softmax(x, axis=-1):
    return ops.log_softmax(_t(x), axis=axis)


def exp(x):
    return ops.exp(_t(x))


def log(x):
    return ops.log(_t(x))


def sqrt(x):
    return ops.sqrt(_t(x))


def abs(x):
    return ops.abs(_t(x))


def embedding(weight, idx):
    """Rows of `weight` picked by integer `idx` (any shape): out[..., :] = weight[idx[...], :]."""
    return ops.getitem(_t(weight), idx)
