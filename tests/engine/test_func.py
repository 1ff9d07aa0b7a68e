"""autograd.func (jvp, vjp, jacfwd, jacrev): on every case of every primitive the Jacobians equal the one
autograd/jacobian.py builds from the op's own VJP, and J·v, uᵀJ follow from it; through whole programs they match
central differences in float64; each Jacobian function says how many passes it took (n JVPs, m VJPs); shapes
and argnums follow torch.func; bad arguments get messages that name what is wrong."""

import re
import subprocess
import sys

import numpy as np
import pytest

from autograd import Tensor, no_grad
from autograd.func import jacfwd, jacrev, jvp, vjp
from autograd.jacobian import jacobian_rows
from tests.support.helpers import ROOT, leaves
from tests.support.op_cases import IDS, TABLE

RNG = np.random.default_rng(5)


def reference_jacobians(case):
    """∂out/∂input for each of a case's inputs, shape out.shape + input.shape, from autograd.jacobian's rows
    (the op's VJP on one-hot upstreams), summed over the slots where the input is used."""
    tensors = leaves(*case.arrays)
    out = case.fn(*tensors)
    rows = jacobian_rows(out, out.size)
    jacs = []
    for t in tensors:
        total = np.zeros((out.size, t.size))
        for parent, block in zip(out.parents, rows):
            if parent is t:
                total += block
        jacs.append(total.reshape(out.shape + t.shape))
    return out, jacs


def numeric_jacobian(fn, arrays, k, eps=1e-6):
    """∂f/∂arrays[k] by central differences, shape out.shape + arrays[k].shape."""
    arrays = [np.array(a, dtype=np.float64) for a in arrays]
    base = fn(*[Tensor(a) for a in arrays]).data
    flat = arrays[k].reshape(-1)
    columns = np.empty((base.size, flat.size))
    for j in range(flat.size):
        saved = flat[j]
        flat[j] = saved + eps
        plus = np.array(fn(*[Tensor(a) for a in arrays]).data).reshape(-1)
        flat[j] = saved - eps
        minus = np.array(fn(*[Tensor(a) for a in arrays]).data).reshape(-1)
        flat[j] = saved
        columns[:, j] = (plus - minus) / (2 * eps)
    return columns.reshape(base.shape + arrays[k].shape)


@pytest.mark.parametrize(("name", "case"), TABLE, ids=IDS)
def test_jacfwd_and_jacrev_of_every_primitive_are_its_jacobian(name, case):
    out, expected = reference_jacobians(case)
    primals = [Tensor(a.copy()) for a in case.arrays]
    argnums = tuple(range(len(primals)))
    forward, reverse = jacfwd(case.fn, argnums=argnums), jacrev(case.fn, argnums=argnums)
    by_forward, by_reverse = forward(*primals), reverse(*primals)
    assert forward.passes == sum(a.size for a in case.arrays) == forward.n
    assert reverse.passes == out.size == reverse.m
    for k, (f, r, e) in enumerate(zip(by_forward, by_reverse, expected)):
        assert f.shape == r.shape == out.shape + primals[k].shape, (name, case.label, k)
        scale = 1.0 + np.abs(e).max(initial=0.0)
        np.testing.assert_allclose(f.data, e, rtol=1e-12, atol=1e-12 * scale, err_msg=f"{name} jacfwd, input {k}")
        np.testing.assert_allclose(r.data, e, rtol=1e-12, atol=1e-12 * scale, err_msg=f"{name} jacrev, input {k}")


@pytest.mark.parametrize(("name", "case"), TABLE, ids=IDS)
def test_jvp_and_vjp_of_every_primitive_are_j_v_and_u_j(name, case):
    out, expected = reference_jacobians(case)
    primals = tuple(Tensor(a.copy()) for a in case.arrays)
    vs = tuple(RNG.standard_normal(a.shape) for a in case.arrays)
    value, tangent = jvp(case.fn, primals, vs)
    np.testing.assert_allclose(value.data, out.data, rtol=0, atol=0)
    jv = sum(np.tensordot(e, v, axes=v.ndim) for e, v in zip(expected, vs))
    np.testing.assert_allclose(tangent.data, jv, rtol=1e-12, atol=1e-12, err_msg=f"{name} jvp")
    u = RNG.standard_normal(out.shape)
    value, vjp_fn = vjp(case.fn, *primals)
    grads = vjp_fn(u)
    assert isinstance(grads, tuple) and len(grads) == len(primals)
    for k, (g, e) in enumerate(zip(grads, expected)):
        uj = np.tensordot(u, e, axes=u.ndim)
        np.testing.assert_allclose(g.data, uj, rtol=1e-12, atol=1e-12, err_msg=f"{name} vjp, input {k}")


