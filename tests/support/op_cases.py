"""The op table: every primitive of the registry with its cases (inputs, the op, a NumPy reference), and helpers."""

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import autograd.functional as F
from autograd import Tensor
from tests.support.helpers import leaves

RNG = np.random.default_rng(20240611)


def randn(*shape):
    return RNG.standard_normal(shape)


def uniform(lo, hi, *shape):
    return RNG.uniform(lo, hi, shape)


def away_from_zero(*shape, gap=0.1):
    """Random values with |x| >= gap, so kinks (relu, abs) stay out of the finite differences."""
    x = RNG.uniform(gap, 2.0, shape)
    return x * RNG.choice([-1.0, 1.0], size=shape)


def softmax_ref(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def log_softmax_ref(x, axis):
    return np.log(softmax_ref(x, axis))


def gelu_ref(x):
    # NOTE: 0.5·x·erfc(−x/√2) = 0.5·x·(1 + erf(x/√2)), without the cancellation for negative x.
    return 0.5 * x * np.vectorize(math.erfc)(-x / math.sqrt(2))


def sigmoid_ref(x):
    return 1 / (1 + np.exp(-x))


#: Primitives whose gradient is 0 by design, not the derivative of their forward (detach passes its input on):
#: the tests that compare a VJP or JVP with central differences compare it with 0 instead.
NO_GRADIENT_BY_DESIGN = frozenset({"detach"})


@dataclass
class Case:
    label: str
    arrays: tuple  # the differentiable inputs, float64
    fn: Callable  # fn(*tensors) -> Tensor, whose last op is the primitive under test
    ref: Callable  # ref(*arrays) -> np.ndarray, plain NumPy


def binary_cases(fn, ref, lhs=randn, rhs=randn):
    return [
        Case("(3,4)+(3,4)", (lhs(3, 4), rhs(3, 4)), fn, ref),
        Case("(3,1)+(1,4)", (lhs(3, 1), rhs(1, 4)), fn, ref),
        Case("(2,3,4)+(4,)", (lhs(2, 3, 4), rhs(4)), fn, ref),
        Case("(4,)+(2,3,4)", (lhs(4), rhs(2, 3, 4)), fn, ref),
        Case("scalar+(3,4)", (lhs(), rhs(3, 4)), fn, ref),
        Case("(3,4)+scalar", (lhs(3, 4), rhs()), fn, ref),
        Case("(3,4)+python 2.5", (lhs(3, 4),), lambda a: fn(a, 2.5), lambda a: ref(a, 2.5)),
        Case("python 2.5+(3,4)", (rhs(3, 4),), lambda b: fn(2.5, b), lambda b: ref(2.5, b)),
    ]


def method(name, **kwargs):
    """t -> t.name(**kwargs)."""
    return lambda t: getattr(t, name)(**kwargs)


def with_axis(ref, axis):
    return lambda a: ref(a, axis)


def indexer(idx):
    """t -> t[idx], for Tensors and arrays alike."""
    return lambda t: t[idx]


def positive(*shape):
    return uniform(0.5, 2.0, *shape)


REDUCTIONS = {"mean": np.mean, "sum": np.sum, "none": lambda v: v}


def cross_entropy_with(reduction):
    return lambda z: F.cross_entropy(z, LABELS, reduction=reduction)


def cross_entropy_ref(reduction):
    return lambda z: REDUCTIONS[reduction](-log_softmax_ref(z, -1)[np.arange(len(LABELS)), LABELS])


def mse_with(reduction):
    return lambda a, b: F.mse_loss(a, b, reduction=reduction)


def bce_with(reduction):
    return lambda z, y: F.binary_cross_entropy_with_logits(z, y, reduction=reduction)


def bce_ref(reduction):
    def ref(z, y):
        p = sigmoid_ref(z)
        return REDUCTIONS[reduction](-(y * np.log(p) + (1 - y) * np.log(1 - p)))

    return ref


MASK = RNG.random((3, 4)) < 0.5
ROW_MASK = np.array([True, False, False, True])
LABELS = np.array([0, 2, 1, 2, 0])
CE_LOGITS = randn(5, 3)
BCE_TARGETS = RNG.random((4, 3))

CASES = {
    "add": binary_cases(lambda a, b: a + b, np.add),
    "sub": binary_cases(lambda a, b: a - b, np.subtract),
    "mul": binary_cases(lambda a, b: a * b, np.multiply),
    "div": binary_cases(lambda a, b: a / b, np.divide, rhs=lambda *s: away_from_zero(*s, gap=0.5)),
    "pow": [
        Case("(3,4)**(3,1)", (positive(3, 4), uniform(-1.5, 2.5, 3, 1)), lambda a, b: a**b, np.power),
        Case("(2,3,4)**(4,)", (positive(2, 3, 4), uniform(-1.5, 2.5, 4)), lambda a, b: a**b, np.power),
        Case("x**3 (negative base)", (randn(3, 4),), lambda a: a**3, lambda a: a**3),
        Case("x**0.5", (positive(5),), lambda a: a**0.5, np.sqrt),
        Case("2**x", (randn(3, 4),), lambda b: 2.0**b, lambda b: 2.0**b),
    ],
    "neg": [Case("-(3,4)", (randn(3, 4),), lambda a: -a, np.negative)],
    "matmul": [
        Case(f"{sa}@{sb}", (randn(*sa), randn(*sb)), lambda a, b: a @ b, np.matmul)
        for sa, sb in [
            ((3, 4), (4, 5)),
            ((4,), (4,)),
            ((3, 4), (4,)),
            ((4,), (4, 5)),
            ((2, 3, 4), (4, 5)),
            ((4,), (2, 4, 5)),
            ((2, 3, 4), (4,)),
            ((2, 3, 4), (2, 4, 5)),
            ((2, 1, 3, 4), (5, 4, 2)),
        ]
    ]
    + [Case("ndarray@tensor", (randn(4, 2),), lambda b: np.ones((3, 4)) @ b, lambda b: np.ones((3, 4)) @ b)],
    "linear": [
        Case("x(5,3) W(4,3) b(4,)", (randn(5, 3), randn(4, 3), randn(4)), F.linear, lambda x, w, b: x @ w.T + b),
        Case("no bias", (randn(5, 3), randn(4, 3)), F.linear, lambda x, w: x @ w.T),
        Case("batched x(2,5,3)", (randn(2, 5, 3), randn(4, 3), randn(4)), F.linear, lambda x, w, b: x @ w.T + b),
    ],
    "getitem": [
        Case(f"x[{label}]", (randn(4, 5),), indexer(idx), indexer(idx))
        for label, idx in [
            ("1", 1),
            ("-1, 2", (-1, 2)),
            ("1:3, ::2", (slice(1, 3), slice(None, None, 2))),
            ("..., 0", (Ellipsis, 0)),
            ("None, 1", (None, 1)),
            ("[0, 2, 0, 0] (repeated)", np.array([0, 2, 0, 0])),
            ("list [3, 3, 1]", [3, 3, 1]),
            ("[[0, 1], [1, 1]]", np.array([[0, 1], [1, 1]])),
            ("[0, 0, 1], [1, 1, 2] (repeated pairs)", (np.array([0, 0, 1]), np.array([1, 1, 2]))),
            (":, [2, 2, 0]", (slice(None), np.array([2, 2, 0]))),
            ("boolean mask", RNG.random((4, 5)) < 0.5),
        ]
    ]
    + [Case("x[Tensor([2, 0, 2])]", (randn(4, 5),), lambda a: a[Tensor([2, 0, 2])], lambda a: a[[2, 0, 2]])],
    "exp": [Case("exp", (randn(3, 4),), lambda a: a.exp(), np.exp)],
    "log": [Case("log", (positive(3, 4),), lambda a: a.log(), np.log)],
    "sqrt": [Case("sqrt", (positive(3, 4),), lambda a: a.sqrt(), np.sqrt)],
    "abs": [Case("abs", (away_from_zero(3, 4),), lambda a: a.abs(), np.abs)],
    "relu": [Case("relu", (away_from_zero(3, 4),), lambda a: a.relu(), lambda a: np.maximum(a, 0))],
    "tanh": [Case("tanh", (randn(3, 4),), lambda a: a.tanh(), np.tanh)],
    "sigmoid": [Case("sigmoid", (3 * randn(3, 4),), lambda a: a.sigmoid(), sigmoid_ref)],
    "gelu": [Case("gelu", (3 * randn(3, 4),), lambda a: a.gelu(), gelu_ref)],
    "silu": [Case("silu", (3 * randn(3, 4),), lambda a: a.silu(), lambda a: a * sigmoid_ref(a))],
    "softmax": [
        Case(f"softmax axis={axis}", (randn(2, 3, 4),), method("softmax", axis=axis), with_axis(softmax_ref, axis))
        for axis in (-1, 0, 1)
    ],
    "log_softmax": [
        Case(f"log_softmax axis={axis}", (randn(2, 3, 4),), method("log_softmax", axis=axis),
             with_axis(log_softmax_ref, axis))
        for axis in (-1, 0, 2)
    ],
    "reshape": [
        Case("(3,4)->(2,6)", (randn(3, 4),), lambda a: a.reshape(2, 6), lambda a: a.reshape(2, 6)),
        Case("(3,4)->(-1,)", (randn(3, 4),), lambda a: a.reshape(-1), lambda a: a.reshape(-1)),
        Case("(2,3,4)->((4,-1))", (randn(2, 3, 4),), lambda a: a.reshape((4, -1)), lambda a: a.reshape(4, -1)),
    ],
    "transpose": [
        Case(".T", (randn(3, 4),), lambda a: a.T, lambda a: a.T),
        Case("(1,2,0)", (randn(2, 3, 4),), lambda a: a.transpose(1, 2, 0), lambda a: a.transpose(1, 2, 0)),
        Case("((2,0,1))", (randn(2, 3, 4),), lambda a: a.transpose((2, 0, 1)), lambda a: a.transpose(2, 0, 1)),
        Case("(-1,0,1)", (randn(2, 3, 4),), lambda a: a.transpose(-1, 0, 1), lambda a: a.transpose(2, 0, 1)),
    ],
    "masked_fill": [
        Case("mask (3,4)", (randn(3, 4),), lambda a: a.masked_fill(MASK, -7.0), lambda a: np.where(MASK, -7.0, a)),
        Case("mask (4,) broadcast", (randn(3, 4),), lambda a: a.masked_fill(ROW_MASK, 0.5),
             lambda a: np.where(ROW_MASK, 0.5, a)),
    ],
    # no gradient. detach's forward is the identity and its gradient 0 by design (NO_GRADIENT_BY_DESIGN), round's
    # is 0 wherever it has one: central differences see 0 too (round's inputs sit away from its steps, at k ± 0.2)
    "detach": [Case("detach", (randn(3, 4),), lambda a: F.detach(a), lambda a: a.copy())],
    "round": [Case("round", (RNG.integers(-3, 4, (3, 4)) + RNG.choice([-0.2, 0.2], (3, 4)),), lambda a: a.round(),
                   np.round)],
    "clip": [
        Case("clip(-0.5, 0.5)", (away_from_zero(3, 4) * 0.9 + 0.0,), lambda a: a.clip(-0.5, 0.5),
             lambda a: np.clip(a, -0.5, 0.5)),
        Case("clip(lo=0.3)", (randn(3, 4),), lambda a: a.clip(0.3), lambda a: np.maximum(a, 0.3)),
        Case("clip(hi=0.3)", (randn(3, 4),), lambda a: a.clip(hi=0.3), lambda a: np.minimum(a, 0.3)),
    ],
    "where": [
        Case("(3,4),(3,4)", (randn(3, 4), randn(3, 4)), lambda a, b: F.where(MASK, a, b),
             lambda a, b: np.where(MASK, a, b)),
        Case("(3,4),(4,)", (randn(3, 4), randn(4)), lambda a, b: F.where(MASK, a, b),
             lambda a, b: np.where(MASK, a, b)),
        Case("scalar,(3,4)", (randn(), randn(3, 4)), lambda a, b: F.where(MASK, a, b),
             lambda a, b: np.where(MASK, a, b)),
    ],
    "concat": [
        Case("axis 0", (randn(2, 3), randn(4, 3)), lambda a, b: F.concat([a, b]), lambda a, b: np.concatenate([a, b])),
        Case("axis 1, three", (randn(2, 1), randn(2, 3), randn(2, 2)), lambda *t: F.concat(t, axis=1),
             lambda *a: np.concatenate(a, axis=1)),
        Case("axis -1", (randn(2, 3), randn(2, 2)), lambda a, b: F.concat([a, b], axis=-1),
             lambda a, b: np.concatenate([a, b], axis=-1)),
    ],
    "stack": [
        Case("axis 0", (randn(2, 3), randn(2, 3)), lambda a, b: F.stack([a, b]), lambda a, b: np.stack([a, b])),
        Case("axis -1, three", (randn(2, 3), randn(2, 3), randn(2, 3)), lambda *t: F.stack(t, axis=-1),
             lambda *a: np.stack(a, axis=-1)),
        Case("axis 1", (randn(4), randn(4)), lambda a, b: F.stack([a, b], axis=1), lambda a, b: np.stack([a, b], 1)),
    ],
    "cross_entropy": [
        Case(f"reduction={red}", (CE_LOGITS.copy(),), cross_entropy_with(red), cross_entropy_ref(red))
        for red in REDUCTIONS
    ]
    + [Case("tensor labels", (CE_LOGITS.copy(),), lambda z: F.cross_entropy(z, Tensor(LABELS)),
            cross_entropy_ref("mean"))],
    "bce_with_logits": [
        Case(f"reduction={red}", (3 * randn(4, 3), BCE_TARGETS.copy()), bce_with(red), bce_ref(red))
        for red in REDUCTIONS
    ],
    "mse_loss": [
        Case(f"reduction={red}", (randn(4, 3), randn(4, 3)), mse_with(red),
             lambda a, b, red=red: REDUCTIONS[red]((a - b) ** 2))
        for red in REDUCTIONS
    ]
    + [Case("0-d", (randn(), randn()), F.mse_loss, lambda a, b: (a - b) ** 2),
       Case("constant target", (randn(5),), lambda a: F.mse_loss(a, Tensor(np.ones(5))),
            lambda a: np.mean((a - 1) ** 2))],
    "maximum": binary_cases(F.maximum, np.maximum),
    "minimum": binary_cases(F.minimum, np.minimum),
    "unsqueeze": [
        Case(f"(3,4) axis {axis}", (randn(3, 4),), method("unsqueeze", axis=axis),
             lambda a, axis=axis: np.expand_dims(a, axis))
        for axis in (0, 1, 2, -1, -3)
    ]
    + [Case("0-d", (randn(),), lambda a: a.unsqueeze(0), lambda a: a.reshape(1))],
    "squeeze": [
        Case("(3,1,4,1) all", (randn(3, 1, 4, 1),), lambda a: a.squeeze(), np.squeeze),
        Case("axis 1", (randn(3, 1, 4, 1),), method("squeeze", axis=1), lambda a: a.reshape(3, 4, 1)),
        Case("axis -1", (randn(3, 1, 4, 1),), method("squeeze", axis=-1), lambda a: a.reshape(3, 1, 4)),
        Case("axis (1, 3)", (randn(3, 1, 4, 1),), method("squeeze", axis=(1, 3)), lambda a: a.reshape(3, 4)),
        Case("axis 0 of size 3 (no-op, as PyTorch)", (randn(3, 1, 4),), method("squeeze", axis=0), lambda a: a),
        Case("(1,) to 0-d", (randn(1),), lambda a: a.squeeze(), lambda a: a.reshape(())),
    ],
}


def _reductions():
    refs = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min}
    cases = {name: [] for name in (*refs, "var", "std")}
    for axis in (None, 0, 1, -1, (0, 2), (-1, 0), (0, 1, 2)):
        for keepdims in (False, True):
            for name, ref in refs.items():
                cases[name].append(Case(
                    f"axis={axis} keepdims={keepdims}", (randn(2, 3, 4),), method(name, axis=axis, keepdims=keepdims),
                    lambda a, ref=ref, ax=axis, kd=keepdims: ref(a, axis=ax, keepdims=kd),
                ))
            for name, ref in (("var", np.var), ("std", np.std)):
                for correction in (1, 0) if axis in (0, 1, -1) else (1, 0, 2):  # n - correction > 0
                    cases[name].append(Case(
                        f"axis={axis} keepdims={keepdims} correction={correction}", (randn(2, 3, 4),),
                        method(name, axis=axis, keepdims=keepdims, correction=correction),
                        lambda a, ref=ref, ax=axis, kd=keepdims, c=correction: ref(a, axis=ax, keepdims=kd, ddof=c),
                    ))
    for name, ref in refs.items():
        cases[name].append(Case("0-d input", (randn(),), method(name), ref))
        cases[name].append(Case("1-d, axis 0 positional", (randn(5),), lambda t, n=name: getattr(t, n)(0),
                                lambda a, ref=ref: ref(a, 0)))
    cases["var"].append(Case("0-d input, correction 0", (randn(),), method("var", correction=0), np.var))
    cases["std"].append(Case("1-d default (correction 1)", (randn(6),), lambda t: t.std(), lambda a: np.std(a, ddof=1)))
    return cases


