"""The arithmetic primitives: + − × ÷ ** and unary minus, maximum and minimum; all broadcast like NumPy."""

import numpy as np

from autograd.ops import _lines as lines
from autograd.ops import xp_array
from autograd.ops._common import broadcast_shape, pair, plugged_terms, same_shape, tangent_sum
from autograd.tensor import Primitive, Tensor, _no_grad_depth, _result, is_grad_enabled

_new = object.__new__


def _elementwise(a, b, fn, prim):
    """Forward of a broadcasting binary primitive: fn(a, b) with a clear error on shape mismatch."""
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        a, b = pair(a, b)
    try:
        out = fn(a.data, b.data)
    except ValueError:
        raise ValueError(f"{prim.name}: shapes {a.shape} and {b.shape} cannot be broadcast together") from None
    # NOTE: this is tensor._result written out for two operands: every + - * / ** comes through here,
    # and the call it saves is ~6% of an op's forward (counted with callgrind on the 1,000-op chain).
    result = _new(Tensor)
    result.data = out if type(out) is np.ndarray else np.asarray(out)
    result.grad = None
    result.name = None
    if (a.requires_grad or b.requires_grad) and (not _no_grad_depth or is_grad_enabled()):
        result.requires_grad = True
        result._parents = (a, b)
        result._prim = prim
    else:
        result.requires_grad = False
        result._parents = ()
        result._prim = None
    result._meta = None
    return result


# ---- add -----------------------------------------------------------------------------------
def add(a, b):
    return _elementwise(a, b, np.add, ADD)


def _add_vjp(g, out, a, b, need, xp=xp_array):
    return g, g


def _add_jvp(tangents, out, a, b):
    ta, tb = tangents
    return tb if ta is None else ta if tb is None else ta + tb


def _add_jvp_plugged(t, tangents, out, a, b):
    return plugged_terms(*((x, lambda x: (t(x), x)) for x in tangents))


ADD = Primitive(
    "add", add, _add_vjp, "dA = G,  dB = G", plugged=lambda t, g, out, a, b: ((t(g), g), (t(g), g)),
    saves=(),
    slots=("A", "B"), commutative=True, shape=broadcast_shape("add"), operators=("__add__", "__radd__"),
    jvp=_add_jvp, jvp_formula="dOut = dA + dB", jvp_plugged=_add_jvp_plugged,
    vjp_lines=("dA += dOut", "dB += dOut"),
)


# ---- sub -----------------------------------------------------------------------------------
def sub(a, b):
    return _elementwise(a, b, np.subtract, SUB)


def _sub_vjp(g, out, a, b, need, xp=xp_array):
    return g, (-g if need[1] else None)


def _sub_jvp(tangents, out, a, b):
    ta, tb = tangents
    return -tb if ta is None else ta if tb is None else ta - tb


def _sub_jvp_plugged(t, tangents, out, a, b):
    ta, tb = tangents
    return plugged_terms((ta, lambda x: (t(x), x)), (tb, lambda x: (f"−{t(x)}", -x)))


SUB = Primitive(
    "sub", sub, _sub_vjp, "dA = G,  dB = −G", plugged=lambda t, g, out, a, b: ((t(g), g), (f"−{t(g)}", -g)),
    saves=(),
    slots=("A", "B"), shape=broadcast_shape("sub"), operators=("__sub__", "__rsub__"),
    jvp=_sub_jvp, jvp_formula="dOut = dA − dB", jvp_plugged=_sub_jvp_plugged,
    vjp_lines=("dA += dOut", "dB += -dOut"),
)


# ---- mul -----------------------------------------------------------------------------------
def mul(a, b):
    return _elementwise(a, b, np.multiply, MUL)


def _mul_vjp(g, out, a, b, need, xp=xp_array):
    return (g * b if need[0] else None), (g * a if need[1] else None)


def _mul_jvp(tangents, out, a, b):
    ta, tb = tangents
    if tb is None:
        return ta * b
    if ta is None:
        return a * tb
    return ta * b + a * tb


def _mul_jvp_plugged(t, tangents, out, a, b):
    ta, tb = tangents
    return plugged_terms((ta, lambda x: (f"{t(x)} ⊙ {t(b)}", x * b)), (tb, lambda x: (f"{t(a)} ⊙ {t(x)}", a * x)))


MUL = Primitive(
    "mul", mul, _mul_vjp, "dA = G ⊙ B,  dB = G ⊙ A",
    saves=("A", "B"),
    plugged=lambda t, g, out, a, b: ((f"{t(g)} ⊙ {t(b)}", g * b), (f"{t(g)} ⊙ {t(a)}", g * a)),
    slots=("A", "B"), commutative=True, shape=broadcast_shape("mul"), operators=("__mul__", "__rmul__"),
    jvp=_mul_jvp, jvp_formula="dOut = dA ⊙ B + A ⊙ dB", jvp_plugged=_mul_jvp_plugged,
    vjp_lines=("dA += dOut * B", "dB += dOut * A"),
)


