"""The primitives: each op's forward and its vector-Jacobian product, side by side, defined once.

Every VJP follows the contract stated on `Primitive` (tensor.py):
    vjp(g, out, *inputs, need, **meta) -> one gradient (or None) per input.
Gradients may keep `out`'s broadcast shape; the engine sums them back to each input's shape.
The `formula` of each primitive is what the Backward Stepper shows (G is the upstream gradient).
"""

import builtins

import numpy as np

from autograd.special import erfc
from autograd.tensor import Primitive, Tensor, _as_array, _result


# ---- argument handling -------------------------------------------------------------------------
def as_tensor(x, like=None):
    """`x` as a Tensor; Python numbers take the float dtype of `like` (float32 stays float32)."""
    if isinstance(x, Tensor):
        return x
    if like is not None and isinstance(x, (int, float)) and like.data.dtype.kind == "f":
        return Tensor._constant(np.asarray(x, dtype=like.data.dtype))
    return Tensor._constant(_as_array(x))


def _pair(a, b):
    if not isinstance(a, Tensor):
        a = as_tensor(a, like=b)
    elif not isinstance(b, Tensor):
        b = as_tensor(b, like=a)
    return a, b


def _mismatch(name, a, b):
    return ValueError(f"{name}: shapes {a.shape} and {b.shape} cannot be broadcast together")


def _elementwise(a, b, fn, prim):
    """Forward of a broadcasting binary primitive: fn(a, b) with a clear error on shape mismatch."""
    if not isinstance(a, Tensor):
        a = as_tensor(a, like=b)
    elif not isinstance(b, Tensor):
        b = as_tensor(b, like=a)
    try:
        out = fn(a.data, b.data)
    except ValueError:
        raise _mismatch(prim.name, a, b) from None
    return _result(out, (a, b), prim)


def _axes(axis, ndim):
    """`axis` (None, int or tuple) as a sorted tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    for ax in axes:
        if not -ndim <= ax < builtins.max(ndim, 1):
            raise ValueError(f"axis {ax} is out of range for a tensor with {ndim} dimensions")
    return tuple(sorted(ax % builtins.max(ndim, 1) for ax in axes))


def _expand(g, axis, keepdims, ndim):
    """Reinserts the axes a reduction removed, so `g` broadcasts against the reduction's input."""
    if keepdims or axis is None and ndim == 0:
        return g
    return np.expand_dims(g, _axes(axis, ndim))


# ---- add -----------------------------------------------------------------------------------
def add(a, b):
    return _elementwise(a, b, np.add, ADD)


def _add_vjp(g, out, a, b, need):
    return g, g


ADD = Primitive("add", _add_vjp, "dA = G,  dB = G")


# ---- sub -----------------------------------------------------------------------------------
def sub(a, b):
    return _elementwise(a, b, np.subtract, SUB)


def _sub_vjp(g, out, a, b, need):
    return g, (-g if need[1] else None)


SUB = Primitive("sub", _sub_vjp, "dA = G,  dB = −G")


# ---- mul -----------------------------------------------------------------------------------
def mul(a, b):
    return _elementwise(a, b, np.multiply, MUL)


def _mul_vjp(g, out, a, b, need):
    return (g * b if need[0] else None), (g * a if need[1] else None)


MUL = Primitive("mul", _mul_vjp, "dA = G ⊙ B,  dB = G ⊙ A")


# ---- div -----------------------------------------------------------------------------------
def div(a, b):
    return _elementwise(a, b, np.true_divide, DIV)


def _div_vjp(g, out, a, b, need):
    return (g / b if need[0] else None), (-g * out / b if need[1] else None)


DIV = Primitive("div", _div_vjp, "dA = G / B,  dB = −G ⊙ A / B²")


# ---- pow -----------------------------------------------------------------------------------
def pow(a, b):
    return _elementwise(a, b, np.power, POW)


def _pow_vjp(g, out, a, b, need):
    da = db = None
    with np.errstate(divide="ignore", invalid="ignore"):
        if need[0]:
            # NOTE: like PyTorch, d(a^0)/da = 0 even at a = 0 (not 0 * 0^-1 = nan).
            da = np.where(b == 0, 0.0, g * b * a ** (b - 1))
        if need[1]:
            # NOTE: like PyTorch, d(0^b)/db = 0 for b >= 0 (not 0 * log 0 = nan).
            db = np.where((a == 0) & (b >= 0), 0.0, g * out * np.log(a))
    return da, db


