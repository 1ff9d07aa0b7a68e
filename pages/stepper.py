"""Backward Stepper: walk the backward pass one node at a time and see what each VJP sends to each parent."""

import functools
import time

import streamlit as st

from autograd.graph import grads_at
from components import session
from components.entry import through_app
from components.follow_node import follow_node
from components.hotkeys import hotkeys
from explorer import explain, presets
from explorer.dot import LAYOUTS, to_dot
from explorer.formatting import kinds_in, legend_html, markdown_safe

through_app()

stepped = functools.partial(session.sandboxed, explain.step_program)  # a worker process, limited and cancellable
GRAPH_PANE_HEIGHT = 560  # px, at most; the CSS below shrinks the pane to a short graph or window
# NOTE: Streamlit gives a container of fixed height that height on the container and on its
# wrapper; letting both size to the graph, up to what the window has room for below the buttons,
# keeps a short graph from sitting in an empty box and a tall one from reaching below the fold.
PANE_CSS = (
    "<style>.st-key-stepper_graph {height: auto !important;"
    f" max-height: clamp(320px, calc(100vh - 480px), {GRAPH_PANE_HEIGHT}px)}}"
    " div:has(> .st-key-stepper_graph) {height: auto !important; flex: 0 0 auto !important}</style>"
)

