"""explorer.program.tape: what each node's backward keeps, and the bytes held over forward → backward.

The engine's account agrees with what tracemalloc measures for the engine on every preset (NumPy's own
allocations, its tracemalloc domain); the tape's account (what backward needs) is enough: the engine's backward,
run with every array the tape has freed by then poisoned, gives the same gradients; and with checkpoints the
bytes left after forward are those autograd.checkpoint really leaves.
"""

import gc
import tracemalloc

import numpy as np
import pytest

import autograd
from autograd import Tensor
from autograd.graph import order
from autograd.tensor import run_backward
from explorer.program.presets import PRESETS
from explorer.program.tape import peaks, saved, timeline
from language import compile_program

NUMPY_DOMAIN = 389047  # the tracemalloc domain NumPy reports its array data in (numpy/_core/include: NPY_TRACE_DOMAIN)


def numpy_bytes():
    snapshot = tracemalloc.take_snapshot().filter_traces([tracemalloc.DomainFilter(True, NUMPY_DOMAIN)])
    return sum(stat.size for stat in snapshot.statistics("filename"))


def run(text):
    result = compile_program(text).run()
    result.output.backward()
    return result


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_engine_account_agrees_with_tracemalloc(name):
    program = compile_program(PRESETS[name][1])
    program.run().output.backward()  # once before measuring: first calls import and cache things
    gc.collect()
    tracemalloc.start()
    try:
        before = numpy_bytes()
        result = program.run()
        after_forward = numpy_bytes() - before
        result.output.backward()
        after_backward = numpy_bytes() - before
    finally:
        tracemalloc.stop()
    line = timeline(result.output, result.uses, "engine")
    assert line.bytes[line.backward_from - 1] == pytest.approx(after_forward, rel=0.05), name
    assert line.peak == pytest.approx(after_backward, rel=0.05), (name, line.peak, after_backward)


@pytest.mark.parametrize("name", list(PRESETS))
def test_what_the_tape_keeps_is_enough_for_backward(name):
    """Backward with every array the tape account has freed replaced by NaN, at the step it frees it: the same
    gradients. (And the accounts order as they must: inference <= the tape <= this engine.)"""
    text = PRESETS[name][1]
    plain = run(text)
    want = [t.grad.copy() for t in plain.inputs.values()]
    result = compile_program(text).run()
    tensors = order(result.output, result.uses)
    line = timeline(result.output, result.uses, "tape")

    def poison(ids):
        for i in ids:
            tensors[i].data = np.full(tensors[i].shape, np.nan, dtype=tensors[i].dtype)

    for ids in line.freed[:line.backward_from]:
        poison(ids)
    steps = iter(line.freed[line.backward_from:])
    run_backward(result.output, observer=lambda *_: poison(next(steps)))
    for got, expected in zip((t.grad for t in result.inputs.values()), want):
        np.testing.assert_allclose(got, expected, rtol=1e-13, atol=0, err_msg=name)
    assert sum(map(len, line.freed)) > 0 or name in ("seed example", "relu at its kink")
    account = peaks(plain.output, plain.uses)
    assert account["no_grad"] <= account["tape"] <= account["engine"], account


def test_saved_sets_and_bytes():
    x = Tensor(np.ones((10, 10)), requires_grad=True)
    w = Tensor(np.ones((10, 10)), requires_grad=True)
    y = ((x * w).exp() + x).sum()
    found = {s.op: s for s in saved(y)}
    assert found["mul"].names == ("A", "B") and found["mul"].bytes == 2 * 800
    assert found["exp"].names == ("out",) and found["exp"].bytes == 800
    assert found["add"].bytes == 0 and found["sum"].bytes == 0
    z = autograd.F.cross_entropy(x, np.arange(10))
    (entry,) = [s for s in saved(z)]
    assert entry.names == () and entry.extra_bytes >= 800  # its probabilities, kept in the op's metadata


def chain_of(x, w, depth):
    h = x
    for k in range(depth):
        h = (h * w).tanh() if k % 2 else h.exp()
    return h


N, DEPTH, EVERY = 5_000, 24, 6