POW = Primitive("pow", _pow_vjp, "dA = G ⊙ B·A^(B−1),  dB = G ⊙ A^B·log A")


# ---- neg -----------------------------------------------------------------------------------
def neg(a):
    return _result(-a.data, (a,), NEG)


def _neg_vjp(g, out, a, need):
    return (-g,)


NEG = Primitive("neg", _neg_vjp, "dA = −G")


# ---- matmul --------------------------------------------------------------------------------
def matmul(a, b):
    a, b = _pair(a, b)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"matmul: both operands need at least one dimension, got shapes {a.shape} and {b.shape}")
    try:
        out = np.matmul(a.data, b.data)
    except ValueError:
        inner_a = a.shape[-1]
        inner_b = b.shape[-2] if b.ndim > 1 else b.shape[0]
        why = (
            f"inner dimensions {inner_a} and {inner_b} differ"
            if inner_a != inner_b
            else "batch dimensions cannot be broadcast"
        )
        raise ValueError(f"matmul: shapes {a.shape} and {b.shape} are not aligned ({why})") from None
    return _result(out, (a, b), MATMUL)


def _matmul_vjp(g, out, a, b, need):
    # NOTE: 1-D operands are promoted to matrices (a: row, b: column) as np.matmul does, the
    # matrix rule is applied, and the promoted axis is dropped again. Batch dims are summed
    # back by the engine.
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    g2 = g
    if b.ndim == 1:  # first, so that a 0-d G (vector · vector) becomes (1, 1)
        g2 = np.expand_dims(g2, -1)
    if a.ndim == 1:
        g2 = np.expand_dims(g2, -2)
    da = db = None
    if need[0]:
        da = np.matmul(g2, np.swapaxes(b2, -1, -2))
        if a.ndim == 1:
            da = da[..., 0, :]
    if need[1]:
        db = np.matmul(np.swapaxes(a2, -1, -2), g2)
        if b.ndim == 1:
            db = db[..., 0]
    return da, db


MATMUL = Primitive("matmul", _matmul_vjp, "dX = G·Wᵀ,  dW = Xᵀ·G")


# ---- linear (fused x @ Wᵀ + b, as nn.Linear computes it) --------------------------------------
def linear(x, weight, bias=None):
    x = as_tensor(x)
    if x.ndim == 0 or x.shape[-1] != weight.shape[-1]:
        raise ValueError(
            f"linear: input of shape {x.shape} does not match weight of shape {weight.shape} "
            f"(expected last dimension {weight.shape[-1]})"
        )
    out = x.data @ weight.data.T
    if bias is None:
        return _result(out, (x, weight), LINEAR)
    out += bias.data
    return _result(out, (x, weight, bias), LINEAR)


def _linear_vjp(g, out, x, w, b=None, *, need):
    # A batch of any shape (..., in) is flattened to rows for dW and db.
    g2 = g if g.ndim == 2 else g.reshape(-1, g.shape[-1])
    dx = g @ w if need[0] else None
    dw = g2.T @ (x if x.ndim == 2 else x.reshape(-1, x.shape[-1])) if need[1] else None
    if b is None:
        return dx, dw
    return dx, dw, (g2.sum(axis=0) if need[2] else None)


LINEAR = Primitive("linear", _linear_vjp, "dX = G·W,  dW = Gᵀ·X,  db = Σ_rows G")


# ---- getitem -------------------------------------------------------------------------------
def _index(idx):
    """Tensors and lists inside an index become integer arrays."""
    if isinstance(idx, tuple):
        return tuple(_index(i) for i in idx)
    if isinstance(idx, Tensor):
        idx = idx.data
    if isinstance(idx, list):
        idx = np.asarray(idx)
    if isinstance(idx, np.ndarray) and idx.dtype.kind == "f":
        if not np.all(idx == np.round(idx)):
            raise IndexError("getitem: a float index must hold whole numbers")
        idx = idx.astype(np.int64)
    return idx


def _is_basic(idx):
    parts = idx if isinstance(idx, tuple) else (idx,)
    return all(p is None or p is Ellipsis or isinstance(p, (int, np.integer, slice)) for p in parts)


def getitem(a, idx):
    idx = _index(idx)
    try:
        out = a.data[idx]
    except IndexError as err:
        raise IndexError(f"getitem: {err} (tensor of shape {a.shape})") from None
    if _is_basic(idx):
        out = out.copy()  # NOTE: a view would let in-place updates of `a` change `out`
    return _result(out, (a,), GETITEM, {"idx": idx})


