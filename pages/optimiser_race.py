"""Optimiser race: SGD, momentum, Nesterov, Adam and AdamW step down the same surface, each step's arithmetic
shown; the engine's own optimisers run once on the server and the browser plays their paths."""

import streamlit as st

from components import race as panels
from components.common.entry import through_app
from components.common.layout import header
from components.common.link_warnings import link_warnings
from components.program import panels as explorer_panels
from explorer import links, words
from explorer.program import errors
from explorer.race import course as race
from explorer.race import keys
from explorer.race import setup as race_setup
from explorer.words import markdown_safe

through_app()
ss = st.session_state

header(
    "Optimiser race",
    "Race optimisers down one surface and see why one crawls and another overshoots, step by step.",
    "Pick a surface (or two inputs of your own program), a start point (type it, or click or drag on the contour) "
    "and up to six optimisers, then press Play. Pick an optimiser's row and a step to see its arithmetic as arrows "
    "with the numbers. The URL keeps the whole race.",
    settings_aside=True,
)


def page() -> None:
    """The page below the title (a function: the race's numbers are its locals, let go after the run)."""
    link_warnings(race_setup.LINK_PARAMS)
    setup, problems = race_setup.sync(ss, st.query_params)
    for other in ("step", "poke") + (() if setup.surface == race.OWN else ("program",)):
        st.query_params.pop(other, None)  # the program pages' own: they mean nothing here
    panels.problems_said(problems)
    text, planes = "", None
    with st.sidebar:
        panels.surface_box(setup)
        if setup.surface == race.OWN:
            text = explorer_panels.shared_program(race_setup.LINK_PARAMS)
            panels.program_editor(text)
            try:
                planes = panels.own_setup(setup, text)
            except Exception as exc:  # noqa: BLE001 - ExpressionError or a limit: a message, never a traceback
                explorer_panels.program_error(text, exc)
                planes = []
            setup = ss[keys.SETUP]
        panels.settings(setup, planes)
    if planes is not None and len(planes) < 2:
        st.info(f"The race needs a program with at least two inputs that hold one number each; this one has "
                f"{words.counted(len(planes), 'such input')}. Write, say, `x = 1.0` and `y = 2.0` and a "
                "loss of them, or choose a surface.", icon=":material/info:")
        return
    the_race = setup.race(text)
    try:
        result = panels.run_race(the_race)
        picture = panels.grid(the_race)
    except Exception as exc:  # noqa: BLE001 - a race not allowed, or the program failed: a message
        st.error(markdown_safe(errors.error_report(the_race.text, exc)[0]), icon=":material/error:")
        return
    hessian = panels.curvature(the_race)
    panels.race_view(panels.view_data(the_race, result, picture, hessian), key=keys.VIEW)
    panels.curvature_note(hessian)
    stopped = [f"{path['title']} {path['stopped']}" for path in result["paths"] if path["stopped"]]
    for said in links.said_once(stopped):  # six runners alike that diverge alike: one warning, counted
        st.warning(markdown_safe(f"{said}."), icon=":material/warning:")


page()
