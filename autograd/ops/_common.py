"""What the primitives share: argument handling, axes, and the shape rules several of them use."""

import builtins
import math

import numpy as np

from autograd.tensor import Tensor, _as_array


# ---- arguments ----------------------------------------------------------------------------------
def as_tensor(x, like=None):
    """`x` as a Tensor; Python numbers take the float dtype of `like` (float32 stays float32)."""
    if isinstance(x, Tensor):
        return x
    if like is not None and isinstance(x, (int, float)) and like.data.dtype.kind == "f":
        return Tensor._constant(np.asarray(x, dtype=like.data.dtype))
    return Tensor._constant(_as_array(x))


def pair(a, b):
    """Two operands as Tensors: a Python number takes the other operand's float dtype."""
    if not isinstance(a, Tensor):
        a = as_tensor(a, like=b if isinstance(b, Tensor) else None)
    if not isinstance(b, Tensor):
        b = as_tensor(b, like=a)
    return a, b


_SCALARS = {}


def scalar(value, dtype):
    """A cached 0-d array of `dtype`: NumPy combines arrays with it faster than with a Python number."""
    key = (value, dtype)
    cached = _SCALARS.get(key)
    if cached is None:
        cached = _SCALARS[key] = np.full((), value, dtype=dtype)
    return cached


def mask_array(mask):
    """A mask (Tensor, array or nested list) as a boolean ndarray."""
    return np.asarray(mask.data if isinstance(mask, Tensor) else mask, dtype=bool)


def sizes(args):
    """`reshape(2, 3)` and `reshape((2, 3))` alike: a tuple of the integers given."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return tuple(args)


# ---- axes ---------------------------------------------------------------------------------------
def axes_of(axis, ndim):
    """`axis` (None, int or tuple) as a sorted tuple of non-negative axes; ValueError if out of range."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    for ax in axes:
        if not isinstance(ax, (int, np.integer)) or isinstance(ax, bool):
            raise ValueError(f"an axis must be a whole number, got {ax!r}")
        if not -ndim <= ax < builtins.max(ndim, 1):
            raise ValueError(f"axis {ax} is out of range for a tensor with {ndim} dimensions")
    normal = [ax % builtins.max(ndim, 1) for ax in axes]
    if len(set(normal)) != len(normal):
        raise ValueError(f"axis {tuple(axes)} names the same axis twice")
    return tuple(sorted(normal))


def expand(g, axis, keepdims, ndim):
    """Reinserts the axes a reduction removed, so `g` broadcasts against the reduction's input."""
    # NOTE: a reduction of a 0-d tensor (over axis 0, -1 or None, as NumPy allows) removes no axis.
    if keepdims or ndim == 0:
        return g
    return np.expand_dims(g, axes_of(axis, ndim))


def reduced_count(shape, axis):
    """How many elements a reduction over `axis` combines into each output element."""
    if not shape:  # a 0-d tensor: one element, whichever axis NumPy lets it be reduced over
        return 1
    return math.prod(shape[ax] for ax in axes_of(axis, len(shape)))


# ---- kernels on arrays that forwards and VJPs share ----------------------------------------------
def sigmoid_from(x, e):
    """σ(x) given e = exp(−|x|): 1/(1 + e) for x ≥ 0, e/(1 + e) below."""
    one = scalar(1, e.dtype)
    return np.where(x >= scalar(0, x.dtype), one, e) / (one + e)


def log_softmax_array(x, axis):
    """log softmax of an array along `axis`, shifted by the max so that exp never overflows."""
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def softmax_array(x, axis=-1):
    """softmax of an array along `axis`, shifted by the max so that exp never overflows."""
    shifted = np.exp(x - x.max(axis=axis, keepdims=True))
    return shifted / shifted.sum(axis=axis, keepdims=True)


# ---- shape rules shared by several primitives ----------------------------------------------------
def same_shape(a, *args, **kwargs):
    """The shape rule of an elementwise op of one input: the output has the input's shape."""
    return tuple(a)


def broadcast_shape(name):
    """The shape rule of a broadcasting op called `name`: NumPy's broadcast of the inputs' shapes."""

    def rule(*shapes):
        try:
            return tuple(np.broadcast_shapes(*shapes))
        except ValueError:
            listed = " and ".join(str(tuple(s)) for s in shapes)
            raise ValueError(f"{name}: shapes {listed} cannot be broadcast together") from None

    return rule


def reduced_shape(a, axis=None, keepdims=False):
    """The shape after reducing over `axis`: those axes dropped, or kept as 1 with keepdims."""
    axes = axes_of(axis, len(a))
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(a))
    return tuple(d for i, d in enumerate(a) if i not in axes)


def softmax_shape(a, axis=-1):
    axes_of(axis, len(a))
    return tuple(a)


# ---- forward mode: a JVP's terms, one per input that has a tangent ------------------------------------
def tangent_sum(*terms):
    """The sum of a JVP's terms, leaving out None (the term of an input without a tangent)."""
    total = None
    for term in terms:
        if term is not None:
            total = term if total is None else total + term
    return total


def plugged_terms(*terms):
    """A JVP's rule with its numbers put in, from its terms: each (tangent, rule), where rule(tangent) gives
    the term's (text, value); a term whose tangent is None is left out. Texts are joined by ' + ' (' − ' for a
    text that starts with −); the value is the terms' sum."""
    text, value = "", None
    for tangent, rule in terms:
        if tangent is None:
            continue
        part_text, part = rule(tangent)
        if value is None:
            text, value = part_text, part
        else:
            text += f" − {part_text[1:]}" if part_text.startswith("−") else f" + {part_text}"
            value = value + part
    return text, value