def _getitem_vjp(g, out, a, need, idx):
    grad = np.zeros_like(a)
    if _is_basic(idx):
        grad[idx] = g
    else:
        np.add.at(grad, idx, g)  # repeated indices add up
    return (grad,)


GETITEM = Primitive("getitem", _getitem_vjp, "dA = zeros_like(A);  dA[idx] += G")


# ---- sum, mean, max ------------------------------------------------------------------------
def sum(a, axis=None, keepdims=False):
    _axes(axis, a.ndim)
    out = a.data.sum(axis=axis, keepdims=keepdims)
    return _result(out, (a,), SUM, {"axis": axis, "keepdims": keepdims})


def _sum_vjp(g, out, a, need, axis, keepdims):
    return (np.broadcast_to(_expand(g, axis, keepdims, a.ndim), a.shape).copy(),)


SUM = Primitive("sum", _sum_vjp, "dA = G broadcast back over the summed axes")


def mean(a, axis=None, keepdims=False):
    _axes(axis, a.ndim)
    out = a.data.mean(axis=axis, keepdims=keepdims)
    return _result(out, (a,), MEAN, {"axis": axis, "keepdims": keepdims})


def _mean_vjp(g, out, a, need, axis, keepdims):
    count = a.size // builtins.max(out.size, 1) if a.size else 1
    return (np.broadcast_to(_expand(g, axis, keepdims, a.ndim) / count, a.shape).copy(),)


MEAN = Primitive("mean", _mean_vjp, "dA = G / n broadcast back over the averaged axes")


def max(a, axis=None, keepdims=False):
    _axes(axis, a.ndim)
    if a.size == 0:
        raise ValueError("max of an empty tensor")
    out = a.data.max(axis=axis, keepdims=keepdims)
    return _result(out, (a,), MAX, {"axis": axis, "keepdims": keepdims})


def _max_vjp(g, out, a, need, axis, keepdims):
    # NOTE: ties share the gradient evenly (as PyTorch's amax does).
    hit = a == _expand(out, axis, keepdims, a.ndim)
    count = hit.sum(axis=axis, keepdims=True)
    return (hit * (_expand(g, axis, keepdims, a.ndim) / count),)


MAX = Primitive("max", _max_vjp, "dA = G where A is the max (shared among ties), else 0")


# ---- elementwise functions -----------------------------------------------------------------
def exp(a):
    return _result(np.exp(a.data), (a,), EXP)


def _exp_vjp(g, out, a, need):
    return (g * out,)


EXP = Primitive("exp", _exp_vjp, "dA = G ⊙ exp(A)")


def log(a):
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(a.data)
    return _result(out, (a,), LOG)


def _log_vjp(g, out, a, need):
    with np.errstate(divide="ignore"):
        return (g / a,)


LOG = Primitive("log", _log_vjp, "dA = G / A")


def sqrt(a):
    with np.errstate(invalid="ignore"):
        out = np.sqrt(a.data)
    return _result(out, (a,), SQRT)


def _sqrt_vjp(g, out, a, need):
    with np.errstate(divide="ignore"):
        return (g * 0.5 / out,)


SQRT = Primitive("sqrt", _sqrt_vjp, "dA = G / (2·√A)")


def abs(a):
    return _result(np.abs(a.data), (a,), ABS)


def _abs_vjp(g, out, a, need):
    return (g * np.sign(a),)  # NOTE: sign(0) = 0, as in PyTorch


ABS = Primitive("abs", _abs_vjp, "dA = G ⊙ sign(A)")


_SCALARS = {}


def _scalar(value, dtype):
    """A cached 0-d array of `dtype`: NumPy combines arrays with it faster than with a Python number."""
    key = (value, dtype)
    scalar = _SCALARS.get(key)
    if scalar is None:
        scalar = _SCALARS[key] = np.full((), value, dtype=dtype)
    return scalar


def relu(a):
    return _result(np.maximum(a.data, _scalar(0, a.data.dtype)), (a,), RELU)


def _relu_vjp(g, out, a, need):
    # NOTE: relu'(A) = sign(relu(A)): 1 where A > 0, 0 elsewhere (relu'(0) = 0, as in PyTorch).
    # A float mask multiplies about twice as fast as the boolean (A > 0).
    return (g * np.sign(out),)


