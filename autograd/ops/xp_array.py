"""The VJPs' namespace on arrays: the fast path of every backward pass (autograd/ops/xp_tensor.py is its twin).

Each primitive's VJP is written once, against `xp`, the handful of operations VJPs need beyond the arithmetic
operators and the methods that ndarrays and Tensors share (`g * b`, `g.sum(axis=..., keepdims=True)`,
`g.reshape(shape)`, `g.T`, `g @ w`, `g[idx]`). A VJP's keyword `xp` defaults to this module, so backward()
calls it exactly as before and pays nothing; under create_graph (autograd.grad) the engine passes
autograd.ops.xp_tensor instead, and the same body records the gradient from the primitives themselves.
The two modules define the same names (tests/engine/test_higher.py).

Masks (where an input won, which elements a max picked) are constants in both: a VJP computes them from
`xp.value(x)`, the array of x, with NumPy.
"""

import numpy as np

from autograd.ops._common import expand as _expand
from autograd.ops._common import sigmoid_from as _sigmoid_from
from autograd.ops._common import softmax_array
from autograd.special import erfc
from autograd.tensor import unbroadcast

__all__ = [  # the namespace: the same names in xp_array and xp_tensor
    "value", "where", "exp", "log", "sign", "guarded", "div_or_zero", "matmul", "swapaxes", "expand_dims",
    "transpose", "full", "sum", "expand", "sum_to", "split", "take", "scatter", "kept", "loss_scale",
    "minus_onehot", "sigmoid_from", "sigmoid", "softmax", "normal_cdf",
]

_SQRT_HALF = 0.7071067811865476

# ---- the same NumPy functions as in the forwards ------------------------------------------------------
where = np.where
exp = np.exp
log = np.log
matmul = np.matmul
swapaxes = np.swapaxes
expand_dims = np.expand_dims
transpose = np.transpose
full = np.full  # full(shape, g, dtype): g broadcast to shape, as a new array
sign = np.sign  # a constant in xp_tensor (its derivative is 0 wherever it has one); relu's VJP is on the hot path


def value(x):
    """The array of x (x itself here; a Tensor's .data in xp_tensor): for masks, which are constants."""
    return x


def div_or_zero(g, d):
    """g / d, and 0 where d = 0 (std's convention at a constant row, as PyTorch's)."""
    return np.where(d == 0, 0.0, g / d)


def guarded(x, mask, fill):
    """x, for a branch of a where that discards it at `mask` (here x itself: arrays have no gradient to spoil;
    xp_tensor puts `fill` there, so that the discarded elements stay finite and their gradient is 0, not 0·inf)."""
    return x


def sum(x, axis, keepdims):  # noqa: A001  (the namespace mirrors NumPy's names)
    return np.add.reduce(x, axis=axis, keepdims=keepdims)


def expand(g, axis, keepdims, ndim):
    """Reinserts the axes a reduction over `axis` removed (see autograd.ops._common.expand)."""
    return _expand(g, axis, keepdims, ndim)


def sum_to(g, shape):
    """g summed over the axes broadcasting added or stretched, so that it has `shape`."""
    return unbroadcast(g, shape)


def split(g, bounds, axis):
    """g cut along `axis` at `bounds` (np.split's), one piece per input of a concat."""
    return np.split(g, bounds, axis=axis)


def take(g, i, axis):
    """The i-th slice of g along `axis` (one input of a stack)."""
    return np.take(g, i, axis=axis)


def scatter(shape, dtype, idx, g, unique):
    """zeros(shape) with g added where x[idx] took its elements (repeated indices add up; `unique` when none repeat)."""
    grad = np.zeros(shape, dtype)
    if unique:
        grad[idx] = g
    else:
        np.add.at(grad, idx, g)
    return grad


def kept(saved, fn, *args):
    """What the forward saved for the VJP (here: `saved`; xp_tensor recomputes fn(*args), recording its graph)."""
    return saved


# ---- the losses' fused arithmetic -----------------------------------------------------------------------
def loss_scale(g, reduction, count):
    """The upstream gradient spread over the loss's items (for the item axis of the inputs).

    NOTE: a reduced loss's G is one number, taken as a Python float: multiplying an array by it is one
    NumPy call and keeps the array's dtype (float32 stays float32).
    """
    if reduction == "mean":  # NOTE: the mean of no items is nan, so is its slope (PyTorch's too)
        return float(g) / count if count else float("nan")
    if reduction == "sum":
        return float(g)
    return g


def minus_onehot(probs, labels):
    """probs − onehot(labels), row by row."""
    d = probs.copy()
    d[np.arange(len(labels)), labels] -= 1
    return d


def sigmoid_from(x, e):
    """σ(x) from e = exp(−|x|), which the forward kept."""
    return _sigmoid_from(x, e)


# ---- functions whose values forwards keep (kept's `fn`) -----------------------------------------------
def sigmoid(x):
    return _sigmoid_from(x, np.exp(-np.abs(x)))


def softmax(x, axis=-1):
    return softmax_array(x, axis)


def normal_cdf(x):
    """Φ(x), the standard normal's CDF."""
    return 0.5 * erfc(-x * _SQRT_HALF)
