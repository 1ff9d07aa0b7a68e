"""The Tensor and the backward pass: graph recording, accumulation, no_grad, deep graphs, the API surface."""

import json
import subprocess
import sys
import threading

import numpy as np
import pytest

from autograd import Parameter, Tensor, is_grad_enabled, no_grad
from autograd.tensor import Primitive, _result, toposort, unbroadcast
from tests.support.helpers import ROOT, micrograd_tensors


def test_micrograd_canonical_program():
    a, b, g = micrograd_tensors()
    g.backward()
    assert round(g.item(), 4) == 24.7041
    assert round(float(a.grad), 4) == 138.8338
    assert round(float(b.grad), 4) == 645.5773
    # And to float64 precision (the exact values are rationals: 24.70408163265306 = 12105/490).
    assert abs(g.item() - 24.70408163265306) < 1e-12
    assert abs(float(a.grad) - 138.83381924198252) < 1e-10
    assert abs(float(b.grad) - 645.5772594752186) < 1e-9


def test_api_seed_example():
    a = Tensor(-4.0, requires_grad=True)
    b = Tensor(2.0, requires_grad=True)
    g = ((a + b) ** 2 + (a * b + b**3).relu()).sum()
    g.backward()
    assert g.item() == 4.0
    # a·b + b³ = 0, so the relu term contributes nothing (relu'(0) = 0): dg/da = dg/db = 2(a + b).
    assert np.shape(a.grad) == () and np.shape(b.grad) == ()
    assert float(a.grad) == -4.0
    assert float(b.grad) == -4.0


def test_zero_dimensional_data_and_grad_are_ndarrays():
    a = Tensor(-4.0, requires_grad=True)
    b = Tensor(2.0, requires_grad=True)
    out = a * b
    assert isinstance(out.data, np.ndarray), type(out.data)
    assert isinstance(a.exp().data, np.ndarray), type(a.exp().data)
    out.backward()
    assert isinstance(a.grad, np.ndarray), type(a.grad)
    c = Tensor(1.0, requires_grad=True)
    (c + Tensor(np.ones(3))).sum().backward()  # a 0-d leaf broadcast against a vector
    assert isinstance(c.grad, np.ndarray), type(c.grad)


def test_grad_is_none_before_backward_and_has_data_shape_after():
    x = Tensor(np.ones((2, 3)), requires_grad=True)
    w = Tensor(np.ones((3,)), requires_grad=True)
    y = x * w
    assert x.grad is None and w.grad is None and y.grad is None
    y.sum().backward()
    assert isinstance(x.grad, np.ndarray) and x.grad.shape == (2, 3)
    assert isinstance(w.grad, np.ndarray) and w.grad.shape == (3,)
    assert np.array_equal(w.grad, [2.0, 2.0, 2.0])
    assert np.array_equal(x.grad, np.ones((2, 3)))


def test_graph_metadata():
    x = Tensor(2.0, requires_grad=True, name="x")
    y = Tensor(3.0, requires_grad=True)
    z = x * y
    assert x.op == "" and x.parents == () and x.is_leaf and x.name == "x"
    assert z.op == "mul" and z.parents == (x, y) and not z.is_leaf and z.name is None
    z.name = "z"
    assert z.name == "z"
    sq = x * x
    assert sq.parents == (x, x)
    r = 1.0 - x
    assert r.op == "sub" and r.parents[1] is x and r.parents[0].data == 1.0 and not r.parents[0].requires_grad


def test_fan_out():
    x = Tensor(3.0, requires_grad=True)
    y = x * x + x  # x used three times
    y.backward()
    assert float(x.grad) == 7.0  # 2x + 1
    v = Tensor(np.array([1.0, -2.0]), requires_grad=True)
    (v * v * v).sum().backward()
    assert np.array_equal(v.grad, 3 * np.array([1.0, -2.0]) ** 2)


def test_diamond():
    a = Tensor(np.array([1.0, 2.0, -0.5]), requires_grad=True)
    b = a * 2.0
    c = a + 3.0
    d = (b * c).sum()
    d.backward()
    assert np.allclose(a.grad, 2 * (a.data + 3) + 2 * a.data)
    assert np.array_equal(b.grad, c.data) and np.array_equal(c.grad, b.data)
    assert np.array_equal(d.grad, np.array(1.0))