RELU = Primitive("relu", _relu_vjp, "dA = G ⊙ [A > 0]")


def tanh(a):
    return _result(np.tanh(a.data), (a,), TANH)


def _tanh_vjp(g, out, a, need):
    return (g * (1 - out * out),)


TANH = Primitive("tanh", _tanh_vjp, "dA = G ⊙ (1 − tanh²A)")


def stable_sigmoid(x):
    """1 / (1 + e^-x) without overflow: exact to float64 at x = ±1000."""
    return _sigmoid_from(x, np.exp(-np.abs(x)))


def _sigmoid_from(x, e):
    """σ(x) given e = exp(−|x|): 1/(1 + e) for x ≥ 0, e/(1 + e) below."""
    one = _scalar(1, e.dtype)
    return np.where(x >= _scalar(0, x.dtype), one, e) / (one + e)


def sigmoid(a):
    return _result(stable_sigmoid(a.data), (a,), SIGMOID)


def _sigmoid_vjp(g, out, a, need):
    return (g * out * (1 - out),)


SIGMOID = Primitive("sigmoid", _sigmoid_vjp, "dA = G ⊙ σ(A)(1 − σ(A))")


_SQRT_HALF = 0.7071067811865476
_INV_SQRT_2PI = 0.3989422804014327


def gelu(a):
    # NOTE: the exact GELU, x·Φ(x) with Φ(x) = ½(1 + erf(x/√2)) = ½·erfc(−x/√2); erfc avoids the
    # cancellation of 1 + erf for very negative x.
    cdf = 0.5 * erfc(-a.data * _SQRT_HALF)
    return _result(a.data * cdf, (a,), GELU, {"cdf": cdf})


def _gelu_vjp(g, out, a, need, cdf):
    return (g * (cdf + a * _INV_SQRT_2PI * np.exp(-0.5 * a * a)),)


GELU = Primitive("gelu", _gelu_vjp, "dA = G ⊙ (Φ(A) + A·φ(A))")


def silu(a):
    s = stable_sigmoid(a.data)
    return _result(a.data * s, (a,), SILU, {"s": s})


def _silu_vjp(g, out, a, need, s):
    return (g * s * (1 + a * (1 - s)),)


SILU = Primitive("silu", _silu_vjp, "dA = G ⊙ σ(A)(1 + A(1 − σ(A)))")


# ---- softmax, log_softmax ------------------------------------------------------------------
def _log_softmax_array(x, axis):
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def softmax(a, axis=-1):
    _axes(axis, a.ndim)
    shifted = np.exp(a.data - a.data.max(axis=axis, keepdims=True))
    return _result(shifted / shifted.sum(axis=axis, keepdims=True), (a,), SOFTMAX, {"axis": axis})


def _softmax_vjp(g, out, a, need, axis):
    return (out * (g - (g * out).sum(axis=axis, keepdims=True)),)


SOFTMAX = Primitive("softmax", _softmax_vjp, "dA = S ⊙ (G − Σ(G ⊙ S)),  S = softmax(A)")


def log_softmax(a, axis=-1):
    _axes(axis, a.ndim)
    return _result(_log_softmax_array(a.data, axis), (a,), LOG_SOFTMAX, {"axis": axis})


def _log_softmax_vjp(g, out, a, need, axis):
    return (g - np.exp(out) * g.sum(axis=axis, keepdims=True),)


LOG_SOFTMAX = Primitive("log_softmax", _log_softmax_vjp, "dA = G − softmax(A)·ΣG")


# ---- shape ops -----------------------------------------------------------------------------
def reshape(a, shape):
    try:
        out = a.data.reshape(shape)
    except (ValueError, TypeError):
        raise ValueError(
            f"reshape: cannot reshape a tensor of shape {a.shape} ({a.size} elements) into {tuple(shape)}"
        ) from None
    return _result(out, (a,), RESHAPE)


def _reshape_vjp(g, out, a, need):
    return (g.reshape(a.shape),)


RESHAPE = Primitive("reshape", _reshape_vjp, "dA = reshape(G, A.shape)")


def transpose(a, axes=None):
    if axes is not None:
        if len(axes) != a.ndim or sorted(ax % a.ndim for ax in axes) != list(range(a.ndim)):
            raise ValueError(f"transpose: axes {tuple(axes)} are not a permutation of a {a.ndim}-d tensor's axes")
        axes = tuple(ax % a.ndim for ax in axes)
    return _result(np.transpose(a.data, axes), (a,), TRANSPOSE, {"axes": axes})


