"""Practice: write the backward pass yourself, one line per tensor, and every tensor is checked against the engine."""

import streamlit as st

from components import classes, practice
from components.common import session
from components.common.entry import through_app
from components.common.layout import header
from components.common.link_warnings import link_warnings
from explorer.practice import exercises, page_data
from explorer.practice import keys as practice_keys
from explorer.practice import link as practice_link
from server.run_store import runs

through_app()
header(
    "Practice",
    "Write the backward pass yourself: one line per tensor, each checked against the engine's grad.",
    "Pick an exercise (or bring your program from the Expression Explorer). Each answer line is `d<name> = …` in "
    "the same language as programs: use the forward values by name, the answers above, and the language's "
    "functions (`eye(n)[y]` for a one-hot, comparisons such as `(z > 0)`, `.T`, `.sum(axis=0, keepdims=True)`). "
    "Unnamed tensors are called by their box's number (`t5`). Every tensor's verdict: exact, close, wrong, shape, "
    "error or pending; the graph's boxes show the same. Hints come in three steps; the link keeps the attempt.",
)
link_warnings(practice_link.PARAMS)
program, answers = practice_link.sync(st.session_state, st.query_params,
                                      exercises.EXERCISES[exercises.DEFAULT].program)
practice.exercise_picker(program)
with session.failures_shown(program, stop=True):
    answers = practice.started(program, answers)
    page = session.sandboxed(page_data.practice_page, program, answers)

left, right = st.columns([3, 2])
with left:
    practice.graph(page)
with right:
    practice.answers_panel(program, answers, page)
    classes.hand_in_practice(runs(), st.query_params.get("class"), answers, page,
                             st.session_state.get(practice_keys.HINTS, {}))
    practice.redraws(program, answers)
practice.verdicts(page)
practice.export(program, answers)
