"""autograd.jacobian: for every primitive in the registry (every case of tests/support/op_cases.py's table), the
Jacobian built row by row from the op's own VJP gives gᵀJ = VJP(g) for a random g and equals central
differences of the op's own forward; the VJP's operations are counted without changing its result."""

import numpy as np
import pytest

import autograd.functional as F
from autograd import Tensor
from autograd.jacobian import LIMIT, counted_vjp, forward_of, jacobian, jacobian_rows, numeric_columns, vjp
from autograd.ops import PRIMITIVES
from tests.support.op_cases import IDS, NO_GRADIENT_BY_DESIGN, TABLE, made


def test_the_table_covers_every_primitive():
    assert {name for name, _ in TABLE} == set(PRIMITIVES)


@pytest.mark.parametrize(("name", "case"), TABLE, ids=IDS)
def test_jacobian_of_every_primitive(name, case):
    out, _ = made(case)
    assert out.op == name
    g = np.random.default_rng(7).standard_normal(out.shape)
    jac = jacobian(out, g)
    assert jac.op == name and jac.out_shape == out.shape
    np.testing.assert_array_equal(jac.upstream, g)
    needed = [k for k, p in enumerate(out.parents) if p.requires_grad]
    assert [j.slot for j in jac.inputs] == needed
    assert set(jac.constants) == set(range(len(out.parents))) - set(needed)
    # What backward() sends each input for g is what the VJP gives (the engine's own call).
    sent = vjp(out, g)
    for j in jac.inputs:
        parent = out.parents[j.slot]
        assert (j.rows, j.cols) == (out.size, parent.size)
        assert j.whole, f"{name}: small shapes build J whole"
        assert j.matrix.shape == (min(out.size, LIMIT), min(parent.size, LIMIT))
        np.testing.assert_array_equal(j.vjp, sent[j.slot])
        # gᵀJ equals the VJP's result, to float64 rounding.
        scale = 1.0 + np.abs(j.vjp).max(initial=0.0)
        assert j.max_error <= 1e-12 * scale, f"{name} [{case.label}] input {j.slot}: |gᵀJ − VJP| = {j.max_error}"
        # J equals central differences of the op's own forward (0, for a gradient stopped by design).
        if name in NO_GRADIENT_BY_DESIGN:
            assert not j.matrix.any(), f"{name}: a gradient flowed"
            continue
        if not j.matches_numeric(atol=1e-6, rtol=1e-5):
            bad = np.unravel_index(np.nanargmax(np.abs(j.matrix - j.numeric)), j.matrix.shape)
            raise AssertionError(
                f"{name} [{case.label}] input {j.slot}: J{bad} = {j.matrix[bad]!r} from the VJP, "
                f"{j.numeric[bad]!r} by central differences"
            )


@pytest.mark.parametrize(("name", "case"), TABLE, ids=IDS)
def test_the_forward_called_again_is_the_op(name, case):
    out, _ = made(case)
    again = forward_of(out)(*[p.data for p in out.parents])
    np.testing.assert_array_equal(again, out.data, err_msg=f"{name} [{case.label}]")
    assert not out.grad and out.parents  # nothing recorded on the node


@pytest.mark.parametrize(("name", "case"), TABLE, ids=IDS)
def test_counting_does_not_change_the_vjp(name, case):
    out, _ = made(case)
    g = np.random.default_rng(3).standard_normal(out.shape)
    counted, operations = counted_vjp(out, g)
    for a, b in zip(counted, vjp(out, g)):
        assert (a is None) == (b is None)
        if a is not None:
            assert type(a) is np.ndarray and type(b) is np.ndarray
            np.testing.assert_array_equal(a, b)
    assert operations >= 0


def test_softmax_64_dense_block_and_its_cost():
    x = Tensor(np.random.default_rng(0).standard_normal(64), requires_grad=True)
    y = x.softmax()
    g = np.random.default_rng(1).standard_normal(64)
    jac = jacobian(y, g)
    (j,) = jac.inputs
    s = y.data
    np.testing.assert_allclose(j.matrix, np.diag(s) - np.outer(s, s), atol=1e-15)  # diag(s) − s sᵀ
    assert np.count_nonzero(j.matrix) == 64 * 64  # dense: every output depends on every input
    assert jac.entries == 4096
    # g·s (64), Σ (63), g − Σ (64), s ⊙ (…) (64): 255 operations for 4,096 numbers of J.
    assert jac.operations == 255


def test_elementwise_is_diagonal_and_costs_n():
    x = Tensor(np.linspace(-1, 1, 5), requires_grad=True)
    jac = jacobian(x.tanh())
    (j,) = jac.inputs
    np.testing.assert_allclose(j.matrix, np.diag(1 - np.tanh(x.data) ** 2), atol=1e-15)
    assert jac.operations == 5 * 3  # 1 − out·out, then G ⊙ (…): three per element


def test_broadcast_add_sums_columns():
    X = Tensor(np.ones((3, 4)), requires_grad=True)
    b = Tensor(np.arange(4.0), requires_grad=True)
    jac = jacobian(X + b)
    jx, jb = jac.inputs
    np.testing.assert_array_equal(jx.matrix, np.eye(12))
    np.testing.assert_array_equal(jb.matrix, np.tile(np.eye(4), (3, 1)))  # each bias element feeds 3 outputs
    assert jac.operations == 12 - 4  # the VJP passes G on; undoing the broadcast adds 3 rows into 1


