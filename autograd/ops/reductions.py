"""Reductions over axes (sum, mean, max, min, var, std) and the normalisations softmax and log_softmax."""

import builtins

import numpy as np

from autograd.ops import _lines as lines
from autograd.ops import xp_array
from autograd.ops._common import (
    axes_of,
    expand,
    log_softmax_array,
    reduced_count,
    reduced_shape,
    softmax_array,
    softmax_shape,
)
from autograd.tensor import Primitive, _result


# ---- sum, mean ------------------------------------------------------------------------------
def sum(a, axis=None, keepdims=False):
    axes_of(axis, a.data.ndim)
    # NOTE: np.add.reduce is what ndarray.sum computes, without its Python wrapper.
    out = np.add.reduce(a.data, axis=axis, keepdims=keepdims)
    return _result(out, (a,), SUM, {"axis": axis, "keepdims": keepdims})


def _sum_vjp(g, out, a, need, axis, keepdims, xp=xp_array):
    if axis is not None:
        g = xp.expand(g, axis, keepdims, a.ndim)
    return (xp.full(a.shape, g, a.dtype),)


def _sum_plugged(t, g, out, a, axis, keepdims):
    return ((f"{t(g)} broadcast to {a.shape}", np.broadcast_to(expand(g, axis, keepdims, a.ndim), a.shape)),)


def _sum_jvp(tangents, out, a, axis, keepdims):
    return np.add.reduce(tangents[0], axis=axis, keepdims=keepdims)


def _over(axis) -> str:
    """`` over axis 1``, `` over axes (0, 2)``, or '' for every axis (a reduction's plugged-in JVP says which)."""
    if axis is None:
        return ""
    return f" over axis {int(axis)}" if isinstance(axis, (int, np.integer)) else f" over axes {tuple(axis)}"


def _sum_jvp_plugged(t, tangents, out, a, axis, keepdims):
    return f"Σ {t(tangents[0])}{_over(axis)}", np.add.reduce(tangents[0], axis=axis, keepdims=keepdims)


SUM = Primitive("sum", sum, _sum_vjp, "dA = G broadcast back over the summed axes", plugged=_sum_plugged, slots=("A",),
                saves=(),
                shape=reduced_shape, methods=("sum",),
                jvp=_sum_jvp, jvp_formula="dOut = Σ dA over the summed axes", jvp_plugged=_sum_jvp_plugged,
                vjp_lines=lines.sum_lines)


def mean(a, axis=None, keepdims=False):
    data = a.data
    count = reduced_count(data.shape, axis)
    if count:
        out = np.add.reduce(data, axis=axis, keepdims=keepdims) / count
    else:  # NOTE: the mean of nothing is nan, as in NumPy and PyTorch (without NumPy's warning)
        with np.errstate(invalid="ignore", divide="ignore"):
            out = np.add.reduce(data, axis=axis, keepdims=keepdims) / count
    return _result(out, (a,), MEAN, {"axis": axis, "keepdims": keepdims})


def _mean_vjp(g, out, a, need, axis, keepdims, xp=xp_array):
    if axis is not None:
        g = xp.expand(g, axis, keepdims, a.ndim)
    return (xp.full(a.shape, g / builtins.max(reduced_count(a.shape, axis), 1), a.dtype),)


def _mean_plugged(t, g, out, a, axis, keepdims):
    n = reduced_count(a.shape, axis)
    each = expand(g, axis, keepdims, a.ndim) / builtins.max(n, 1)
    return ((f"{t(g)} / {n} broadcast to {a.shape}", np.broadcast_to(each, a.shape)),)


def _mean_jvp(tangents, out, a, axis, keepdims):
    return np.add.reduce(tangents[0], axis=axis, keepdims=keepdims) / builtins.max(reduced_count(a.shape, axis), 1)


def _mean_jvp_plugged(t, tangents, out, a, axis, keepdims):
    n = reduced_count(a.shape, axis)
    total = np.add.reduce(tangents[0], axis=axis, keepdims=keepdims)
    return f"Σ {t(tangents[0])}{_over(axis)} / {n}", total / builtins.max(n, 1)


MEAN = Primitive("mean", mean, _mean_vjp, "dA = G / n broadcast back over the averaged axes", plugged=_mean_plugged,
                 saves=(),
                 slots=("A",),
                 shape=reduced_shape, methods=("mean",),
                 jvp=_mean_jvp, jvp_formula="dOut = Σ dA / n over the averaged axes", jvp_plugged=_mean_jvp_plugged,
                 vjp_lines=lines.mean_lines)


