"""Elementwise functions (exp, log, sqrt, abs and the activations) and elementwise selection (clip,
masked_fill, where)."""

import numpy as np

from autograd.ops import _lines as lines
from autograd.ops import xp_array
from autograd.ops._common import mask_array, pair, plugged_terms, same_shape, scalar, sigmoid_from
from autograd.special import erfc
from autograd.tensor import Primitive, _result


# ---- exp, log, sqrt, abs ----------------------------------------------------------------------
def exp(a):
    return _result(np.exp(a.data), (a,), EXP)


def _exp_vjp(g, out, a, need, xp=xp_array):
    return (g * out,)


def _exp_jvp(tangents, out, a):
    return tangents[0] * out


EXP = Primitive("exp", exp, _exp_vjp, "dA = G ⊙ exp(A)",
                saves=("out",),
                plugged=lambda t, g, out, a: ((f"{t(g)} ⊙ exp({t(a)})", g * np.exp(a)),),
                slots=("A",), shape=same_shape, methods=("exp",),
                functions=("exp",),
                jvp=_exp_jvp,
                jvp_formula="dOut = exp(A) ⊙ dA",
                jvp_plugged=lambda t, tangents, out, a: (f"exp({t(a)}) ⊙ {t(tangents[0])}", np.exp(a) * tangents[0]),
                vjp_lines=("dA += dOut * Out",))


def log(a):
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(a.data)
    return _result(out, (a,), LOG)


def _log_vjp(g, out, a, need, xp=xp_array):
    with np.errstate(divide="ignore", invalid="ignore"):
        return (g / a,)


def _log_jvp(tangents, out, a):
    with np.errstate(divide="ignore", invalid="ignore"):
        return tangents[0] / a


LOG = Primitive("log", log, _log_vjp, "dA = G / A", plugged=lambda t, g, out, a: ((f"{t(g)} / {t(a)}", g / a),),
                saves=("A",),
                slots=("A",), shape=same_shape, methods=("log",),
                functions=("log",),
                jvp=_log_jvp,
                jvp_formula="dOut = dA / A",
                jvp_plugged=lambda t, tangents, out, a: (f"{t(tangents[0])} / {t(a)}", tangents[0] / a),
                vjp_lines=("dA += dOut / A",))


def sqrt(a):
    with np.errstate(invalid="ignore"):
        out = np.sqrt(a.data)
    return _result(out, (a,), SQRT)


def _sqrt_vjp(g, out, a, need, xp=xp_array):
    with np.errstate(divide="ignore"):
        return (g * 0.5 / out,)


def _sqrt_jvp(tangents, out, a):
    with np.errstate(divide="ignore"):
        return tangents[0] * 0.5 / out


SQRT = Primitive("sqrt", sqrt, _sqrt_vjp, "dA = G / (2·√A)",
                 saves=("out",),
                 plugged=lambda t, g, out, a: ((f"{t(g)} / (2·√{t(a)})", g / (2 * np.sqrt(a))),),
                 slots=("A",), shape=same_shape, methods=("sqrt",),
                 functions=("sqrt",),
                 jvp=_sqrt_jvp,
                 jvp_formula="dOut = dA / (2·√A)",
                 jvp_plugged=lambda t, tangents, out, a: (f"{t(tangents[0])} / (2·√{t(a)})",
                                                          tangents[0] / (2 * np.sqrt(a))),
                 vjp_lines=("dA += dOut * 0.5 / Out",))


def abs(a):
    return _result(np.abs(a.data), (a,), ABS)


def _abs_vjp(g, out, a, need, xp=xp_array):
    return (g * xp.sign(a),)  # NOTE: sign(0) = 0, as in PyTorch


def _abs_jvp(tangents, out, a):
    return np.sign(a) * tangents[0]


ABS = Primitive("abs", abs, _abs_vjp, "dA = G ⊙ sign(A)",
                saves=("A",),
                plugged=lambda t, g, out, a: ((f"{t(g)} ⊙ sign({t(a)})", g * np.sign(a)),),
                slots=("A",), shape=same_shape, methods=("abs",),
                functions=("abs",),
                jvp=_abs_jvp,
                jvp_formula="dOut = sign(A) ⊙ dA",
                jvp_plugged=lambda t, tangents, out, a: (f"sign({t(a)}) ⊙ {t(tangents[0])}", np.sign(a) * tangents[0]),
                vjp_lines=("dA += dOut * (1.0 * (A > 0) - 1.0 * (A < 0))",))