# ---- div -----------------------------------------------------------------------------------
def div(a, b):
    return _elementwise(a, b, np.true_divide, DIV)


def _div_vjp(g, out, a, b, need, xp=xp_array):
    return (g / b if need[0] else None), (-g * out / b if need[1] else None)


def _div_jvp(tangents, out, a, b):
    ta, tb = tangents
    return tangent_sum(None if ta is None else ta / b, None if tb is None else -tb * out / b)


def _div_jvp_plugged(t, tangents, out, a, b):
    ta, tb = tangents
    return plugged_terms((ta, lambda x: (f"{t(x)} / {t(b)}", x / b)),
                         (tb, lambda x: (f"−{t(a)} ⊙ {t(x)} / {t(b)}²", -a * x / b**2)))


DIV = Primitive(
    "div", div, _div_vjp, "dA = G / B,  dB = −G ⊙ A / B²",
    saves=("B", "out"),
    plugged=lambda t, g, out, a, b: ((f"{t(g)} / {t(b)}", g / b), (f"−{t(g)} ⊙ {t(a)} / {t(b)}²", -g * a / b**2)),
    slots=("A", "B"), shape=broadcast_shape("div"), operators=("__truediv__", "__rtruediv__"),
    jvp=_div_jvp, jvp_formula="dOut = dA / B − A ⊙ dB / B²", jvp_plugged=_div_jvp_plugged,
    vjp_lines=("dA += dOut / B", "dB += -dOut * Out / B"),
)


# ---- pow -----------------------------------------------------------------------------------
def pow(a, b):
    return _elementwise(a, b, np.power, POW)


def _pow_vjp(g, out, a, b, need, xp=xp_array):
    da = db = None
    base, power = xp.value(a), xp.value(b)
    with np.errstate(divide="ignore", invalid="ignore"):
        if need[0]:
            # NOTE: like PyTorch, d(a^0)/da = 0 even at a = 0 (not 0 * 0^-1 = nan).
            zero = power == 0
            da = xp.where(zero, 0.0, g * b * xp.guarded(a, zero, 1.0) ** (b - 1))
        if need[1]:
            # NOTE: like PyTorch, d(0^b)/db = 0 for b >= 0 (not 0 * log 0 = nan).
            zero = (base == 0) & (power >= 0)
            db = xp.where(zero, 0.0, g * out * xp.log(xp.guarded(a, zero, 1.0)))
    return da, db