# ---- max, min -------------------------------------------------------------------------------
def max(a, axis=None, keepdims=False):
    _extremum_shape(a.shape, axis, keepdims, "max")
    out = np.maximum.reduce(a.data, axis=axis, keepdims=keepdims)
    return _result(out, (a,), MAX, {"axis": axis, "keepdims": keepdims})


def _extremum_shape(a, axis=None, keepdims=False, name="max"):
    shape = reduced_shape(a, axis, keepdims)
    if 0 in tuple(a):
        raise ValueError(f"{name} of an empty tensor (shape {tuple(a)})")
    return shape


def _extremum_plugged(t, g, out, a, axis, keepdims):
    hit = a == expand(out, axis, keepdims, a.ndim)
    share = hit / hit.sum(axis=axis, keepdims=True)
    return ((f"{t(expand(g, axis, keepdims, a.ndim))} ⊙ {t(share)}", expand(g, axis, keepdims, a.ndim) * share),)


def _extremum_vjp(g, out, a, need, axis, keepdims, xp=xp_array):
    # NOTE: ties share the gradient evenly (as PyTorch's amax and amin do).
    hit = xp.value(a) == expand(xp.value(out), axis, keepdims, a.ndim)
    count = hit.sum(axis=axis, keepdims=True)
    return (hit * (xp.expand(g, axis, keepdims, a.ndim) / count),)


def _extremum_jvp(tangents, out, a, axis, keepdims):
    # NOTE: ties share evenly, as in the VJP: the tangent is the mean of dA over the elements at the extremum.
    hit = a == expand(out, axis, keepdims, a.ndim)
    return np.add.reduce(hit * tangents[0], axis=axis, keepdims=keepdims) / hit.sum(axis=axis, keepdims=keepdims)


def _extremum_jvp_plugged(t, tangents, out, a, axis, keepdims):
    hit = a == expand(out, axis, keepdims, a.ndim)
    share = hit / hit.sum(axis=axis, keepdims=True)
    value = np.add.reduce(share * tangents[0], axis=axis, keepdims=keepdims)
    return f"Σ {t(share)} ⊙ {t(tangents[0])}{_over(axis)}", value


MAX = Primitive("max", max, _extremum_vjp, "dA = G where A is the max (shared among ties), else 0",
                saves=("A", "out"),
                plugged=_extremum_plugged, slots=("A",),
                shape=_extremum_shape, methods=("max",),
                jvp=_extremum_jvp,
                jvp_formula="dOut = dA at the max (averaged over ties)",
                jvp_plugged=_extremum_jvp_plugged,
                vjp_lines=lines.extremum_lines)


def min(a, axis=None, keepdims=False):
    _extremum_shape(a.shape, axis, keepdims, "min")
    out = np.minimum.reduce(a.data, axis=axis, keepdims=keepdims)
    return _result(out, (a,), MIN, {"axis": axis, "keepdims": keepdims})


def _min_shape(a, axis=None, keepdims=False):
    return _extremum_shape(a, axis, keepdims, "min")


MIN = Primitive("min", min, _extremum_vjp, "dA = G where A is the min (shared among ties), else 0",
                saves=("A", "out"),
                plugged=_extremum_plugged, slots=("A",),
                shape=_min_shape, methods=("min",),
                jvp=_extremum_jvp,
                jvp_formula="dOut = dA at the min (averaged over ties)",
                jvp_plugged=_extremum_jvp_plugged,
                vjp_lines=lines.extremum_lines)


