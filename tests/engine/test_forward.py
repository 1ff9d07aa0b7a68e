"""Forward mode, primitive by primitive: for every case of every primitive (tests/support/op_cases.py's table), the JVP
declared beside the VJP gives J·v for random tangents v, with J built from the op's own VJP
(autograd/jacobian.py), for each input alone and for all of them at once, in float64; its rule with numbers
plugged in gives the JVP's own result; and the engine's forward sweep (autograd/forward.py) agrees with J·v
through whole programs."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import autograd.functional as F
from autograd import Tensor
from autograd.forward import fit_tangent, push_tangents, run_forward
from autograd.jacobian import jacobian_rows
from autograd.ops import PRIMITIVES
from autograd.tensor import toposort
from tests.support.helpers import leaves
from tests.support.op_cases import BINARY, IDS, TABLE, made, shape_and_axis, written

RNG = np.random.default_rng(11)


def tangents_for(out, rng):
    """A random tangent for each parent that requires grad (None for the others: constants, labels' stand-ins)."""
    return [rng.standard_normal(p.shape) if p.requires_grad else None for p in out.parents]


def jvp_of(out, tangents):
    """What the node's JVP gives for `tangents`, as the engine fits it to the output's shape."""
    meta = out._meta or {}
    raw = out._prim.jvp(tuple(tangents), out.data, *[p.data for p in out.parents], **meta)
    return raw, fit_tangent(raw, out.data, out.op)


def j_times(out, tangents):
    """Σₖ Jₖ·vₖ with each Jₖ built row by row from the op's VJP (autograd.jacobian), in out's shape."""
    rows = jacobian_rows(out, out.size)
    total = np.zeros(out.size)
    for jk, v in zip(rows, tangents):
        if v is not None:
            total += jk @ v.reshape(-1)
    return total.reshape(out.shape)


def test_every_primitive_declares_its_jvp():
    missing = [name for name, p in PRIMITIVES.items() if not (callable(p.jvp) and callable(p.jvp_plugged))]
    assert not missing, f"primitives without a JVP or its plugged-in rule: {missing}"
    assert all(p.jvp_formula.startswith("dOut = ") for p in PRIMITIVES.values())


@pytest.mark.parametrize(("name", "case"), TABLE, ids=IDS)
def test_jvp_is_j_times_v(name, case):
    out, _ = made(case)
    vs = tangents_for(out, RNG)
    scale = 1.0 + max(np.abs(v).max(initial=0.0) for v in vs if v is not None)
    # Each input alone (the others None), then all of them together.
    singles = [[v if k == i else None for k, v in enumerate(vs)] for i, v in enumerate(vs) if v is not None]
    for chosen in (*singles, vs) if len(singles) > 1 else singles:
        raw, tangent = jvp_of(out, chosen)
        expected = j_times(out, chosen)
        assert tangent.shape == out.shape and tangent.dtype == out.dtype
        which = [i for i, v in enumerate(chosen) if v is not None]
        np.testing.assert_allclose(tangent, expected, rtol=1e-12, atol=1e-12 * scale,
                                   err_msg=f"{name} [{case.label}], tangents of inputs {which}")


@pytest.mark.parametrize(("name", "case"), TABLE, ids=IDS)
def test_the_plugged_in_jvp_gives_the_jvp_s_own_result(name, case):
    out, _ = made(case)
    vs = tangents_for(out, RNG)
    singles = [[v if k == i else None for k, v in enumerate(vs)] for i, v in enumerate(vs) if v is not None]
    meta = out._meta or {}
    for chosen in (*singles, vs):
        raw, _ = jvp_of(out, chosen)
        text, value = out._prim.jvp_plugged(written, tuple(chosen), out.data, *[p.data for p in out.parents], **meta)
        assert "<" in text, f"{name}: the text shows numbers ({text!r})"
        # every tangent given is written into the text, none that was not
        assert text.count("<") >= sum(v is not None for v in chosen), (name, text)
        np.testing.assert_allclose(np.broadcast_to(value, out.shape), np.broadcast_to(raw, out.shape),
                                   rtol=1e-12, atol=1e-12, err_msg=f"{name} [{case.label}]: {text}")


def test_a_term_without_a_tangent_is_left_out_of_the_text():
    a, b = Tensor(np.array([2.0]), requires_grad=True), Tensor(np.array([3.0]), requires_grad=True)
    out = a * b
    prim = PRIMITIVES["mul"]
    text, value = prim.jvp_plugged(lambda x: f"{np.asarray(x).item():g}", (np.array([1.0]), None), out.data,
                                   a.data, b.data)
    assert text == "1 ⊙ 3" and value.item() == 3.0
    text, value = prim.jvp_plugged(lambda x: f"{np.asarray(x).item():g}", (None, np.array([5.0])), out.data,
                                   a.data, b.data)
    assert text == "2 ⊙ 5" and value.item() == 10.0
    text, _ = PRIMITIVES["sub"].jvp_plugged(lambda x: f"{np.asarray(x).item():g}", (np.array([1.0]), np.array([4.0])),
                                            out.data, a.data, b.data)
    assert text == "1 − 4"


# ---- random shapes, axes and directions -------------------------------------------------------------
BROADCASTING = {**{name: fn for name, (fn, _) in BINARY.items()}, "maximum": F.maximum, "minimum": F.minimum}


def check_random_jvp(label, out):
    """JVP = J·v for a random v on every input of `out` at once."""
    vs = tangents_for(out, RNG)
    _, tangent = jvp_of(out, vs)
    np.testing.assert_allclose(tangent, j_times(out, vs), rtol=1e-12, atol=1e-12, err_msg=label)


@settings(max_examples=40, deadline=None)
@given(
    name=st.sampled_from(sorted(BROADCASTING)),
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3),
    seed=st.integers(0, 2**32 - 1),
)
def test_broadcasting_jvps_on_random_shapes(name, shapes, seed):
    rng = np.random.default_rng(seed)
    (sa, sb) = shapes.input_shapes
    a, b = rng.standard_normal(sa), rng.uniform(0.5, 2.0, sb) * rng.choice([-1.0, 1.0], sb)
    check_random_jvp(f"{name} {sa} with {sb}", BROADCASTING[name](*leaves(a, b)))


