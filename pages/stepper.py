"""Backward Stepper: walk the backward pass one node at a time and see what each VJP sends to each parent (or in
forward mode each JVP, parents first)."""

import functools

import streamlit as st

from components.common import session
from components.common.entry import through_app
from components.common.layout import header
from components.common.link_warnings import say_ignored
from components.graph_view import graph_view, program_view
from components.poke import full_run_wanted, synced
from components.program import modes
from components.program.panels import poke_drawer, program_error, shared_program
from explorer import links
from explorer.program import forward_mode, jacobian_view, keys, link, page_data, view_data

through_app()

# A worker process each, limited and cancellable (components/common/session.py): the graph, its steps (backward's, or in
# forward mode the forward walk's too), their Jacobians and the sliders in one evaluation per page run
# (page_data), the first three once per slider move while dragging, and the Jacobians past the budget
# when they are asked for.
jacobians_of = functools.partial(session.sandboxed, jacobian_view.step_jacobians)


top = st.container()  # the title, which says the mode (a link's warnings go under it), and the mode's switch
title_column, mode_column = top.columns([3, 2], vertical_alignment="bottom")  # one row: the graph's pane is higher
program = shared_program(link.PAGE_PARAMS["stepper"])
direction = modes.wanted()  # None: reverse mode; forward mode's v otherwise
with title_column:
    header(
        "Backward Stepper" if direction is None else "Forward Stepper",
        "Walk backward() one node at a time: which VJP rule ran, and what each parent received." if direction is None
        else "Walk the forward pass one node at a time, inputs first: which JVP rule ran, and the tangent it made.",
        "The upstream grad (or in forward mode the tangents), each contribution, how fan-out and broadcasting are "
        "summed, and the Jacobian each rule stands for. The program is the Expression Explorer's; drag an input's "
        "slider to rerun it with other numbers. The → and ← keys (or a presenter's clicker) step; a click on a box "
        "jumps to its step.", presenter=True)

stepped = functools.partial(modes.sandboxed, page_data.stepper_run, direction)  # the page's one evaluation
dragged = functools.partial(modes.sandboxed, page_data.stepper_drag_run, direction)  # one per slider move


def walk(page_run):
    """The steps this page walks: backward()'s, or in forward mode the forward pass's."""
    return page_run.steps if direction is None else page_run.forward.steps


try:
    n = len(walk(stepped(program)))  # the steps themselves stay in the sandbox's cache (see live)
    sliders, st.session_state[keys.STEPPER_SETTLED] = synced(program, stepped(program).sliders)  # the page run's values
    inputs = forward_mode.input_shapes(stepped(program).graph)  # what the direction v may name
except Exception as exc:  # noqa: BLE001 - a bad program is a message, never a traceback
    program_error(program, exc)
    st.page_link("pages/explorer.py", label="Fix the program in the Expression Explorer", icon=":material/functions:")
    st.stop()


walked = st.session_state.get(keys.STEPPER_PROGRAM)
if walked != (program, direction):  # a link's step, or (the mode or v changed) a new walk from its seed
    st.session_state[keys.STEPPER_PROGRAM] = (program, direction)
    at = st.query_params.get("step") if walked is None or walked[0] != program else None
    st.session_state[keys.STEPPER_POS], problem = links.step_from_link(at, n)
    say_ignored([problem] if problem else [])


def stepped_in_browser():
    """The browser reports where the stepper is (it does not wait for this run)."""
    st.session_state[keys.STEPPER_POS] = min(max(int(st.session_state[keys.STEPPER_GRAPH]["step"]), 0), n)
    st.session_state[keys.STEPPER_REPORTED] = True


def options_changed():
    st.session_state[keys.GRAPH_OPTIONS] = st.session_state[keys.STEPPER_GRAPH]["options"]


def jacobian_asked():
    """The browser shows a step whose node's Jacobian was not sent with the steps: send it."""
    asked = st.session_state.get(keys.JACOBIANS_ASKED, ())
    node = st.session_state[keys.STEPPER_GRAPH].get("jacobian")
    if isinstance(node, int) and node not in asked:
        st.session_state[keys.JACOBIANS_ASKED] = (*asked, node)


if st.session_state.get(keys.JACOBIANS_FOR) != program:
    st.session_state[keys.JACOBIANS_FOR] = program
    st.session_state[keys.JACOBIANS_ASKED] = ()

with mode_column:
    modes.switch("stepper", inputs)
if n == 0:
    st.info("Nothing to step through: the output is a leaf, so backward() only seeds its grad." if direction is None
            else "Nothing to step through: no input's tangent reaches an op (the output is a leaf or a constant).")


@st.fragment
@session.message_only
def live(program, sliders):
    """The graph with its steps and the sliders: a slider's move or a step reruns only this; the same drawing
    takes the new numbers in place, at the same step."""
    if full_run_wanted():
        st.rerun()  # the values settled: the URL follows
    with session.failures_shown():  # a busy sandbox: its words where the graph would be
        _live(program, sliders)


def _live(program, sliders):
    # NOTE: from the sandbox's cache, not arguments: a fragment keeps its arguments while its session lives, and
    # a closed tab's session outlives it (+336 MB per 8M-number program)
    page_run = stepped(program)
    graph, steps = page_run.graph, page_run.steps
    n = len(walk(page_run))
    # NOTE: the browser moves on its own; a run caused by its report must not send it a position (the
    # data would change and be sent again, and the view ignores it anyway). Any other run (arriving from
    # another page, a link) passes the position on, for a view that mounts afresh.
    if not st.session_state.pop(keys.STEPPER_REPORTED, False):
        st.session_state[keys.STEPPER_START] = st.session_state[keys.STEPPER_POS]
    if n == 0:
        st.query_params.pop("step", None)
    else:
        st.query_params["step"] = str(st.session_state[keys.STEPPER_POS])
    poked = st.session_state.get(keys.POKED, ())
    layout = program_view(program, graph, steps, stepper=True, direction=direction, _forward=page_run.forward)
    if poked and poked != st.session_state.get(keys.STEPPER_SETTLED):  # a drag's values: no sliders
        at = dragged(program, poked)
    else:
        at = stepped(program, poked) if poked else page_run
    poked_graph, poked_steps, jacobians, forward = at.graph, at.steps, at.jacobians, at.forward
    data = layout
    if poked:
        poked_view = program_view(program, poked_graph, poked_steps, stepper=True, poked=poked, direction=direction,
                                  _forward=forward)
        data = view_data.over_layout(poked_view, layout)
    asked = st.session_state.get(keys.JACOBIANS_ASKED, ())
    if asked:
        jacobians = {**jacobians, **jacobians_of(program, poked, asked)}
    if forward is not None:  # where the two modes meet, over the walk
        modes.meeting(forward)
    poke_drawer(program, sliders, poked_graph, key=keys.STEPPER_POKE)
    graph_view(view_data.with_jacobians(data, jacobians) if n else data, key=keys.STEPPER_GRAPH,
               options=st.session_state.get(keys.GRAPH_OPTIONS, {}), start=st.session_state[keys.STEPPER_START],
               values=view_data.value_texts(poked_graph if forward is None else forward.graph) if poked else None,
               on_step=stepped_in_browser, on_options=options_changed, on_jacobian=jacobian_asked)


live(program, sliders)
modes.explained(direction is not None)