# ---- activations --------------------------------------------------------------------------------
def relu(a):
    return _result(np.maximum(a.data, scalar(0, a.data.dtype)), (a,), RELU)


def _relu_vjp(g, out, a, need, xp=xp_array):
    # NOTE: relu'(A) = sign(relu(A)): 1 where A > 0, 0 elsewhere (relu'(0) = 0, as in PyTorch).
    # A float mask multiplies about twice as fast as the boolean (A > 0).
    return (g * xp.sign(out),)


def _relu_jvp(tangents, out, a):
    return tangents[0] * np.sign(out)  # NOTE: [A > 0] as a float mask, as the VJP takes it


RELU = Primitive("relu", relu, _relu_vjp, "dA = G ⊙ [A > 0]",
                 saves=("out",),
                 plugged=lambda t, g, out, a: ((f"{t(g)} ⊙ [{t(a)} > 0]", g * (a > 0)),),
                 slots=("A",), shape=same_shape, methods=("relu",),
                 functions=("relu",),
                 jvp=_relu_jvp,
                 jvp_formula="dOut = [A > 0] ⊙ dA",
                 jvp_plugged=lambda t, tangents, out, a: (f"[{t(a)} > 0] ⊙ {t(tangents[0])}", (a > 0) * tangents[0]),
                 vjp_lines=("dA += dOut * (A > 0)",))


def tanh(a):
    return _result(np.tanh(a.data), (a,), TANH)


def _tanh_vjp(g, out, a, need, xp=xp_array):
    return (g * (1 - out * out),)


def _tanh_jvp(tangents, out, a):
    return (1 - out * out) * tangents[0]


def _tanh_jvp_plugged(t, tangents, out, a):
    y = np.tanh(a)
    return f"(1 − {t(y)}²) ⊙ {t(tangents[0])}", (1 - y**2) * tangents[0]


TANH = Primitive("tanh", tanh, _tanh_vjp, "dA = G ⊙ (1 − tanh²A)",
                 saves=("out",),
                 plugged=lambda t, g, out, a: ((f"{t(g)} ⊙ (1 − {t(np.tanh(a))}²)", g * (1 - np.tanh(a) ** 2)),),
                 slots=("A",), shape=same_shape,
                 methods=("tanh",), functions=("tanh",),
                 jvp=_tanh_jvp, jvp_formula="dOut = (1 − tanh²A) ⊙ dA", jvp_plugged=_tanh_jvp_plugged,
                 vjp_lines=("dA += dOut * (1 - Out * Out)",))


def stable_sigmoid(x):
    """1 / (1 + e^-x) of an array without overflow: exact to float64 at x = ±1000."""
    return sigmoid_from(x, np.exp(-np.abs(x)))


def sigmoid(a):
    return _result(stable_sigmoid(a.data), (a,), SIGMOID)


def _sigmoid_vjp(g, out, a, need, xp=xp_array):
    return (g * out * (1 - out),)


def _sigmoid_plugged(t, g, out, a):
    s = stable_sigmoid(a)
    return ((f"{t(g)} ⊙ {t(s)}·(1 − {t(s)})", g * s * (1 - s)),)


def _sigmoid_jvp(tangents, out, a):
    return out * (1 - out) * tangents[0]


def _sigmoid_jvp_plugged(t, tangents, out, a):
    s = stable_sigmoid(a)
    return f"{t(s)}·(1 − {t(s)}) ⊙ {t(tangents[0])}", s * (1 - s) * tangents[0]


SIGMOID = Primitive("sigmoid", sigmoid, _sigmoid_vjp, "dA = G ⊙ σ(A)(1 − σ(A))", plugged=_sigmoid_plugged,
                    saves=("out",),
                    slots=("A",), shape=same_shape,
                    methods=("sigmoid",), functions=("sigmoid",),
                    jvp=_sigmoid_jvp, jvp_formula="dOut = σ(A)(1 − σ(A)) ⊙ dA", jvp_plugged=_sigmoid_jvp_plugged,
                    vjp_lines=("dA += dOut * Out * (1 - Out)",))


_SQRT_HALF = 0.7071067811865476
_INV_SQRT_2PI = 0.3989422804014327