# ---- whole programs against central differences ---------------------------------------------------------
def mlp(x, w1, w2):
    return ((x @ w1).tanh() @ w2).softmax(axis=-1)


def loss(x, w, b):
    return F_loss(x, w, b)


def F_loss(x, w, b):
    from autograd import functional as F

    return F.cross_entropy(F.linear(x, w, b).gelu(), np.array([0, 2, 1, 1]))


PROGRAMS = [
    ("mlp, R^(4x3) -> R^(4x2)", mlp, (RNG.standard_normal((4, 3)), RNG.standard_normal((3, 5)),
                                      RNG.standard_normal((5, 2)))),
    ("loss, many inputs -> R", loss, (RNG.standard_normal((4, 3)), RNG.standard_normal((3, 3)),
                                      RNG.standard_normal(3))),
    ("fan-out and broadcasting", lambda a, b: (a * b + a.exp() / (1 + b * b)).sum(axis=0) - a.max(),
     (RNG.standard_normal((3, 4)), RNG.standard_normal(4))),
]


@pytest.mark.parametrize(("label", "fn", "arrays"), PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_jacobians_of_programs_match_central_differences(label, fn, arrays):
    primals = [Tensor(a) for a in arrays]
    nums = tuple(range(len(arrays)))
    by_forward, by_reverse = jacfwd(fn, argnums=nums)(*primals), jacrev(fn, argnums=nums)(*primals)
    for k in nums:
        numeric = numeric_jacobian(fn, arrays, k)
        np.testing.assert_allclose(by_forward[k].data, numeric, rtol=1e-5, atol=1e-7, err_msg=f"{label} {k}")
        np.testing.assert_allclose(by_reverse[k].data, by_forward[k].data, rtol=1e-12, atol=1e-13)


def test_passes_are_n_for_forward_and_m_for_reverse():
    w = Tensor(RNG.standard_normal((2, 6)))
    forward, reverse = jacfwd(lambda x: (w @ x).tanh()), jacrev(lambda x: (w @ x).tanh())
    assert forward.passes is None and reverse.passes is None  # nothing run yet
    x = Tensor(RNG.standard_normal(6))
    assert forward(x).shape == reverse(x).shape == (2, 6)
    assert (forward.passes, forward.n, forward.m) == (6, 6, 2)  # one JVP per input number
    assert (reverse.passes, reverse.n, reverse.m) == (2, 6, 2)  # one VJP per output number
    assert repr(forward) == "jacfwd(<lambda>, argnums=0)"


# ---- torch.func's shapes and argnums ---------------------------------------------------------------------
def test_shapes_follow_torch_func():
    x, y = Tensor(RNG.standard_normal((2, 3))), Tensor(RNG.standard_normal(3))
    f = lambda a, b: (a * b).sum(axis=0)  # noqa: E731  (R^(2x3) x R^3 -> R^3)
    assert jacrev(f)(x, y).shape == (3, 2, 3)
    assert jacfwd(f, argnums=1)(x, y).shape == (3, 3)
    both = jacfwd(f, argnums=(1, 0))(x, y)
    assert isinstance(both, tuple) and [j.shape for j in both] == [(3, 3), (3, 2, 3)]
    assert jacrev(f, argnums=-1)(x, y).shape == (3, 3)
    # A scalar output gives the gradient's shape; a 0-d input adds no axes.
    assert jacrev(lambda a: (a * a).sum())(x).shape == (2, 3)
    s = Tensor(np.array(1.5))
    np.testing.assert_allclose(jacfwd(lambda a: a * a)(s).data, 3.0)
    assert jacfwd(lambda a: a * a)(s).shape == ()


def test_an_argument_not_differentiated_is_passed_as_given():
    x = Tensor(RNG.standard_normal(3))
    jac = jacfwd(lambda a, scale, axis: (a * scale).sum(axis=axis))(x, 2.0, 0)
    np.testing.assert_allclose(jac.data, np.full(3, 2.0))


def test_results_have_no_graph_and_primals_are_untouched():
    x = Tensor(RNG.standard_normal(3), requires_grad=True)
    before = x.data.copy()
    out, tangent = jvp(lambda a: a.exp(), (x,), (np.ones(3),))
    value, vjp_fn = vjp(lambda a: a.exp(), x)
    (g,) = vjp_fn(np.ones(3))
    jac = jacrev(lambda a: a.exp())(x)
    for t in (out, tangent, value, g, jac):
        assert isinstance(t, Tensor) and not t.requires_grad and t.is_leaf
    assert x.grad is None and x.requires_grad and np.array_equal(x.data, before)


def test_vjp_fn_can_be_called_again_without_adding_up():
    x = Tensor(RNG.standard_normal(3))
    _, vjp_fn = vjp(lambda a: (a * a).tanh() * a, x)
    first, second = vjp_fn(np.ones(3))[0], vjp_fn(np.ones(3))[0]
    np.testing.assert_array_equal(first.data, second.data)
    np.testing.assert_allclose(vjp_fn(2 * np.ones(3))[0].data, 2 * first.data)


def test_an_input_the_output_ignores_gets_zeros():
    x, y = Tensor(RNG.standard_normal(3)), Tensor(RNG.standard_normal(2))
    _, vjp_fn = vjp(lambda a, b: a * 2.0, x, y)
    gx, gy = vjp_fn(np.ones(3))
    np.testing.assert_array_equal(gy.data, np.zeros(2))
    _, tangent = jvp(lambda a, b: a * 2.0, (x, y), (np.zeros(3), np.ones(2)))
    np.testing.assert_array_equal(tangent.data, np.zeros(3))
    constant = jacrev(lambda a: Tensor(np.ones(2)))
    np.testing.assert_array_equal(constant(x).data, np.zeros((2, 3)))
    assert constant.passes == 0


def test_transforms_record_their_graph_inside_no_grad():
    x = Tensor(RNG.standard_normal(3))
    with no_grad():
        _, tangent = jvp(lambda a: a * a, (x,), (np.ones(3),))
        jac = jacrev(lambda a: a * a)(x)
        inner = (Tensor(np.ones(1), requires_grad=True) * 2.0)
    np.testing.assert_allclose(tangent.data, 2 * x.data)
    np.testing.assert_allclose(jac.data, np.diag(2 * x.data))
    assert not inner.requires_grad  # no_grad still holds around the transforms


def test_has_aux_returns_the_aux_detached():
    x = Tensor(RNG.standard_normal(3))

    def f(a):
        y = a.tanh()
        return y.sum(), y

    grad, aux = jacrev(f, has_aux=True)(x)
    np.testing.assert_allclose(grad.data, 1 - np.tanh(x.data) ** 2)
    assert isinstance(aux, Tensor) and not aux.requires_grad
    out, tangent, aux = jvp(f, (x,), (np.ones(3),), has_aux=True)
    assert tangent.item() == pytest.approx(float(np.sum(1 - np.tanh(x.data) ** 2)))
    out, vjp_fn, aux = vjp(f, x, has_aux=True)
    np.testing.assert_allclose(vjp_fn(np.array(1.0))[0].data, grad.data)


# ---- bad arguments ---------------------------------------------------------------------------------------
def test_jvp_names_the_first_shape_mismatch():
    x, y = Tensor(np.ones((2, 3))), Tensor(np.ones(4))
    with pytest.raises(ValueError, match=r"tangent 1 has shape \(3,\) but primal 1 has shape \(4,\)"):
        jvp(lambda a, b: a.sum() + b.sum(), (x, y), (np.ones((2, 3)), np.ones(3)))
    with pytest.raises(ValueError, match="2 primals but 1 tangents"):
        jvp(lambda a, b: a.sum(), (x, y), (np.ones((2, 3)),))
    with pytest.raises(TypeError, match="primals must be a tuple"):
        jvp(lambda a: a, x, (np.ones((2, 3)),))


def test_other_misuse_is_named():
    x = Tensor(np.ones(3))
    _, vjp_fn = vjp(lambda a: a * 2.0, x)
    with pytest.raises(ValueError, match=r"cotangent has shape \(2,\) but the output has shape \(3,\)"):
        vjp_fn(np.ones(2))
    with pytest.raises(ValueError, match="argnums 2 is out of range for a function called with 1 arguments"):
        jacfwd(lambda a: a, argnums=2)(x)
    with pytest.raises(ValueError, match="names the same argument twice"):
        jacrev(lambda a, b: a, argnums=(0, -2))(x, x)
    with pytest.raises(TypeError, match="f must return a Tensor, it returned float"):
        jacrev(lambda a: 1.0)(x)
    with pytest.raises(TypeError, match="only floating-point tensors can be differentiated"):
        jacfwd(lambda a: a)(Tensor(np.arange(3), dtype=np.int64))
    # numbers and arrays are taken as Tensor() takes them (whole numbers become float64)
    np.testing.assert_array_equal(jacfwd(lambda a: a * 2.0)(np.arange(2)).data, 2 * np.eye(2))


def test_the_readme_example_runs_as_written(tmp_path):
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Forward and reverse mode", 1)[1]
    snippet = re.findall(r"```python\n(.*?)```", section, re.S)[0]
    script = tmp_path / "forward_reverse.py"
    script.write_text(snippet)
    root = str(ROOT)
    done = subprocess.run([sys.executable, str(script)], cwd=root, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": root, "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["(2, 3) 3 (2, 3) 2", "True True"]
