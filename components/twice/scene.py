"""Backward twice, and zero_grad, on the Stepper: a switch, the calls as buttons, and the program's graph with the
grads the engine holds after them (explorer/twice/scene.py), retexted over the Explorer's drawing of the program."""

from __future__ import annotations

import streamlit as st

from components.common import session
from components.graph_view import graph_view, program_view
from components.program import stepper_page
from explorer.program import keys
from explorer.program import view_data as graph_data
from explorer.twice import keys as twice_keys
from explorer.twice import scene as twice

ss = st.session_state


def _call(action: str) -> None:
    ss[twice_keys.TWICE_ACTIONS] = twice.normal((*ss.get(twice_keys.TWICE_ACTIONS, twice.START), action))


def _start_over() -> None:
    ss[twice_keys.TWICE_ACTIONS] = twice.START


def scene(program: str, direction) -> None:
    """The scene, under the Stepper's graph (reverse mode only; nothing is run until its switch is on)."""
    if direction is not None:
        return
    on = st.toggle("Backward twice, and zero_grad", key=twice_keys.TWICE_ON,
                   help="Run backward() again without clearing the grads and watch every grad double; clear them "
                        "with zero_grad() and run again. The numbers are the engine's own.")
    if not on:
        return
    if ss.get(twice_keys.TWICE_FOR) != program:
        ss[twice_keys.TWICE_FOR] = program
        ss[twice_keys.TWICE_ACTIONS] = twice.START
    actions = twice.normal(ss.get(twice_keys.TWICE_ACTIONS, twice.START))
    with session.failures_shown(program):
        poked = ss.get(keys.POKED, ())
        now = session.sandboxed(twice.replay, program, poked, actions)
        page_run = stepper_page.stepped(None, program)
        layout = program_view(program, page_run.graph, page_run.steps)
        buttons = st.columns([1, 1, 1, 2])
        full = len(actions) >= twice.MAX_CALLS
        buttons[0].button("backward() again", icon=":material/replay:", on_click=_call, args=(twice.BACKWARD,),
                          disabled=full, help=f"At most {twice.MAX_CALLS} calls in one scene" if full else None)
        buttons[1].button("zero_grad()", icon=":material/delete_sweep:", on_click=_call, args=(twice.ZERO_GRAD,),
                          disabled=full)
        buttons[2].button("Start over", icon=":material/restart_alt:", on_click=_start_over)
        st.markdown(twice.said(now))
        st.html(f'<div data-testid="backward-twice" data-calls="{len(now.actions)}" '
                f'data-since-clear="{now.since_clear}" style="display:none"></div>')
        graph_view(layout, key=twice_keys.TWICE_GRAPH, values=graph_data.value_texts(now.graph),
                   caption="After " + " → ".join(f"{a}()" for a in now.actions))
        st.info(twice.PYTORCH, icon=":material/compare_arrows:")
