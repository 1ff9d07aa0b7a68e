"""Matrix products: matmul (the @ operator, NumPy's broadcasting rules) and linear (x·Wᵀ + b, fused)."""

import math

import numpy as np

from autograd.ops import _lines as lines
from autograd.ops import xp_array
from autograd.ops._common import as_tensor, pair, plugged_terms, tangent_sum
from autograd.tensor import Primitive, _result


# ---- matmul --------------------------------------------------------------------------------
def matmul(a, b):
    a, b = pair(a, b)
    try:
        out = np.matmul(a.data, b.data)
    except ValueError:
        matmul_shape(a.shape, b.shape)  # raises the message that says why
        raise
    return _result(out, (a, b), MATMUL)


def matmul_shape(a, b):
    """np.matmul's result shape for operands of shapes `a` and `b`, or ValueError saying why not."""
    a, b = tuple(a), tuple(b)
    if not a or not b:
        raise ValueError(f"matmul: both operands need at least one dimension, got shapes {a} and {b}")
    a2 = (1, *a) if len(a) == 1 else a
    b2 = (*b, 1) if len(b) == 1 else b
    if a2[-1] != b2[-2]:
        raise ValueError(
            f"matmul: shapes {a} and {b} are not aligned (inner dimensions {a2[-1]} and {b2[-2]} differ)"
        )
    try:
        batch = np.broadcast_shapes(a2[:-2], b2[:-2])
    except ValueError:
        raise ValueError(f"matmul: shapes {a} and {b} are not aligned (batch dimensions cannot be broadcast)") from None
    shape = tuple(batch)
    if len(a) > 1:
        shape += (a2[-2],)
    if len(b) > 1:
        shape += (b2[-1],)
    return shape


def matmul_work(a, b):
    """Multiply-adds of a @ b for operands of shapes `a` and `b` (which must fit)."""
    a2 = (1, *a) if len(a) == 1 else tuple(a)
    b2 = (*b, 1) if len(b) == 1 else tuple(b)
    batch = np.broadcast_shapes(a2[:-2], b2[:-2])
    return math.prod(batch) * a2[-2] * a2[-1] * b2[-1]


def _matmul_vjp(g, out, a, b, need, xp=xp_array):
    # NOTE: 1-D operands are promoted to matrices (a: row, b: column) as np.matmul does, the
    # matrix rule is applied, and the promoted axis is dropped again. Batch dims are summed
    # back by the engine.
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    g2 = g
    if b.ndim == 1:  # first, so that a 0-d G (vector · vector) becomes (1, 1)
        g2 = xp.expand_dims(g2, -1)
    if a.ndim == 1:
        g2 = xp.expand_dims(g2, -2)
    da = db = None
    if need[0]:
        da = xp.matmul(g2, xp.swapaxes(b2, -1, -2))
        if a.ndim == 1:
            da = da[..., 0, :]
    if need[1]:
        db = xp.matmul(xp.swapaxes(a2, -1, -2), g2)
        if b.ndim == 1:
            db = db[..., 0]
    return da, db


def _matmul_plugged(t, g, out, a, b):
    # NOTE: the products are the VJP's own (1-D operands promoted as np.matmul does); the text names them.
    da, db = _matmul_vjp(g, out, a, b, need=(True, True))
    return (f"{t(g)}·{t(b)}ᵀ", da), (f"{t(a)}ᵀ·{t(g)}", db)


def _matmul_jvp(tangents, out, a, b):
    ta, tb = tangents
    return tangent_sum(None if ta is None else np.matmul(ta, b), None if tb is None else np.matmul(a, tb))


def _matmul_jvp_plugged(t, tangents, out, a, b):
    return plugged_terms((tangents[0], lambda x: (f"{t(x)}·{t(b)}", np.matmul(x, b))),
                         (tangents[1], lambda x: (f"{t(a)}·{t(x)}", np.matmul(a, x))))


