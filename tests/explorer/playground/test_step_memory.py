"""explorer.playground.step_memory: the memory of one training step (forward → backward → the optimiser's step) on
the step graph, against what tracemalloc measures for the engine doing the same step (within 5 %), for each
optimiser; the optimiser's first step counts the state it makes."""

import gc
import tracemalloc

import pytest

from explorer.playground import catalogue, step_graph, step_memory, training
from explorer.playground.settings import TrainConfig

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
