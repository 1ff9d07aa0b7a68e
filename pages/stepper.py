"""Backward Stepper: walk the backward pass one node at a time and see what each VJP sends to each parent (or in
forward mode each JVP, parents first)."""

import streamlit as st

from components.common.entry import through_app
from components.common.layout import header
from components.poke import synced
from components.program import modes
from components.program import stepper_page as page
from components.program.panels import program_error, shared_program
from components.twice import scene as twice
from explorer.program import forward_mode, keys, link

through_app()

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

try:
    run = page.stepped(direction, program)  # the steps themselves stay in the sandbox's cache (see page.live)
    n = len(page.walk(run, direction))
    sliders, st.session_state[keys.STEPPER_SETTLED] = synced(program, run.sliders)  # the page run's values
    inputs = forward_mode.input_shapes(run.graph)  # what the direction v may name
    leaves = page.again_leaves(run.graph)  # whose grads "differentiate again" may walk (issue 32)
    del run
except Exception as exc:  # noqa: BLE001 - a bad program is a message, never a traceback
    program_error(program, exc)
    st.page_link("pages/explorer.py", label="Fix the program in the Expression Explorer", icon=":material/functions:")
    st.stop()

with mode_column:
    modes.switch("stepper", inputs)
    predict_column, again_column = st.columns([1, 2], vertical_alignment="bottom")  # one row: the title stays high
    again = page.again_switch(leaves, direction, into=again_column)
    page.predict_switch(direction, again, into=predict_column)
n = page.walk_again(program, again, n)  # the steps of the grad's backward, and what is walked said at the top
page.follow_link(program, direction, n, again)
if n == 0 and not again:
    st.info("Nothing to step through: the output is a leaf, so backward() only seeds its grad." if direction is None
            else "Nothing to step through: no input's tangent reaches an op (the output is a leaf or a constant).")

page.live(program, sliders, direction, again)
if not again:
    twice.scene(program, direction)  # backward twice, and zero_grad
modes.explained(direction is not None)
