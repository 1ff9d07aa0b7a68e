"""Forward values and gradients against PyTorch in float64, op by op, and optimiser updates step by step.

PyTorch is an optional oracle (torch==2.13.0, CPU): without it these tests skip. It is never a
requirement: `pip install torch==2.13.0` to run them.
"""

import numpy as np
import pytest

from autograd import Parameter, Tensor, optim
from autograd.ops import PRIMITIVES

torch = pytest.importorskip("torch")

from tests.support.torch_cases import CASES, TABLE  # noqa: E402  (after the skip: the module needs torch)


def test_every_primitive_is_compared_with_pytorch():
    assert set(CASES) == set(PRIMITIVES)


@pytest.mark.parametrize(("name", "label", "arrays", "ours", "theirs"), TABLE,
                         ids=[f"{row[0]}-{row[1]}" for row in TABLE])
def test_forward_and_gradients_match_pytorch(name, label, arrays, ours, theirs):
    mine = [Tensor(a.copy(), requires_grad=True) for a in arrays]
    refs = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    out, expected = ours(*mine), theirs(*refs)
    assert out.op == name
    assert out.shape == tuple(expected.shape), label
    np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-12, atol=1e-14, err_msg=label)
    cotangent = np.random.default_rng(3).standard_normal(out.shape)
    out.backward(cotangent)
    expected.backward(torch.tensor(cotangent))
    for k, (m, r) in enumerate(zip(mine, refs)):
        np.testing.assert_allclose(m.grad, r.grad.numpy(), rtol=1e-11, atol=1e-13, err_msg=f"{label}: input {k}")


def test_var_with_nothing_left_to_divide_by_is_infinite_as_in_pytorch():
    # correction >= n: PyTorch divides by max(0, n - correction) = 0 and warns; so do we (silently).
    # NOTE: the gradient is then ±inf by the formula 2(A − mean A)/0; PyTorch returns +inf whatever the
    # sign, a special case we do not copy.
    x = np.array([1.0, 2.0, 4.0])
    for correction in (3, 4):
        ours = Tensor(x, requires_grad=True).var(correction=correction)
        with pytest.warns(UserWarning):
            theirs = torch.tensor(x).var(correction=correction)
        assert np.isinf(ours.item()) and ours.item() == theirs.item()
        ours.backward()


# ---- optimisers ------------------------------------------------------------------------------------
OPTIMISERS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.05}),
    ("SGD", {"lr": 0.05, "momentum": 0.8, "dampening": 0.3, "weight_decay": 0.01}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.02, "betas": (0.8, 0.99), "eps": 1e-6, "weight_decay": 0.1}),
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.03, "weight_decay": 0.2}),
]


@pytest.mark.parametrize(("kind", "kwargs"), OPTIMISERS, ids=[f"{k}-{i}" for i, (k, _) in enumerate(OPTIMISERS)])
def test_optimiser_updates_match_pytorch(kind, kwargs):
    rng = np.random.default_rng(11)
    start = [rng.standard_normal((3, 2)), rng.standard_normal(2), rng.standard_normal(())]
    grads = [[rng.standard_normal(p.shape) for p in start] for _ in range(6)]
    grads[2][1] = None  # a step without a grad for one parameter: skipped, as PyTorch skips it
    mine = [Parameter(p.copy()) for p in start]
    refs = [torch.tensor(p, dtype=torch.float64, requires_grad=True) for p in start]
    opt = getattr(optim, kind)(mine, **kwargs)
    ref_opt = getattr(torch.optim, kind)(refs, **kwargs)
    for step, step_grads in enumerate(grads):
        for m, r, g in zip(mine, refs, step_grads):
            m.grad = None if g is None else g.copy()
            r.grad = None if g is None else torch.tensor(g)
        opt.step()
        ref_opt.step()
        for i, (m, r) in enumerate(zip(mine, refs)):
            np.testing.assert_allclose(m.data, r.detach().numpy(), rtol=0, atol=1e-10,
                                       err_msg=f"{kind} step {step + 1}, parameter {i}")