def gelu(a):
    # NOTE: the exact GELU, x·Φ(x) with Φ(x) = ½(1 + erf(x/√2)) = ½·erfc(−x/√2); erfc avoids the
    # cancellation of 1 + erf for very negative x.
    cdf = 0.5 * erfc(-a.data * _SQRT_HALF)
    return _result(a.data * cdf, (a,), GELU, {"cdf": cdf})


def _gelu_vjp(g, out, a, need, cdf, xp=xp_array):
    return (g * (xp.kept(cdf, xp.normal_cdf, a) + a * _INV_SQRT_2PI * xp.exp(-0.5 * a * a)),)


def _gelu_plugged(t, g, out, a, cdf):
    pdf = np.exp(-a * a / 2) / np.sqrt(2 * np.pi)
    return ((f"{t(g)} ⊙ ({t(cdf)} + {t(a)}·{t(pdf)})", g * (cdf + a * pdf)),)


def _gelu_jvp(tangents, out, a, cdf):
    return (cdf + a * _INV_SQRT_2PI * np.exp(-0.5 * a * a)) * tangents[0]


def _gelu_jvp_plugged(t, tangents, out, a, cdf):
    pdf = np.exp(-a * a / 2) / np.sqrt(2 * np.pi)
    return f"({t(cdf)} + {t(a)}·{t(pdf)}) ⊙ {t(tangents[0])}", (cdf + a * pdf) * tangents[0]


GELU = Primitive("gelu", gelu, _gelu_vjp, "dA = G ⊙ (Φ(A) + A·φ(A))", plugged=_gelu_plugged,
                 saves=("A",),
                 slots=("A",), shape=same_shape,
                 methods=("gelu",), functions=("gelu",),
                 jvp=_gelu_jvp, jvp_formula="dOut = (Φ(A) + A·φ(A)) ⊙ dA", jvp_plugged=_gelu_jvp_plugged,
                 vjp_lines=("dA += dOut * (where(A == 0, 0.5, Out / A) + A * exp(-0.5 * A * A) / sqrt(2 * pi))",))


def normal_cdf(a):
    """Φ(A), the standard normal's CDF. Not a surface: gelu's VJP records it under create_graph (Φ is no
    composition of the other primitives), so that gelu's gradient can be differentiated again."""
    return _result(0.5 * erfc(-a.data * _SQRT_HALF), (a,), NORMAL_CDF)


def _normal_cdf_vjp(g, out, a, need, xp=xp_array):
    return (g * (_INV_SQRT_2PI * xp.exp(-0.5 * a * a)),)


def _normal_cdf_jvp(tangents, out, a):
    return _INV_SQRT_2PI * np.exp(-0.5 * a * a) * tangents[0]


def _normal_cdf_plugged(t, g, out, a):
    pdf = _INV_SQRT_2PI * np.exp(-0.5 * a * a)
    return ((f"{t(g)} ⊙ {t(pdf)}", g * pdf),)


# NOTE: not in PRIMITIVES (no method, function or language name makes it); only create_graph's VJPs do.
NORMAL_CDF = Primitive("normal_cdf", normal_cdf, _normal_cdf_vjp, "dA = G ⊙ φ(A)", plugged=_normal_cdf_plugged,
                       slots=("A",), shape=same_shape,
                       jvp=_normal_cdf_jvp, jvp_formula="dOut = φ(A) ⊙ dA",
                       jvp_plugged=lambda t, tangents, out, a: (f"φ({t(a)}) ⊙ {t(tangents[0])}",
                                                                _normal_cdf_jvp(tangents, out, a)))


def silu(a):
    s = stable_sigmoid(a.data)
    return _result(a.data * s, (a,), SILU, {"s": s})


def _silu_vjp(g, out, a, need, s, xp=xp_array):
    s = xp.kept(s, xp.sigmoid, a)
    return (g * s * (1 + a * (1 - s)),)


def _silu_plugged(t, g, out, a, s):
    return ((f"{t(g)} ⊙ {t(s)}·(1 + {t(a)}·(1 − {t(s)}))", g * s * (1 + a * (1 - s))),)


def _silu_jvp(tangents, out, a, s):
    return s * (1 + a * (1 - s)) * tangents[0]


def _silu_jvp_plugged(t, tangents, out, a, s):
    return f"{t(s)}·(1 + {t(a)}·(1 − {t(s)})) ⊙ {t(tangents[0])}", s * (1 + a * (1 - s)) * tangents[0]


