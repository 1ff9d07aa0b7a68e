"""Every primitive in the registry: forward against NumPy, gradient against central differences."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import autograd.functional as F
from autograd import Tensor, gradcheck, ops
from autograd.ops import PRIMITIVES
from autograd.tensor import Primitive, _result
from tests.support.helpers import check_grads, leaves
from tests.support.op_cases import (
    BINARY,
    CASES,
    NO_GRADIENT_BY_DESIGN,
    TABLE,
    gelu_ref,
    log_softmax_ref,
    randn,
    shape_and_axis,
    sigmoid_ref,
    softmax_ref,
)


def test_every_primitive_has_a_table_entry():
    missing = sorted(set(PRIMITIVES) - set(CASES))
    assert not missing, f"primitives without a test table entry in tests/support/op_cases.py: {missing}"
    unknown = sorted(set(CASES) - set(PRIMITIVES))
    assert not unknown, f"table entries for names that are not primitives: {unknown}"
    assert all(CASES[name] for name in CASES)


def test_registry_maps_names_to_their_primitives():
    for name, prim in PRIMITIVES.items():
        assert isinstance(prim, Primitive)
        assert prim.name == name
        assert callable(prim.vjp)
        assert isinstance(prim.formula, str) and prim.formula


@pytest.mark.parametrize(("name", "case"), TABLE, ids=[f"{name}-{case.label}" for name, case in TABLE])
def test_primitive(name, case):
    # Forward: the op is the primitive under test and agrees with plain NumPy.
    tensors = leaves(*case.arrays)
    out = case.fn(*tensors)
    assert isinstance(out, Tensor)
    assert out.op == name, f"case {case.label!r} ends in op {out.op!r}, not {name!r}"
    assert out.requires_grad
    expected = np.asarray(case.ref(*[np.array(a) for a in case.arrays]))
    assert out.shape == expected.shape, f"{name}: forward shape {out.shape}, NumPy gives {expected.shape}"
    assert out.dtype == np.float64
    np.testing.assert_allclose(out.data, expected, rtol=1e-12, atol=1e-14, err_msg=f"{name} forward")
    # The inputs are not modified by the forward pass.
    for t, a in zip(tensors, case.arrays):
        assert np.array_equal(t.data, a)
    # Backward: against float64 central differences (or 0, for a gradient stopped by design).
    if name in NO_GRADIENT_BY_DESIGN:
        out.backward(np.ones(out.shape))
        assert all(np.array_equal(t.grad, np.zeros(t.shape)) for t in tensors), f"{name}: a gradient flowed"
        return
    check_grads(f"{name} [{case.label}]", case.fn, case.arrays)


# ---- the checker itself can fail ----------------------------------------------------------------
def _bad_square_vjp(g, out, a, need):
    return (g * a,)  # deliberately wrong: the true VJP is 2·g·a


BAD_SQUARE = Primitive("bad_square", None, _bad_square_vjp, "dA = G ⊙ A (wrong on purpose)")


def bad_square(t):
    return _result(t.data**2, (t,), BAD_SQUARE)


def test_check_grads_reports_op_input_index_and_both_values():
    x = np.array([0.0, 3.0, 0.0])
    with pytest.raises(AssertionError) as info:
        check_grads("bad_square", bad_square, [x])
    message = str(info.value)
    v = np.random.default_rng(0).standard_normal(3)[1]
    assert "bad_square" in message
    assert "input 0" in message
    assert "index (1,)" in message
    assert repr(float(3 * v)) in message  # analytic (wrong) value
    assert f"{6 * v:.6f}"[:-1] in message  # numerical value, up to finite-difference error


def test_gradcheck_returns_true_for_correct_functions():
    x, w = leaves(randn(3, 4), randn(4, 2))
    assert gradcheck(lambda x, w: (x @ w).tanh(), [x, w]) is True
    z = leaves(randn(5, 3))[0]
    assert gradcheck(lambda z: F.cross_entropy(z, np.array([0, 1, 2, 1, 0])), [z]) is True
    a, b = leaves(randn(3, 1), randn(4))
    assert gradcheck(lambda a, b: (a * b).sigmoid().sum(axis=0), [a, b]) is True


def test_gradcheck_raises_naming_the_worst_element():
    x = Tensor(np.array([0.0, 0.0, 5.0, 0.0]), requires_grad=True)
    with pytest.raises(AssertionError) as info:
        gradcheck(bad_square, [x])
    message = str(info.value)
    assert "input 0" in message
    assert "(2,)" in message  # the worst (and only wrong) element
    named = Tensor(np.array([[0.0, 4.0], [0.0, 0.0]]), requires_grad=True, name="w")
    with pytest.raises(AssertionError, match=r"w .*\(0, 1\)"):
        gradcheck(bad_square, [named])


# ---- hypothesis: random broadcastable shapes and random axes ------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    name=st.sampled_from(sorted(BINARY)),
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3),
    seed=st.integers(0, 2**32 - 1),
)
def test_binary_ops_broadcast_random_shapes(name, shapes, seed):
    rng = np.random.default_rng(seed)
    (sa, sb), result_shape = shapes.input_shapes, shapes.result_shape
    a = rng.standard_normal(sa)
    b = rng.uniform(0.5, 2.0, sb) * rng.choice([-1.0, 1.0], sb)
    fn, ref = BINARY[name]
    out = fn(*leaves(a, b))
    assert out.shape == result_shape
    np.testing.assert_allclose(out.data, ref(a, b), rtol=1e-13, atol=1e-15)
    check_grads(f"{name} {sa} with {sb}", fn, [a, b], seed=seed)




@settings(max_examples=50, deadline=None)
@given(
    name=st.sampled_from(["sum", "mean", "max"]),
    shape_axis=shape_and_axis(),
    keepdims=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_reductions_random_axes(name, shape_axis, keepdims, seed):
    shape, axis = shape_axis
    a = np.random.default_rng(seed).standard_normal(shape)  # continuous values: no ties for max
    fn = lambda t: getattr(t, name)(axis=axis, keepdims=keepdims)  # noqa: E731
    expected = getattr(np, name)(a, axis=axis, keepdims=keepdims)
    out = fn(*leaves(a))
    assert out.shape == np.shape(expected)
    np.testing.assert_allclose(out.data, expected, rtol=1e-13, atol=1e-15)
    check_grads(f"{name} axis={axis} keepdims={keepdims} of {shape}", fn, [a], seed=seed)


@settings(max_examples=30, deadline=None)
@given(name=st.sampled_from(["softmax", "log_softmax"]), shape_axis=shape_and_axis(allow_tuple=False),
       seed=st.integers(0, 2**32 - 1))
def test_softmax_random_axes(name, shape_axis, seed):
    shape, axis = shape_axis
    a = 3 * np.random.default_rng(seed).standard_normal(shape)
    fn = lambda t: getattr(t, name)(axis=axis)  # noqa: E731
    ref = softmax_ref(a, axis) if name == "softmax" else log_softmax_ref(a, axis)
    out = fn(*leaves(a))
    np.testing.assert_allclose(out.data, ref, rtol=1e-12, atol=1e-14)
    if name == "softmax":
        np.testing.assert_allclose(out.data.sum(axis=axis), 1.0, rtol=1e-14)
    check_grads(f"{name} axis={axis} of {shape}", fn, [a], seed=seed)


@settings(max_examples=30, deadline=None)
@given(
    values=hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=2, max_side=5),
                      elements=st.floats(-50, 50, allow_subnormal=False)),
    name=st.sampled_from(["exp", "tanh", "sigmoid", "gelu", "silu", "relu", "abs", "neg"]),
)
def test_unary_forward_matches_numpy(values, name):
    refs = {
        "exp": np.exp, "tanh": np.tanh, "sigmoid": sigmoid_ref, "gelu": gelu_ref,
        "silu": lambda x: x * sigmoid_ref(x), "relu": lambda x: np.maximum(x, 0), "abs": np.abs,
        "neg": np.negative,
    }
    t = Tensor(values, requires_grad=True)
    out = -t if name == "neg" else getattr(t, name)()
    assert out.op == name
    with np.errstate(over="ignore"):
        expected = refs[name](values)
    np.testing.assert_allclose(out.data, expected, rtol=5e-13, atol=1e-300)  # gelu's far tail: ~x² ulps
    out.backward()
    assert t.grad.shape == values.shape and np.all(np.isfinite(t.grad))


# ---- numerical conventions (API.md) ------------------------------------------------------------
def test_gelu_is_the_exact_erf_form():
    # Where 1 + erf(x/√2) has no cancellation the reference is itself accurate to ~1 ulp.
    x = np.concatenate([np.linspace(-1.0, 40.0, 20001), [1e-300, -1e-300, 1e-12, -1e-12, 0.0, 5e-8]])
    got = Tensor(x).gelu().data
    ref = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x])
    nonzero = ref != 0
    rel = np.abs(got[nonzero] - ref[nonzero]) / np.abs(ref[nonzero])
    assert rel.max() < 2e-15, f"gelu relative error {rel.max():.3g} at x = {x[nonzero][np.argmax(rel)]}"
    assert np.array_equal(got[~nonzero], ref[~nonzero])
    # The tanh approximation is off by ~1e-4 at x = 1: make sure that is not what we compute.
    assert abs(Tensor(1.0).gelu().item() - 0.5 * (1 + math.erf(1 / math.sqrt(2)))) < 1e-15


def test_gelu_left_side_to_float64_precision():
    # 0.5·x·erfc(−x/√2) is the same function without cancellation, so it is a reference even where
    # 1 + erf(x/√2) rounds to 0 (x < −8.3). Φ has condition number ~x² there: one rounding of x/√2
    # (in the engine or in the reference) moves the result by ~x² ulps, hence the bound.
    x = np.linspace(-37.0, -1.0, 7201)
    got = Tensor(x).gelu().data
    ref = np.array([0.5 * v * math.erfc(-v / math.sqrt(2)) for v in x])
    assert np.all(got < 0)
    rel = np.abs(got - ref) / np.abs(ref)
    allowed = 8 * np.finfo(np.float64).eps * (1 + x * x)
    worst = int(np.argmax(rel / allowed))
    assert np.all(rel < allowed), f"gelu relative error {rel[worst]:.3g} at x = {x[worst]} (< {allowed[worst]:.3g})"


def test_gelu_gradient_is_the_exact_derivative():
    x = np.linspace(-6, 6, 241)
    t = Tensor(x, requires_grad=True)
    t.gelu().backward()
    cdf = np.array([0.5 * (1 + math.erf(v / math.sqrt(2))) for v in x])
    pdf = np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
    np.testing.assert_allclose(t.grad, cdf + x * pdf, rtol=1e-13, atol=1e-15)


def test_relu_and_abs_gradient_at_zero_is_zero():
    t = Tensor([0.0, -1.0, 2.0, -0.0], requires_grad=True)
    t.relu().backward()
    assert np.array_equal(t.grad, [0.0, 0.0, 1.0, 0.0])
    t = Tensor([0.0, -1.0, 2.0], requires_grad=True)
    t.abs().backward()
    assert np.array_equal(t.grad, [0.0, -1.0, 1.0])


EXTREME = np.array([1000.0, -1000.0])


def _finite_backward(make, x, seed=None):
    t = Tensor(x, requires_grad=True)
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        out = make(t)
        out.backward(seed)
    assert np.all(np.isfinite(out.data)), out.data
    assert np.all(np.isfinite(t.grad)), t.grad
    return out.data, t.grad


def test_sigmoid_and_silu_exact_at_plus_minus_1000():
    value, grad = _finite_backward(lambda t: t.sigmoid(), EXTREME)
    assert np.array_equal(value, [1.0, 0.0])
    assert np.array_equal(grad, [0.0, 0.0])  # σ(1−σ) = e^−1000 rounds to 0
    value, grad = _finite_backward(lambda t: t.silu(), EXTREME)
    assert np.array_equal(value, [1000.0, 0.0])
    assert np.array_equal(grad, [1.0, 0.0])


def test_softmax_and_log_softmax_exact_at_plus_minus_1000():
    x = np.array([[1000.0, -1000.0, 0.0], [-1000.0, -1000.0, 1000.0]])
    value, grad = _finite_backward(lambda t: t.softmax(), x)
    assert np.array_equal(value, [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    assert np.array_equal(grad, np.zeros_like(x))  # s ⊙ (1 − Σ s) = 0
    seed = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    value, grad = _finite_backward(lambda t: t.softmax(), x, seed)
    assert np.array_equal(grad, np.zeros_like(x))
    value, grad = _finite_backward(lambda t: t.log_softmax(), x)
    assert np.array_equal(value, [[0.0, -2000.0, -1000.0], [-2000.0, -2000.0, 0.0]])
    assert np.array_equal(grad, [[-2.0, 1.0, 1.0], [1.0, 1.0, -2.0]])  # 1 − 3·softmax


def test_gelu_exact_at_plus_minus_1000():
    value, grad = _finite_backward(lambda t: t.gelu(), EXTREME)
    assert np.array_equal(value, [1000.0, 0.0])
    assert np.array_equal(grad, [1.0, 0.0])


def test_cross_entropy_exact_at_plus_minus_1000():
    z = np.array([[1000.0, -1000.0, 0.0], [1000.0, -1000.0, 0.0]])
    value, grad = _finite_backward(lambda t: F.cross_entropy(t, np.array([1, 0])), z)
    assert value == 1000.0  # (2000 + 0) / 2
    np.testing.assert_array_equal(grad, [[0.5, -0.5, 0.0], [0.0, 0.0, 0.0]])  # (softmax − onehot) / N


def test_bce_with_logits_exact_at_plus_minus_1000():
    value, grad = _finite_backward(
        lambda t: F.binary_cross_entropy_with_logits(t, Tensor([0.0, 1.0])), EXTREME
    )
    assert value == 1000.0
    assert np.array_equal(grad, [0.5, -0.5])  # (σ(x) − y) / N
    value, grad = _finite_backward(
        lambda t: F.binary_cross_entropy_with_logits(t, np.array([1.0, 0.0]), reduction="sum"), EXTREME
    )
    assert value == 0.0
    assert np.array_equal(grad, [0.0, 0.0])


# ---- dtypes -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "make",
    [
        lambda t: t * 2.0, lambda t: 2.0 * t, lambda t: t + 1, lambda t: 1 + t, lambda t: t - 0.5,
        lambda t: 0.5 - t, lambda t: t / 3.0, lambda t: 3.0 / t, lambda t: t**2, lambda t: 2.0**t,
        lambda t: -t, lambda t: t.relu(), lambda t: t.sigmoid(), lambda t: t.gelu(), lambda t: t.silu(),
        lambda t: t.tanh(), lambda t: t.exp(), lambda t: t.softmax(), lambda t: t.log_softmax(),
        lambda t: t.mean(), lambda t: t.max(axis=0), lambda t: t.sum(), lambda t: t @ t.reshape(3, 1),
        lambda t: t.abs().sqrt().log(), lambda t: t[[0, 0]], lambda t: t.clip(0.1, 0.2),
        lambda t: t.masked_fill(np.array([True, False, True]), 1.0), lambda t: F.where([True, False, True], t, 0.0),
        lambda t: F.mse_loss(t, np.zeros(3, np.float32)), lambda t: F.mse_loss(t, t * 0.5 + 1.0),
        lambda t: F.binary_cross_entropy_with_logits(t, np.ones(3, np.float32)),
        lambda t: F.cross_entropy(t.reshape(1, 3), [2]),
    ],
    ids=lambda f: "",
)
def test_float32_stays_float32_through_forward_and_backward(make):
    t = Tensor(np.array([0.5, -1.5, 2.0], dtype=np.float32), requires_grad=True)
    out = make(t)
    assert out.dtype == np.float32, f"forward gave {out.dtype}"
    out.backward()
    assert t.grad.dtype == np.float32, f"grad is {t.grad.dtype}"
    assert out.grad.dtype == np.float32


def test_default_dtypes():
    assert Tensor(1.5).dtype == np.float64
    assert Tensor(3).dtype == np.float64
    assert Tensor([1, 2, 3]).dtype == np.float64
    assert Tensor([[1.0, 2.0]]).dtype == np.float64
    assert Tensor(True).dtype == np.float64
    assert Tensor(np.arange(3)).dtype == np.float64
    assert Tensor(np.ones(2, dtype=np.float32)).dtype == np.float32
    assert Tensor(np.float32(2.0)).dtype == np.float32
    assert Tensor([1, 2], dtype=np.float32).dtype == np.float32
    assert (Tensor([1.0]) + 1).dtype == np.float64
    assert (Tensor(np.ones(2, dtype=np.float32)) + Tensor(np.ones(2, dtype=np.float32))).dtype == np.float32


# ---- error messages -----------------------------------------------------------------------------
def test_matmul_mismatch_names_op_and_both_shapes():
    with pytest.raises(ValueError) as info:
        Tensor(np.ones((3, 4))) @ Tensor(np.ones((5, 6)))
    message = str(info.value)
    assert "matmul" in message and "(3, 4)" in message and "(5, 6)" in message
    with pytest.raises(ValueError, match=r"matmul.*\(2, 3, 4\).*\(3, 4, 5\)"):
        Tensor(np.ones((2, 3, 4))) @ Tensor(np.ones((3, 4, 5)))
    with pytest.raises(ValueError, match="matmul"):
        Tensor(2.0) @ Tensor(np.ones(3))


@pytest.mark.parametrize(
    ("op", "fn"),
    [
        ("add", lambda a, b: a + b), ("sub", lambda a, b: a - b), ("mul", lambda a, b: a * b),
        ("div", lambda a, b: a / b), ("pow", lambda a, b: a**b),
    ],
)
def test_broadcast_mismatch_names_op_and_both_shapes(op, fn):
    a, b = Tensor(np.ones((2, 3)), requires_grad=True), Tensor(np.ones((4,)))
    with pytest.raises(ValueError) as info:
        fn(a, b)
    message = str(info.value)
    assert op in message and "(2, 3)" in message and "(4,)" in message, message


def test_reshape_mismatch_names_both_shapes():
    with pytest.raises(ValueError) as info:
        Tensor(np.ones((2, 3))).reshape(4, 2)
    message = str(info.value)
    assert "reshape" in message and "(2, 3)" in message and "(4, 2)" in message


@pytest.mark.parametrize(
    ("labels", "words"),
    [
        (np.array([0, 3]), "[0, 3)"),
        (np.array([-1, 0]), "[0, 3)"),
        (np.array([0.5, 1.0]), "whole"),
        (np.array([0, 1, 2]), "2 labels"),
        (np.array([[0, 1]]), "2 labels"),
        (np.array(["a", "b"]), "integers"),
    ],
)
def test_cross_entropy_bad_labels(labels, words):
    with pytest.raises(ValueError) as info:
        F.cross_entropy(Tensor(np.zeros((2, 3)), requires_grad=True), labels)
    assert "cross_entropy" in str(info.value) and words in str(info.value)


def test_cross_entropy_needs_2d_logits():
    with pytest.raises(ValueError, match=r"cross_entropy.*\(3,\)"):
        F.cross_entropy(Tensor(np.zeros(3)), np.array([0]))


def test_backward_with_wrong_seed_shape():
    t = Tensor(np.ones((2, 3)), requires_grad=True)
    with pytest.raises(ValueError) as info:
        (t * 2).backward(np.ones(3))
    assert "(3,)" in str(info.value) and "(2, 3)" in str(info.value)
    assert t.grad is None


def test_other_error_messages():
    t = Tensor(np.ones((2, 3)), requires_grad=True)
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        t.sum(axis=2)
    with pytest.raises(ValueError, match="transpose"):
        t.transpose(0, 0)
    with pytest.raises(IndexError, match=r"getitem.*\(2, 3\)"):
        t[5]
    with pytest.raises(ValueError, match=r"concat.*\(2, 3\).*\(3, 2\)"):
        F.concat([t, Tensor(np.ones((3, 2)))], axis=0)
    with pytest.raises(ValueError, match="stack"):
        F.stack([t, Tensor(np.ones((3, 2)))])
    with pytest.raises(ValueError, match=r"masked_fill.*\(4,\).*\(2, 3\)"):
        t.masked_fill(np.ones(4, dtype=bool), 0.0)
    with pytest.raises(ValueError, match="clip"):
        t.clip()
    with pytest.raises(ValueError, match=r"binary_cross_entropy_with_logits.*\(2, 3\).*\(3,\)"):
        F.binary_cross_entropy_with_logits(t, np.ones(3))
    with pytest.raises(ValueError, match="mse_loss"):
        F.mse_loss(t, np.ones(3))
    with pytest.raises(ValueError, match="linear"):
        F.linear(t, Tensor(np.ones((4, 2))))


def test_ops_module_functions_are_the_tensor_methods():
    a = Tensor(np.array([[1.0, -2.0], [3.0, 0.5]]), requires_grad=True)
    assert np.array_equal(ops.relu(a).data, a.relu().data)
    assert np.array_equal(F.relu(a).data, a.relu().data)
    assert F.relu([[-1.0, 2.0]]).dtype == np.float64
    assert np.array_equal(F.softmax(a, axis=0).data, a.softmax(axis=0).data)
    assert np.array_equal(F.embedding(a, np.array([1, 1])).data, a.data[[1, 1]])


def test_max_ties_share_the_gradient():
    t = Tensor(np.array([[1.0, 3.0, 3.0], [2.0, 0.0, -1.0]]), requires_grad=True)
    t.max().backward()
    assert np.array_equal(t.grad, [[0.0, 0.5, 0.5], [0.0, 0.0, 0.0]])
    t.zero_grad()
    t.max(axis=1).backward(np.array([2.0, 1.0]))
    assert np.array_equal(t.grad, [[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]])


def test_pow_gradient_conventions_at_zero():
    a = Tensor(np.array([0.0, 2.0]), requires_grad=True)
    b = Tensor(np.array([0.0, 0.0]), requires_grad=True)
    with np.errstate(all="raise"):
        (a**b).sum().backward()
    assert np.array_equal(a.grad, [0.0, 0.0])  # d(a^0)/da = 0, also at a = 0
    assert np.array_equal(b.grad, [0.0, np.log(2.0)])  # d(0^b)/db = 0 for b >= 0
    x = Tensor(np.array([0.0, -2.0]), requires_grad=True)
    (x**2).sum().backward()
    assert np.array_equal(x.grad, [0.0, -4.0])


def test_getitem_takes_integer_tensors_in_a_tuple_index_with_repeats():
    """``logp[rows, y]`` with Tensors of labels (issue 17 item 7): repeated picks add up their grads."""
    rows, labels = Tensor(np.array([0, 1, 2, 2])), Tensor(np.array([2, 0, 1, 1]))
    check_grads("getitem[rows, labels]", lambda x: x[rows, labels], [np.random.default_rng(1).standard_normal((3, 3))])
    check_grads("getitem[[0, 1, 2, 2], labels]", lambda x: x[[0, 1, 2, 2], labels], [np.arange(9.0).reshape(3, 3)])
    x = leaves(np.arange(6.0).reshape(2, 3))[0]
    x[np.array([0, 0]), Tensor(np.array([1, 1]))].sum().backward()
    assert x.grad.tolist() == [[0, 2, 0], [0, 0, 0]]