def test_intermediates_keep_grad():
    a = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    b = Tensor(np.array([3.0, 4.0]), requires_grad=True)
    c = a * b
    d = c.exp()
    e = d.sum()
    e.backward()
    assert np.array_equal(e.grad, np.array(1.0))
    assert np.array_equal(d.grad, [1.0, 1.0])
    assert np.allclose(c.grad, np.exp(c.data))
    assert np.allclose(a.grad, np.exp(c.data) * b.data)


def test_gradients_accumulate_across_backward_calls():
    a = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    b = Tensor(np.array([3.0, -1.0]), requires_grad=True)
    loss = (a * b).sum()
    loss.backward()
    first_a, first_b = a.grad.copy(), b.grad.copy()
    loss.backward()
    assert np.array_equal(a.grad, 2 * first_a)
    assert np.array_equal(b.grad, 2 * first_b)
    a.zero_grad()
    assert a.grad is None
    (a * 2).sum().backward()
    assert np.array_equal(a.grad, [2.0, 2.0])


def test_a_0d_grad_stays_an_array_when_a_second_backward_adds_to_it():
    a = Tensor(2.0, requires_grad=True)
    (a * a).backward()
    (a * a).backward()
    assert type(a.grad) is np.ndarray and a.grad.shape == () and a.grad == 8.0


def test_grads_are_independent_arrays():
    # add's VJP hands the same array to both parents; writing into one grad must not change another.
    a = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    b = Tensor(np.array([3.0, 4.0]), requires_grad=True)
    out = a + b
    out.backward(np.array([1.0, 1.0]))
    a.grad += 10.0
    assert np.array_equal(b.grad, [1.0, 1.0]), "a.grad and b.grad alias the same array"
    assert np.array_equal(out.grad, [1.0, 1.0]), "a.grad and out.grad alias the same array"
    seed = np.array([1.0, 1.0])
    c = a * 1.0
    c.backward(seed)
    seed[0] = 5.0
    assert np.array_equal(c.grad, [1.0, 1.0]), "c.grad is the caller's seed array"


def test_intermediate_grads_shared_with_another_node_are_read_only():
    # add passes G on unchanged, so mid.grad is out.grad's array: it is shared read-only, and
    # writing into it fails loudly instead of silently changing out.grad.
    a = Tensor(np.ones(2), requires_grad=True)
    mid = a * 2.0
    out = mid + 1.0
    out.backward()
    with pytest.raises(ValueError, match="read-only"):
        mid.grad += 1.0
    assert np.array_equal(out.grad, [1.0, 1.0])
    a.grad += 1.0  # leaves always own their grad
    assert np.array_equal(a.grad, [3.0, 3.0])


def _same_array_twice_vjp(g, out, a, b, need):
    d = g * 2.0
    return d, d


SAME_TWICE = Primitive("same_twice", None, _same_array_twice_vjp, "")


def test_a_vjp_that_sends_one_new_array_to_two_parents_still_gives_each_its_own_grad():
    a = Tensor(np.ones(2), requires_grad=True)
    b = Tensor(np.ones(2), requires_grad=True)
    mid_a, mid_b = a * 1.0, b * 1.0
    _result(mid_a.data + mid_b.data, (mid_a, mid_b), SAME_TWICE).sum().backward()
    with pytest.raises(ValueError, match="read-only"):
        mid_a.grad += 1.0
    a.grad += 1.0
    assert np.array_equal(b.grad, [2.0, 2.0]) and np.array_equal(mid_b.grad, [2.0, 2.0])


def test_backward_with_explicit_seed_and_non_scalar_root():
    x = Tensor(np.array([1.0, 2.0, 3.0]), requires_grad=True)
    y = x * x
    y.backward()  # ones, any shape (no scalar-only rule)
    assert np.array_equal(x.grad, [2.0, 4.0, 6.0])
    x.zero_grad()
    y = x * x
    y.backward(np.array([1.0, 0.0, -1.0]))
    assert np.array_equal(x.grad, [2.0, 0.0, -6.0])
    x.zero_grad()
    (x * x).backward(Tensor([0.5, 0.5, 0.5]))
    assert np.array_equal(x.grad, [1.0, 2.0, 3.0])


def test_backward_on_tensor_without_grad_raises_clearly():
    t = Tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="does not require grad"):
        t.backward()
    with pytest.raises(RuntimeError, match="does not require grad"):
        (t * 2).sum().backward()