def test_the_checkpointed_account_matches_autograd_checkpoint_after_forward():
    """The bytes left after forward with checkpoints every k op nodes are what autograd.checkpoint over each
    block of k really leaves; the peak falls, and each op of the chain runs once more in backward."""
    rng = np.random.default_rng(5)
    data = rng.standard_normal(N) * 0.1, rng.standard_normal(N) * 0.1
    x, w = (Tensor(d.copy(), requires_grad=True) for d in data)
    plain = chain_of(x, w, DEPTH)
    plain.sum().backward()
    account = timeline(plain, mode="tape", every=EVERY + EVERY // 2)  # an odd step is two op nodes: h * w, tanh
    whole = timeline(plain, mode="tape")
    gc.collect()
    tracemalloc.start()
    try:
        before = numpy_bytes()
        x2, w2 = (Tensor(d.copy(), requires_grad=True) for d in data)
        h = x2
        for _ in range(0, DEPTH, EVERY):
            h = autograd.checkpoint(lambda a: chain_of(a, w2, EVERY), h)
        held = numpy_bytes() - before
    finally:
        tracemalloc.stop()
    # the sum the backward starts from is not part of the chain: the account's forward ends at the chain's output
    assert account.bytes[account.backward_from - 1] == pytest.approx(held, rel=0.05), (account.bytes, held)
    assert account.peak < whole.peak / 2
    assert account.recomputed == len([t for t in order(plain) if t.op])
    h.sum().backward()
    np.testing.assert_allclose(x2.grad, x.grad, rtol=1e-12)


def test_the_engine_account_agrees_with_tracemalloc_on_a_playground_step():
    """The Playground's step (an MLP 2-16-16-1 with ReLU on 200 points, MSE): forward and backward; the weights and
    data are there before, so they are left out of both figures."""
    from autograd.nn import Linear, ReLU, Sequential, mse_loss

    rng = np.random.default_rng(8)
    model = Sequential(Linear(2, 16), ReLU(), Linear(16, 16), ReLU(), Linear(16, 1))
    x, y = Tensor(rng.standard_normal((200, 2))), Tensor(rng.standard_normal((200, 1)))
    mse_loss(model(x), y).backward()  # once before measuring
    for p in model.parameters():
        p.grad = None
    gc.collect()
    tracemalloc.start()
    try:
        before = numpy_bytes()
        loss = mse_loss(model(x), y)
        loss.backward()
        measured = numpy_bytes() - before
    finally:
        tracemalloc.stop()
    line = timeline(loss, mode="engine")
    leaves = sum(t.data.nbytes for t in order(loss) if t.is_leaf)
    assert line.peak - leaves == pytest.approx(measured, rel=0.05), (line.peak - leaves, measured)
    tape, inference = timeline(loss, mode="tape").peak, timeline(loss, mode="no_grad").peak
    assert inference < tape < line.peak


def test_the_inference_account_matches_a_chain_run_in_no_grad():
    """Under no_grad a tensor goes as soon as nothing reads it: run the chain with each step rebinding `h`, and the
    bytes NumPy holds after each op are the account's (the leaves, there before, left out of both)."""
    rng = np.random.default_rng(6)
    x, w = (Tensor(rng.standard_normal(N) * 0.1, requires_grad=True) for _ in range(2))
    output = chain_of(x, w, DEPTH)
    line = timeline(output, mode="no_grad")
    leaves = [t.data.nbytes if t.is_leaf else 0 for t in order(output)]
    account = [held - sum(leaves[: k + 1]) for k, held in enumerate(line.bytes) if not leaves[k]]
    del output
    after = []
    gc.collect()
    tracemalloc.start()
    try:
        before = numpy_bytes()
        with autograd.no_grad():
            h = x
            for k in range(DEPTH):
                if k % 2:
                    h = h * w
                    after.append(numpy_bytes() - before)
                    h = h.tanh()
                else:
                    h = h.exp()
                after.append(numpy_bytes() - before)
    finally:
        tracemalloc.stop()
    assert len(account) == len(after)
    for mine, measured in zip(account, after):
        assert mine == pytest.approx(measured, rel=0.05), (account, after)
