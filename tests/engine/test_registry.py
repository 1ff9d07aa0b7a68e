"""The op registry is the single source: every primitive declares everything about itself, and every
surface (Tensor operators and methods, autograd.functional, the drawings) agrees with it. A surface
that misses an op its registry entry names, or an op a surface offers that no entry declares, fails here.

It also holds the reference backward pass: a short, plain implementation of reverse mode that the
engine's fast `run_backward` must agree with on every case of every primitive (tests/engine/test_ops.py).
"""

import inspect

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import autograd.functional as F
from autograd import Tensor
from autograd.ops import PRIMITIVES
from autograd.tensor import Primitive, toposort, unbroadcast
from tests.support.helpers import leaves
from tests.support.op_cases import TABLE


def t(*shape, seed=0):
    return Tensor(np.random.default_rng(seed).standard_normal(shape) + 2.0, requires_grad=True)


# ---- every entry is complete ----------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(PRIMITIVES))
def test_every_primitive_declares_everything(name):
    prim = PRIMITIVES[name]
    assert isinstance(prim, Primitive) and prim.name == name
    assert callable(prim.forward) and callable(prim.vjp) and callable(prim.shape), name
    assert isinstance(prim.formula, str) and prim.formula, name
    assert all(isinstance(s, str) and s for s in prim.slots), name
    assert prim.methods or prim.operators or prim.functions, f"{name} surfaces nowhere"
    assert not prim.commutative or len(prim.slots) == 2, f"{name}: only a two-input op can be commutative"
    # The formula names the slots it declares (dX = ..., dW = ...), in order.
    if len(prim.slots) > 1:
        positions = [prim.formula.find(f"d{slot} ") for slot in prim.slots]
        assert -1 not in positions and positions == sorted(positions), (name, prim.formula)
    # Forward mode: the JVP beside the VJP, its formula (dOut = ...) naming the slots' tangents in order, and
    # its rule with numbers plugged in (tests/engine/test_forward.py checks each against J·v).
    assert callable(prim.jvp) and callable(prim.jvp_plugged), f"{name} declares no JVP"
    assert isinstance(prim.jvp_formula, str) and prim.jvp_formula.startswith("dOut = "), (name, prim.jvp_formula)
    if len(prim.slots) > 1:
        positions = [prim.jvp_formula.find(f"d{slot}") for slot in prim.slots]
        assert -1 not in positions and positions == sorted(positions), (name, prim.jvp_formula)
    # The VJP as lines of the language (tests/explorer/practice/test_vjp_lines.py checks each against the VJP).
    assert callable(prim.vjp_lines) or isinstance(prim.vjp_lines, tuple) and prim.vjp_lines, f"{name}: no vjp_lines"


def test_slots_name_every_input_of_every_case():
    for name, case in TABLE:
        out = case.fn(*leaves(*case.arrays))
        slots = PRIMITIVES[name].slots
        if slots:  # linear without a bias fills the first two of its three slots
            assert len(out.parents) <= len(slots) and len(out.parents) >= min(len(slots), 2), (name, case.label)