# ---- var, std (PyTorch's `correction`: divide by n − correction) -------------------------------
def _mean(a, axis):
    """`a`'s mean over `axis`, dimensions kept (0/0 gives nan for an empty axis, silently: ndarray.mean warns)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.add.reduce(a, axis=axis, keepdims=True) / reduced_count(a.shape, axis)


def _deviations(a, axis):
    """`a` minus its mean over `axis` (0/0 gives nan for an empty axis, silently)."""
    return a - _mean(a, axis)


def _divisor(shape, axis, correction):
    # NOTE: as PyTorch does, n − correction below zero counts as zero (the result is then inf or nan).
    # NOTE: a NumPy float, so that dividing by a zero divisor gives inf or nan, not ZeroDivisionError.
    return np.float64(builtins.max(reduced_count(shape, axis) - correction, 0))


def var(a, axis=None, correction=1, keepdims=False):
    reduced_shape(a.shape, axis, keepdims)
    d = _deviations(a.data, axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.add.reduce(d * d, axis=axis, keepdims=keepdims) / _divisor(a.shape, axis, correction)
    return _result(out, (a,), VAR, {"axis": axis, "correction": correction, "keepdims": keepdims})


def _var_shape(a, axis=None, correction=1, keepdims=False):
    return reduced_shape(a, axis, keepdims)


def _var_vjp(g, out, a, need, axis, correction, keepdims, xp=xp_array):
    with np.errstate(invalid="ignore", divide="ignore"):
        scale = xp.expand(g, axis, keepdims, a.ndim) * (2.0 / _divisor(a.shape, axis, correction))
        return (scale * (a - xp.sum(a, axis, True) / reduced_count(a.shape, axis)),)


def _var_plugged(t, g, out, a, axis, correction, keepdims):
    g, mean = expand(g, axis, keepdims, a.ndim), _mean(a, axis)
    n = _divisor(a.shape, axis, correction)
    with np.errstate(invalid="ignore", divide="ignore"):
        return ((f"{t(g)} ⊙ 2·({t(a)} − {t(mean)}) / {t(n)}", g * 2 * (a - mean) / n),)


def _var_jvp(tangents, out, a, axis, correction, keepdims):
    with np.errstate(invalid="ignore", divide="ignore"):
        total = np.add.reduce(_deviations(a, axis) * tangents[0], axis=axis, keepdims=keepdims)
        return total * (2.0 / _divisor(a.shape, axis, correction))


def _var_jvp_plugged(t, tangents, out, a, axis, correction, keepdims):
    mean, n = _mean(a, axis), _divisor(a.shape, axis, correction)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = np.add.reduce(2 * (a - mean) * tangents[0], axis=axis, keepdims=keepdims) / n
    return f"Σ 2·({t(a)} − {t(mean)}) ⊙ {t(tangents[0])}{_over(axis)} / {t(n)}", value


VAR = Primitive("var", var, _var_vjp, "dA = G ⊙ 2(A − mean A) / (n − correction)", plugged=_var_plugged, slots=("A",),
                saves=("A",),
                shape=_var_shape, methods=("var",),
                jvp=_var_jvp,
                jvp_formula="dOut = Σ 2(A − mean A) ⊙ dA / (n − correction)",
                jvp_plugged=_var_jvp_plugged,
                vjp_lines=lines.var_lines)


def std(a, axis=None, correction=1, keepdims=False):
    reduced_shape(a.shape, axis, keepdims)
    d = _deviations(a.data, axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.sqrt(np.add.reduce(d * d, axis=axis, keepdims=keepdims) / _divisor(a.shape, axis, correction))
    return _result(out, (a,), STD, {"axis": axis, "correction": correction, "keepdims": keepdims})


def _std_vjp(g, out, a, need, axis, correction, keepdims, xp=xp_array):
    # NOTE: where the std is 0 (all values equal) the gradient is taken as 0, as PyTorch does, not 0/0.
    with np.errstate(invalid="ignore", divide="ignore"):
        scale = xp.expand(xp.div_or_zero(g, out), axis, keepdims, a.ndim) / _divisor(a.shape, axis, correction)
        return (scale * (a - xp.sum(a, axis, True) / reduced_count(a.shape, axis)),)


def _std_plugged(t, g, out, a, axis, correction, keepdims):
    g, std = expand(g, axis, keepdims, a.ndim), expand(out, axis, keepdims, a.ndim)
    mean, n = _mean(a, axis), _divisor(a.shape, axis, correction)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = np.where(std == 0, 0.0, g * (a - mean) / (n * std))
    zero = " (0 where std A = 0)" if np.any(std == 0) else ""
    return ((f"{t(g)} ⊙ ({t(a)} − {t(mean)}) / ({t(n)}·{t(std)}){zero}", value),)


def _std_jvp(tangents, out, a, axis, correction, keepdims):
    # NOTE: 0 where the std is 0, as the VJP takes it (PyTorch's convention), not 0/0.
    with np.errstate(invalid="ignore", divide="ignore"):
        total = np.add.reduce(_deviations(a, axis) * tangents[0], axis=axis, keepdims=keepdims)
        return np.where(out == 0, 0.0, total / (_divisor(a.shape, axis, correction) * out))


def _std_jvp_plugged(t, tangents, out, a, axis, correction, keepdims):
    mean, n = _mean(a, axis), _divisor(a.shape, axis, correction)
    with np.errstate(invalid="ignore", divide="ignore"):
        total = np.add.reduce((a - mean) * tangents[0], axis=axis, keepdims=keepdims)
        value = np.where(out == 0, 0.0, total / (n * out))
    zero = " (0 where std A = 0)" if np.any(out == 0) else ""
    return f"Σ ({t(a)} − {t(mean)}) ⊙ {t(tangents[0])}{_over(axis)} / ({t(n)}·{t(out)}){zero}", value


STD = Primitive("std", std, _std_vjp, "dA = G ⊙ (A − mean A) / ((n − correction)·std A), 0 where std A = 0",
                saves=("A", "out"),
                plugged=_std_plugged,
                slots=("A",), shape=_var_shape, methods=("std",),
                jvp=_std_jvp,
                jvp_formula="dOut = Σ (A − mean A) ⊙ dA / ((n − correction)·std A), 0 where std A = 0",
                jvp_plugged=_std_jvp_plugged,
                vjp_lines=lines.std_lines)


# ---- softmax, log_softmax ------------------------------------------------------------------
def softmax(a, axis=-1):
    axes_of(axis, a.ndim)
    return _result(softmax_array(a.data, axis), (a,), SOFTMAX, {"axis": axis})


def _softmax_vjp(g, out, a, need, axis, xp=xp_array):
    return (out * (g - (g * out).sum(axis=axis, keepdims=True)),)


def _softmax_plugged(t, g, out, a, axis):
    weighted = (g * out).sum(axis=axis, keepdims=True)
    return ((f"{t(out)} ⊙ ({t(g)} − {t(weighted)})", out * (g - weighted)),)


def _softmax_jvp(tangents, out, a, axis):
    ta = tangents[0]
    return out * (ta - (out * ta).sum(axis=axis, keepdims=True))


def _softmax_jvp_plugged(t, tangents, out, a, axis):
    ta = tangents[0]
    weighted = (ta * out).sum(axis=axis, keepdims=True)
    return f"{t(out)} ⊙ ({t(ta)} − {t(weighted)})", out * (ta - weighted)


SOFTMAX = Primitive("softmax", softmax, _softmax_vjp, "dA = S ⊙ (G − Σ(G ⊙ S)),  S = softmax(A)",
                    saves=("out",),
                    plugged=_softmax_plugged, slots=("A",),
                    shape=softmax_shape, methods=("softmax",), functions=("softmax",),
                    jvp=_softmax_jvp,
                    jvp_formula="dOut = S ⊙ (dA − Σ(S ⊙ dA)),  S = softmax(A)",
                    jvp_plugged=_softmax_jvp_plugged,
                    vjp_lines=("dA += Out * (dOut - (dOut * Out).sum(axis={axis}, keepdims=True))",))


def log_softmax(a, axis=-1):
    axes_of(axis, a.ndim)
    return _result(log_softmax_array(a.data, axis), (a,), LOG_SOFTMAX, {"axis": axis})


def _log_softmax_vjp(g, out, a, need, axis, xp=xp_array):
    return (g - xp.exp(out) * g.sum(axis=axis, keepdims=True),)


def _log_softmax_plugged(t, g, out, a, axis):
    probs, total = np.exp(out), g.sum(axis=axis, keepdims=True)
    return ((f"{t(g)} − {t(probs)}·{t(total)}", g - probs * total),)


def _log_softmax_jvp(tangents, out, a, axis):
    ta = tangents[0]
    return ta - (np.exp(out) * ta).sum(axis=axis, keepdims=True)


def _log_softmax_jvp_plugged(t, tangents, out, a, axis):
    ta, probs = tangents[0], np.exp(out)
    return f"{t(ta)} − Σ({t(probs)} ⊙ {t(ta)})", ta - (probs * ta).sum(axis=axis, keepdims=True)


LOG_SOFTMAX = Primitive("log_softmax", log_softmax, _log_softmax_vjp, "dA = G − softmax(A)·ΣG",
                        saves=("out",),
                        plugged=_log_softmax_plugged, slots=("A",),
                        shape=softmax_shape, methods=("log_softmax",), functions=("log_softmax",),
                        jvp=_log_softmax_jvp,
                        jvp_formula="dOut = dA − Σ(softmax(A) ⊙ dA)",
                        jvp_plugged=_log_softmax_jvp_plugged,
                        vjp_lines=("dA += dOut - exp(Out) * dOut.sum(axis={axis}, keepdims=True)",))