SILU = Primitive("silu", silu, _silu_vjp, "dA = G ⊙ σ(A)(1 + A(1 − σ(A)))", plugged=_silu_plugged,
                 saves=("A",),
                 slots=("A",), shape=same_shape,
                 methods=("silu",), functions=("silu",),
                 jvp=_silu_jvp, jvp_formula="dOut = σ(A)(1 + A(1 − σ(A))) ⊙ dA", jvp_plugged=_silu_jvp_plugged,
                 vjp_lines=("dA += dOut * sigmoid(A) * (1 + A * (1 - sigmoid(A)))",))


# ---- clip, masked_fill, where -----------------------------------------------------------------
def clip(a, lo=None, hi=None):
    if lo is None and hi is None:
        raise ValueError("clip: give at least one of lo and hi")
    return _result(np.clip(a.data, lo, hi), (a,), CLIP, {"lo": lo, "hi": hi})


def _clip_shape(a, lo=None, hi=None):
    if lo is None and hi is None:
        raise ValueError("clip: give at least one of lo and hi")
    return tuple(a)


def _clip_vjp(g, out, a, need, lo, hi, xp=xp_array):
    inside = np.ones(a.shape, dtype=bool)
    if lo is not None:
        inside &= xp.value(a) >= lo
    if hi is not None:
        inside &= xp.value(a) <= hi
    return (g * inside,)


def _clip_plugged(t, g, out, a, lo, hi):
    lo_text, hi_text = ("−∞" if lo is None else t(lo)), ("∞" if hi is None else t(hi))
    inside = (a >= (-np.inf if lo is None else lo)) & (a <= (np.inf if hi is None else hi))
    return ((f"{t(g)} ⊙ [{lo_text} ≤ {t(a)} ≤ {hi_text}]", g * inside),)


def _clip_jvp(tangents, out, a, lo, hi):
    return _clip_vjp(tangents[0], out, a, None, lo, hi)[0]  # the same mask: J is diagonal


def _clip_jvp_plugged(t, tangents, out, a, lo, hi):
    lo_text, hi_text = ("−∞" if lo is None else t(lo)), ("∞" if hi is None else t(hi))
    inside = (a >= (-np.inf if lo is None else lo)) & (a <= (np.inf if hi is None else hi))
    return f"[{lo_text} ≤ {t(a)} ≤ {hi_text}] ⊙ {t(tangents[0])}", inside * tangents[0]


CLIP = Primitive("clip", clip, _clip_vjp, "dA = G where lo ≤ A ≤ hi, else 0", plugged=_clip_plugged,
                 saves=("A",),
                 slots=("A",), shape=_clip_shape,
                 methods=("clip",),
                 jvp=_clip_jvp, jvp_formula="dOut = dA where lo ≤ A ≤ hi, else 0", jvp_plugged=_clip_jvp_plugged,
                 vjp_lines=lines.clip_lines)


def masked_fill(a, mask, value):
    mask = mask_array(mask)
    try:
        out = np.where(mask, np.asarray(value, dtype=a.dtype), a.data)
    except ValueError:
        _masked_fill_shape(a.shape, mask.shape, value)
        raise
    return _result(out, (a,), MASKED_FILL, {"mask": mask})


def _masked_fill_shape(a, mask, value=0.0):
    try:
        return tuple(np.broadcast_shapes(tuple(a), tuple(mask)))
    except ValueError:
        raise ValueError(
            f"masked_fill: a mask of shape {tuple(mask)} does not broadcast with a tensor of shape {tuple(a)}"
        ) from None


def _masked_fill_vjp(g, out, a, need, mask, xp=xp_array):
    return (xp.where(mask, 0, g),)


def _masked_fill_jvp(tangents, out, a, mask):
    return np.where(mask, 0, tangents[0])


MASKED_FILL = Primitive("masked_fill", masked_fill, _masked_fill_vjp, "dA = G where not mask, else 0",
                        saves=(),
                        plugged=lambda t, g, out, a, mask: ((f"{t(g)} ⊙ {t(~mask * 1.0)}", g * ~mask),),
                        slots=("A",), shape=_masked_fill_shape, methods=("masked_fill",),
                        jvp=_masked_fill_jvp,
                        jvp_formula="dOut = dA where not mask, else 0",
                        jvp_plugged=lambda t, tangents, out, a, mask: (f"{t(~mask * 1.0)} ⊙ {t(tangents[0])}",
                                                                       ~mask * tangents[0]),
                        vjp_lines=("dA += dOut * ({mask} == 0)",))


