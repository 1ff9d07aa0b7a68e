"""Higher order: autograd.grad with create_graph=True records the backward pass from the primitives, so gradients
can be differentiated again (issue 32). Every case of the op table passes gradgradcheck; tanh's three derivatives
and the Hessian of a quadratic form are exact; autograd.grad keeps torch.autograd.grad's contract.
"""

import threading

import numpy as np
import pytest

import autograd.functional as F
from autograd import Tensor, func, grad, gradcheck, gradgradcheck
from autograd.ops import PRIMITIVES, xp_array, xp_tensor
from autograd.ops.elementwise import NORMAL_CDF, normal_cdf
from autograd.tensor import toposort
from tests.support.helpers import leaves
from tests.support.op_cases import IDS, TABLE, made

RNG = np.random.default_rng(32)


# ---- every primitive, every case: second derivatives against central differences of the first --------------
@pytest.mark.parametrize(("name", "case"), TABLE, ids=IDS)
def test_gradgradcheck_passes_on_every_case_of_the_op_table(name, case):
    assert gradgradcheck(case.fn, leaves(*case.arrays))


def test_gradgradcheck_fails_when_a_recorded_vjp_drops_the_graph(monkeypatch):
    # A VJP that takes tanh's output as a constant gives the right first derivative and a wrong second one.
    def detached(g, out, a, need, xp=xp_array):
        return (g * (1 - xp.value(out) ** 2),)

    monkeypatch.setattr(PRIMITIVES["tanh"], "vjp", detached)
    with pytest.raises(AssertionError, match="gradgradcheck failed for input 0"):
        gradgradcheck(lambda a: a.tanh(), leaves(RNG.standard_normal((3, 2))))


def test_normal_cdf_the_primitive_only_gelu_s_recorded_vjp_makes_is_twice_differentiable():
    x = leaves(3 * RNG.standard_normal(7))
    assert gradcheck(normal_cdf, x) and gradgradcheck(normal_cdf, x)
    a = leaves(RNG.standard_normal(4))[0]
    (g,) = grad(a.gelu().sum(), a, create_graph=True)
    assert "normal_cdf" in {node.op for node in toposort(g)}
    assert NORMAL_CDF.name not in PRIMITIVES  # no surface makes it


# ---- the registry is complete: every VJP runs on Tensors and records what it returns -------------------------
def first_cases():
    seen = {}
    for name, case in TABLE:
        seen.setdefault(name, case)
    return sorted(seen.items())


@pytest.mark.parametrize(("name", "case"), first_cases(), ids=[name for name, _ in first_cases()])
def test_every_primitive_s_vjp_runs_on_tensors_and_gives_the_array_vjp_s_numbers(name, case):
    out, tensors = made(case)
    prim, meta = out._prim, out._meta or {}
    need = tuple(p.requires_grad for p in out.parents)
    g = RNG.standard_normal(out.shape)
    plain = prim.vjp(g, out.data, *[p.data for p in out.parents], need=need, **meta)
    g_tensor = Tensor(g, requires_grad=True)
    recorded = prim.vjp(g_tensor, out, *out.parents, need=need, xp=xp_tensor, **meta)
    assert len(plain) == len(recorded) == len(out.parents)
    for k, (p, r, needed) in enumerate(zip(plain, recorded, need)):
        if not needed:
            continue
        assert isinstance(r, Tensor) and r.requires_grad, f"{name}: input {k}'s gradient has no graph"
        np.testing.assert_allclose(r.data, np.broadcast_to(p, r.shape), rtol=1e-12, atol=1e-14, err_msg=name)


def test_the_registry_is_covered():
    assert {name for name, _ in TABLE} == set(PRIMITIVES)


def test_the_two_namespaces_define_the_same_names():
    assert sorted(xp_array.__all__) == sorted(xp_tensor.__all__)
    for name in xp_array.__all__:
        assert callable(getattr(xp_array, name)) and callable(getattr(xp_tensor, name)), name


# ---- tanh: three derivatives, exact ----------------------------------------------------------------------
def test_tanh_first_second_and_third_derivatives_are_exact():
    x = Tensor(np.linspace(-2.5, 2.5, 11), requires_grad=True)
    t = np.tanh(x.data)
    expected = [1 - t**2, -2 * t * (1 - t**2), -2 * (1 - t**2) * (1 - 3 * t**2)]
    y = x.tanh().sum()
    for order, closed in enumerate(expected, start=1):
        (d,) = grad(y, x, create_graph=True)
        np.testing.assert_allclose(d.data, closed, rtol=0, atol=1e-10, err_msg=f"tanh derivative {order}")
        assert d.requires_grad and d.op and d.parents, f"derivative {order} has no graph"
        y = d.sum()
    assert x.grad is None