# ---- every surface matches the registry -------------------------------------------------------
# One call per surface that the registry declares: (surface, call, the op it must make).
A, B, M = t(3, 4), t(3, 4, seed=1), t(4, 5, seed=2)
LABELS = np.array([0, 2, 1])
EXAMPLES = {
    "Tensor.__add__": lambda: A + B,
    "Tensor.__radd__": lambda: 1.0 + A,
    "Tensor.__sub__": lambda: A - B,
    "Tensor.__rsub__": lambda: 1.0 - A,
    "Tensor.__mul__": lambda: A * B,
    "Tensor.__rmul__": lambda: 2.0 * A,
    "Tensor.__truediv__": lambda: A / B,
    "Tensor.__rtruediv__": lambda: 1.0 / A,
    "Tensor.__pow__": lambda: A**2,
    "Tensor.__rpow__": lambda: 2.0**A,
    "Tensor.__neg__": lambda: -A,
    "Tensor.__matmul__": lambda: A @ M,
    "Tensor.__rmatmul__": lambda: np.ones((2, 3)) @ A,
    "Tensor.__getitem__": lambda: A[0],
    "Tensor.pow": lambda: A.pow(3),
    "Tensor.exp": lambda: A.exp(),
    "Tensor.log": lambda: A.log(),
    "Tensor.sqrt": lambda: A.sqrt(),
    "Tensor.abs": lambda: A.abs(),
    "Tensor.relu": lambda: A.relu(),
    "Tensor.tanh": lambda: A.tanh(),
    "Tensor.sigmoid": lambda: A.sigmoid(),
    "Tensor.gelu": lambda: A.gelu(),
    "Tensor.silu": lambda: A.silu(),
    "Tensor.sum": lambda: A.sum(),
    "Tensor.mean": lambda: A.mean(axis=0),
    "Tensor.max": lambda: A.max(),
    "Tensor.min": lambda: A.min(axis=1),
    "Tensor.var": lambda: A.var(),
    "Tensor.std": lambda: A.std(axis=0, correction=0),
    "Tensor.softmax": lambda: A.softmax(),
    "Tensor.log_softmax": lambda: A.log_softmax(axis=0),
    "Tensor.reshape": lambda: A.reshape(2, 6),
    "Tensor.transpose": lambda: A.transpose(1, 0),
    "Tensor.T": lambda: A.T,
    "Tensor.unsqueeze": lambda: A.unsqueeze(0),
    "Tensor.squeeze": lambda: A.unsqueeze(0).squeeze(),
    "Tensor.masked_fill": lambda: A.masked_fill(A.data > 2, 0.0),
    "Tensor.clip": lambda: A.clip(0.0, 1.0),
    "F.relu": lambda: F.relu(A),
    "F.tanh": lambda: F.tanh(A),
    "F.sigmoid": lambda: F.sigmoid(A),
    "F.gelu": lambda: F.gelu(A),
    "F.silu": lambda: F.silu(A),
    "F.softmax": lambda: F.softmax(A),
    "F.log_softmax": lambda: F.log_softmax(A),
    "F.exp": lambda: F.exp(A),
    "F.log": lambda: F.log(A),
    "F.sqrt": lambda: F.sqrt(A),
    "F.abs": lambda: F.abs(A),
    "F.linear": lambda: F.linear(A, M.T),
    "F.mse_loss": lambda: F.mse_loss(A, B),
    "F.binary_cross_entropy_with_logits": lambda: F.binary_cross_entropy_with_logits(A, B),
    "F.cross_entropy": lambda: F.cross_entropy(A, LABELS),
    "F.embedding": lambda: F.embedding(A, [0, 2]),
    "F.concat": lambda: F.concat([A, B]),
    "F.stack": lambda: F.stack([A, B]),
    "F.where": lambda: F.where(A.data > 2, A, B),
    "F.maximum": lambda: F.maximum(A, B),
    "F.minimum": lambda: F.minimum(A, 2.0),
    "F.detach": lambda: F.detach(A),
    "Tensor.round": lambda: A.round(),
    "F.round": lambda: F.round(A),
}


def declared_surfaces():
    """surface -> the name of the primitive that declares it."""
    surfaces = {}
    for prim in PRIMITIVES.values():
        names = [f"Tensor.{m}" for m in (*prim.methods, *prim.operators)] + [f"F.{f}" for f in prim.functions]
        for surface in names:
            assert surface not in surfaces, f"{surface} is declared by {surfaces[surface]} and {prim.name}"
            surfaces[surface] = prim.name
    return surfaces


def test_every_declared_surface_has_an_example_and_every_example_a_declaration():
    declared = declared_surfaces()
    assert sorted(set(declared) - set(EXAMPLES)) == [], "declared surfaces without an example here"
    assert sorted(set(EXAMPLES) - set(declared)) == [], "examples of surfaces no primitive declares"


