"""The transformer's parts against PyTorch in float64: values and grads (of inputs and of every parameter) to
1e-9 on each case of tests/support/nn_cases.py, masks included; state dicts both ways; train()/eval();
clip_grad_norm_.

PyTorch is an optional oracle (torch==2.13.0, CPU): without it these tests skip. It is never a
requirement: `pip install torch==2.13.0` to run them. tests/engine/test_nn_transformer.py is the twin that
checks the same cases against central differences without it.
"""

import numpy as np
import pytest

from autograd import Parameter, Tensor, nn
from tests.support.nn_cases import CASES, IDS, OURS, fill, outputs, torch_lib

torch = pytest.importorskip("torch")
THEIRS = torch_lib(torch)


def close(ours, theirs, what):
    np.testing.assert_allclose(ours, theirs.detach().numpy(), rtol=1e-9, atol=1e-12, err_msg=what)


def torch_twin(ours, theirs):
    """PyTorch's module in float64 holding our module's parameter values."""
    theirs = theirs.double()
    theirs.load_state_dict({name: torch.tensor(value) for name, value in ours.state_dict().items()})
    return theirs


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_values_and_grads_match_pytorch(case):
    ours = theirs = None
    if case.build is not None:
        ours = case.build(OURS)
        fill(ours)
        theirs = case.build(THEIRS)
        assert set(ours.state_dict()) == set(theirs.state_dict()), f"{case.label}: state_dict keys"
        theirs = torch_twin(ours, theirs)
        if case.eval:
            ours.eval()
            theirs.eval()
    mine = [Tensor(a.copy(), requires_grad=True) for a in case.inputs]
    refs = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in case.inputs]
    got = outputs(case.run(OURS, ours, *mine))
    expected = outputs(case.run(THEIRS, theirs, *refs))
    assert len(got) == len(expected), case.label
    rng = np.random.default_rng(1)
    loss_ours, loss_theirs = 0.0, 0.0
    for k, (o, e) in enumerate(zip(got, expected)):
        assert o.shape == tuple(e.shape), f"{case.label}: output {k} shape"
        close(o.data, e, f"{case.label}: output {k}")
        cot = rng.standard_normal(o.shape)
        loss_ours = loss_ours + (o * cot).sum()
        loss_theirs = loss_theirs + (e * torch.tensor(cot)).sum()
    loss_ours.backward()
    loss_theirs.backward()
    for k, (m, r) in enumerate(zip(mine, refs)):
        close(m.grad, r.grad, f"{case.label}: grad of input {k}")
    if ours is not None:
        params = dict(ours.named_parameters())
        for name, p in theirs.named_parameters():
            close(params[name].grad, p.grad, f"{case.label}: grad of {name}")


@pytest.mark.parametrize("build", [
    lambda lib: lib.nn.MultiheadAttention(4, 2, batch_first=True),
    lambda lib: lib.nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, norm_first=True),
    lambda lib: lib.nn.LayerNorm((2, 4)),
    lambda lib: lib.nn.RMSNorm(4),
], ids=["MultiheadAttention", "TransformerEncoderLayer", "LayerNorm", "RMSNorm"])
def test_a_torch_state_dict_loads_and_gives_torchs_numbers(build):
    torch.manual_seed(0)
    theirs = build(THEIRS).double().eval()
    ours = build(OURS).eval()
    ours.load_state_dict(theirs.state_dict())  # torch's own tensors, torch's own initialisation
    x = np.random.default_rng(2).standard_normal((2, 3, 4) if not isinstance(ours, nn.LayerNorm) else (3, 2, 4))
    got = outputs(ours(*([Tensor(x)] * (3 if isinstance(ours, nn.MultiheadAttention) else 1))))
    with torch.no_grad():
        t = torch.tensor(x)
        expected = outputs(theirs(*([t] * (3 if isinstance(ours, nn.MultiheadAttention) else 1))))
    for o, e in zip(got, expected):
        close(o.data, e, type(ours).__name__)
    for name, value in ours.state_dict().items():
        close(value, theirs.state_dict()[name], name)


def test_our_initialisation_follows_pytorchs_rules():
    ours = nn.MultiheadAttention(8, 2, generator=0)
    theirs = torch.nn.MultiheadAttention(8, 2)
    for name, p in theirs.state_dict().items():
        assert ours.state_dict()[name].shape == tuple(p.shape), name
    assert not ours.in_proj_bias.data.any() and not ours.out_proj.bias.data.any()
    bound = (6 / (8 + 24)) ** 0.5  # xavier_uniform_ over the stacked (3E, E) weight, as PyTorch
    assert np.abs(ours.in_proj_weight.data).max() <= bound
    assert np.abs(theirs.in_proj_weight.detach().numpy()).max() <= bound
    norm, rms = nn.LayerNorm(3), nn.RMSNorm(3)
    tnorm, trms = torch.nn.LayerNorm(3), torch.nn.RMSNorm(3)
    for a, b in ((norm.weight, tnorm.weight), (norm.bias, tnorm.bias), (rms.weight, trms.weight)):
        np.testing.assert_array_equal(a.data, b.detach().numpy())
    assert rms.eps is trms.eps is None


def test_dropout_in_train_mode_keeps_pytorchs_contract():
    # The masks differ (two generators), so compare what both promise: each element is 0 or x / (1 - p),
    # about p of them are 0, and the grad is the same mask times 1 / (1 - p).
    x = np.random.default_rng(3).uniform(1, 2, 20_000)
    for lib, module in ((OURS, nn.Dropout(0.25, generator=4)), (THEIRS, torch.nn.Dropout(0.25))):
        t = Tensor(x, requires_grad=True) if lib is OURS else torch.tensor(x, requires_grad=True)
        out = module(t)
        out.sum().backward()
        values = out.data if lib is OURS else out.detach().numpy()
        grad = t.grad if lib is OURS else t.grad.numpy()
        kept = values != 0
        np.testing.assert_allclose(values[kept], x[kept] / 0.75, rtol=1e-15)
        np.testing.assert_allclose(grad, kept / 0.75, rtol=1e-15)
        assert abs(1 - kept.mean() - 0.25) < 0.015, lib.name
        module.eval()
        assert np.array_equal((module(t).data if lib is OURS else module(t).detach().numpy()), x)


@pytest.mark.parametrize(("max_norm", "norm_type"), [(1.0, 2.0), (100.0, 2.0), (0.5, 1.0), (0.3, float("inf"))])
def test_clip_grad_norm_matches_pytorch(max_norm, norm_type):
    rng = np.random.default_rng(5)
    grads = [rng.standard_normal((3, 4)), rng.standard_normal(4), rng.standard_normal((2, 2, 2))]
    ours = [Parameter(np.zeros(g.shape)) for g in grads]
    theirs = [torch.zeros(g.shape, dtype=torch.float64, requires_grad=True) for g in grads]
    for p, t, g in zip(ours, theirs, grads):
        p.grad = g.copy()
        t.grad = torch.tensor(g)
    unused = Parameter(np.zeros(2))  # no grad: skipped, as in PyTorch
    total = nn.utils.clip_grad_norm_([*ours, unused], max_norm, norm_type=norm_type)
    expected = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type=norm_type)
    assert isinstance(total, Tensor) and total.shape == ()
    close(total.data, expected, "total norm")
    for p, t in zip(ours, theirs):
        close(p.grad, t.grad, "clipped grad")
    assert unused.grad is None