def _pow_plugged(t, g, out, a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        da = np.where(b == 0, 0.0, g * b * a ** (b - 1))
        db = np.where((a == 0) & (b >= 0), 0.0, g * a**b * np.log(a))
    zero_a = " (0 where B = 0)" if np.any(b == 0) else ""
    zero_b = " (0 where A = 0, B ≥ 0)" if np.any((a == 0) & (b >= 0)) else ""
    return (
        (f"{t(g)} ⊙ {t(b)}·{t(a)}^({t(b)} − 1){zero_a}", da),
        (f"{t(g)} ⊙ {t(a)}^{t(b)}·log {t(a)}{zero_b}", db),
    )


def _pow_jvp(tangents, out, a, b):
    ta, tb = tangents
    da = db = None
    with np.errstate(divide="ignore", invalid="ignore"):
        # NOTE: the VJP's conventions at 0: d(a^0)/da = 0 even at a = 0, d(0^b)/db = 0 for b >= 0.
        if ta is not None:
            da = np.where(b == 0, 0.0, ta * b * a ** (b - 1))
        if tb is not None:
            db = np.where((a == 0) & (b >= 0), 0.0, tb * out * np.log(a))
    return tangent_sum(da, db)


def _pow_jvp_plugged(t, tangents, out, a, b):
    ta, tb = tangents
    zero_a = " (0 where B = 0)" if np.any(b == 0) else ""
    zero_b = " (0 where A = 0, B ≥ 0)" if np.any((a == 0) & (b >= 0)) else ""
    with np.errstate(divide="ignore", invalid="ignore"):
        return plugged_terms(
            (ta, lambda x: (f"{t(b)}·{t(a)}^({t(b)} − 1) ⊙ {t(x)}{zero_a}",
                            np.where(b == 0, 0.0, b * a ** (b - 1) * x))),
            (tb, lambda x: (f"{t(a)}^{t(b)}·log {t(a)} ⊙ {t(x)}{zero_b}",
                            np.where((a == 0) & (b >= 0), 0.0, a**b * np.log(a) * x))),
        )


POW = Primitive(
    "pow", pow, _pow_vjp, "dA = G ⊙ B·A^(B−1),  dB = G ⊙ A^B·log A", plugged=_pow_plugged,
    saves=("A", "B", "out"),
    slots=("A", "B"), shape=broadcast_shape("pow"), operators=("__pow__", "__rpow__"), methods=("pow",),
    jvp=_pow_jvp, jvp_formula="dOut = B·A^(B−1) ⊙ dA + A^B·log A ⊙ dB", jvp_plugged=_pow_jvp_plugged,
    vjp_lines=lines.POW_LINES,
)


# ---- neg -----------------------------------------------------------------------------------
def neg(a):
    return _result(-a.data, (a,), NEG)


def _neg_vjp(g, out, a, need, xp=xp_array):
    return (-g,)


def _neg_jvp(tangents, out, a):
    return -tangents[0]


NEG = Primitive("neg", neg, _neg_vjp, "dA = −G", plugged=lambda t, g, out, a: ((f"−{t(g)}", -g),),
                saves=(),
                slots=("A",), shape=same_shape, operators=("__neg__",),
    jvp=_neg_jvp,
    jvp_formula="dOut = −dA",
    jvp_plugged=lambda t, tangents, out, a: (f"−{t(tangents[0])}", -tangents[0]),
    vjp_lines=("dA += -dOut",),
)


# ---- maximum, minimum ------------------------------------------------------------------------
def maximum(a, b):
    return _elementwise(a, b, np.maximum, MAXIMUM)


def _maximum_vjp(g, out, a, b, need, xp=xp_array):
    return _select(g, xp.value(a), xp.value(b), np.less, need)


def _shares(a, b, loses):
    # NOTE: PyTorch's rule: each input gets G where it won, G/2 where the two tie, 0 where it lost
    # (`loses(a, b)` says where a lost). Where either is nan, both get G, as in PyTorch.
    tie = (a == b) * 0.5
    return np.where(loses(a, b), 0.0, 1.0 - tie), np.where(loses(b, a), 0.0, 1.0 - tie)


def _select(g, a, b, loses, need):
    share_a, share_b = _shares(a, b, loses)
    return (g * share_a if need[0] else None), (g * share_b if need[1] else None)


def _weights(t, g, a, b, loses):
    """The plugged-in rule of maximum and minimum: G times each input's share (1 won, ½ tied, 0 lost)."""
    share_a, share_b = _shares(a, b, loses)
    return (f"{t(g)} ⊙ {t(share_a)}", g * share_a), (f"{t(g)} ⊙ {t(share_b)}", g * share_b)


def _extremum_jvp(tangents, a, b, loses):
    share_a, share_b = _shares(a, b, loses)
    ta, tb = tangents
    return tangent_sum(None if ta is None else share_a * ta, None if tb is None else share_b * tb)


def _extremum_jvp_plugged(t, tangents, a, b, loses):
    """The plugged-in JVP of maximum and minimum: each input's share (1 won, ½ tied, 0 lost) times its tangent."""
    share_a, share_b = _shares(a, b, loses)
    ta, tb = tangents
    return plugged_terms((ta, lambda x: (f"{t(share_a)} ⊙ {t(x)}", share_a * x)),
                         (tb, lambda x: (f"{t(share_b)} ⊙ {t(x)}", share_b * x)))


MAXIMUM = Primitive(
    "maximum", maximum, _maximum_vjp, "dA = G where A > B, G/2 where A = B, else 0;  dB likewise",
    saves=("A", "B"),
    plugged=lambda t, g, out, a, b: _weights(t, g, a, b, np.less),
    slots=("A", "B"), commutative=True, shape=broadcast_shape("maximum"), functions=("maximum",),
    jvp=lambda tangents, out, a, b: _extremum_jvp(tangents, a, b, np.less),
    jvp_formula="dOut = dA where A > B, dB where A < B, (dA + dB)/2 where A = B",
    jvp_plugged=lambda t, tangents, out, a, b: _extremum_jvp_plugged(t, tangents, a, b, np.less),
    vjp_lines=("dA += dOut * (1 - (A < B) - 0.5 * (A == B))", "dB += dOut * (1 - (B < A) - 0.5 * (A == B))"),
)


def minimum(a, b):
    return _elementwise(a, b, np.minimum, MINIMUM)


def _minimum_vjp(g, out, a, b, need, xp=xp_array):
    return _select(g, xp.value(a), xp.value(b), np.greater, need)


MINIMUM = Primitive(
    "minimum", minimum, _minimum_vjp, "dA = G where A < B, G/2 where A = B, else 0;  dB likewise",
    saves=("A", "B"),
    plugged=lambda t, g, out, a, b: _weights(t, g, a, b, np.greater),
    slots=("A", "B"), commutative=True, shape=broadcast_shape("minimum"), functions=("minimum",),
    jvp=lambda tangents, out, a, b: _extremum_jvp(tangents, a, b, np.greater),
    jvp_formula="dOut = dA where A < B, dB where A > B, (dA + dB)/2 where A = B",
    jvp_plugged=lambda t, tangents, out, a, b: _extremum_jvp_plugged(t, tangents, a, b, np.greater),
    vjp_lines=("dA += dOut * (1 - (A > B) - 0.5 * (A == B))", "dB += dOut * (1 - (B > A) - 0.5 * (A == B))"),
)