MATMUL = Primitive(
    "matmul", matmul, _matmul_vjp, "dX = G·Wᵀ,  dW = Xᵀ·G", plugged=_matmul_plugged,
    saves=("X", "W"),
    slots=("X", "W"), shape=matmul_shape, operators=("__matmul__", "__rmatmul__"),
    jvp=_matmul_jvp, jvp_formula="dOut = dX·W + X·dW", jvp_plugged=_matmul_jvp_plugged,
    vjp_lines=lines.matmul_lines,
)


# ---- linear (fused x @ Wᵀ + b, as nn.Linear computes it) --------------------------------------
def linear(x, weight, bias=None):
    x = as_tensor(x)
    weight = as_tensor(weight)
    bias = None if bias is None else as_tensor(bias)
    xd, wd = x.data, weight.data
    if xd.ndim == 0 or wd.ndim != 2 or xd.shape[-1] != wd.shape[-1] or bias is not None and bias.data.ndim > 1:
        linear_shape(xd.shape, wd.shape, None if bias is None else bias.shape)  # raises, saying why
    out = xd @ wd.T
    if bias is None:
        return _result(out, (x, weight), LINEAR)
    try:
        out += bias.data
    except ValueError:
        linear_shape(x.shape, weight.shape, bias.shape)
        raise
    return _result(out, (x, weight, bias), LINEAR)


def linear_shape(x, weight, bias=None):
    x, weight = tuple(x), tuple(weight)
    if len(weight) != 2:
        raise ValueError(f"linear: the weight must be a matrix (out, in), got shape {weight}")
    if not x or x[-1] != weight[-1]:
        raise ValueError(
            f"linear: input of shape {x} does not match weight of shape {weight} (expected last dimension {weight[-1]})"
        )
    if bias is not None and tuple(bias) not in ((), (1,), (weight[0],)):
        raise ValueError(
            f"linear: the bias must have shape ({weight[0]},) for a weight of shape {weight}, got {tuple(bias)}"
        )
    return (*x[:-1], weight[0])


def _linear_vjp(g, out, x, w, b=None, *, need, xp=xp_array):
    # A batch of any shape (..., in) is flattened to rows for dW and db.
    g2 = g if g.ndim == 2 else g.reshape(-1, g.shape[-1])
    dx = g @ w if need[0] else None
    dw = g2.T @ (x if x.ndim == 2 else x.reshape(-1, x.shape[-1])) if need[1] else None
    if b is None:
        return dx, dw
    return dx, dw, (g2.sum(axis=0) if need[2] else None)


def _linear_plugged(t, g, out, x, w, b=None):
    # NOTE: the products are the VJP's own (a batch flattened to rows); the text names them.
    grads = _linear_vjp(g, out, x, w, b, need=(True, True, True))
    texts = (f"{t(g)}·{t(w)}", f"{t(g)}ᵀ·{t(x)}", f"Σ_rows {t(g)}")
    return tuple(zip(texts, grads))


def _linear_jvp(tangents, out, x, w, b=None):
    tx, tw = tangents[0], tangents[1]
    tb = tangents[2] if len(tangents) > 2 else None
    return tangent_sum(None if tx is None else tx @ w.T, None if tw is None else x @ tw.T, tb)


def _linear_jvp_plugged(t, tangents, out, x, w, b=None):
    tb = tangents[2] if len(tangents) > 2 else None
    return plugged_terms((tangents[0], lambda d: (f"{t(d)}·{t(w)}ᵀ", d @ w.T)),
                         (tangents[1], lambda d: (f"{t(x)}·{t(d)}ᵀ", x @ d.T)),
                         (tb, lambda d: (t(d), d)))


LINEAR = Primitive(
    "linear", linear, _linear_vjp, "dX = G·W,  dW = Gᵀ·X,  db = Σ_rows G", plugged=_linear_plugged,
    saves=("X", "W"),
    slots=("X", "W", "b"), shape=linear_shape, functions=("linear",),
    jvp=_linear_jvp, jvp_formula="dOut = dX·Wᵀ + X·dWᵀ + db", jvp_plugged=_linear_jvp_plugged,
    vjp_lines=lines.linear_lines,
)
