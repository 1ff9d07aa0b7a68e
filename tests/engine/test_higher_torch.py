"""Higher order against PyTorch in float64, on every primitive's PyTorch cases (tests/support/torch_cases.py):
autograd.grad(create_graph=True) differentiated again, func.grad, func.hessian and func.hvp agree with
torch.autograd.grad, torch.func.grad, torch.func.hessian and torch.autograd.functional.hvp to 1e-9 relative.

PyTorch is an optional oracle (torch==2.13.0, CPU): without it these tests skip.
"""

import numpy as np
import pytest

from autograd import Tensor, func, grad

torch = pytest.importorskip("torch")
tfunc = pytest.importorskip("torch.func")

from tests.support.torch_cases import TABLE  # noqa: E402  (after the skip: the module needs torch)

IDS = [f"{row[0]}-{row[1]}" for row in TABLE]


def close(ours, theirs, what):
    theirs = theirs.detach().numpy() if isinstance(theirs, torch.Tensor) else np.asarray(theirs)
    np.testing.assert_allclose(np.asarray(getattr(ours, "data", ours)), theirs, rtol=1e-9, atol=1e-12,
                               equal_nan=True, err_msg=what)


def scalars(ours, theirs, arrays, seed):
    """The case's op weighted by fixed random numbers and summed: a scalar function of the inputs, ours and torch's."""
    out = ours(*[Tensor(a) for a in arrays])
    w = np.random.default_rng(seed).standard_normal(out.shape)

    def mine(*xs):
        return (ours(*xs) * w).sum()

    def torch_f(*xs):
        return (theirs(*xs) * torch.tensor(w)).sum()

    return mine, torch_f


@pytest.mark.parametrize(("name", "label", "arrays", "ours", "theirs"), TABLE, ids=IDS)
def test_create_graph_gradients_differentiated_again_match_torch(name, label, arrays, ours, theirs):
    rng = np.random.default_rng(3)
    mine = [Tensor(a.copy(), requires_grad=True) for a in arrays]
    refs = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    out, ref_out = ours(*mine), theirs(*refs)
    v = rng.standard_normal(out.shape)
    us = [rng.standard_normal(a.shape) for a in arrays]
    firsts = grad(out, mine, grad_outputs=v, create_graph=True, allow_unused=True)
    ref_firsts = torch.autograd.grad(ref_out, refs, grad_outputs=torch.tensor(v), create_graph=True,
                                     allow_unused=True)
    for k, (g, e) in enumerate(zip(firsts, ref_firsts)):
        close(g, e, f"{name} [{label}] first derivative, input {k}")
    if any(np.isnan(g.data).any() for g in firsts if g is not None):
        return  # NOTE: a first derivative of nan (a variance of one element) has no second to compare
    total = _weighted(firsts, us, lambda g, u: (g * u).sum())
    ref_total = _weighted(ref_firsts, us, lambda g, u: (g * torch.tensor(u)).sum())
    # NOTE: where one engine's first derivative is a constant (ours of relu and abs: G ⊙ a constant mask; torch's
    # of x**0: zeros), the other's second derivative must be 0.
    seconds = _second(total, mine, grad, arrays)
    ref_seconds = _second(ref_total, refs, torch.autograd.grad, arrays)
    for k, (s, e) in enumerate(zip(seconds, ref_seconds)):
        close(s, e, f"{name} [{label}] second derivative, input {k}")


def _weighted(firsts, us, dot):
    terms = [dot(g, u) for g, u in zip(firsts, us) if g is not None and g.requires_grad]
    return sum(terms[1:], terms[0]) if terms else None


def _second(total, inputs, differentiate, arrays):
    if total is None:
        return [np.zeros(a.shape) for a in arrays]
    found = differentiate(total, inputs, allow_unused=True)
    return [np.zeros(a.shape) if s is None else s.data if isinstance(s, Tensor) else s.detach().numpy(force=True)
            for s, a in zip(found, arrays)]


@pytest.mark.parametrize(("name", "label", "arrays", "ours", "theirs"), TABLE, ids=IDS)
def test_func_grad_hessian_and_hvp_match_torch(name, label, arrays, ours, theirs):
    mine, torch_f = scalars(ours, theirs, arrays, seed=5)
    nums = tuple(range(len(arrays)))
    xs = [Tensor(a.copy()) for a in arrays]
    refs = [torch.tensor(a, dtype=torch.float64) for a in arrays]
    grads = func.grad(mine, argnums=nums)(*xs)
    for k, (g, e) in enumerate(zip(grads, tfunc.grad(torch_f, argnums=nums)(*refs))):
        close(g, e, f"{name} [{label}] func.grad, input {k}")
    if any(np.isnan(g.data).any() for g in grads):
        return  # NOTE: a first derivative of nan (a variance of one element) has no second to compare
    hess, ref_hess = func.hessian(mine, argnums=nums)(*xs), tfunc.hessian(torch_f, argnums=nums)(*refs)
    for i, (row, ref_row) in enumerate(zip(hess, ref_hess)):
        for j, (h, e) in enumerate(zip(row, ref_row)):
            assert h.shape == tuple(e.shape), f"{name} [{label}] hessian block {i}, {j}"
            close(h, e, f"{name} [{label}] func.hessian block {i}, {j}")
    vs = tuple(np.random.default_rng(11).standard_normal(a.shape) for a in arrays)
    value, products = func.hvp(mine, tuple(xs), vs)
    ref_value, ref_products = torch.autograd.functional.hvp(torch_f, tuple(refs), tuple(torch.tensor(v) for v in vs))
    close(value, ref_value, f"{name} [{label}] hvp value")
    for k, (p, e) in enumerate(zip(products, ref_products)):
        close(p, e, f"{name} [{label}] func.hvp, input {k}")


def test_hvp_of_one_tensor_returns_one_tensor_as_torch_does():
    x = np.array([0.3, -1.2, 2.0])
    v = np.array([1.0, 0.5, -2.0])
    value, product = func.hvp(lambda t: (t.tanh() * t).sum(), Tensor(x), Tensor(v))
    ref_value, ref_product = torch.autograd.functional.hvp(lambda t: (t.tanh() * t).sum(), torch.tensor(x),
                                                           torch.tensor(v))
    assert isinstance(product, Tensor)
    close(value, ref_value, "value")
    close(product, ref_product, "H·v")
