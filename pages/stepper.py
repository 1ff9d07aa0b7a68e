"""Backward Stepper: walk the backward pass one node at a time and see what each VJP sends to each parent."""

import functools

import streamlit as st

from components import session
from components.entry import through_app
from components.graph_view import graph_view, program_view
from explorer import explain, presets
from explorer.formatting import markdown_safe

through_app()

stepped = functools.partial(session.sandboxed, explain.step_program)  # a worker process, limited and cancellable


st.title("Backward Stepper")
st.caption(
    "Walk backward() one node at a time: which VJP rule ran, the upstream grad, what each parent "
    "received, and how fan-out and broadcasting are summed. The program is the Expression Explorer's. "
    "The → and ← keys (or a presenter's clicker) step; a click on a box jumps to its step."
)

program = explain.sync_program(st.session_state, st.query_params, presets.program(presets.DEFAULT))
if explain.link_note(program):  # too long for an address the server accepts: say so before it refuses
    st.warning(explain.link_note(program), icon=":material/link_off:")

try:
    graph, steps = stepped(program)
except Exception as exc:  # noqa: BLE001 - a bad program is a message, never a traceback
    message, caret = explain.error_report(program, exc)
    st.error(markdown_safe(message), icon=":material/error:")
    if caret:
        st.code(caret, language=None)
    st.page_link(
        "pages/explorer.py",
        label="Fix the program in the Expression Explorer",
        icon=":material/functions:",
    )
    st.stop()

n = len(steps)


def step_in_url() -> int:
    """A link's ?step=N (clamped to 0..n), else the seed."""
    try:
        return min(max(int(st.query_params.get("step", 0)), 0), n)
    except ValueError:
        return 0


if st.session_state.get("stepper_program") != program:
    st.session_state["stepper_program"] = program
    st.session_state["stepper_pos"] = step_in_url()


def stepped_in_browser():
    """The browser reports where the stepper is (it does not wait for this run)."""
    st.session_state["stepper_pos"] = min(max(int(st.session_state["stepper_graph"]["step"]), 0), n)
    st.session_state["stepper_reported"] = True


def view_changed():
    st.session_state["graph_view"] = st.session_state["stepper_graph"]["view"]


# NOTE: the browser moves on its own; a run caused by its report must not send it a position (the
# data would change and be sent again, and the view ignores it anyway). Any other run (arriving from
# another page, a link) passes the position on, for a view that mounts afresh.
if not st.session_state.pop("stepper_reported", False):
    st.session_state["stepper_start"] = st.session_state["stepper_pos"]

if n == 0:
    st.info("Nothing to step through: the output is a leaf, so backward() only seeds its grad.")
    st.query_params.pop("step", None)
else:
    st.query_params["step"] = str(st.session_state["stepper_pos"])
graph_view(
    program_view(program, graph, steps, stepper=True),
    key="stepper_graph",
    view=st.session_state.get("graph_view", {}),
    start=st.session_state["stepper_start"],
    on_step=stepped_in_browser,
    on_view=view_changed,
)

with st.expander("What backward() does"):
    for words, formula in explain.BACKWARD_EXPLAINED:
        st.markdown(words)
        st.latex(formula)