def test_the_graph_of_a_gradient_holds_the_forward_nodes_and_the_backward_s_own():
    x = Tensor(np.array([0.5, -1.0]), requires_grad=True)
    y = x.tanh()
    (d,) = grad(y.sum(), x, create_graph=True)
    nodes = toposort(d)
    assert {id(y), id(x)} <= {id(n) for n in nodes}  # through tanh's output: d = G ⊙ (1 − y·y)
    assert {n.op for n in nodes} >= {"tanh", "mul", "sub"}


# ---- Hessians ------------------------------------------------------------------------------------------
def test_the_hessian_of_half_x_a_x_is_the_symmetric_part_of_a():
    a = RNG.standard_normal((4, 4))
    x = Tensor(RNG.standard_normal(4))

    def quadratic(x):
        return 0.5 * (x @ (Tensor(a) @ x))

    np.testing.assert_allclose(func.hessian(quadratic)(x).data, (a + a.T) / 2, rtol=1e-12, atol=1e-14)
    # the same from autograd.grad twice, row by row
    leaf = Tensor(x.data, requires_grad=True)
    (g,) = grad(quadratic(leaf), leaf, create_graph=True)
    rows = [grad(g[i], leaf)[0].data for i in range(4)]
    np.testing.assert_allclose(np.array(rows), (a + a.T) / 2, rtol=1e-12, atol=1e-14)
    v = RNG.standard_normal(4)
    _, hv = func.hvp(quadratic, (x,), (v,))
    np.testing.assert_allclose(hv[0].data, (a + a.T) / 2 @ v, rtol=1e-12, atol=1e-14)