@pytest.mark.parametrize("surface", sorted(EXAMPLES))
def test_each_surface_makes_the_op_that_declares_it(surface):
    owner, _, attr = surface.partition(".")
    assert hasattr(Tensor if owner == "Tensor" else F, attr), f"{surface} does not exist"
    out = EXAMPLES[surface]()
    assert isinstance(out, Tensor) and out.op == declared_surfaces()[surface], (surface, out.op)


def test_the_operators_and_plain_methods_are_the_forwards_themselves():
    # The hot path: `t * u` is ops.mul, with no forwarding call between (see autograd/ops/__init__.py).
    for prim in PRIMITIVES.values():
        for name in (*prim.methods, *prim.operators):
            member = inspect.getattr_static(Tensor, name)
            if name.startswith("__r") or name == "T":
                continue  # reflected operators swap their arguments; .T is a property
            assert member is prim.forward, f"Tensor.{name} is not {prim.name}'s forward"


def test_functional_offers_exactly_the_declared_functions():
    # and the composites written from them (F.COMPOSITES: layer_norm, dropout, attention…), which no primitive declares
    declared = {s.removeprefix("F.") for s in declared_surfaces() if s.startswith("F.")}
    assert set(F.__all__) - set(F.COMPOSITES) == declared
    assert not declared & set(F.COMPOSITES)


TENSOR_MEMBERS = {  # the public Tensor surface that is not an op: API.md's array facts and graph metadata
    "data", "grad", "requires_grad", "name", "shape", "ndim", "size", "dtype", "item", "numpy", "backward",
    "zero_grad", "detach", "op", "parents", "is_leaf", "register_hook",
}


def test_every_public_tensor_method_is_an_op_or_a_documented_member():
    public = {name for name in dir(Tensor) if not name.startswith("_")}
    ops = {s.removeprefix("Tensor.") for s in declared_surfaces() if s.startswith("Tensor.")}
    assert public - ops - TENSOR_MEMBERS == set()
    assert TENSOR_MEMBERS - public == set()


def test_drawings_take_commutativity_and_slot_names_from_the_registry():
    from autograd.graph import trace
    from explorer.graph import dot

    assert {name for name, p in PRIMITIVES.items() if p.commutative} == dot.COMMUTATIVE
    graph = trace(F.linear(A, M.T, t(5)))
    node = graph.nodes[graph.output]
    assert dot.slot_names(node) == ["X", "W", "b"]
    graph = trace(F.linear(A, M.T))
    assert dot.slot_names(graph.nodes[graph.output]) == ["X", "W"]
    graph = trace(F.concat([A, B, A]))
    assert dot.slot_names(graph.nodes[graph.output]) == ["0", "1", "2"]


# ---- shape rules: the output's shape without computing it ------------------------------------------
def _shape_args(name, args):
    """A forward's arguments as its shape rule takes them (getitem's index stays an index)."""
    if name == "getitem":
        return (_shapes(args[0]), *args[1:])
    return [_shapes(a) for a in args]


def _shapes(value):
    """A forward argument as its shape rule takes it: arrays and Tensors as shapes, lists of them too."""
    if isinstance(value, (Tensor, np.ndarray)):
        return tuple(np.shape(value))
    if isinstance(value, list):
        return [_shapes(v) for v in value]
    return value