def test_matmul_kronecker_blocks():
    rng = np.random.default_rng(2)
    A = Tensor(rng.standard_normal((2, 3)), requires_grad=True)
    W = Tensor(rng.standard_normal((3, 4)), requires_grad=True)
    jac = jacobian(A @ W)
    ja, jw = jac.inputs
    # Row-major vec: ∂vec(AW)/∂vec(A) = I₂ ⊗ Wᵀ and ∂vec(AW)/∂vec(W) = A ⊗ I₄.
    np.testing.assert_allclose(ja.matrix, np.kron(np.eye(2), W.data.T), atol=1e-15)
    np.testing.assert_allclose(jw.matrix, np.kron(A.data, np.eye(4)), atol=1e-15)
    assert jac.operations == 2 * 4 * 3 + 3 * 4 * 2  # G·Wᵀ and Aᵀ·G, one multiply-add each


def test_a_big_jacobian_is_shown_by_its_top_left_block():
    x = Tensor(np.random.default_rng(0).standard_normal(200), requires_grad=True)
    y = x.softmax()
    s = y.data
    (j,) = jacobian(y).inputs
    assert (j.rows, j.cols) == (200, 200) and j.matrix.shape == (LIMIT, LIMIT) and not j.whole
    np.testing.assert_allclose(j.matrix, (np.diag(s) - np.outer(s, s))[:LIMIT, :LIMIT], atol=1e-15)
    assert j.gtj is not None and j.max_error < 1e-15  # 40,000 entries: built whole, shown by a block
    (big,) = jacobian(Tensor(np.ones(300), requires_grad=True).softmax()).inputs
    assert big.matrix.shape == (LIMIT, LIMIT) and big.gtj is None and big.max_error is None  # 90,000: rows 0-63 only
    assert big.matches_numeric()


def test_rows_are_vjps_of_one_hot_vectors():
    x = Tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * x[[2, 0, 1]]  # each output element uses two inputs
    rows = jacobian_rows(y, 3)
    for i in range(3):
        e = np.zeros(3)
        e[i] = 1.0
        for k, sent in enumerate(vjp(y, e)):
            np.testing.assert_array_equal(rows[k][i], sent)
    np.testing.assert_array_equal(rows[0], np.diag(x.data[[2, 0, 1]]))


def test_constants_get_no_jacobian_and_leaves_none_at_all():
    x = Tensor([1.0, -2.0], requires_grad=True)
    jac = jacobian(x * 2.0)
    assert [j.slot for j in jac.inputs] == [0] and jac.constants == (1,)
    np.testing.assert_array_equal(jac.inputs[0].matrix, 2 * np.eye(2))
    with pytest.raises(ValueError, match="leaf"):
        jacobian(x)


def test_upstream_defaults_to_the_grad_backward_left():
    x = Tensor([0.5, 1.5], requires_grad=True)
    y = x.exp()
    loss = (y * Tensor([2.0, 3.0])).sum()
    loss.backward()
    jac = jacobian(y)
    np.testing.assert_array_equal(jac.upstream, [2.0, 3.0])
    np.testing.assert_allclose(jac.inputs[0].vjp, x.grad)


def test_a_kink_shows_as_a_mismatch_with_central_differences():
    x = Tensor([0.0, 1.0], requires_grad=True)
    (j,) = jacobian(x.relu()).inputs
    assert j.matrix[0, 0] == 0.0 and j.numeric[0, 0] == pytest.approx(0.5)  # relu'(0) = 0; the two sides average 0.5
    assert not j.matches_numeric()


def test_numeric_columns_of_a_function_of_two_inputs():
    a = Tensor([2.0, -3.0], requires_grad=True)
    b = Tensor([3.0, 5.0], requires_grad=True)
    out = F.maximum(a * b, b)  # a·b wins the first element, b the second
    np.testing.assert_allclose(numeric_columns(out, 0, 2), np.diag([1.0, 0.0]), atol=1e-8)
    np.testing.assert_allclose(numeric_columns(out, 1, 2), np.diag([0.0, 1.0]), atol=1e-8)


def test_a_long_input_s_block_is_built_without_its_whole_rows():
    """Issue 23 item 2: relu of 1,000,000 numbers built 64 whole rows of J (512 MB) and 1,000,000 x 64 central
    differences (512 MB) for a 64 x 64 block; the worker ran out of memory. Only the block's columns are kept."""
    x = Tensor(np.linspace(-1.0, 1.0, 200_001), requires_grad=True)
    y = x.relu()
    (rows,) = jacobian_rows(y, 3, [5])
    assert rows.shape == (3, 5)
    assert numeric_columns(y, 0, 4, rows=6).shape == (6, 4)
    (j,) = jacobian(y).inputs
    assert j.matrix.shape == (LIMIT, LIMIT) and j.numeric.shape == (LIMIT, LIMIT) and not j.whole
    np.testing.assert_allclose(j.matrix, j.numeric, atol=1e-8)
    np.testing.assert_array_equal(j.matrix, np.diag((x.data[:LIMIT] > 0).astype(float)))
