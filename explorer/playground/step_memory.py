"""The memory of one training step (the Playground's step-graph panel), as plain data: the step graph's forward →
backward, then the optimiser's step, with explorer/program/memory.py's accounts (no Streamlit).

The step is step_graph's (its few fixed points, copies of the weights); the optimiser is a fresh one of the run's
kind and settings given the run's optimiser state, so it updates the copies as the run's would. The bytes are
those of the step's graph and what the step makes (the weights and data, there before, included as the graph
holds them; the optimiser's buffers kept from step to step are not, but state it makes for the first time is).
After the step the graph is let go, the batch's data with it: what stays is the weights and their grads (until
the next step's zero_grad).

The checkpointed line is a real run: the same step again, its layers (a layer: a Linear and the activation after
it) in blocks of k, each block run as ``autograd.checkpoint(block, its input)`` (memory.plan makes the blocks, the
rule the Explorer's programs use), backpropagated, then its own optimiser's step. Its backward counts the forward
operations it runs again; the line is the tape's account of the plain step with the same blocks, whose count must
be the real run's (tests/explorer/playground/test_step_memory.py), and the two steps' grads and new weights must
agree. The loss runs outside every block, as a model's loss does under torch.utils.checkpoint.checkpoint_sequential.
"""

from __future__ import annotations

import numpy as np

from autograd.graph import order
from explorer.playground import catalogue, settings, step_graph, training
from explorer.program import memory
from explorer.program.tape import _buffer

OPTIMISER_STEP = "optimiser: {name} updates the weights"
LET_GO = "after the step: the graph let go (the weights' grads stay until zero_grad)"
CHECKPOINTED = "checkpointed {every} (each block run again in backward)"

#: Checkpoints every k layers: k from 1 to as many layers as a network can have. At first every layer: on the
#: step's 4 points the weights and their grads outweigh the activations and the peak comes in backward, where a
#: longer block brings its activations back; per layer, each block's output goes as soon as it is used.
DEFAULT_EVERY, MAX_EVERY = 1, settings.MAX_LAYERS + 1


def every_words(every: int) -> str:
    """"every layer", "every 2 layers": how the panel says k."""
    return "every layer" if every == 1 else f"every {every} layers"


def layers(state: training.TrainState) -> int:
    """The network's layers (each Linear, with its activation): the most k that makes a block."""
    return len(state.linears())


def _state_bytes(optimiser) -> int:
    return sum(buf.nbytes for group in optimiser._groups for buf in group.buffers.values())


def _weight_bytes(params) -> int:
    """The bytes the weights hold, each buffer once (the optimiser keeps them as views of one)."""
    return sum(dict(_buffer(p.data) for p in params).values())


def _optimiser(state, params):
    """A fresh optimiser of the run's kind and settings over `params`, with the run's optimiser state."""
    optimiser = catalogue.OPTIMIZERS[state.config.optimizer](params, state.optimizer.lr, state.optimizer.weight_decay)
    optimiser.load_state_dict(state.optimizer.state_dict())
    return optimiser


def plan(state: training.TrainState, every: int) -> list:
    """The checkpointed blocks of layer indices: memory.plan over the layers, each weighing 1, each read by the next
    (the last by the loss)."""
    n = layers(state)
    return memory.plan([(k, 1, k, True) for k in range(n)], every, {k: k + 1 for k in range(n)})


def forward(state: training.TrainState, blocks=(), counter=None) -> tuple:
    """The step's forward: (loss, uses, the parameters, per layer the op nodes it made). The layers of each of
    `blocks` run as one autograd.checkpoint; ``counter[0]`` counts the op nodes their backward makes again."""
    x, steps, finish, params = step_graph.step_layers(state)
    starts = {block[0]: block for block in blocks}
    inside = {k for block in blocks for k in block}
    made, seen = [], {x, *params}
    with training.one_blas_thread(), np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        for k, layer in enumerate(steps):
            if k in starts:
                x = memory.checkpointed(_chain([steps[j] for j in starts[k]]), [x], counter)
            elif k not in inside:
                x = layer(x)
            made.append([t for t in memory._made(x, seen) if t._prim is not None])
        loss, uses = finish(x)
    return loss, uses, params, made


def node_blocks(loss, uses, made, blocks) -> dict:
    """Op node id (the step graph's) -> its block's number: what tape.timeline accounts as checkpointed."""
    ids = {t: i for i, t in enumerate(order(loss, uses))}
    return {ids[t]: b for b, block in enumerate(blocks) for k in block for t in made[k] if t in ids and t.requires_grad}


def _chain(run):
    """One function running the layers `run` in turn (a checkpointed block)."""

    def block(x):
        for layer in run:
            x = layer(x)
        return x

    return block


def step_memory(state: training.TrainState, every: int = DEFAULT_EVERY) -> memory.Memory:
    """Memory of one step of the run (forward, backward, the optimiser's step) on the step graph's points, and the
    same step checkpointed every `every` layers, run for real."""
    if not 1 <= every <= MAX_EVERY:
        raise ValueError(f"checkpoints every k layers takes k from 1 to {MAX_EVERY}, got {every}")
    loss, uses, params, made = forward(state)
    blocks = plan(state, every)
    counter = [0]
    checked, _, again, _ = forward(state, blocks, counter)
    optimiser, twin = _optimiser(state, params), _optimiser(state, again)
    with training.one_blas_thread(), np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        loss.backward()
        checked.backward()
        agree = all(memory._same(a.grad, b.grad) for a, b in zip(params, again))
        before = _state_bytes(optimiser)
        optimiser.step()
        twin.step()
    agree = agree and all(memory._same(a.data, b.data) for a, b in zip(params, again))
    made_state = _state_bytes(optimiser) - before
    kept = _weight_bytes(params) + sum(p.grad.nbytes for p in params if p.grad is not None) + made_state
    after = ((OPTIMISER_STEP.format(name=state.config.optimizer), made_state, None), (LET_GO, 0, kept))
    return memory.account(loss, uses, blocks=node_blocks(loss, uses, made, blocks), every=every,
                          recomputed=counter[0], n_blocks=len(blocks), grads_agree=agree, after=after,
                          checkpointed_label=CHECKPOINTED.format(every=every_words(every)))