# (primitive, positional args, keyword args); arrays and Tensors are given to the shape rule as shapes.
MASK = np.random.default_rng(3).random((3, 4)) < 0.5
SHAPE_CASES = [
    ("add", (A, t(4)), {}), ("sub", (t(3, 1), t(1, 4)), {}), ("mul", (t(), A), {}), ("div", (A, t(2, 1, 4)), {}),
    ("pow", (A, t(3, 1)), {}), ("maximum", (t(5, 1, 4), A), {}), ("minimum", (A, A), {}), ("neg", (A,), {}),
    ("matmul", (A, M), {}), ("matmul", (t(4), t(4)), {}), ("matmul", (t(2, 3, 4), t(4)), {}),
    ("matmul", (t(4), t(2, 4, 5)), {}), ("matmul", (t(2, 1, 3, 4), t(5, 4, 2)), {}),
    ("linear", (A, t(5, 4)), {}), ("linear", (t(2, 3, 4), t(5, 4), t(5)), {}),
    ("exp", (A,), {}), ("detach", (A,), {}), ("round", (A,), {}),
    ("clip", (A,), {"lo": 0.0}), ("masked_fill", (A, MASK, 0.0), {}),
    ("masked_fill", (A, MASK[0], 1.0), {}), ("where", (MASK, A, t(4)), {}), ("where", (MASK[0], t(3, 1), t()), {}),
    ("sum", (A,), {}), ("sum", (t(2, 3, 4),), {"axis": (0, 2), "keepdims": True}), ("mean", (A,), {"axis": -1}),
    ("max", (t(2, 3, 4),), {"axis": 1}), ("min", (A,), {"keepdims": True}),
    ("var", (t(2, 3, 4),), {"axis": (0, 1), "correction": 0}), ("std", (A,), {"axis": 0, "keepdims": True}),
    ("softmax", (A,), {"axis": 0}), ("log_softmax", (A,), {}),
    ("getitem", (A, 1), {}), ("getitem", (A, (None, Ellipsis, 0)), {}), ("getitem", (A, np.array([0, 2, 2])), {}),
    ("getitem", (A, (slice(None), [3, 0])), {}), ("getitem", (A, MASK), {}),
    ("reshape", (A, 2, 6), {}), ("reshape", (A, (-1, 2)), {}), ("reshape", (A, -1), {}),
    ("unsqueeze", (A, -1), {}), ("squeeze", (t(3, 1, 1),), {"axis": 1}), ("squeeze", (t(1, 1),), {}),
    ("transpose", (t(2, 3, 4), 2, 0, 1), {}), ("transpose", (A,), {}),
    ("concat", ([A, B, t(1, 4)],), {}), ("concat", ([A, t(3, 2)],), {"axis": -1}),
    ("stack", ([A, B],), {"axis": 2}), ("stack", ([t(2), t(2), t(2)],), {}),
    ("cross_entropy", (A, LABELS), {}), ("cross_entropy", (A, LABELS), {"reduction": "none"}),
    ("bce_with_logits", (A, B), {}), ("bce_with_logits", (A, B), {"reduction": "none"}),
    ("mse_loss", (A, B), {}), ("mse_loss", (A, B), {"reduction": "none"}),
]


def test_every_primitive_has_a_shape_case():
    assert {name for name, _, _ in SHAPE_CASES} >= set(PRIMITIVES) - {"abs", "gelu", "log", "relu", "sigmoid",
                                                                      "silu", "sqrt", "tanh"}


@pytest.mark.parametrize(("name", "args", "kwargs"), SHAPE_CASES, ids=[c[0] for c in SHAPE_CASES])
def test_shape_rule_matches_the_forward(name, args, kwargs):
    prim = PRIMITIVES[name]
    out = prim.forward(*args, **kwargs)
    assert out.op == name
    assert prim.shape(*_shape_args(name, args), **kwargs) == out.shape


SHAPE_ERRORS = [  # (primitive, args, kwargs): the forward and the shape rule refuse it with the same words
    ("add", (A, t(5)), {}), ("matmul", (A, A), {}), ("matmul", (t(), A), {}), ("linear", (A, t(5, 3)), {}),
    ("linear", (A, t(5, 4), t(3)), {}), ("sum", (A,), {"axis": 2}), ("max", (t(0, 3),), {}),
    ("softmax", (A,), {"axis": -3}), ("getitem", (A, 3), {}), ("getitem", (A, (0, 0, 0)), {}),
    ("getitem", (A, np.array([0, 7])), {}), ("getitem", (A, (Ellipsis, Ellipsis)), {}),
    ("reshape", (A, 5, -1), {}), ("reshape", (A, -1, -1), {}), ("unsqueeze", (A, 3), {}),
    ("transpose", (A, 0, 0), {}), ("concat", ([A, M],), {}), ("stack", ([A, M],), {}),
    ("cross_entropy", (A, LABELS[:2]), {}), ("mse_loss", (A, M), {}), ("masked_fill", (A, MASK[:2], 0.0), {}),
    ("where", (MASK, A, M), {}), ("clip", (A,), {}),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), SHAPE_ERRORS, ids=[c[0] for c in SHAPE_ERRORS])
