"""Class: a teacher opens a class and sees it live; a learner joins with a name and gets what the teacher posts."""

import streamlit as st

from components import classes
from components.common.entry import through_app
from components.common.layout import header
from components.common.link_warnings import link_warnings
from explorer.classes.page_data import PARAMS
from server.run_store import runs

through_app()
header(
    "Class",
    "Run a lesson: post an exercise or a challenge, and see who is stuck where, live.",
    "Open a class and share the learners' link (a class code); keep yours, with the teacher's key: it is the only "
    "way to the dashboard. Learners join with a name (a pseudonym is fine) and see what you post: a practice "
    "exercise (each tensor checked as they type), a Playground challenge (a data set and a target), or a program. "
    "The dashboard shows, per tensor, how many are right, wrong or pending, the wrong answers most learners share "
    "and who is stuck on which line; for a challenge, the leaderboard and the class's curves. Nothing is kept in "
    "one server process: the class works behind the balancer and survives a process's restart.",
)
link_warnings(PARAMS)
code, key = st.query_params.get("code"), st.query_params.get("key")
if not code:
    classes.open_form(runs())
elif key:
    classes.teacher(runs(), code, key)
else:
    classes.learner(runs(), code)