def test_integer_dtype_cannot_require_grad():
    with pytest.raises(TypeError, match="floating-point"):
        Tensor([1, 2], dtype=np.int64, requires_grad=True)
    t = Tensor([1, 2], dtype=np.int64)
    assert t.dtype == np.int64 and not t.requires_grad
    with pytest.raises(TypeError):
        Tensor(["a", None])


def test_int_data_becomes_float64():
    for data in (3, [1, 2, 3], np.arange(4), np.array([1, 2], dtype=np.int8), [[1, 0], [0, 1]]):
        t = Tensor(data, requires_grad=True)
        assert t.dtype == np.float64
        assert np.array_equal(t.data, np.asarray(data, dtype=np.float64))


def test_data_is_copied_from_the_input():
    source = np.array([1.0, 2.0])
    t = Tensor(source)
    source[0] = 99.0
    assert t.data[0] == 1.0
    assert isinstance(t.data, np.ndarray)


# ---- no_grad -----------------------------------------------------------------------------------
def test_no_grad_records_no_graph():
    x = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    assert is_grad_enabled()
    with no_grad():
        assert not is_grad_enabled()
        y = x * 2 + 1
        z = y.exp().sum()
    assert is_grad_enabled()
    for t in (y, z):
        assert not t.requires_grad and t.parents == () and t.op == "" and t.is_leaf
    assert np.allclose(z.data, np.exp([3.0, 5.0]).sum())
    with pytest.raises(RuntimeError, match="does not require grad"):
        z.backward()
    assert x.grad is None
    w = x * 2  # recording is back on
    assert w.requires_grad and w.parents[0] is x


def test_no_grad_as_decorator_and_nested():
    x = Tensor(1.0, requires_grad=True)

    @no_grad()
    def double(t):
        """Doubles."""
        return t * 2

    y = double(x)
    assert not y.requires_grad and y.parents == ()
    assert double.__name__ == "double" and double.__doc__ == "Doubles."
    assert is_grad_enabled()
    with no_grad():
        with no_grad():
            assert not is_grad_enabled()
        assert not is_grad_enabled()
        assert not (x * 3).requires_grad
    assert is_grad_enabled()
    assert (x * 3).requires_grad


def test_no_grad_restores_after_exception():
    with pytest.raises(ZeroDivisionError), no_grad():
        raise ZeroDivisionError
    assert is_grad_enabled()


def test_no_grad_is_thread_local():
    x = Tensor(np.ones(2), requires_grad=True)
    main_inside, worker_inside, main_done = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def worker():
        main_inside.wait(5)
        seen["worker while main in no_grad"] = (x * 2).requires_grad
        with no_grad():
            seen["worker in no_grad"] = (x * 2).requires_grad
            worker_inside.set()
            main_done.wait(5)

    thread = threading.Thread(target=worker)
    thread.start()
    with no_grad():
        main_inside.set()
        worker_inside.wait(5)
        seen["main in no_grad"] = (x * 2).requires_grad
    seen["main while worker in no_grad"] = (x * 2).requires_grad
    main_done.set()
    thread.join(5)
    assert seen == {
        "worker while main in no_grad": True,
        "worker in no_grad": False,
        "main in no_grad": False,
        "main while worker in no_grad": True,
    }


def test_detach():
    x = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    y = x * 3
    d = y.detach()
    assert not d.requires_grad and d.is_leaf and d.parents == () and d.op == ""
    assert np.shares_memory(d.data, y.data)
    z = (d * x).sum()
    z.backward()
    assert np.array_equal(x.grad, d.data)  # no gradient flows back through d into y
    assert y.grad is None