def _transpose_vjp(g, out, a, need, axes):
    return (np.transpose(g, None if axes is None else np.argsort(axes)),)


TRANSPOSE = Primitive("transpose", _transpose_vjp, "dA = Gᵀ (the inverse permutation)")


def _mask(mask):
    return np.asarray(mask.data if isinstance(mask, Tensor) else mask, dtype=bool)


def masked_fill(a, mask, value):
    mask = _mask(mask)
    try:
        out = np.where(mask, np.asarray(value, dtype=a.dtype), a.data)
    except ValueError:
        raise ValueError(
            f"masked_fill: a mask of shape {mask.shape} does not broadcast with a tensor of shape {a.shape}"
        ) from None
    return _result(out, (a,), MASKED_FILL, {"mask": mask})


def _masked_fill_vjp(g, out, a, need, mask):
    return (np.where(mask, 0, g),)


MASKED_FILL = Primitive("masked_fill", _masked_fill_vjp, "dA = G where not mask, else 0")


def clip(a, lo=None, hi=None):
    if lo is None and hi is None:
        raise ValueError("clip: give at least one of lo and hi")
    return _result(np.clip(a.data, lo, hi), (a,), CLIP, {"lo": lo, "hi": hi})


def _clip_vjp(g, out, a, need, lo, hi):
    inside = np.ones(a.shape, dtype=bool)
    if lo is not None:
        inside &= a >= lo
    if hi is not None:
        inside &= a <= hi
    return (g * inside,)


CLIP = Primitive("clip", _clip_vjp, "dA = G where lo ≤ A ≤ hi, else 0")


def where(cond, a, b):
    cond = _mask(cond)
    a, b = _pair(a, b)
    try:
        out = np.where(cond, a.data, b.data)
    except ValueError:
        raise ValueError(
            f"where: condition {cond.shape}, {a.shape} and {b.shape} cannot be broadcast together"
        ) from None
    return _result(out, (a, b), WHERE, {"cond": cond})


def _where_vjp(g, out, a, b, need, cond):
    return (np.where(cond, g, 0) if need[0] else None), (np.where(cond, 0, g) if need[1] else None)


WHERE = Primitive("where", _where_vjp, "dA = G where cond, dB = G where not cond")


def concat(tensors, axis=0):
    tensors = tuple(as_tensor(t) for t in tensors)
    try:
        out = np.concatenate([t.data for t in tensors], axis=axis)
    except ValueError as err:
        shapes = ", ".join(str(t.shape) for t in tensors)
        raise ValueError(f"concat along axis {axis}: shapes {shapes} do not fit ({err})") from None
    return _result(out, tensors, CONCAT, {"axis": axis})


def _concat_vjp(g, out, *inputs, need, axis):
    bounds = np.cumsum([x.shape[axis] for x in inputs])[:-1]
    return tuple(np.split(g, bounds, axis=axis))


CONCAT = Primitive("concat", _concat_vjp, "dAᵢ = the slice of G that Aᵢ filled")


def stack(tensors, axis=0):
    tensors = tuple(as_tensor(t) for t in tensors)
    try:
        out = np.stack([t.data for t in tensors], axis=axis)
    except ValueError:
        shapes = ", ".join(str(t.shape) for t in tensors)
        raise ValueError(f"stack: all tensors need the same shape, got {shapes}") from None
    return _result(out, tensors, STACK, {"axis": axis})


def _stack_vjp(g, out, *inputs, need, axis):
    return tuple(np.take(g, i, axis=axis) for i in range(len(inputs)))


STACK = Primitive("stack", _stack_vjp, "dAᵢ = G[i] along the stacked axis")


# ---- fused losses --------------------------------------------------------------------------
_REDUCTIONS = ("mean", "sum", "none")


def _reduce_loss(per_item, reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"reduction must be one of {_REDUCTIONS}, got {reduction!r}")
    # NOTE: np.add.reduce is what ndarray.mean/sum compute, without their Python wrappers.
    if reduction == "mean":
        return np.add.reduce(per_item, axis=None) / per_item.size
    if reduction == "sum":
        return np.add.reduce(per_item, axis=None)
    return per_item


def _loss_scale(g, reduction, count):
    """The upstream gradient spread over the loss's items (for the item axis of the inputs)."""
    if reduction == "mean":
        return g / count
    return g


