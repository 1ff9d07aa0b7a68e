"""The arithmetic primitives: + − × ÷ ** and unary minus, maximum and minimum; all broadcast like NumPy."""

import numpy as np

from autograd.ops._common import broadcast_shape, pair, same_shape
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


def _add_vjp(g, out, a, b, need):
    return g, g


ADD = Primitive(
    "add", add, _add_vjp, "dA = G,  dB = G", plugged=lambda t, g, out, a, b: ((t(g), g), (t(g), g)),
    slots=("A", "B"), commutative=True, shape=broadcast_shape("add"), operators=("__add__", "__radd__"),
)


# ---- sub -----------------------------------------------------------------------------------
def sub(a, b):
    return _elementwise(a, b, np.subtract, SUB)


def _sub_vjp(g, out, a, b, need):
    return g, (-g if need[1] else None)


SUB = Primitive(
    "sub", sub, _sub_vjp, "dA = G,  dB = −G", plugged=lambda t, g, out, a, b: ((t(g), g), (f"−{t(g)}", -g)),
    slots=("A", "B"), shape=broadcast_shape("sub"), operators=("__sub__", "__rsub__"),
)


# ---- mul -----------------------------------------------------------------------------------
def mul(a, b):
    return _elementwise(a, b, np.multiply, MUL)


def _mul_vjp(g, out, a, b, need):
    return (g * b if need[0] else None), (g * a if need[1] else None)


MUL = Primitive(
    "mul", mul, _mul_vjp, "dA = G ⊙ B,  dB = G ⊙ A",
    plugged=lambda t, g, out, a, b: ((f"{t(g)} ⊙ {t(b)}", g * b), (f"{t(g)} ⊙ {t(a)}", g * a)),
    slots=("A", "B"), commutative=True, shape=broadcast_shape("mul"), operators=("__mul__", "__rmul__"),
)


# ---- div -----------------------------------------------------------------------------------
def div(a, b):
    return _elementwise(a, b, np.true_divide, DIV)


def _div_vjp(g, out, a, b, need):
    return (g / b if need[0] else None), (-g * out / b if need[1] else None)


DIV = Primitive(
    "div", div, _div_vjp, "dA = G / B,  dB = −G ⊙ A / B²",
    plugged=lambda t, g, out, a, b: ((f"{t(g)} / {t(b)}", g / b), (f"−{t(g)} ⊙ {t(a)} / {t(b)}²", -g * a / b**2)),
    slots=("A", "B"), shape=broadcast_shape("div"), operators=("__truediv__", "__rtruediv__"),
)


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


POW = Primitive(
    "pow", pow, _pow_vjp, "dA = G ⊙ B·A^(B−1),  dB = G ⊙ A^B·log A", plugged=_pow_plugged,
    slots=("A", "B"), shape=broadcast_shape("pow"), operators=("__pow__", "__rpow__"), methods=("pow",),
)


# ---- neg -----------------------------------------------------------------------------------
def neg(a):
    return _result(-a.data, (a,), NEG)


def _neg_vjp(g, out, a, need):
    return (-g,)


NEG = Primitive("neg", neg, _neg_vjp, "dA = −G", plugged=lambda t, g, out, a: ((f"−{t(g)}", -g),),
                slots=("A",), shape=same_shape, operators=("__neg__",))


# ---- maximum, minimum ------------------------------------------------------------------------
def maximum(a, b):
    return _elementwise(a, b, np.maximum, MAXIMUM)


def _maximum_vjp(g, out, a, b, need):
    return _select(g, a, b, np.less, need)


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


MAXIMUM = Primitive(
    "maximum", maximum, _maximum_vjp, "dA = G where A > B, G/2 where A = B, else 0;  dB likewise",
    plugged=lambda t, g, out, a, b: _weights(t, g, a, b, np.less),
    slots=("A", "B"), commutative=True, shape=broadcast_shape("maximum"), functions=("maximum",),
)


def minimum(a, b):
    return _elementwise(a, b, np.minimum, MINIMUM)


def _minimum_vjp(g, out, a, b, need):
    return _select(g, a, b, np.greater, need)


MINIMUM = Primitive(
    "minimum", minimum, _minimum_vjp, "dA = G where A < B, G/2 where A = B, else 0;  dB likewise",
    plugged=lambda t, g, out, a, b: _weights(t, g, a, b, np.greater),
    slots=("A", "B"), commutative=True, shape=broadcast_shape("minimum"), functions=("minimum",),
)