@settings(max_examples=50, deadline=None)
@given(
    name=st.sampled_from(["sum", "mean", "max", "min", "var", "std", "softmax", "log_softmax"]),
    shape_axis=shape_and_axis(),
    keepdims=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_reduction_jvps_on_random_axes(name, shape_axis, keepdims, seed):
    shape, axis = shape_axis
    a = np.random.default_rng(seed).standard_normal(shape)  # continuous values: no ties for max
    if name in ("softmax", "log_softmax"):
        if isinstance(axis, tuple) or axis is None:
            axis = -1
        out = getattr(leaves(a)[0], name)(axis=axis)
    elif name in ("var", "std"):
        out = getattr(leaves(a)[0], name)(axis=axis, keepdims=keepdims, correction=0)
    else:
        out = getattr(leaves(a)[0], name)(axis=axis, keepdims=keepdims)
    check_random_jvp(f"{name} axis={axis} keepdims={keepdims} of {shape}", out)


# ---- the engine's forward sweep ---------------------------------------------------------------------
@pytest.mark.parametrize(("name", "case"), TABLE, ids=IDS)
def test_run_forward_on_each_case_is_j_times_v(name, case):
    out, tensors = made(case)
    vs = {t: RNG.standard_normal(t.shape) for t in tensors}
    tangent = run_forward(out, vs)
    expected = j_times(out, [vs.get(p) for p in out.parents])
    np.testing.assert_allclose(tangent, expected, rtol=1e-12, atol=1e-12, err_msg=f"{name} [{case.label}]")


def program(x, w, b):
    """A small network with fan-out, broadcasting, a reduction and a fused loss: every part of the sweep."""
    h = (x @ w + b).tanh()
    z = h * h.sigmoid() + h.mean(axis=0)
    return (z.softmax(axis=-1) * x.sum()).log_softmax().std(axis=0)


def numeric_jvp(fn, arrays, vs, eps=1e-6):
    """(f(x + εv) − f(x − εv)) / 2ε along every input's tangent at once, in float64."""
    plus = fn(*[Tensor(a + eps * v) for a, v in zip(arrays, vs)]).data
    minus = fn(*[Tensor(a - eps * v) for a, v in zip(arrays, vs)]).data
    return (plus - minus) / (2 * eps)


def test_run_forward_through_a_program_matches_central_differences_and_backward():
    arrays = [RNG.standard_normal((5, 3)), RNG.standard_normal((3, 4)), RNG.standard_normal(4)]
    vs = [RNG.standard_normal(a.shape) for a in arrays]
    tensors = leaves(*arrays)
    out = program(*tensors)
    tangent = run_forward(out, dict(zip(tensors, vs)))
    np.testing.assert_allclose(tangent, numeric_jvp(program, arrays, vs), rtol=1e-6, atol=1e-8)
    # The meeting line: uᵀ(J·v) from forward mode = (uᵀJ)·v from reverse mode, for any u.
    u = RNG.standard_normal(out.shape)
    out.backward(u)
    reverse = sum(float(np.sum(t.grad * v)) for t, v in zip(tensors, vs))
    assert float(np.sum(u * tangent)) == pytest.approx(reverse, rel=1e-12)


def test_nodes_without_a_tangent_are_skipped_and_constants_stay_out():
    x, w = leaves(RNG.standard_normal(3), RNG.standard_normal(3))
    y = x * w + w.exp()  # w requires grad but has no tangent: only x's path carries one
    tangents = push_tangents(toposort(y), {x: np.ones(3)})
    assert w not in tangents and w.exp() not in tangents
    np.testing.assert_allclose(tangents[y], w.data)
    assert [n.op for n in tangents if n._prim is not None] == ["mul", "add"]


def test_a_tangent_no_seed_reaches_is_zero_and_a_wrong_shape_is_refused():
    x, w = leaves(RNG.standard_normal(3), RNG.standard_normal(3))
    np.testing.assert_array_equal(run_forward(w * 2.0, {x: np.ones(3)}), np.zeros(3))
    with pytest.raises(ValueError, match=r"shape \(2,\) for a tensor of shape \(3,\)"):
        run_forward(x * w, {x: np.ones(2)})


def test_the_sweep_observes_every_node_in_topological_order():
    x = Tensor(np.array([0.5, -1.0]), requires_grad=True)
    y = ((x * 3.0).tanh() + x).sum()
    seen = []
    run_forward(y, {x: np.array([1.0, 0.0])}, observer=lambda node, given, t: seen.append((node.op, len(given), t)))
    assert [op for op, _, _ in seen] == ["mul", "tanh", "add", "sum"]
    assert seen[-1][2] == pytest.approx(3 * (1 - np.tanh(1.5) ** 2) + 1)


def test_float32_tangents_stay_float32():
    x = Tensor(np.ones(3, dtype=np.float32), requires_grad=True)
    y = (x * 2.0).exp().sum()
    t = run_forward(y, {x: np.ones(3)})
    assert t.dtype == np.float32 and t.item() == pytest.approx(6 * np.exp(2.0), rel=1e-6)


def test_a_jvp_returning_a_wrong_shape_names_the_op():
    x = Tensor(np.ones(3))
    with pytest.raises(RuntimeError, match="bug in the JVP of 'mul'"):
        fit_tangent(np.ones(4), x.data, "mul")