def test_hvp_reverse_over_reverse_equals_forward_over_reverse_and_finite_differences():
    def f(x, w):
        return (F.softmax(x @ w, axis=-1) * (x @ w).tanh()).sum() + (w**2).mean().sqrt()

    x, w = Tensor(RNG.standard_normal((3, 4))), Tensor(RNG.standard_normal((4, 2)))
    vx, vw = RNG.standard_normal((3, 4)), RNG.standard_normal((4, 2))
    out, (hx, hw) = func.hvp(f, (x, w), (vx, vw))
    np.testing.assert_allclose(out.data, f(x, w).data)
    grad_f = func.grad(f, argnums=(0, 1))
    _, tx = func.jvp(lambda a, b: grad_f(a, b)[0], (x, w), (vx, vw))
    _, tw = func.jvp(lambda a, b: grad_f(a, b)[1], (x, w), (vx, vw))
    np.testing.assert_allclose(tx.data, hx.data, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(tw.data, hw.data, rtol=1e-10, atol=1e-12)
    eps = 1e-6
    plus = grad_f(Tensor(x.data + eps * vx), Tensor(w.data + eps * vw))
    minus = grad_f(Tensor(x.data - eps * vx), Tensor(w.data - eps * vw))
    np.testing.assert_allclose((plus[0].data - minus[0].data) / (2 * eps), hx.data, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose((plus[1].data - minus[1].data) / (2 * eps), hw.data, rtol=1e-5, atol=1e-7)
    H = func.hessian(f, argnums=(0, 1))(x, w)
    assert H[0][1].shape == (3, 4, 4, 2)
    np.testing.assert_allclose(H[0][1].data, np.transpose(H[1][0].data, (2, 3, 0, 1)), rtol=1e-10, atol=1e-12)
    flat = np.tensordot(H[0][0].data, vx, 2) + np.tensordot(H[0][1].data, vw, 2)
    np.testing.assert_allclose(flat, hx.data, rtol=1e-10, atol=1e-12)


def test_the_hessian_of_a_linear_function_is_zero_and_of_a_vector_output_has_its_shape():
    x = Tensor(RNG.standard_normal(3))
    assert not func.hessian(lambda x: (2.0 * x).sum())(x).data.any()
    H = func.hessian(lambda x: x * x)(x)  # out.shape + x.shape + x.shape
    assert H.shape == (3, 3, 3)
    expected = np.zeros((3, 3, 3))
    for i in range(3):
        expected[i, i, i] = 2.0
    np.testing.assert_array_equal(H.data, expected)


def test_func_grad_composes_to_any_order():
    x = Tensor(0.7)
    d3 = func.grad(func.grad(func.grad(lambda x: x.tanh())))(x)
    t = np.tanh(0.7)
    assert d3.data == pytest.approx(-2 * (1 - t**2) * (1 - 3 * t**2), abs=1e-12)
    assert not d3.requires_grad and d3.op == ""
    # the same tensor at two positions: each position's own partial derivative
    assert func.grad(lambda a, b: a * b * b, argnums=(0, 1))(x, x)[1].data == pytest.approx(2 * 0.7 * 0.7)


def test_func_grad_needs_a_scalar_output_and_returns_aux():
    x = Tensor(RNG.standard_normal(3))
    with pytest.raises(ValueError, match="0-d"):
        func.grad(lambda x: x * 2)(x)
    g, aux = func.grad(lambda x: ((x**2).sum(), x * 3), has_aux=True)(x)
    np.testing.assert_allclose(g.data, 2 * x.data)
    np.testing.assert_allclose(aux.data, 3 * x.data)
    assert func.grad(lambda x, y: (x * 0).sum() + y, argnums=1)(x, Tensor(2.0)).data == 1.0


# ---- autograd.grad's contract (torch.autograd.grad) ------------------------------------------------------------
def test_grad_returns_a_tuple_and_leaves_every_grad_untouched():
    x, w = leaves(RNG.standard_normal((2, 3)), RNG.standard_normal((3, 2)))
    h = (x @ w).tanh()
    y = h.sum()
    gx, gw = grad(y, [x, w])
    assert x.grad is None and w.grad is None and h.grad is None and y.grad is None
    y.backward()
    np.testing.assert_allclose(gx.data, x.grad)
    np.testing.assert_allclose(gw.data, w.grad)
    assert not gx.requires_grad and gx.op == "" and gx.parents == ()
    # a second call gives the same, and backward()'s grads stay as they were
    before = x.grad.copy()
    (again,) = grad(y, x)
    np.testing.assert_array_equal(again.data, gx.data)
    np.testing.assert_array_equal(x.grad, before)


def test_grad_with_respect_to_an_intermediate_and_with_grad_outputs():
    x = leaves(RNG.standard_normal(4))[0]
    h = x * 3.0
    y = h.exp()
    u = RNG.standard_normal(4)
    gh, gx = grad(y, (h, x), grad_outputs=u)
    np.testing.assert_allclose(gh.data, u * np.exp(h.data))
    np.testing.assert_allclose(gx.data, 3 * u * np.exp(h.data))
    (ones,) = grad(y, x)  # None seeds ones, whatever the output's shape (as backward())
    np.testing.assert_allclose(ones.data, 3 * np.exp(h.data))
    with pytest.raises(ValueError, match="shape"):
        grad(y, x, grad_outputs=np.ones(3))


def test_grad_of_several_outputs_sums_them():
    x = leaves(RNG.standard_normal(3))[0]
    a, b = x.tanh(), x * x
    (gx,) = grad([a.sum(), b.sum()], x)
    np.testing.assert_allclose(gx.data, grad(a.sum(), x)[0].data + 2 * x.data)


def test_an_unused_input_raises_unless_allow_unused():
    x, z = leaves(RNG.standard_normal(3), RNG.standard_normal(3))
    y = (x * x).sum()
    with pytest.raises(RuntimeError, match="allow_unused"):
        grad(y, (x, z))
    gx, gz = grad(y, (x, z), allow_unused=True)
    assert gz is None and gx is not None
    with pytest.raises(RuntimeError, match="does not require grad"):
        grad(y, Tensor(np.ones(3)))
    with pytest.raises(RuntimeError, match="does not require grad"):
        grad(Tensor(1.0), x)


def test_create_graph_results_have_a_graph_made_of_primitives_and_keep_the_numbers():
    x = leaves(RNG.standard_normal((2, 3)))[0]
    y = F.log_softmax(x, axis=1)[:, 0].sum() + x.max()
    (plain,) = grad(y, x)
    (recorded,) = grad(y, x, create_graph=True)
    np.testing.assert_allclose(recorded.data, plain.data, rtol=1e-14)
    assert recorded.requires_grad and recorded.op in PRIMITIVES and recorded.parents
    assert {n.op for n in toposort(recorded) if n.op} <= set(PRIMITIVES) | {"normal_cdf"}
    assert x.grad is None


def test_the_backward_of_relu_and_ties_has_a_zero_second_derivative():
    x = leaves(np.array([-1.0, 0.0, 2.0]))[0]
    (g,) = grad(x.relu().sum() + F.maximum(x, Tensor(np.array([-1.0, 1.0, 2.0]))).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.data, [0.5, 0.0, 1.5])  # relu'(0) = 0; ties share G evenly
    assert not g.requires_grad or not grad(g.sum(), x, allow_unused=True)[0].data.any()


def test_create_graph_in_one_thread_leaves_another_thread_s_backward_on_arrays():
    errors = []
    stop = threading.Event()

    def recorded():
        try:
            while not stop.is_set():
                x = leaves(RNG.standard_normal(3))[0]
                (g,) = grad(x.tanh().sum(), x, create_graph=True)
                assert isinstance(g, Tensor) and g.requires_grad
        except Exception as err:  # noqa: BLE001  (reported below)
            errors.append(err)

    worker = threading.Thread(target=recorded)
    worker.start()
    try:
        for _ in range(200):
            x = leaves(np.array([0.1, 0.2]))[0]
            (x.tanh() * x).sum().backward()
            assert type(x.grad) is np.ndarray
    finally:
        stop.set()
        worker.join()
    assert not errors
