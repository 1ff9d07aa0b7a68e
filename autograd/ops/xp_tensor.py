"""The VJPs' namespace on Tensors: under create_graph, a VJP's body records its gradient from the primitives.

The twin of autograd/ops/xp_array.py, name for name. The engine (autograd/higher.py) calls a VJP with
`xp=xp_tensor`, the upstream gradient, the node and its parents as Tensors; every operation the body makes
then goes through a primitive's forward, so the gradient it returns has a graph of its own (HIPS autograd's
way: the VJPs are written in the engine's own differentiable NumPy) and can be differentiated again.
Masks stay constants (`value` gives a Tensor's array). Nothing here is a switch: the namespace is an
argument, so one thread's create_graph cannot change another's backward pass.
"""

import math

import numpy as np

from autograd.ops import arithmetic, elementwise, linalg, reductions, shapes, xp_array
from autograd.ops._common import axes_of
from autograd.tensor import Tensor, broadcast_axes

__all__ = list(xp_array.__all__)  # the namespace: one list of names, xp_array's, defined here on Tensors

where = elementwise.where
exp = elementwise.exp
log = elementwise.log
matmul = linalg.matmul
sigmoid = elementwise.sigmoid
normal_cdf = elementwise.normal_cdf


def _constant(array):
    return Tensor._constant(np.asarray(array))


def value(x):
    """The array of x: masks computed from it are constants."""
    return x.data if isinstance(x, Tensor) else x


def sign(x):
    """sign(x), a constant (its derivative is 0 wherever it has one)."""
    return _constant(np.sign(value(x)))


def div_or_zero(g, d):
    """g / d, and 0 where d = 0; the division never sees the 0 (so its own gradient there is 0, not nan)."""
    zero = value(d) == 0
    return where(zero, 0.0, g / guarded(d, zero, 1.0))


def guarded(x, mask, fill):
    """x with `fill` where `mask`: a where's discarded branch stays finite, so its gradient there is 0 (not 0·inf)."""
    return where(mask, fill, x) if np.any(mask) else x


def swapaxes(x, a, b):
    axes = list(range(x.ndim))
    axes[a], axes[b] = axes[b], axes[a]
    return shapes.transpose(x, *axes)


def expand_dims(x, axis):
    return shapes.unsqueeze(x, axis)


def transpose(x, axes=None):
    return shapes.transpose(x) if axes is None else shapes.transpose(x, *(int(ax) for ax in axes))


def full(shape, g, dtype):
    """g broadcast to `shape` (recorded as g + zeros, whose VJP sums it back)."""
    shape = tuple(shape)
    if g.shape == shape:
        return g
    return arithmetic.add(g, _constant(np.zeros(shape, dtype)))


def sum(x, axis, keepdims):  # noqa: A001  (the namespace mirrors NumPy's names)
    return reductions.sum(x, axis=axis, keepdims=keepdims)


def expand(g, axis, keepdims, ndim):
    """Reinserts the axes a reduction over `axis` removed, as a reshape."""
    # NOTE: a reduction of a 0-d tensor (over axis 0, -1 or None, as NumPy allows) removes no axis.
    if keepdims or ndim == 0:
        return g
    shape = list(g.shape)
    for ax in axes_of(axis, ndim):
        shape.insert(ax, 1)
    return shapes.reshape(g, tuple(shape))


def sum_to(g, shape):
    """g summed over the axes broadcasting added or stretched, so that it has `shape`."""
    shape = tuple(shape)
    if g.shape == shape:
        return g
    axes = broadcast_axes(g.shape, shape)
    if axes:
        g = reductions.sum(g, axis=axes)
    return g if g.shape == shape else shapes.reshape(g, shape)


def _along(axis, ndim, part):
    return (slice(None),) * (axis % ndim) + (part,)


def split(g, bounds, axis):
    starts = [0, *(int(b) for b in bounds)]
    stops = [*starts[1:], g.shape[axis]]
    return [shapes.getitem(g, _along(axis, g.ndim, slice(a, b))) for a, b in zip(starts, stops)]


def take(g, i, axis):
    return shapes.getitem(g, _along(axis, g.ndim, i))


def scatter(shape, dtype, idx, g, unique):
    """zeros(shape) with g added where x[idx] took its elements, made of gathers: each element of the result
    picks the element of g that came from it (the r-th such, in round r, when indices repeat), or a 0
    appended to g when none did. Gathers are getitems, so the result has a graph."""
    size = math.prod(shape)
    source = np.arange(size).reshape(shape)[idx].reshape(-1)  # the element of x each element of g came from
    if source.size == 0:
        return _constant(np.zeros(shape, dtype))
    flat = shapes.concat([shapes.reshape(g, (-1,)), _constant(np.zeros(1, dtype))])
    empty = source.size  # the position of the appended 0
    if unique:
        rounds = [(source, np.arange(source.size))]
    else:
        order = np.argsort(source, kind="stable")
        ranked = source[order]
        rank = np.arange(ranked.size) - np.searchsorted(ranked, ranked, side="left")
        rounds = [(ranked[rank == r], order[rank == r]) for r in range(int(rank.max()) + 1)]
    total = None
    for targets, picked in rounds:
        pick = np.full(size, empty)
        pick[targets] = picked
        term = shapes.getitem(flat, pick)
        total = term if total is None else arithmetic.add(total, term)
    return shapes.reshape(total, tuple(shape))


def kept(saved, fn, *args):
    """What the forward saved for the VJP, recomputed from the inputs, so that its graph is recorded."""
    return fn(*args)


def loss_scale(g, reduction, count):
    """The upstream gradient spread over the loss's items."""
    if reduction == "mean":
        return g / count if count else g * float("nan")
    return g


def minus_onehot(probs, labels):
    """probs − onehot(labels), row by row."""
    return probs - _constant(np.eye(probs.shape[-1], dtype=probs.dtype)[labels])


def sigmoid_from(x, e):
    """σ(x), recorded (the forward's e = exp(−|x|) is not needed)."""
    return elementwise.sigmoid(x)


def softmax(x, axis=-1):
    return reductions.softmax(x, axis)
