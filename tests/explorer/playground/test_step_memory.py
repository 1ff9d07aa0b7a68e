"""explorer.playground.step_memory: the memory of one training step (forward → backward → the optimiser's step) on
the step graph, against what tracemalloc measures for the engine doing the same step (within 5 %), for each
optimiser; the optimiser's first step counts the state it makes. The checkpointed line is a real run, its layers
in blocks of k through autograd.checkpoint: its recomputed operations counted and the tape's, the same grads, a
lower peak, and less held after forward by tracemalloc."""

import gc
import tracemalloc

import numpy as np
import pytest

from autograd.graph import order
from explorer.playground import catalogue, step_graph, step_memory, training
from explorer.playground.settings import TrainConfig
from explorer.program import tape

NUMPY_DOMAIN = 389047  # the tracemalloc domain NumPy reports its array data in (NPY_TRACE_DOMAIN)


def numpy_bytes():
    snapshot = tracemalloc.take_snapshot().filter_traces([tracemalloc.DomainFilter(True, NUMPY_DOMAIN)])
    return sum(stat.size for stat in snapshot.statistics("filename"))


def measured_step(state):
    """NumPy's bytes after the step's forward, backward, optimiser step and letting the graph go, less the
    optimiser's own buffers (its flat grad and the state it was given: kept between steps, not counted)."""
    step_memory.step_memory(state)  # once before measuring
    gc.collect()
    tracemalloc.start()
    try:
        before = numpy_bytes()
        loss, uses, params = step_graph.step_loss(state)
        forward = numpy_bytes() - before
        optimiser = catalogue.OPTIMIZERS[state.config.optimizer](params, state.optimizer.lr,
                                                                  state.optimizer.weight_decay)
        optimiser.load_state_dict(state.optimizer.state_dict())
        own = sum(g.grad.nbytes for g in optimiser._groups) + step_memory._state_bytes(optimiser)
        loss.backward()
        backward = numpy_bytes() - before - own
        optimiser.step()
        stepped = numpy_bytes() - before - own
        del loss, uses
        gc.collect()
        let_go = numpy_bytes() - before - own
    finally:
        tracemalloc.stop()
    return forward, backward, stepped, let_go


@pytest.mark.parametrize("optimizer", ["SGD", "momentum", "Adam", "AdamW"])
@pytest.mark.parametrize("warm", [False, True])
def test_the_step_s_timeline_agrees_with_tracemalloc(optimizer, warm):
    state = training.new_state(TrainConfig(optimizer=optimizer))
    if warm:
        training.step(state, 3)  # the run's optimiser has its state: the step makes none
    shown = step_memory.step_memory(state)
    engine = next(line for line in shown.lines if line.name == "engine")
    forward, backward, stepped, let_go = measured_step(state)
    assert shown.labels[-2].startswith("optimiser: ") and shown.labels[-1].startswith("after the step")
    assert engine.bytes[shown.backward_from - 1] == pytest.approx(forward, rel=0.05)
    assert engine.bytes[-3] == pytest.approx(backward, rel=0.05)
    assert engine.bytes[-2] == pytest.approx(stepped, rel=0.05), (engine.bytes[-3:], backward, stepped)
    assert engine.bytes[-1] == pytest.approx(let_go, rel=0.05)
    assert engine.peak == pytest.approx(max(forward, backward, stepped), rel=0.05)
    made = engine.bytes[-2] - engine.bytes[-3]
    assert (made > 0) == (not warm and optimizer != "SGD"), "momentum and Adam's state, made by the first step"
    assert shown.peak("no_grad") < shown.peak("tape") < shown.peak("engine")
    assert shown.peak("checkpointed") < shown.peak("engine")


# ----------------------------------------------------------------------------- checkpoints every k layers, for real

NETWORKS = {
    "default": TrainConfig(),
    "relu, three hidden": TrainConfig(hidden=(8, 6, 4), activation="relu", optimizer="Adam"),
    "no hidden layer": TrainConfig(hidden=()),
    "three classes (cross_entropy)": TrainConfig(dataset="three blobs", optimizer="momentum"),
    "regression (linear activation)": TrainConfig(dataset="sine", activation="linear", hidden=(4, 4, 4, 4)),
}


def op_count(layer_ops, blocks):
    return sum(layer_ops[k] for block in blocks for k in block)