st.title("Backward Stepper")
st.caption(
    "Walk backward() one node at a time: which VJP rule ran, the upstream grad, what each parent "
    "received, and how fan-out and broadcasting are summed. The program is the Expression Explorer's. "
    "The → and ← keys press Next and Prev."
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
if st.session_state.get("stepper_program") != program:
    st.session_state["stepper_program"] = program
    st.session_state["stepper_pos"] = 0
    st.session_state["stepper_playing"] = False
    st.session_state["stepper_generation"] = st.session_state.get("stepper_generation", 0) + 1


def set_playing(flag: bool):
    """Starts or stops Play; each switch gives the Play/Pause button a new key (see play())."""
    if st.session_state["stepper_playing"] != flag:
        st.session_state["stepper_playing"] = flag
        st.session_state["stepper_switches"] = st.session_state.get("stepper_switches", 0) + 1


def go(position: int):
    """Moves to a step by any control but the slider: the slider is then drawn afresh (see below)."""
    if position != st.session_state["stepper_pos"]:
        st.session_state["stepper_pos"] = position
        st.session_state["stepper_generation"] = st.session_state.get("stepper_generation", 0) + 1


def move(delta: int):
    go(min(max(st.session_state["stepper_pos"] + delta, 0), n))
    set_playing(False)


def reset():
    go(0)
    set_playing(False)


# NOTE: Play and Pause are separate, idempotent callbacks, and each switch gives the button a new key:
# a fragment rerun does not clear a vanished button's click, so a Play button that reappears under
# its old key could fire its old click again and restart the timer right after Pause.
def play():
    if st.session_state["stepper_playing"]:
        return
    if st.session_state["stepper_pos"] >= n:
        go(0)
    set_playing(True)
    anchor(st.session_state["stepper_pos"] + 1)  # the first step runs at once


def pause():
    set_playing(False)


def anchor(position: int):
    """Play is due at step ``position + elapsed seconds × speed`` (it may lag behind, never run ahead)."""
    st.session_state["stepper_play_from"] = position
    st.session_state["stepper_play_start"] = time.monotonic()


def slide(key: str):
    # NOTE: a browser reporting a slider that has since been replaced is not the user moving it.
    if key != slider_key():
        return
    st.session_state["stepper_pos"] = st.session_state[key]
    set_playing(False)


def slider_key() -> str:
    return f"stepper_slider_{st.session_state.get('stepper_generation', 0)}"


def set_speed():
    st.session_state["stepper_speed"] = st.session_state["stepper_speed_widget"]
    if st.session_state["stepper_playing"]:
        anchor(st.session_state["stepper_pos"])


playing = bool(st.session_state["stepper_playing"])
speed = float(st.session_state.get("stepper_speed", 2.0))


@st.fragment(run_every=(1.0 / speed) if playing else None)
def stepper():
    if st.session_state["stepper_playing"]:
        # At most one step per run (a slow browser sees every step) and none ahead of the clock
        # (extra reruns, e.g. from a click, do not speed play up).
        elapsed = time.monotonic() - st.session_state["stepper_play_start"]
        due = st.session_state["stepper_play_from"] + int(elapsed * speed)
        position = min(max(st.session_state["stepper_pos"], min(due, st.session_state["stepper_pos"] + 1)), n)
        go(position)
        if position >= n:
            set_playing(False)
    if bool(st.session_state["stepper_playing"]) != playing or (
        playing and st.session_state.get("stepper_speed", 2.0) != speed
    ):
        st.rerun()  # start, stop or retime the timer: run_every is fixed when the fragment is declared

    if n == 0:
        st.info("Nothing to step through: the output is a leaf, so backward() only seeds its grad.")
        return
    pos = st.session_state["stepper_pos"]
    now_playing = st.session_state["stepper_playing"]
    # NOTE: a horizontal container keeps the four buttons on one row on a phone (columns would stack).
    controls = st.container(horizontal=True, vertical_alignment="bottom", gap="small")
    controls.button("Reset", on_click=reset, icon=":material/first_page:", disabled=pos == 0)
    controls.button("Prev", on_click=move, args=(-1,), icon=":material/chevron_left:", disabled=pos == 0)
    controls.button(
        "Pause" if now_playing else "Play",
        on_click=pause if now_playing else play,
        key=f"stepper_play_{st.session_state.get('stepper_switches', 0)}",
        icon=":material/pause:" if now_playing else ":material/play_arrow:",
        type="primary",
    )
    controls.button("Next", on_click=move, args=(1,), icon=":material/chevron_right:", disabled=pos >= n)
    controls.select_slider(
        "Play speed (steps per second)",
        options=[0.5, 1.0, 2.0, 4.0, 8.0],
        value=speed,
        key="stepper_speed_widget",
        on_change=set_speed,
        width=260,
    )
    # NOTE: when Next, Prev, Reset or Play move the position, the slider gets a new key and is drawn
    # afresh at the new value; a slider whose value the server changed under it would otherwise
    # echo its old value back and jump the stepper back. Moving the slider itself keeps its key.
    key = slider_key()
    st.slider(
        f"Step (of {n})", min_value=0, max_value=n, value=pos, key=key, on_change=slide, args=(key,),
        help="0 is the seed; after step k, k nodes have run their VJP. Keys: → or Page Down for Next, "
        "← or Page Up for Prev (a presenter's clicker sends these).",
    )

    grads = grads_at(graph, steps, pos)
    state = explain.step_states(graph, steps, pos)
    rankdir = st.session_state.get("stepper_rankdir") or "TB"
    dot = to_dot(graph, grads=grads, state=state, rankdir=rankdir)
    pic, panel = st.columns([3, 2], gap="medium")
    with pic:
        st.markdown(legend_html(kinds_in(graph, dot), states=True), unsafe_allow_html=True)
        # NOTE: the graph scrolls in its own pane, which follows the active node, so Next and the
        # node it moves stay on one screen however tall the graph is.
        st.html(PANE_CSS)
        with st.container(height=GRAPH_PANE_HEIGHT, key="stepper_graph"):
            st.graphviz_chart(dot, width="stretch")
        follow_node("stepper_graph", steps[pos - 1].node if pos else graph.output, key="stepper_follow")
        st.segmented_control(
            "Layout", list(LAYOUTS), default="TB", format_func=LAYOUTS.get, key="stepper_rankdir", required=True
        )
    with panel:
        out = graph.nodes[graph.output]
        if pos == 0:
            first = explain.node_label(graph.nodes[steps[0].node])
            st.subheader(f"Seed: {explain.node_label(out)}.grad = 1")
            shape = "a scalar, so its seed is 1" if out.shape == () else f"of shape {tuple(out.shape)}: ones"
            st.markdown(
                f"backward() starts by setting the output's grad to ones: d{explain.node_label(out)}/"
                f"d{explain.node_label(out)} = 1. The output is {shape}. Press **Next** to run `{first}`'s VJP."
            )
            st.code(explain.array_text(grads.get(graph.output)), language=None)
            return
        view = explain.describe_step(graph, steps[pos - 1], n)
        st.subheader(view.title)
        st.markdown(f"**Rule** (VJP of `{view.op}`, G is the upstream grad)")
        st.code(view.formula or "—", language=None, wrap_lines=True)
        st.markdown(f"**Upstream grad G** of `{view.node}`")
        st.code(view.upstream, language=None)
        if not view.contributions:
            st.caption("No parent needs a grad from this node.")
        for c in view.contributions:
            slot = f" (slot {c.slot})" if c.slot else ""
            st.markdown(f"**→ `{c.parent}`**{slot}: adds")
            st.code(c.value, language=None)
            if c.broadcast:
                st.info(c.broadcast, icon="📐")
            if c.fan_out:
                st.markdown(f"{c.fan_out}; `{c.parent}.grad` so far =")
                st.code(c.accumulated, language=None)
        if pos == n:
            st.success("Done: every grad now equals what backward() gives.")


stepper()
hotkeys({"ArrowRight": "Next", "PageDown": "Next", "ArrowLeft": "Prev", "PageUp": "Prev"}, key="stepper_keys")

with st.expander("What backward() does"):
    for words, formula in explain.BACKWARD_EXPLAINED:
        st.markdown(words)
        st.latex(formula)
