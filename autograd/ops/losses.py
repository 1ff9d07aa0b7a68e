"""Fused losses: each computes the loss and its gradient in one step (faster and more stable than
the same loss written from primitives)."""

import operator

import numpy as np

from autograd.ops import _lines as lines
from autograd.ops import xp_array
from autograd.ops._common import as_tensor, log_softmax_array, pair, plugged_terms, sigmoid_from, tangent_sum
from autograd.ops.elementwise import stable_sigmoid
from autograd.tensor import Primitive, Tensor, _result

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


def _loss_shape(item_shape, reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"reduction must be one of {_REDUCTIONS}, got {reduction!r}")
    return tuple(item_shape) if reduction == "none" else ()


def _scaled(t, g, reduction, count):
    """The plugged-in text of `· G / N` (mean), `· G` (sum) or `⊙ G` (none), and the factor it stands for."""
    if reduction == "mean":
        return f" · {t(g)} / {count}", g / count
    return (f" · {t(g)}", g) if reduction == "sum" else (f" ⊙ {t(g)}", g)


# ---- softmax cross-entropy -----------------------------------------------------------------------
def _labels(labels, batch, classes):
    labels = np.asarray(labels.data if isinstance(labels, Tensor) else labels)
    if labels.dtype.kind == "f":
        if not np.all(labels == np.round(labels)):
            raise ValueError("cross_entropy: labels must be whole class numbers")
        labels = labels.astype(np.int64)
    if labels.dtype.kind not in "iu":
        raise ValueError(f"cross_entropy: labels must be integers, got dtype {labels.dtype}")
    cross_entropy_shape((batch, classes), labels.shape)
    if labels.size and (labels.min() < 0 or labels.max() >= classes):
        raise ValueError(f"cross_entropy: labels must lie in [0, {classes}), got {labels.min()}..{labels.max()}")
    return labels


def cross_entropy(logits, labels, reduction="mean"):
    logits = as_tensor(logits)
    if logits.ndim != 2:
        cross_entropy_shape(logits.shape, np.shape(labels), reduction)
    n, c = logits.shape
    labels = _labels(labels, n, c)
    logp = log_softmax_array(logits.data, -1)
    per_item = -logp[np.arange(n), labels]
    meta = {"labels": labels, "probs": np.exp(logp), "reduction": reduction}
    return _result(_reduce_loss(per_item, reduction), (logits,), CROSS_ENTROPY, meta)


def cross_entropy_shape(logits, labels, reduction="mean"):
    logits, labels = tuple(logits), tuple(labels)
    if len(logits) != 2:
        raise ValueError(f"cross_entropy: logits must have shape (N, C), got {logits}")
    if labels != logits[:1]:
        raise ValueError(f"cross_entropy: {logits[0]} rows of logits need {logits[0]} labels, got shape {labels}")
    return _loss_shape(logits[:1], reduction)


def _cross_entropy_vjp(g, out, logits, need, labels, probs, reduction, xp=xp_array):
    d = xp.minus_onehot(xp.kept(probs, xp.softmax, logits), labels)
    scale = xp.loss_scale(g, reduction, len(labels))
    return (d * (scale[:, None] if reduction == "none" else scale),)


def _cross_entropy_plugged(t, g, out, logits, labels, probs, reduction):
    onehot = np.eye(logits.shape[1])[labels]
    text, scale = _scaled(t, g if reduction != "none" else g[:, None], reduction, len(labels))
    return ((f"({t(probs)} − {t(onehot)}){text}", (probs - onehot) * scale),)


def _cross_entropy_jvp(tangents, out, logits, labels, probs, reduction):
    tz = tangents[0]
    per_item = np.add.reduce(probs * tz, axis=1) - tz[np.arange(len(labels)), labels]
    return _reduce_loss(per_item, reduction)


def _cross_entropy_jvp_plugged(t, tangents, out, logits, labels, probs, reduction):
    tz, onehot = tangents[0], np.eye(logits.shape[1])[labels]
    per_item = ((probs - onehot) * tz).sum(axis=1)
    text = f"Σ_row ({t(probs)} − {t(onehot)}) ⊙ {t(tz)}"
    return _reduced_text(t, text, per_item, reduction)


def _reduced_text(t, text, per_item, reduction):
    """A loss's plugged-in JVP from its per-item tangents: summed over items (then / N for the mean) or not."""
    if reduction == "none":
        return text, per_item
    total = per_item.sum()
    if reduction == "sum":
        return f"Σ {text}", total
    return f"Σ {text} / {per_item.size}", total / per_item.size


CROSS_ENTROPY = Primitive(
    "cross_entropy", cross_entropy, _cross_entropy_vjp, "dZ = (softmax(Z) − onehot(y)) · G / N",
    saves=(),
    plugged=_cross_entropy_plugged,
    slots=("Z",), shape=cross_entropy_shape, functions=("cross_entropy",),
    jvp=_cross_entropy_jvp,
    jvp_formula="dOut = Σ (softmax(Z) − onehot(y)) ⊙ dZ / N",
    jvp_plugged=_cross_entropy_jvp_plugged,
    vjp_lines=lines.cross_entropy_lines,
)