def test_shape_rule_refuses_what_the_forward_refuses(name, args, kwargs):
    prim = PRIMITIVES[name]
    with pytest.raises((ValueError, IndexError)) as forward:
        prim.forward(*args, **kwargs)
    with pytest.raises((ValueError, IndexError)) as rule:
        prim.shape(*_shape_args(name, args), **kwargs)
    assert str(rule.value) == str(forward.value)


@st.composite
def index_for(draw):
    """A random shape and a NumPy index of it: ints, slices, None, ..., integer arrays, in any order."""
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=4))
    parts, dim = [], 0
    ellipsis = draw(st.booleans())
    while dim < len(shape) and draw(st.booleans()):
        kind = draw(st.sampled_from(["int", "slice", "none", "array", "array", "ellipsis"]))
        if kind == "ellipsis" and ellipsis:
            parts.append(Ellipsis)
            ellipsis = False
            dim = len(shape) - sum(1 for p in parts if p is not None and p is not Ellipsis)
            dim = max(dim, sum(1 for p in parts if p is not None and p is not Ellipsis))
            continue
        if kind == "none":
            parts.append(None)
        elif kind == "int":
            parts.append(draw(st.integers(-shape[dim], shape[dim] - 1)))
            dim += 1
        elif kind == "slice":
            parts.append(slice(draw(st.none() | st.integers(-5, 5)), draw(st.none() | st.integers(-5, 5)),
                               draw(st.sampled_from([None, 1, 2, -1]))))
            dim += 1
        else:
            array_shape = draw(st.sampled_from([(2,), (1,), (3,), (2, 1), (1, 2), ()]))
            values = draw(hnp.arrays(np.int64, array_shape, elements=st.integers(-shape[dim], shape[dim] - 1)))
            parts.append(values)
            dim += 1
    return shape, tuple(parts)


@settings(max_examples=300, deadline=None)
@given(index_for())
def test_getitem_shape_rule_agrees_with_numpy(case):
    shape, idx = case
    x = np.zeros(shape)
    try:
        expected = x[idx].shape
    except IndexError:
        with pytest.raises(IndexError):
            PRIMITIVES["getitem"].shape(shape, idx)
        return
    assert PRIMITIVES["getitem"].shape(shape, idx) == expected


# ---- the reference backward pass --------------------------------------------------------------------
def reference_backward(root, seed):
    """Reverse mode written as plainly as possible: every VJP called with all its inputs and metadata,
    every contribution summed back over broadcast axes and added into a dict; no fast paths."""
    grads = {root: np.asarray(seed, dtype=root.data.dtype)}
    for node in reversed(toposort(root)):
        if node.is_leaf:
            continue
        need = tuple(p.requires_grad for p in node.parents)
        raw = node._prim.vjp(grads[node], node.data, *[p.data for p in node.parents], need=need, **(node._meta or {}))
        for parent, contribution in zip(node.parents, raw):
            if parent.requires_grad:
                contribution = unbroadcast(np.asarray(contribution), parent.shape).astype(parent.dtype)
                grads[parent] = grads[parent] + contribution if parent in grads else contribution
    return grads


@pytest.mark.parametrize(("name", "case"), TABLE, ids=[f"{name}-{case.label}" for name, case in TABLE])
def test_run_backward_agrees_with_the_reference(name, case):
    tensors = leaves(*case.arrays)
    out = case.fn(*tensors)
    seed = np.random.default_rng(1).standard_normal(out.shape)
    expected = reference_backward(out, seed)
    out.backward(seed)
    for node, grad in expected.items():
        assert node.grad is not None, f"{name}: a node the reference reaches got no grad"
        np.testing.assert_allclose(node.grad, grad, rtol=1e-13, atol=1e-15, err_msg=f"{name} [{case.label}]")
        assert node.grad.shape == node.shape and node.grad.dtype == node.dtype