def _labels(labels, batch, classes):
    labels = np.asarray(labels.data if isinstance(labels, Tensor) else labels)
    if labels.dtype.kind == "f":
        if not np.all(labels == np.round(labels)):
            raise ValueError("cross_entropy: labels must be whole class numbers")
        labels = labels.astype(np.int64)
    if labels.dtype.kind not in "iu":
        raise ValueError(f"cross_entropy: labels must be integers, got dtype {labels.dtype}")
    if labels.shape != (batch,):
        raise ValueError(f"cross_entropy: {batch} rows of logits need {batch} labels, got shape {labels.shape}")
    if labels.size and (labels.min() < 0 or labels.max() >= classes):
        raise ValueError(f"cross_entropy: labels must lie in [0, {classes}), got {labels.min()}..{labels.max()}")
    return labels


def cross_entropy(logits, labels, reduction="mean"):
    logits = as_tensor(logits)
    if logits.ndim != 2:
        raise ValueError(f"cross_entropy: logits must have shape (N, C), got {logits.shape}")
    n, c = logits.shape
    labels = _labels(labels, n, c)
    logp = _log_softmax_array(logits.data, -1)
    per_item = -logp[np.arange(n), labels]
    meta = {"labels": labels, "probs": np.exp(logp), "reduction": reduction}
    return _result(_reduce_loss(per_item, reduction), (logits,), CROSS_ENTROPY, meta)


def _cross_entropy_vjp(g, out, logits, need, labels, probs, reduction):
    d = probs.copy()
    d[np.arange(len(labels)), labels] -= 1
    scale = _loss_scale(g, reduction, len(labels))
    return (d * (scale[:, None] if reduction == "none" else scale),)


CROSS_ENTROPY = Primitive(
    "cross_entropy", _cross_entropy_vjp, "dZ = (softmax(Z) − onehot(y)) · G / N"
)


def binary_cross_entropy_with_logits(logits, targets, reduction="mean"):
    logits, targets = _pair(logits, targets)
    if logits.shape != targets.shape:
        raise ValueError(
            f"binary_cross_entropy_with_logits: logits {logits.shape} and targets {targets.shape} "
            "must have the same shape"
        )
    x, y = logits.data, targets.data
    e = np.exp(-np.abs(x))  # NOTE: kept for the VJP, which gets σ(x) from it in two operations
    per_item = np.maximum(x, 0) - x * y + np.log1p(e)
    meta = {"reduction": reduction, "e": e}
    return _result(_reduce_loss(per_item, reduction), (logits, targets), BCE_WITH_LOGITS, meta)


def _bce_vjp(g, out, x, y, need, reduction, e):
    scale = _loss_scale(g, reduction, x.size)
    dx = (_sigmoid_from(x, e) - y) * scale if need[0] else None
    dy = -x * scale if need[1] else None
    return dx, dy


BCE_WITH_LOGITS = Primitive("bce_with_logits", _bce_vjp, "dZ = (σ(Z) − Y) · G / N,  dY = −Z · G / N")


# ---- comparisons (no gradient) ---------------------------------------------------------------
def compare(fn, a, b):
    a, b = _pair(a, b)
    try:
        out = fn(a.data, b.data)
    except ValueError:
        raise _mismatch(fn.__name__, a, b) from None
    return Tensor._constant(out)


PRIMITIVES = {
    p.name: p
    for p in (
        ADD, SUB, MUL, DIV, POW, NEG, MATMUL, LINEAR, GETITEM, SUM, MEAN, MAX, EXP, LOG, SQRT, ABS,
        RELU, TANH, SIGMOID, GELU, SILU, SOFTMAX, LOG_SOFTMAX, RESHAPE, TRANSPOSE, MASKED_FILL, CLIP,
        WHERE, CONCAT, STACK, CROSS_ENTROPY, BCE_WITH_LOGITS,
    )
}


# ---- Tensor's operators -------------------------------------------------------------------------
# The operators and methods that take their arguments in the primitive's order are the primitives
# themselves (`t * u` is mul(t, u), no forwarding call between): the per-op hot path.
for _name in ("add", "sub", "mul", "matmul", "neg", "pow"):
    setattr(Tensor, f"__{_name}__", globals()[_name])
Tensor.__truediv__ = div
for _name in ("exp", "log", "sqrt", "abs", "relu", "tanh", "sigmoid", "gelu", "silu"):
    setattr(Tensor, _name, globals()[_name])
del _name
