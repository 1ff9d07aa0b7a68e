"""The Playground's step-graph panel: its caption, and the memory of that step (forward → backward → the
optimiser's step) in a drawer, drawn by components/frontend/memory/memory.js; scrubbing it lights the tensors alive
on the step graph beside it. The data comes from explorer/playground/step_memory.py."""

from __future__ import annotations

import streamlit as st

from components.common import session
from components.program.memory import timeline
from explorer.playground import keys, step_memory

CAPTION = ("One training step on {points} fixed training points, as the engine computes it: X and y are data (grey, "
           "no grad), each layer's W and b are weights (green) with their grads. A box prints a few numbers whole, "
           "more as a sparkline and their range; hover one for its numbers.")
TITLE = "Bytes held over this step: forward → backward → the optimiser's step"


def caption_and_memory(pg, panel: dict) -> None:
    """The panel's caption, then the step's memory timeline in an expander (above the graph, which follows)."""
    st.caption(CAPTION.format(points=panel["points"]))
    with st.expander("Memory of this step", icon=":material/memory:"), session.failures_shown():
        data = step_memory.step_memory(pg.state)
        st.caption(f"Peaks: this engine {data.peak('engine'):,} bytes, the tape {data.peak('tape'):,}, no_grad "
                   f"{data.peak('no_grad'):,}, checkpointed every {data.every} operations "
                   f"{data.peak('checkpointed'):,}. The optimiser's buffers kept between steps are not counted.")
        timeline(data, panel["data"]["key"], key=keys.STEP_MEMORY, title=TITLE)
