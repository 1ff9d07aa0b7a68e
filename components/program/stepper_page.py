"""The Backward Stepper page's parts (pages/stepper.py): its evaluations in the session's sandbox, where a walk
starts (a link's step), the graph view with its steps and sliders, and the view's callbacks (a step, the options,
a Jacobian asked for)."""

from __future__ import annotations

import functools

import streamlit as st

from components.common import session
from components.common.link_warnings import say_ignored
from components.graph_view import graph_view, program_view
from components.poke import full_run_wanted
from components.program import modes
from components.program.panels import poke_drawer
from explorer import links
from explorer.predict import check as predict_check
from explorer.predict import keys as predict_keys
from explorer.predict import link as predict_link
from explorer.program import backward_view, backward_walk, jacobian_view, keys, page_data, view_data
from explorer.words import clip_text, markdown_safe

ss = st.session_state

# A worker process each, limited and cancellable (components/common/session.py): the graph, its steps (backward's, or in
# forward mode the forward walk's too), their Jacobians and the sliders in one evaluation per page run
# (page_data), the first three once per slider move while dragging, and the Jacobians past the budget
# when they are asked for.
jacobians_of = functools.partial(session.sandboxed, jacobian_view.step_jacobians)


def stepped(direction, program, poked=()):
    """The page's one evaluation (page_data.stepper_run in the sandbox)."""
    return modes.sandboxed(page_data.stepper_run, direction, program, poked)


def dragged(direction, program, poked):
    """One evaluation per slider move (page_data.stepper_drag_run in the sandbox)."""
    return modes.sandboxed(page_data.stepper_drag_run, direction, program, poked)


def walk(page_run, direction):
    """The steps this page walks: backward()'s, or in forward mode the forward pass's."""
    return page_run.steps if direction is None else page_run.forward.steps


def follow_link(program: str, direction, n: int, again: str = "") -> None:
    """A link's step, or (the mode, v or the grad walked changed) a new walk from its seed; and the Jacobians asked
    for, per program and walk."""
    walked = ss.get(keys.STEPPER_PROGRAM)
    if walked != (program, direction, again):
        ss[keys.STEPPER_PROGRAM] = (program, direction, again)
        at = st.query_params.get("step") if walked is None or walked[0] != program else None
        ss[keys.STEPPER_POS], problem = links.step_from_link(at, n)
        say_ignored([problem] if problem else [])
    if ss.get(keys.JACOBIANS_FOR) != (program, again):
        ss[keys.JACOBIANS_FOR] = (program, again)
        ss[keys.JACOBIANS_ASKED] = ()


def stepped_in_browser(n: int) -> None:
    """The browser reports where the stepper is (it does not wait for this run)."""
    ss[keys.STEPPER_POS] = min(max(int(ss[keys.STEPPER_GRAPH]["step"]), 0), n)
    ss[keys.STEPPER_REPORTED] = True


def options_changed() -> None:
    ss[keys.GRAPH_OPTIONS] = ss[keys.STEPPER_GRAPH]["options"]


def jacobian_asked() -> None:
    """The browser shows a step whose node's Jacobian was not sent with the steps: send it."""
    asked = ss.get(keys.JACOBIANS_ASKED, ())
    node = ss[keys.STEPPER_GRAPH].get("jacobian")
    if isinstance(node, int) and node not in asked:
        ss[keys.JACOBIANS_ASKED] = (*asked, node)


def predict_switch(direction, again: str = "", into=None) -> None:
    """The Predict switch (reverse mode only), kept in the URL (``&predict=on``; a link's wins unless this session
    wrote it)."""
    given = st.query_params.get(predict_link.PARAM)
    if links.link_wins(ss, predict_link.PARAM, given):
        on, problems = predict_link.from_link({predict_link.PARAM: given})
        if on is not None:
            ss[predict_keys.PREDICT_ON] = on
        say_ignored([links.ignored(p) for p in problems])
    (into or st).toggle("Predict", key=predict_keys.PREDICT_ON, disabled=direction is not None or bool(again),
              help=predict_link.ROW.help + " Backward steps only (reverse mode), of the program's own backward.")
    st.query_params.pop(predict_link.PARAM, None)
    st.query_params.update(predict_link.to_link(bool(ss.get(predict_keys.PREDICT_ON))))
    links.wrote(ss, predict_link.PARAM, st.query_params.get(predict_link.PARAM))


