"""autograd.checkpoint: the block's intermediates are really gone after the forward pass (weak references die,
tracemalloc sees the memory given back), come back only while backward runs the block again, and the gradients
are those of the plain graph. Hook handles: removal, and hooks on a tensor that needs no grad refused."""

import gc
import tracemalloc
import weakref

import numpy as np
import pytest

import autograd
from autograd import Tensor, no_grad

RNG = np.random.default_rng(3)
N = 20_000  # elements per array: 160 kB each, far above anything else the test allocates
DEPTH = 24


def chain(x, w, made=None):
    h = x
    for k in range(DEPTH):
        h = (h * w).tanh() if k % 2 else (h + w).exp() * 0.5
        if made is not None:
            made.append(weakref.ref(h))
    return h


def leaves():
    return (Tensor(RNG.standard_normal(N) * 0.1, requires_grad=True),
            Tensor(RNG.standard_normal(N) * 0.1, requires_grad=True))


def test_the_intermediates_die_after_the_forward_pass_and_come_back_in_backward():
    x, w = leaves()
    made, calls = [], []

    def block(a):
        calls.append(len(made))
        return chain(a, w, made)

    y = autograd.checkpoint(block, x)
    assert len(made) == DEPTH and calls == [0]
    gc.collect()
    assert all(ref() is None for ref in made[:-1]), "an intermediate of the block is still alive after forward"
    assert y.parents == (x, w) and y.op == "checkpoint"
    y.sum().backward()
    assert len(calls) == 2, "backward did not run the block again"
    gc.collect()
    assert all(ref() is None for ref in made), "the recomputed intermediates outlive backward"


def test_checkpointed_grads_equal_the_plain_graph():
    x, w = leaves()
    (chain(x, w).exp() * 2).sum().backward()
    plain = x.grad.copy(), w.grad.copy()
    x.grad = w.grad = None
    (autograd.checkpoint(chain, x, w).exp() * 2).sum().backward()
    np.testing.assert_allclose(x.grad, plain[0], rtol=1e-13)
    np.testing.assert_allclose(w.grad, plain[1], rtol=1e-13)


def held_after_forward(forward):
    """Bytes of NumPy data alive after `forward()` returns (what it made, minus what was there before)."""
    x, w = leaves()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        y = forward(x, w)
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert y.requires_grad
    return held


def test_a_checkpointed_chain_keeps_under_a_quarter_of_the_memory():
    plain = held_after_forward(chain)
    checkpointed = held_after_forward(lambda x, w: autograd.checkpoint(chain, x, w))
    array = N * 8
    assert plain >= DEPTH * array  # every intermediate kept by the graph
    assert checkpointed < plain / 4, (checkpointed, plain)
    assert checkpointed < 3 * array  # the output, and little else


def test_checkpoint_in_segments_matches_and_backward_in_no_grad_still_recomputes():
    x, w = leaves()
    (chain(chain(x, w), w)).sum().backward()
    plain = x.grad.copy()
    x.grad = w.grad = None
    y = autograd.checkpoint(chain, autograd.checkpoint(chain, x, w), w).sum()
    with no_grad():
        y.backward()
    np.testing.assert_allclose(x.grad, plain, rtol=1e-13)


def test_checkpoint_outside_grad_is_just_the_call():
    x, w = leaves()
    with no_grad():
        y = autograd.checkpoint(chain, x, w)
    assert not y.requires_grad and y.op == ""
    with pytest.raises(TypeError):
        autograd.checkpoint(lambda a: 3.0, x)


def test_hook_handles():
    x = Tensor([1.0, 2.0], requires_grad=True)
    first = x.register_hook(lambda g: g * 2)
    second = x.register_hook(lambda g: g + 1)
    (x * 3).sum().backward()
    np.testing.assert_array_equal(x.grad, [7.0, 7.0])  # (3 * 2) + 1, in the order registered
    first.remove()
    first.remove()  # again: harmless
    x.grad = None
    (x * 3).sum().backward()
    np.testing.assert_array_equal(x.grad, [4.0, 4.0])
    second.remove()
    x.grad = None
    (x * 3).sum().backward()
    np.testing.assert_array_equal(x.grad, [3.0, 3.0])
    with pytest.raises(RuntimeError):
        Tensor([1.0]).register_hook(print)
    with pytest.raises(RuntimeError, match="shape"):
        x.register_hook(lambda g: np.zeros(3))
        (x * 3).sum().backward()


def test_a_hook_does_not_keep_its_tensor_alive():
    from autograd.tensor import _hooks

    x = Tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: None)
    key = id(x)
    assert key in _hooks
    ref = weakref.ref(x)
    del x
    gc.collect()
    assert ref() is None and key not in _hooks