@pytest.mark.parametrize("name", list(NETWORKS))
def test_the_real_run_s_recomputed_operations_are_the_tape_s(name):
    state = training.new_state(NETWORKS[name])
    n = step_memory.layers(state)
    for every in range(1, n + 2):
        shown = step_memory.step_memory(state, every)
        blocks = step_memory.plan(state, every)
        loss, uses, _, made = step_memory.forward(state)
        loss.backward()
        account = tape.timeline(loss, uses, "tape", blocks=step_memory.node_blocks(loss, uses, made, blocks))
        assert shown.recomputed == account.recomputed == op_count([len(m) for m in made], blocks), (name, every)
        assert shown.blocks == len(blocks) == n // every, "blocks of k layers; the rest run plainly"
        assert all(len(block) == every for block in blocks)
        assert (shown.recomputed > 0) == (every <= n)
        assert shown.grads_agree, (name, every)
    with pytest.raises(ValueError):
        step_memory.step_memory(state, 0)


def test_the_checkpointed_step_s_grads_and_weights_are_the_plain_step_s():
    for config in (TrainConfig(), TrainConfig(hidden=(8, 6, 4), activation="relu", optimizer="Adam")):
        state = training.new_state(config)
        training.step(state, 2)
        for every in (1, 2, 3):
            loss, _, params, _ = step_memory.forward(state)
            checked, _, again, _ = step_memory.forward(state, step_memory.plan(state, every), [0])
            assert "checkpoint" in {t.op for t in order(checked)} and "checkpoint" not in {t.op for t in order(loss)}
            loss.backward()
            checked.backward()
            assert checked.data == pytest.approx(loss.data, abs=1e-12)
            for a, b in zip(params, again):
                np.testing.assert_allclose(b.grad, a.grad, rtol=0, atol=1e-12)


def test_checkpoints_lower_the_default_step_s_peak_and_k_moves_it():
    state = training.new_state(TrainConfig())
    shown = step_memory.step_memory(state)
    assert shown.every == step_memory.DEFAULT_EVERY == 1 and shown.blocks == 3
    assert shown.peak("checkpointed") < shown.peak("tape"), [line.peak for line in shown.lines]
    label = next(line.label for line in shown.lines if line.name == "checkpointed")
    assert label.startswith("checkpointed every layer (")
    assert step_memory.step_memory(state, 2).lines[-1].label.startswith("checkpointed every 2 layers (")
    runs = {every: step_memory.step_memory(state, every) for every in (1, 2, 3, 4)}
    assert len({run.peak("checkpointed") for run in runs.values()}) > 1
    assert runs[4].peak("checkpointed") == shown.peak("tape"), "k past the network's 3 layers: no block"

    def after_forward(run, name):
        return next(line for line in run.lines if line.name == name).bytes[run.backward_from - 1]

    assert after_forward(runs[3], "checkpointed") < after_forward(runs[3], "tape") - 400, "one block: its inside goes"
    assert after_forward(runs[1], "checkpointed") == after_forward(runs[1], "tape"), "a layer keeps its output"


def test_the_real_checkpointed_forward_holds_less_by_tracemalloc():
    """The checkpointed step's forward, measured: what its graph holds by the engine's account (within 5 %), less
    than the plain step's forward, and, with one block, the checkpointed line's figure."""
    state = training.new_state(TrainConfig(hidden=(32, 32, 32)))
    blocks = step_memory.plan(state, 4)

    def measure(run):
        run()
        gc.collect()
        tracemalloc.start()
        try:
            before = numpy_bytes()
            loss = run()[0]
            held = numpy_bytes() - before
        finally:
            tracemalloc.stop()
        return loss, held

    plain, plain_bytes = measure(lambda: step_memory.forward(state))
    checked, checked_bytes = measure(lambda: step_memory.forward(state, blocks, [0]))
    engine = tape.timeline(checked, None, "engine")
    assert engine.bytes[engine.backward_from - 1] == pytest.approx(checked_bytes, rel=0.05)
    assert checked_bytes < plain_bytes * 0.75, (checked_bytes, plain_bytes)
    # one block of all 4 layers: nothing outside it for the tape to free, so the checkpointed line's figure after
    # forward is what the real run holds
    shown = step_memory.step_memory(state, 4)
    line = next(line for line in shown.lines if line.name == "checkpointed")
    assert shown.blocks == 1 and line.bytes[shown.backward_from - 1] == pytest.approx(checked_bytes, rel=0.05)
