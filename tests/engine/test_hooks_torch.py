"""Tensor.register_hook and autograd.checkpoint against PyTorch in float64: the same gradients reach the same
hooks, in the same order, the same number of times, and the same grads end in .grad.

PyTorch is an optional oracle (torch==2.13.0, CPU): without it these tests skip.
"""

import numpy as np
import pytest

import autograd
from autograd import Tensor

torch = pytest.importorskip("torch")
from torch.utils.checkpoint import checkpoint as torch_checkpoint  # noqa: E402  (after the skip)

RNG = np.random.default_rng(33)
X = RNG.standard_normal((3, 4))
W = RNG.standard_normal((4,))


class Ours:
    @staticmethod
    def leaf(a):
        return Tensor(a.copy(), requires_grad=True)

    @staticmethod
    def keep(t):  # engine intermediates always keep their .grad
        return t

    @staticmethod
    def array(g):
        return np.array(g, dtype=np.float64)


class Torch:
    @staticmethod
    def leaf(a):
        return torch.tensor(a, dtype=torch.float64, requires_grad=True)

    @staticmethod
    def keep(t):
        t.retain_grad()
        return t

    @staticmethod
    def array(g):
        return g.detach().numpy().copy()


def leaf_hook(lib, log):
    x = lib.leaf(X)
    x.register_hook(lambda g: log.append(("x", lib.array(g))) or g * 3)
    ((x * x).tanh() * x).sum().backward()
    return {"x": x}


def intermediate_hook(lib, log):
    x = lib.leaf(X)
    h = lib.keep(x.exp())
    h.register_hook(lambda g: log.append(("h", lib.array(g))) or g * 2 + 1)
    (h * h.tanh()).sum().backward()
    return {"x": x, "h": h}


def fan_out(lib, log):
    x = lib.leaf(X)
    h = lib.keep(x.tanh())
    h.register_hook(lambda g: log.append(("h", lib.array(g))))
    x.register_hook(lambda g: log.append(("x", lib.array(g))))
    (h * 2 + h * h + h.exp() + x).sum().backward()
    return {"x": x, "h": h}


def removal(lib, log):
    x = lib.leaf(X)
    h = lib.keep(x.sigmoid())
    handle = h.register_hook(lambda g: log.append(("removed", lib.array(g))) or g * 100)
    h.register_hook(lambda g: log.append(("kept", lib.array(g))))
    handle.remove()
    (h * h).sum().backward()
    return {"x": x, "h": h}


def two_hooks_in_order(lib, log):
    x = lib.leaf(X)
    w = lib.leaf(W)
    h = lib.keep(x * w)
    h.register_hook(lambda g: log.append(("first", lib.array(g))) or g + 1)
    h.register_hook(lambda g: log.append(("second", lib.array(g))) or g * 10)
    w.register_hook(lambda g: log.append(("w", lib.array(g))) or -g)
    (h.tanh() * h).sum().backward()
    return {"x": x, "w": w, "h": h}


def backward_twice(lib, log):
    x = lib.leaf(X)
    x.register_hook(lambda g: log.append(("x", lib.array(g))) or g * 0.5)
    y = (x * x).sum()
    y.backward(retain_graph=True) if lib is Torch else y.backward()
    y.backward()
    return {"x": x}


def observer_only(lib, log):
    x = lib.leaf(X)
    h = lib.keep(x.relu() * x)
    h.register_hook(lambda g: log.append(("h", lib.array(g))))  # returns None: nothing replaced
    h.sum().backward()
    return {"x": x, "h": h}


SCENES = [leaf_hook, intermediate_hook, fan_out, removal, two_hooks_in_order, backward_twice, observer_only]


@pytest.mark.parametrize("scene", SCENES, ids=[s.__name__ for s in SCENES])
def test_hooks_match_torch(scene):
    ours_log, torch_log = [], []
    ours, theirs = scene(Ours, ours_log), scene(Torch, torch_log)
    assert [name for name, _ in ours_log] == [name for name, _ in torch_log], scene.__name__
    for (name, mine), (_, ref) in zip(ours_log, torch_log):
        assert isinstance(mine, np.ndarray)
        np.testing.assert_allclose(mine, ref, rtol=1e-12, atol=1e-12, err_msg=f"{scene.__name__}: hook {name}")
    for name, t in ours.items():
        np.testing.assert_allclose(t.grad, Torch.array(theirs[name].grad), rtol=1e-12, atol=1e-12,
                                   err_msg=f"{scene.__name__}: {name}.grad")


def test_a_hook_gets_an_ndarray_and_fires_once_per_backward():
    calls = []
    x = Tensor(X.copy(), requires_grad=True)
    x.register_hook(lambda g: calls.append(type(g)))
    y = (x * x + x * 3).sum()
    y.backward()
    assert calls == [np.ndarray]
    y.backward()
    assert calls == [np.ndarray, np.ndarray]


def block(lib_tanh, x, w):
    h = x * w
    for _ in range(5):
        h = lib_tanh(h) * w + x
    return h


def torch_run(fn, *args):
    return torch_checkpoint(fn, *args, use_reentrant=False)


RUNS = ((Ours, autograd.checkpoint), (Torch, torch_run))


def checkpointed(lib, run, closed_over):
    x, w = lib.leaf(X), lib.leaf(W)
    if closed_over:
        y = run(lambda a: block(lambda t: t.tanh(), a, w), x * 2)
    else:
        y = run(lambda a, b: block(lambda t: t.tanh(), a, b), x * 2, w)
    (y.exp() * y).sum().backward()
    return lib.array(y), lib.array(x.grad), lib.array(w.grad)


@pytest.mark.parametrize("closed_over", [False, True], ids=["weights given", "weights closed over"])
def test_checkpoint_matches_torch(closed_over):
    results = [checkpointed(lib, run, closed_over) for lib, run in RUNS]
    for what, mine, ref in zip(("value", "x.grad", "w.grad"), *results):
        np.testing.assert_allclose(mine, ref, rtol=1e-12, atol=1e-12, err_msg=what)


def hooked_checkpoint(lib, run):
    log = []
    x, w = lib.leaf(X), lib.leaf(W)
    w.register_hook(lambda g: log.append(lib.array(g)) or g * 2)
    y = run(lambda a: (a * w).tanh() * w, x)
    y.sum().backward()
    return lib.array(x.grad), lib.array(w.grad), log


def test_checkpoint_with_a_hook_on_a_weight_it_closes_over_matches_torch():
    """The weight's hook runs once, with the complete gradient, not inside the recomputation."""
    (xg, wg, log), (txg, twg, tlog) = [hooked_checkpoint(lib, run) for lib, run in RUNS]
    np.testing.assert_allclose(xg, txg, rtol=1e-12)
    np.testing.assert_allclose(wg, twg, rtol=1e-12)
    assert len(log) == len(tlog) == 1
    np.testing.assert_allclose(log[0], tlog[0], rtol=1e-12)
