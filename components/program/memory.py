"""The Explorer's "Memory" tab as Streamlit: what each node's backward keeps (a table, and data-saves on the graph's
boxes), and the bytes held over forward → backward, this engine beside the tape, no_grad and checkpointed every k
operations (k on a slider), drawn by components/frontend/memory/memory.js, whose scrubbing lights the tensors alive
on the graph. The data comes from explorer/program/memory.py, run in the sandbox."""

from __future__ import annotations

import streamlit as st

from components.common import session
from components.common.assets import module_loader
from components.graph_view import program_view
from explorer.program import keys, memory

ss = st.session_state

_component = st.components.v2.component(
    "components.memory", js=module_loader("memory/memory.js", styles=("memory/memory.css",)), isolate_styles=False,
)

INTRO = ("**What a step keeps in memory.** Each op's backward reads some of its inputs or its output (its saved "
         "set). The tape holds a tensor until its last reader is done; this engine keeps every tensor of the graph "
         "(the Explorer shows them all). Inference (`no_grad`) saves nothing; checkpointing keeps only each "
         "block's output and runs the block again in backward.")


def timeline(data: memory.Memory, graph_key: str, *, key: str, title: str = "") -> None:
    """The timeline component for ``data``, lighting the boxes of the graph view whose data key is ``graph_key``."""
    _component(key=key, data=memory.payload(data, graph_key, title))


def memory_tab(program: str, poked: tuple, graph, page_run, direction) -> None:
    """The tab: the slider over k, the peaks, the timeline and the table of saved sets; its scrubbing lights the
    boxes of the page's graph view (the same program_view as the page draws: ``graph``, ``page_run``'s steps and
    forward run, ``direction``)."""
    graph_key = program_view(program, graph, page_run.steps, direction=direction, _forward=page_run.forward)["key"]
    st.markdown(INTRO)
    every = st.slider("Checkpoint every k operations", 1, memory.MAX_EVERY, memory.DEFAULT_EVERY,
                      key=keys.MEMORY_EVERY)
    with session.failures_shown(program):
        data = session.sandboxed(memory.program_memory, program, tuple(poked), every)
        st.caption(summary(data))
        timeline(data, graph_key, key=keys.MEMORY_VIEW)
        st.dataframe(rows(data), hide_index=True, width="stretch")


def summary(data: memory.Memory) -> str:
    """One sentence: the peaks, and what checkpointing cost (counted on the real run)."""
    engine, tape, free, ck = (data.peak(n) for n in ("engine", "tape", "no_grad", "checkpointed"))
    agree = "the same grads" if data.grads_agree else "DIFFERENT grads (a bug: please report it)"
    return (f"Peaks: this engine {engine:,} bytes, the tape {tape:,}, no_grad {free:,}, checkpointed every "
            f"{data.every} operations {ck:,}. The checkpointed run (autograd.checkpoint over {data.blocks} blocks) "
            f"ran {data.recomputed:,} forward operations again in backward, and gave {agree}.")


def rows(data: memory.Memory) -> list[dict]:
    return [{"node": r.node, "name": r.name, "op": r.op, "backward keeps": r.saves, "bytes": r.bytes}
            for r in data.rows]