def _verdicts(program: str, poked) -> dict:
    """The walk's checked predictions: a new program or other poked values start a new score."""
    if ss.get(predict_keys.PREDICT_FOR) != (program, poked):
        ss[predict_keys.PREDICT_FOR] = (program, poked)
        ss[predict_keys.PREDICTED] = {}
    return ss[predict_keys.PREDICTED]


def predicted(program: str) -> None:
    """The browser sends a prediction of a step: checked in the sandbox (explorer/predict/check.py), kept."""
    sent = ss[keys.STEPPER_GRAPH].get("predict") or {}
    poked = ss.get(keys.POKED, ())
    try:
        step = int(sent.get("step"))
        texts = tuple(str(t)[: predict_check.MAX_CHARS + 1] for t in sent.get("texts", ()))[:64]
        verdict = session.sandboxed(predict_check.check_step, program, poked, step, texts)
    except Exception as exc:  # noqa: BLE001 - a prediction that cannot be checked is a message, never a traceback
        step = sent.get("step") if isinstance(sent.get("step"), int) else 0
        verdict = {"step": step, "verdict": "error", "right": False, "rows": [],
                   "message": f"this prediction could not be checked ({type(exc).__name__})"}
    _verdicts(program, poked)[str(verdict["step"])] = {**verdict, "seq": sent.get("seq")}


def predict_data(program: str, poked, direction) -> dict | None:
    """What the view needs for Predict (predict.js): on, each step's question, the verdicts and the score."""
    if direction is not None or not ss.get(predict_keys.PREDICT_ON):
        return None
    verdicts = _verdicts(program, poked)
    return {"on": True, "asks": session.sandboxed(predict_check.asks, program, poked), "verdicts": verdicts,
            "score": list(predict_check.score(verdicts))}


@st.fragment
@session.message_only
def live(program, sliders, direction, again: str = ""):
    """The graph with its steps and the sliders: a slider's move or a step reruns only this; the same drawing
    takes the new numbers in place, at the same step. With ``again``, the walk of that grad's backward."""
    if full_run_wanted():
        st.rerun()  # the values settled: the URL follows
    with session.failures_shown():  # a busy sandbox: its words where the graph would be
        if again:
            _live_again(program, sliders, again)
        else:
            _live(program, sliders, direction)


def _position(n: int) -> None:
    """The walk's position (of ``n`` steps) to the view and the URL's ``step``."""
    # NOTE: the browser moves on its own; a run caused by its report must not send it a position (the
    # data would change and be sent again, and the view ignores it anyway). Any other run (arriving from
    # another page, a link) passes the position on, for a view that mounts afresh.
    if not ss.pop(keys.STEPPER_REPORTED, False):
        ss[keys.STEPPER_START] = ss[keys.STEPPER_POS]
    if n == 0:
        st.query_params.pop("step", None)
    else:
        st.query_params["step"] = str(ss[keys.STEPPER_POS])


def _live(program, sliders, direction):
    # NOTE: from the sandbox's cache, not arguments: a fragment keeps its arguments while its session lives, and
    # a closed tab's session outlives it (+336 MB per 8M-number program)
    page_run = stepped(direction, program)
    graph, steps = page_run.graph, page_run.steps
    n = len(walk(page_run, direction))
    _position(n)
    poked = ss.get(keys.POKED, ())
    layout = program_view(program, graph, steps, stepper=True, direction=direction, _forward=page_run.forward)
    if poked and poked != ss.get(keys.STEPPER_SETTLED):  # a drag's values: no sliders
        at = dragged(direction, program, poked)
    else:
        at = stepped(direction, program, poked) if poked else page_run
    poked_graph, poked_steps, jacobians, forward = at.graph, at.steps, at.jacobians, at.forward
    data = layout
    if poked:
        poked_view = program_view(program, poked_graph, poked_steps, stepper=True, poked=poked, direction=direction,
                                  _forward=forward)
        data = view_data.over_layout(poked_view, layout)
    asked = ss.get(keys.JACOBIANS_ASKED, ())
    if asked:
        jacobians = {**jacobians, **jacobians_of(program, poked, asked)}
    if forward is not None:  # where the two modes meet, over the walk
        modes.meeting(forward)
    poke_drawer(program, sliders, poked_graph, key=keys.STEPPER_POKE)
    graph_view(view_data.with_jacobians(data, jacobians) if n else data, key=keys.STEPPER_GRAPH,
               options=ss.get(keys.GRAPH_OPTIONS, {}), start=ss[keys.STEPPER_START],
               values=view_data.value_texts(poked_graph if forward is None else forward.graph) if poked else None,
               on_step=functools.partial(stepped_in_browser, n), on_options=options_changed,
               on_jacobian=jacobian_asked, predict=predict_data(program, poked, direction) if n else None,
               on_predict=functools.partial(predicted, program))