CASES.update(_reductions())

TABLE = [(name, case) for name, cases in CASES.items() for case in cases]


BINARY = {
    "add": (lambda a, b: a + b, np.add),
    "sub": (lambda a, b: a - b, np.subtract),
    "mul": (lambda a, b: a * b, np.multiply),
    "div": (lambda a, b: a / b, np.divide),
}


@st.composite
def shape_and_axis(draw, allow_tuple=True):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=3))
    ndim = len(shape)
    single = st.integers(-ndim, ndim - 1)
    options = [st.none(), single] if allow_tuple else [single]
    if allow_tuple:
        options.append(
            st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True).map(
                lambda axes: tuple(ax - ndim if i % 2 else ax for i, ax in enumerate(axes))  # mix signs
            )
        )
    axis = draw(st.one_of(*options))
    return shape, axis


IDS = [f"{name}-{case.label}" for name, case in TABLE]


def made(case):
    tensors = leaves(*case.arrays)
    return case.fn(*tensors), tensors


def written(x) -> str:
    """A formatter that tags what it wrote, so a test can see which numbers went into the text."""
    return f"<{np.asarray(x).size}>"


def case_vjp(case, rng):
    """A case of the op table run, and its VJP of a random upstream grad: (out, prim, g, inputs, meta, grads)."""
    out, _ = made(case)
    prim = out._prim
    g = rng.standard_normal(out.shape)
    inputs = [p.data for p in out.parents]
    meta = out._meta or {}
    return out, prim, g, inputs, meta, prim.vjp(g, out.data, *inputs, need=(True,) * len(inputs), **meta)
