"""The memory of one training step (the Playground's step-graph panel), as plain data: the step graph's forward →
backward, then the optimiser's step, with explorer/program/memory.py's accounts (no Streamlit).

The step is step_graph's (its few fixed points, copies of the weights); the optimiser is a fresh one of the run's
kind and settings given the run's optimiser state, so it updates the copies as the run's would. The bytes are
those of the step's graph and what the step makes (the weights and data, there before, included as the graph
holds them; the optimiser's buffers kept from step to step are not, but state it makes for the first time is).
After the step the graph is let go, the batch's data with it: what stays is the weights and their grads (until
the next step's zero_grad).
"""

from __future__ import annotations

import numpy as np

from explorer.playground import catalogue, step_graph, training
from explorer.program import memory
from explorer.program.tape import _buffer

OPTIMISER_STEP = "optimiser: {name} updates the weights"
LET_GO = "after the step: the graph let go (the weights' grads stay until zero_grad)"


def _state_bytes(optimiser) -> int:
    return sum(buf.nbytes for group in optimiser._groups for buf in group.buffers.values())


def _weight_bytes(params) -> int:
    """The bytes the weights hold, each buffer once (the optimiser keeps them as views of one)."""
    return sum(dict(_buffer(p.data) for p in params).values())


def step_memory(state: training.TrainState, every: int = memory.DEFAULT_EVERY) -> memory.Memory:
    """Memory of one step of the run (forward, backward, the optimiser's step) on the step graph's points."""
    loss, uses, params = step_graph.step_loss(state)
    config = state.config
    optimiser = catalogue.OPTIMIZERS[config.optimizer](params, state.optimizer.lr, state.optimizer.weight_decay)
    optimiser.load_state_dict(state.optimizer.state_dict())
    with training.one_blas_thread(), np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        loss.backward()
        before = _state_bytes(optimiser)
        optimiser.step()
    made = _state_bytes(optimiser) - before
    kept = _weight_bytes(params) + sum(p.grad.nbytes for p in params if p.grad is not None) + made
    after = ((OPTIMISER_STEP.format(name=config.optimizer), made, None), (LET_GO, 0, kept))
    return memory.account(loss, uses, every=every, after=after)