# ---- binary cross-entropy with logits -------------------------------------------------------------
def binary_cross_entropy_with_logits(logits, targets, reduction="mean"):
    logits, targets = pair(logits, targets)
    if logits.shape != targets.shape:
        _same_shapes(logits.shape, targets.shape, reduction, "binary_cross_entropy_with_logits")
    x, y = logits.data, targets.data
    e = np.exp(-np.abs(x))  # NOTE: kept for the VJP, which gets σ(x) from it in two operations
    per_item = np.maximum(x, 0) - x * y + np.log1p(e)
    meta = {"reduction": reduction, "e": e}
    return _result(_reduce_loss(per_item, reduction), (logits, targets), BCE_WITH_LOGITS, meta)


def _same_shapes(a, b, reduction="mean", name="mse_loss"):
    a, b = tuple(a), tuple(b)
    if a != b:
        what = ("logits", "targets") if name.startswith("binary") else ("prediction", "target")
        raise ValueError(f"{name}: {what[0]} {a} and {what[1]} {b} must have the same shape")
    return _loss_shape(a, reduction)


def _bce_shape(logits, targets, reduction="mean"):
    return _same_shapes(logits, targets, reduction, "binary_cross_entropy_with_logits")


def _bce_vjp(g, out, x, y, need, reduction, e, xp=xp_array):
    scale = xp.loss_scale(g, reduction, x.size)
    dx = (xp.sigmoid_from(x, e) - y) * scale if need[0] else None
    dy = -x * scale if need[1] else None
    return dx, dy


def _bce_plugged(t, g, out, x, y, reduction, e):
    text, scale = _scaled(t, g, reduction, x.size)
    s = stable_sigmoid(x)
    return (f"({t(s)} − {t(y)}){text}", (s - y) * scale), (f"−{t(x)}{text}", -x * scale)


def _bce_jvp(tangents, out, x, y, reduction, e):
    tx, ty = tangents
    per_item = tangent_sum(None if tx is None else (sigmoid_from(x, e) - y) * tx, None if ty is None else -x * ty)
    return _reduce_loss(per_item, reduction)


def _bce_jvp_plugged(t, tangents, out, x, y, reduction, e):
    s = stable_sigmoid(x)
    text, per_item = plugged_terms((tangents[0], lambda d: (f"({t(s)} − {t(y)}) ⊙ {t(d)}", (s - y) * d)),
                                   (tangents[1], lambda d: (f"−{t(x)} ⊙ {t(d)}", -x * d)))
    return _reduced_text(t, f"({text})", per_item, reduction)


BCE_WITH_LOGITS = Primitive(
    "bce_with_logits", binary_cross_entropy_with_logits, _bce_vjp, "dZ = (σ(Z) − Y) · G / N,  dY = −Z · G / N",
    saves=("Z", "Y"),
    plugged=_bce_plugged,
    slots=("Z", "Y"), shape=_bce_shape, functions=("binary_cross_entropy_with_logits",),
    jvp=_bce_jvp, jvp_formula="dOut = Σ ((σ(Z) − Y) ⊙ dZ − Z ⊙ dY) / N", jvp_plugged=_bce_jvp_plugged,
    vjp_lines=lines.bce_lines,
)


# ---- mean squared error -------------------------------------------------------------------------
def mse_loss(pred, target, reduction="mean"):
    pred, target = pair(pred, target)
    if pred.shape != target.shape:
        _same_shapes(pred.shape, target.shape, reduction)
    diff = pred.data - target.data
    return _result(_reduce_loss(diff * diff, reduction), (pred, target), MSE_LOSS, {"reduction": reduction,
                                                                                    "diff": diff})


def _mse_vjp(g, out, pred, target, need, reduction, diff, xp=xp_array):
    scale = xp.loss_scale(g, reduction, diff.size)
    dpred = xp.kept(diff, operator.sub, pred, target) * (2.0 * scale)
    return dpred, (-dpred if need[1] else None)


def _mse_plugged(t, g, out, x, y, reduction, diff):
    text, scale = _scaled(t, g, reduction, x.size)
    return (f"2·({t(x)} − {t(y)}){text}", 2 * (x - y) * scale), (f"−2·({t(x)} − {t(y)}){text}", -2 * (x - y) * scale)


def _mse_jvp(tangents, out, pred, target, reduction, diff):
    tx, ty = tangents
    return _reduce_loss(2.0 * diff * (tx if ty is None else -ty if tx is None else tx - ty), reduction)


def _mse_jvp_plugged(t, tangents, out, x, y, reduction, diff):
    text, per_item = plugged_terms((tangents[0], lambda d: (f"2·({t(x)} − {t(y)}) ⊙ {t(d)}", 2 * (x - y) * d)),
                                   (tangents[1], lambda d: (f"−2·({t(x)} − {t(y)}) ⊙ {t(d)}", -2 * (x - y) * d)))
    return _reduced_text(t, f"({text})", per_item, reduction)


MSE_LOSS = Primitive(
    "mse_loss", mse_loss, _mse_vjp, "dX = 2(X − Y) · G / N,  dY = −2(X − Y) · G / N", plugged=_mse_plugged,
    saves=(),
    slots=("X", "Y"), shape=_same_shapes, functions=("mse_loss",),
    jvp=_mse_jvp, jvp_formula="dOut = Σ 2(X − Y) ⊙ (dX − dY) / N", jvp_plugged=_mse_jvp_plugged,
    vjp_lines=lines.mse_lines,
)