def where(cond, a, b):
    cond = mask_array(cond)
    a, b = pair(a, b)
    try:
        out = np.where(cond, a.data, b.data)
    except ValueError:
        _where_shape(cond.shape, a.shape, b.shape)
        raise
    return _result(out, (a, b), WHERE, {"cond": cond})


def _where_shape(cond, a, b):
    try:
        return tuple(np.broadcast_shapes(tuple(cond), tuple(a), tuple(b)))
    except ValueError:
        raise ValueError(
            f"where: condition {tuple(cond)}, {tuple(a)} and {tuple(b)} cannot be broadcast together"
        ) from None


def _where_vjp(g, out, a, b, need, cond, xp=xp_array):
    return (xp.where(cond, g, 0) if need[0] else None), (xp.where(cond, 0, g) if need[1] else None)


def _where_plugged(t, g, out, a, b, cond):
    return (f"{t(g)} ⊙ {t(cond * 1.0)}", g * cond), (f"{t(g)} ⊙ {t(~cond * 1.0)}", g * ~cond)


def _where_jvp(tangents, out, a, b, cond):
    ta, tb = tangents
    return np.where(cond, 0.0 if ta is None else ta, 0.0 if tb is None else tb)


def _where_jvp_plugged(t, tangents, out, a, b, cond):
    return plugged_terms((tangents[0], lambda x: (f"{t(cond * 1.0)} ⊙ {t(x)}", cond * x)),
                         (tangents[1], lambda x: (f"{t(~cond * 1.0)} ⊙ {t(x)}", ~cond * x)))


WHERE = Primitive("where", where, _where_vjp, "dA = G where cond, dB = G where not cond", plugged=_where_plugged,
                  saves=(),
                  slots=("A", "B"),
                  shape=_where_shape, functions=("where",),
                  jvp=_where_jvp, jvp_formula="dOut = dA where cond, dB where not cond", jvp_plugged=_where_jvp_plugged,
                  vjp_lines=("dA += dOut * ({cond} != 0)", "dB += dOut * ({cond} == 0)"))


# ---- no gradient: detach, round -------------------------------------------------------------------
# Both pass their forward and send nothing back: detach is the identity that backward stops at (the language's
# x.detach(), drawn as a cut edge; Tensor.detach() itself stays the engine's leaf-making member, as PyTorch's), round
# is a step function, flat almost everywhere (PyTorch's round also has a zero gradient). Together they make the
# straight-through estimator: x + (round(x) - x).detach().
def _zero_vjp(g, out, a, need, xp=xp_array):
    return (xp.where(True, 0.0, g),)  # NOTE: zeros of G's shape and dtype, and 0 even where G is inf or NaN


def _zero_jvp(tangents, out, a):
    return np.zeros_like(tangents[0])


def detach(a):
    return _result(a.data.copy(), (a,), DETACH)


DETACH = Primitive("detach", detach, _zero_vjp, "dA = 0 (no grad flows through detach)",
                   saves=(),
                   plugged=lambda t, g, out, a: ((f"0 ⊙ {t(g)}", np.zeros_like(g)),),
                   slots=("A",), shape=same_shape, functions=("detach",),
                   jvp=_zero_jvp,
                   jvp_formula="dOut = 0",
                   jvp_plugged=lambda t, tangents, out, a: (f"0 ⊙ {t(tangents[0])}", np.zeros_like(tangents[0])),
                   vjp_lines=("dA += 0 * dOut",))


def round(a):  # noqa: A001  (PyTorch's name)
    return _result(np.round(a.data), (a,), ROUND)


ROUND = Primitive("round", round, _zero_vjp, "dA = 0 (round is flat between its steps)",
                  saves=(),
                  plugged=lambda t, g, out, a: ((f"0 ⊙ {t(g)}", np.zeros_like(g)),),
                  slots=("A",), shape=same_shape, methods=("round",), functions=("round",),
                  jvp=_zero_jvp,
                  jvp_formula="dOut = 0",
                  jvp_plugged=lambda t, tangents, out, a: (f"0 ⊙ {t(tangents[0])}", np.zeros_like(tangents[0])),
                  vjp_lines=("dA += 0 * dOut",))