# ----------------------------------------------------------------------------- the backward's backward (issue 32)

#: The Stepper's walk of a grad's backward (explorer/program/backward_walk.py), in the sandbox: its view data.
walked = functools.partial(session.sandboxed, backward_walk.walk_view)
walked_jacobians = functools.partial(session.sandboxed, backward_walk.walk_jacobians)
NONE = ""
#: What the view is not sent: the walk's own checks and words (the page says the sentence once, at its top).
_NOT_SENT = ("sentence", "values", "structure")


def again_leaves(graph) -> list[str]:
    """The leaves of a program's traced ``graph`` (backward() done) whose grad can be differentiated again."""
    return [n.name for n in graph.nodes if n.kind in ("input", "param") and n.name and n.grad is not None]


def _again_label(choice: str) -> str:
    """NOTE: the box's label is collapsed (it shares Predict's row; a label above it took the graph 36 px at
    1280x800), so each choice says what the box is."""
    if choice == NONE:
        return "Differentiate again: no"
    return "Differentiate again: " + ("Σ of every leaf's grad" if choice == backward_view.ALL else f"Σ grad {choice}")


def again_switch(leaves: list[str], direction, into=None) -> str:
    """"Differentiate again" on the Stepper: the grad whose backward it walks, kept in the URL (``&again=x``, as the
    Explorer's; a link's wins unless this session wrote it). Reverse mode only. Returns it ('' for none)."""
    given = st.query_params.get("again")
    choices = [NONE] + leaves + ([backward_view.ALL] if len(leaves) > 1 else [])
    if links.link_wins(ss, "again", given):
        settings, problems = backward_view.settings_of({"again": given})
        ss[keys.STEPPER_AGAIN] = settings.again
        if settings.again not in choices:
            problems.append(f"`again={clip_text(settings.again)}` is not a leaf with a grad in this program "
                            f"({', '.join(choices[1:]) or 'it has none'}): walked the program's backward")
        say_ignored(problems)
    if ss.get(keys.STEPPER_AGAIN) not in choices:
        ss[keys.STEPPER_AGAIN] = NONE
    (into or st).selectbox("Differentiate again", choices, key=keys.STEPPER_AGAIN, format_func=_again_label,
                           label_visibility="collapsed", disabled=direction is not None or len(choices) == 1)
    again = ss[keys.STEPPER_AGAIN] if direction is None else NONE
    if again:
        st.query_params["again"] = again
    else:
        st.query_params.pop("again", None)
    links.wrote(ss, "again", again or None)
    return again


def _live_again(program, sliders, again):
    """live's walk of Σ grad ``again``'s backward: laid out at the program's own numbers, the poked numbers retexted
    over it (the same drawing; where the poked walk has another structure, its own)."""
    layout = walked(program, (), again)
    n = layout["steps"]["count"]
    _position(n)
    poked = ss.get(keys.POKED, ())
    data, values = layout, None
    if poked:
        moved = walked(program, poked, again)
        data, values = (view_data.over_layout(moved, layout), moved["values"]) \
            if moved["structure"] == layout["structure"] else (moved, None)
    asked = ss.get(keys.JACOBIANS_ASKED, ())
    if asked and n:
        data = view_data.with_jacobians(data, {**data["steps"].get("jacobians", {}),
                                               **walked_jacobians(program, poked, again, asked)})
    settled = not poked or poked == ss.get(keys.STEPPER_SETTLED)
    poke_drawer(program, sliders, (stepped if settled else dragged)(None, program, poked).graph, key=keys.STEPPER_POKE)
    graph_view({k: v for k, v in data.items() if k not in _NOT_SENT}, key=keys.STEPPER_GRAPH,
               options=ss.get(keys.GRAPH_OPTIONS, {}), start=ss[keys.STEPPER_START], values=values,
               on_step=functools.partial(stepped_in_browser, n), on_options=options_changed,
               on_jacobian=jacobian_asked)


def walk_again(program: str, again: str, n: int) -> int:
    """With ``again``: the sentence saying what is walked (under the title) and the walk's number of steps; else
    ``n``, the program's."""
    if not again:
        return n
    with session.failures_shown():
        layout = walked(program, (), again)
        st.info(markdown_safe(layout["sentence"]), icon=":material/replay:")
        return layout["steps"]["count"]
    return 0