# ---- deep graphs ---------------------------------------------------------------------------------
def test_hundred_thousand_deep_chain():
    x = Tensor(1.0, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0001
    assert abs(y.item() - 1.0001**100_000) / 1.0001**100_000 < 1e-9
    y.backward()
    expected = 1.0001**100_000  # d/dx of x·c^n
    assert abs(float(x.grad) - expected) / expected < 1e-9


# ---- the Tensor API surface ---------------------------------------------------------------------
def test_array_facts():
    t = Tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    assert t.shape == (2, 3) and t.ndim == 2 and t.size == 6 and t.dtype == np.float64
    assert len(t) == 2
    assert t.T.shape == (3, 2) and t.T.op == "transpose" and np.array_equal(t.T.data, t.data.T)
    assert isinstance(t.numpy(), np.ndarray) and np.array_equal(t.numpy(), t.data)
    assert Tensor([[2.5]]).item() == 2.5 and isinstance(Tensor([[2.5]]).item(), float)
    with pytest.raises(ValueError, match="one element"):
        t.item()
    with pytest.raises(TypeError):
        len(Tensor(1.0))
    assert float(Tensor(1.5)) == 1.5
    assert np.array_equal(np.asarray(t), t.data)
    assert f"{Tensor(1.23456):.2f}" == "1.23"


def test_repr():
    leaf = Tensor([1.0, 2.0], requires_grad=True, name="w")
    text = repr(leaf)
    assert text.startswith("Tensor(") and "1." in text and "2." in text
    assert "requires_grad=True" in text and "name='w'" in text
    op = leaf * 2
    assert "op='mul'" in repr(op) and "4." in repr(op)
    assert "dtype=float32" in repr(Tensor(np.ones(2, np.float32)))
    assert repr(Tensor(3.0)) == "Tensor(3.)"


def test_comparisons_give_bool_tensors_without_grad():
    a = Tensor(np.array([1.0, 2.0, 3.0]), requires_grad=True)
    b = Tensor(np.array([3.0, 2.0, 1.0]), requires_grad=True)
    cases = [
        (a < b, [True, False, False]), (a <= b, [True, True, False]), (a > b, [False, False, True]),
        (a >= b, [False, True, True]), (a == b, [False, True, False]), (a != b, [True, False, True]),
        (a > 1.5, [False, True, True]), (2.0 < a, [False, False, True]), (a == 2, [False, True, False]),  # noqa: SIM300
    ]
    for result, expected in cases:
        assert isinstance(result, Tensor)
        assert result.dtype == np.bool_
        assert not result.requires_grad and result.parents == ()
        assert np.array_equal(result.data, expected)
    filled = a.masked_fill(a > 1.5, 0.0)
    assert np.array_equal(filled.data, [1.0, 0.0, 0.0])
    assert hash(a) != hash(b) and len({a, b, a}) == 2


@pytest.mark.parametrize(
    ("expr", "expected_value", "expected_grad"),
    [
        (lambda t: np.ones(3) * t, [1.0, 2.0, 3.0], [1.0, 1.0, 1.0]),
        (lambda t: np.full(3, 2.0) + t, [3.0, 4.0, 5.0], [1.0, 1.0, 1.0]),
        (lambda t: np.full(3, 2.0) - t, [1.0, 0.0, -1.0], [-1.0, -1.0, -1.0]),
        (lambda t: np.full(3, 6.0) / t, [6.0, 3.0, 2.0], [-6.0, -1.5, -6.0 / 9.0]),
        (lambda t: np.full(3, 2.0) ** t, [2.0, 4.0, 8.0], list(np.log(2.0) * np.array([2.0, 4.0, 8.0]))),
        (lambda t: np.ones((2, 3)) @ t, [6.0, 6.0], [2.0, 2.0, 2.0]),
        (lambda t: 2 * t, [2.0, 4.0, 6.0], [2.0, 2.0, 2.0]),
        (lambda t: 1 - t, [0.0, -1.0, -2.0], [-1.0, -1.0, -1.0]),
        (lambda t: 6 / t, [6.0, 3.0, 2.0], [-6.0, -1.5, -6.0 / 9.0]),
        (lambda t: 2**t, [2.0, 4.0, 8.0], list(np.log(2.0) * np.array([2.0, 4.0, 8.0]))),
        (lambda t: np.float64(3.0) * t, [3.0, 6.0, 9.0], [3.0, 3.0, 3.0]),
        (lambda t: +t * 1, [1.0, 2.0, 3.0], [1.0, 1.0, 1.0]),
    ],
)
def test_reflected_operators(expr, expected_value, expected_grad):
    t = Tensor(np.array([1.0, 2.0, 3.0]), requires_grad=True)
    out = expr(t)
    assert isinstance(out, Tensor), f"got {type(out).__name__}"
    assert out.requires_grad
    np.testing.assert_allclose(out.data, expected_value, rtol=1e-15)
    out.backward()
    np.testing.assert_allclose(t.grad, expected_grad, rtol=1e-15)


def test_in_place_operators_rebind():
    x = Tensor(2.0, requires_grad=True)
    y = x * 1.0
    before = y
    y += x
    y *= x
    assert y is not before and y.op == "mul"
    y.backward()
    assert float(x.grad) == 8.0  # d/dx (2x·x) = 4x


# ---- the engine's own checks --------------------------------------------------------------------
def _wrong_shape_vjp(g, out, a, need):
    return (np.ones((a.shape[0] + 1,)),)


def _transposed_vjp(g, out, a, need):
    return (g.T,)


WRONG_SHAPE = Primitive("wrong_shape", None, _wrong_shape_vjp, "")
TRANSPOSED = Primitive("transposed", None, _transposed_vjp, "")


def test_vjp_with_wrong_shape_is_reported_with_the_op_name():
    a = Tensor(np.ones(3), requires_grad=True)
    out = _result(a.data * 2, (a,), WRONG_SHAPE)
    with pytest.raises(RuntimeError, match=r"wrong_shape.*\(4,\).*\(3,\)"):
        out.backward()


def test_vjp_with_wrong_shape_but_same_size_is_reported():
    a = Tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    out = _result(a.data * 1.0, (a,), TRANSPOSED)
    with pytest.raises(RuntimeError, match="transposed"):
        out.backward(np.arange(6.0).reshape(2, 3))


def test_unbroadcast():
    g = np.arange(24.0).reshape(2, 3, 4)
    assert np.array_equal(unbroadcast(g, (4,)), g.sum(axis=(0, 1)))
    assert np.array_equal(unbroadcast(g, (3, 1)), g.sum(axis=(0, 2)).reshape(3, 1))
    assert np.array_equal(unbroadcast(g, ()), np.array(g.sum()))
    assert unbroadcast(g, (2, 3, 4)) is g


def test_toposort_is_deterministic_and_parents_first():
    a = Tensor(1.0, requires_grad=True)
    b = Tensor(2.0, requires_grad=True)
    c = Tensor(5.0)
    d = a * b
    e = d + a
    f = e * c
    order = toposort(f)
    assert order == [a, b, d, e, f]  # c needs no grad: skipped
    assert toposort(f, only_grad=False) == [a, b, d, e, c, f]
    position = {t: i for i, t in enumerate(order)}
    for t in order:
        assert all(position[p] < position[t] for p in t.parents if p.requires_grad)


def test_parameter_is_a_leaf_requiring_grad():
    p = Parameter(np.zeros(3))
    assert isinstance(p, Tensor) and p.requires_grad and p.is_leaf
    assert p.dtype == np.float64
    (p * 2).sum().backward()
    assert np.array_equal(p.grad, [2.0, 2.0, 2.0])


def test_importing_autograd_changes_nothing_outside_the_package():
    probe = (
        "import json, sys\n"
        "import numpy as np\n"
        "before = (np.get_printoptions(), np.geterr())\n"
        "import autograd, autograd.nn, autograd.optim, autograd.graph, autograd.gradcheck\n"
        "from autograd import _memory\n"
        "after = (np.get_printoptions(), np.geterr())\n"
        "print(json.dumps({'same': repr(before) == repr(after), 'tuned': _memory.tuned,\n"
        "                  'language': 'language' in sys.modules or 'autograd.expr' in sys.modules}))\n"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == {"same": True, "tuned": False, "language": False}


def test_tune_malloc_is_an_explicit_call_and_idempotent():
    from autograd import _memory

    probe = "import autograd; from autograd import _memory; print(autograd.tune_malloc(), _memory.tuned)"
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    first, flag = run.stdout.split()
    assert first == flag  # True on glibc, False elsewhere; either way the flag says what happened
    assert callable(_memory.tune_malloc)


def test_a_reduction_of_a_scalar_over_axis_0_removes_no_axis():
    # found by the panel sweep: `s.sum(0)` of a 0-d tensor (NumPy and PyTorch allow axis 0 there) broke its
    # plugged rule ("cannot broadcast a non-scalar to a scalar array")
    from autograd.ops import SUM
    from explorer.numbers import plugged_text

    for reduce in ("sum", "mean", "max"):
        s = Tensor(3.0, requires_grad=True)
        y = getattr(s * s, reduce)(0)
        y.backward()
        assert y.shape == () and float(y.data) == 9.0 and float(s.grad) == 6.0, reduce
    (text, value), = SUM.plugged(plugged_text, np.float64(2.0), np.float64(3.0), np.float64(3.0), axis=0,
                                 keepdims=False)
    assert value.shape == () and float(value) == 2.0
