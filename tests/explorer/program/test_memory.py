"""explorer.program.memory: the Memory tab's data. Its timeline's peak (this engine's account) agrees with what
tracemalloc measures for the engine on every preset; the checkpointed run really goes through autograd.checkpoint
(its recomputed operations counted, equal to the account's), gives the same grads, and holds less."""

import gc
import tracemalloc

import numpy as np
import pytest

import autograd
from autograd.graph import order
from explorer.program import memory, tape
from explorer.program.presets import PRESETS
from language import compile_program

NUMPY_DOMAIN = 389047  # the tracemalloc domain NumPy reports its array data in (NPY_TRACE_DOMAIN)
CHAIN = "x = randn(2000)\nw = randn(2000)\nh0 = exp(x * 0.1)\n" + "".join(
    f"h{k} = tanh(h{k - 1} * w)\n" for k in range(1, 12)) + "y = h11.sum()"


def numpy_bytes():
    snapshot = tracemalloc.take_snapshot().filter_traces([tracemalloc.DomainFilter(True, NUMPY_DOMAIN)])
    return sum(stat.size for stat in snapshot.statistics("filename"))


def measured(run):
    """NumPy's bytes after `run()`'s forward and after its backward (`run` returns the output)."""
    run().backward()  # once before measuring: first calls import and cache things
    gc.collect()
    tracemalloc.start()
    try:
        before = numpy_bytes()
        output = run()
        forward = numpy_bytes() - before
        output.backward()
        backward = numpy_bytes() - before
    finally:
        tracemalloc.stop()
    return forward, backward


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_timeline_s_peak_agrees_with_tracemalloc(name):
    text = PRESETS[name][1]
    shown = memory.program_memory(text)
    program = compile_program(text)
    forward, backward = measured(lambda: program.run().output)
    engine = next(line for line in shown.lines if line.name == "engine")
    assert engine.peak == pytest.approx(backward, rel=0.05), (name, engine.peak, backward)
    assert engine.bytes[shown.backward_from - 1] == pytest.approx(forward, rel=0.05), name
    assert shown.peak("no_grad") <= shown.peak("tape") <= shown.peak("engine")


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_checkpointed_run_is_real_counted_and_lower(name):
    shown = memory.program_memory(PRESETS[name][1], every=2)
    assert shown.grads_agree, name
    assert shown.blocks >= 1 and shown.recomputed >= 2, (name, shown.blocks, shown.recomputed)
    assert shown.peak("checkpointed") < shown.peak("engine"), name


def test_the_recomputed_count_is_the_account_s_and_k_matters():
    program = compile_program(CHAIN)
    given = {}
    plain, uses, calls, _ = memory._execute(program, given)
    plain.backward()
    tensors = order(plain, uses)
    ids = {t: i for i, t in enumerate(tensors)}
    for every in (1, 2, 4, 6):
        plan = memory._plan(program, calls, every)
        blocks = {ids[t]: b for b, block in enumerate(plan) for k in block for t in calls.get(k, ()) if t.requires_grad}
        shown = memory.program_memory(CHAIN, every=every)
        account = tape.timeline(plain, uses, "tape", blocks=blocks)
        assert shown.recomputed == account.recomputed > 0, every
        assert shown.grads_agree
        assert min(len([t for t in calls.get(k, ()) if t.op]) for block in plan for k in block) >= 1
    few, many = memory.program_memory(CHAIN, every=6), memory.program_memory(CHAIN, every=1)
    assert few.peak("checkpointed") < few.peak("tape"), "a long chain: checkpoints keep less than the tape"
    assert few.blocks < many.blocks


def test_the_checkpointed_run_holds_less_after_forward_by_tracemalloc():
    """The real autograd.checkpoint run of the chain, measured: less than the plain run after forward."""
    program = compile_program(CHAIN)
    _, _, calls, _ = memory._execute(program, {})
    plan = memory._plan(program, calls, 6)
    plain_forward, _ = measured(lambda: memory._execute(program, {})[0])
    checked_forward, _ = measured(lambda: memory._execute(program, {}, plan, [0])[0])
    assert checked_forward < plain_forward / 2, (checked_forward, plain_forward)


def test_random_draws_and_leaves_stay_outside_blocks():
    program = compile_program(CHAIN)
    _, _, calls, _ = memory._execute(program, {})
    inside = {k for block in memory._plan(program, calls, 1) for k in block}
    for k, ins in enumerate(program.instructions):
        if type(ins).__name__ == "Leaf" or any(getattr(a, "index", None) == 0 for a in getattr(ins, "args", ())):
            assert k not in inside


def test_alive_spans_and_saves_follow_the_tape():
    shown = memory.program_memory(PRESETS["micrograd"][1])
    steps = len(shown.labels)
    assert all(0 <= a < b <= steps for a, b in shown.alive.values())
    first = [k for k, (a, b) in shown.alive.items() if a <= 0 < b]
    assert first == ["0"]
    assert set(shown.saves) == {str(r.node) for r in shown.rows}
    assert {r.op for r in shown.rows if r.saves == "nothing"} >= {"add"}
    with pytest.raises(ValueError):
        memory.program_memory(PRESETS["micrograd"][1], every=0)
    assert autograd.checkpoint  # the engine's, not a copy
    assert np.isfinite(shown.peak("engine"))


def test_a_program_of_literals_only_has_its_forward_s_memory_and_no_backward():
    """Nothing requires grad (the sweep's generated program, seed 5020: program_memory called backward() and raised
    RuntimeError): the forward's bytes, nothing saved, every account the same."""
    shown = memory.program_memory("t0 = maximum(0.5, 0.5)\nout = t0.sum()")
    assert {line.name: line.peak for line in shown.lines} == dict.fromkeys(("engine", "tape", "no_grad",
                                                                             "checkpointed"), 8)
    assert shown.saves == {} and shown.grads_agree


@pytest.mark.parametrize("every", [1, 2, 3])
def test_a_checkpointed_block_never_ends_at_a_list_literal(every):
    """stack([W, W]) reads a list its own instruction builds (the sweep's generated program, seed 6251: at k = 1 and 2
    a block ended there and autograd.checkpoint refused the list): blocks end at a Tensor, the grads the same."""
    shown = memory.program_memory("W = randn(4, 2)\nt0 = W.log()\nt2 = stack([W, W], axis=0)\nout = W.var(axis=-1)",
                                  (), every)
    assert shown.grads_agree and shown.peak("checkpointed") <= shown.peak("engine")
