"""autograd.func against torch.func in float64, on every primitive's PyTorch cases (tests/support/torch_cases.py):
jvp, vjp, jacfwd and jacrev agree to 1e-10 relative.

PyTorch is an optional oracle (torch==2.13.0, CPU): without it these tests skip. It is never a
requirement: `pip install torch==2.13.0` to run them.
"""

import numpy as np
import pytest

from autograd import Tensor
from autograd.func import jacfwd, jacrev, jvp, vjp

torch = pytest.importorskip("torch")
tfunc = pytest.importorskip("torch.func")

from tests.support.torch_cases import TABLE  # noqa: E402  (after the skip: the module needs torch)

IDS = [f"{row[0]}-{row[1]}" for row in TABLE]
RNG = np.random.default_rng(19)


def close(ours, theirs, what):
    np.testing.assert_allclose(ours.data, theirs.detach().numpy(), rtol=1e-10, atol=1e-12, equal_nan=True,
                               err_msg=what)


@pytest.mark.parametrize(("name", "label", "arrays", "ours", "theirs"), TABLE, ids=IDS)
def test_jacobians_match_torch_func(name, label, arrays, ours, theirs):
    nums = tuple(range(len(arrays)))
    mine = [Tensor(a.copy()) for a in arrays]
    refs = [torch.tensor(a, dtype=torch.float64) for a in arrays]
    expected = tfunc.jacrev(theirs, argnums=nums)(*refs)
    for mode, jac in (("jacfwd", jacfwd), ("jacrev", jacrev)):
        got = jac(ours, argnums=nums)(*mine)
        for k, (j, e) in enumerate(zip(got, expected)):
            assert j.shape == tuple(e.shape), f"{label}: {mode} input {k}"
            close(j, e, f"{name} [{label}] {mode}, input {k}")
    forward = tfunc.jacfwd(theirs, argnums=nums)(*refs)
    for k, (j, e) in enumerate(zip(jacfwd(ours, argnums=nums)(*mine), forward)):
        close(j, e, f"{name} [{label}] jacfwd against torch.func.jacfwd, input {k}")


@pytest.mark.parametrize(("name", "label", "arrays", "ours", "theirs"), TABLE, ids=IDS)
def test_jvp_and_vjp_match_torch_func(name, label, arrays, ours, theirs):
    mine = tuple(Tensor(a.copy()) for a in arrays)
    refs = tuple(torch.tensor(a, dtype=torch.float64) for a in arrays)
    vs = [RNG.standard_normal(a.shape) for a in arrays]
    out, tangent = jvp(ours, mine, tuple(vs))
    their_out, their_tangent = tfunc.jvp(theirs, refs, tuple(torch.tensor(v) for v in vs))
    close(out, their_out, f"{name} [{label}] jvp value")
    close(tangent, their_tangent, f"{name} [{label}] jvp tangent")
    out, vjp_fn = vjp(ours, *mine)
    their_out, their_vjp = tfunc.vjp(theirs, *refs)
    u = RNG.standard_normal(out.shape)
    for k, (g, e) in enumerate(zip(vjp_fn(u), their_vjp(torch.tensor(u)))):
        close(g, e, f"{name} [{label}] vjp, input {k}")
