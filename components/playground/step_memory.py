"""The Playground's step-graph panel: its caption, and the memory of that step (forward → backward → the
optimiser's step) in a drawer, drawn by components/frontend/memory/memory.js; scrubbing it lights the tensors alive
on the step graph beside it. A slider sets k: the same step run again with checkpoints every k layers, through
autograd.checkpoint. The data comes from explorer/playground/step_memory.py."""

from __future__ import annotations

import streamlit as st

from components.common import session
from components.program.memory import timeline
from explorer.playground import keys, step_memory

ss = st.session_state

CAPTION = ("One training step on {points} fixed training points, as the engine computes it: X and y are data (grey, "
           "no grad), each layer's W and b are weights (green) with their grads. A box prints a few numbers whole, "
           "more as a sparkline and their range; hover one for its numbers.")
TITLE = "Bytes held over this step: forward → backward → the optimiser's step"
EVERY = "Checkpoint every k layers"
EVERY_HELP = ("Gradient checkpointing: the network's layers (each a linear and its activation) run in blocks of k "
              "through autograd.checkpoint. A block keeps only its input and its output after forward; backward "
              "runs the block's forward again to get what it needs. The loss runs outside the blocks.")


def caption_and_memory(pg, panel: dict) -> None:
    """The panel's caption, then the step's memory timeline in an expander (above the graph, which follows)."""
    st.caption(CAPTION.format(points=panel["points"]))
    with st.expander("Memory of this step", icon=":material/memory:"), session.failures_shown():
        every = every_slider(pg.state)
        data = step_memory.step_memory(pg.state, every)
        st.caption(summary(data, step_memory.layers(pg.state), panel["points"]))
        timeline(data, panel["data"]["key"], key=keys.STEP_MEMORY, title=TITLE)


def every_slider(state) -> int:
    """The slider over k, 1 to the network's layers (at least 2), its value kept while the panel is off."""
    most = max(2, step_memory.layers(state))
    kept = min(ss.get(keys.STEP_MEMORY_EVERY, step_memory.DEFAULT_EVERY), most)
    # NOTE: as wide as the timeline below (memory.css: 640 px at most); narrower on a phone
    every = st.slider(EVERY, 1, most, kept, key=keys.STEP_MEMORY_SLIDER, help=EVERY_HELP, width=640)
    ss[keys.STEP_MEMORY_EVERY] = every
    return every


def summary(data, layers: int, points: int) -> str:
    """The peaks, what is held after forward, and what checkpointing cost (counted on the real run)."""
    engine, tape, free, ck = (data.peak(n) for n in ("engine", "tape", "no_grad", "checkpointed"))
    text = (f"Peaks: this engine {engine:,} bytes, the tape {tape:,}, no_grad {free:,}, checkpointed "
            f"{step_memory.every_words(data.every)} {ck:,}. ")
    if not data.blocks:
        return text + (f"This network has {layers} layer{'s' if layers > 1 else ''}, fewer than k: no block is "
                       "checkpointed, and its line is the tape's.")
    held = {line.name: line.bytes[data.backward_from - 1] for line in data.lines}
    agree = "the same grads and weights" if data.grads_agree else "DIFFERENT grads (a bug: please report it)"
    text += (f"After forward: the tape {held['tape']:,}, checkpointed {held['checkpointed']:,}. autograd.checkpoint "
             f"over {data.blocks} block{'s' if data.blocks > 1 else ''} ran {data.recomputed:,} forward operations "
             f"again in backward, with {agree}. ")
    if ck > 0.9 * tape:
        text += (f"The peak comes in backward, where the grads join the weights: on {points} points the activations, "
                 "all checkpointing can drop, are a small part of the bytes. ")
    return text + "The optimiser's buffers kept between steps are not counted."
