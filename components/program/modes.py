"""Reverse or forward mode, and forward mode's direction v, for both program pages: kept in the session (the
Explorer and the Stepper share them, as they share the program) and in the URL (``mode``, ``v``)."""

from __future__ import annotations

import html
import math

import streamlit as st

from components.common import session
from components.common.link_warnings import say_ignored
from explorer import links
from explorer.program import forward_mode, keys, stepper
from explorer.words import markdown_safe

ss = st.session_state
#: Elements of an input listed one by one in the element picker; past it, a number box takes the index.
LISTED = 256


def wanted() -> str | None:
    """The direction's URL form in forward mode, None in reverse mode.

    A link's ``mode`` and ``v`` (ones this session did not write) win over the session's, as a link's program does;
    what the link got wrong is warned of (forward_mode.mode_from_link). The session's choice is then written to
    the URL, so the address reproduces the page."""
    query = st.query_params
    link = (query.get("mode"), query.get("v"))
    if links.link_wins(ss, "ad", link):
        mode, direction, problems = forward_mode.mode_from_link(*link)
        ss[keys.AD_MODE], ss[keys.AD_V] = mode, direction.text
        say_ignored(problems)
    mode = ss.setdefault(keys.AD_MODE, "reverse")
    v = ss.setdefault(keys.AD_V, forward_mode.ONES.text)
    if mode == "forward":
        query["mode"], query["v"] = mode, v
    else:
        query.pop("mode", None)
        query.pop("v", None)
    links.wrote(ss, "ad", (query.get("mode"), query.get("v")))
    return v if mode == "forward" else None


def sandboxed(page_run, direction: str | None, text: str, poked: tuple = ()):
    """``page_run(text, poked, direction)`` (explorer.program.page_data's explorer_run, stepper_run, drag_run or
    stepper_drag_run) in the session's sandbox: a page's evaluation in its mode."""
    return session.sandboxed(page_run, text, poked, direction)


def _mode_changed(key: str) -> None:
    ss[keys.AD_MODE] = ss[key] or "reverse"


def _v_changed(key: str, element_key: str) -> None:
    choice = ss[key]
    if choice.startswith("element:"):
        ss[element_key] = 0
        ss[keys.AD_V] = f"{choice}:0"
    else:
        ss[keys.AD_V] = choice


def _element_changed(name: str, element_key: str) -> None:
    ss[keys.AD_V] = f"element:{name}:{int(ss[element_key])}"


def _sync(key: str, value) -> None:
    """A widget shows the session's value (changed elsewhere: the other page, a link) without a default."""
    if ss.get(key) != value:
        ss[key] = value


def switch(page: str, inputs: dict[str, tuple]) -> None:
    """The switch ``reverse (VJP) | forward (JVP)`` and, in forward mode, the direction v over the program's
    ``inputs`` (forward_mode.input_shapes). Keys are ``page``'s; the values are the session's."""
    mode_key, v_key, element_key = keys.mode_switch(page)
    forward = ss.get(keys.AD_MODE) == "forward"
    box = st.container(key=keys.modes(page))
    _sync(mode_key, ss.get(keys.AD_MODE, "reverse"))
    box.segmented_control(
        "Mode", list(forward_mode.MODES), format_func=forward_mode.MODES.get, required=True, key=mode_key,
        on_change=_mode_changed, args=(mode_key,),
        help="Reverse mode (backward()) sends the output's grad back to every input: one VJP per node, children "
             "first. Forward mode pushes a tangent v from the inputs forward: one JVP per node, parents first; "
             "each box then shows its tangent, the derivative of its value along v.")
    if not forward:
        return
    with box:  # NOTE: under the switch, not beside it: in the Explorer's dock beside the graph it was cut off
        middle, right = st.columns([1.3, 1], vertical_alignment="bottom")
    direction = forward_mode.parse_direction(ss.get(keys.AD_V))
    if forward_mode.direction_problem(direction, inputs):
        direction = forward_mode.ONES  # the page's run said why (its note); the picker shows what it took
    elif direction.kind == "element" and math.prod(inputs[direction.name]) == 1:
        direction = forward_mode.Direction("input", direction.name)  # its one element: the same v
    choices = ["ones"] + [f"input:{name}" for name in inputs]
    choices += [f"element:{name}" for name, shape in inputs.items() if math.prod(shape) > 1]
    chosen = direction.text if direction.kind != "element" else f"element:{direction.name}"
    _sync(v_key, chosen if chosen in choices else "ones")
    middle.selectbox("Direction v", choices, format_func=_choice_label, key=v_key, on_change=_v_changed,
                     args=(v_key, element_key),
                     help="The tangent pushed from the inputs: forward mode gives each node's derivative along it.")
    if direction.kind == "element":
        shape = inputs[direction.name]
        size = math.prod(shape)
        _sync(element_key, direction.index)
        label = f"Element of {direction.name}"
        args = (direction.name, element_key)
        if size <= LISTED:
            right.selectbox(label, range(size), key=element_key, on_change=_element_changed, args=args,
                            format_func=lambda i: forward_mode.place_text(direction.name, shape, i))
        else:
            right.number_input(label, 0, size - 1, step=1, key=element_key, on_change=_element_changed, args=args,
                               help=f"Counted in row-major order, as {direction.name}.reshape(-1) does.")


def _choice_label(choice: str) -> str:
    kind, _, name = choice.partition(":")
    return {"ones": "all ones", "input": f"ones in {name}", "element": f"one element of {name}"}[kind]


def meeting(run) -> None:
    """Forward mode's line under the graph: where the two modes meet on the output (∂f/∂v against ∇f · v), with
    the direction, and why it is not the one asked for when it is not."""
    if run.note:  # the v asked for (a link's, or kept while the program changed) did not fit: said, not hidden
        st.warning(markdown_safe(run.note), icon=":material/info:")
    line = run.meeting
    tone = "ok" if line.agree else "off"
    st.html(
        f'<div class="ad-meeting ad-meeting-{tone}" data-testid="ad-meeting" data-agree="{int(line.agree)}" '
        f'data-forward="{line.forward!r}" data-reverse="{line.reverse!r}" data-v="{html.escape(run.direction.text)}">'
        f'<span class="ad-meeting-v">{html.escape(run.described)}</span>'
        f'<span class="ad-meeting-line">{html.escape(line.text)}</span>'
        f'<span class="ad-meeting-verdict">{"equal" if line.agree else "they differ"}</span></div>'
        "<style>.ad-meeting {display: flex; flex-wrap: wrap; gap: 0.15rem 0.9rem; align-items: baseline; "
        "font-size: 0.875rem; padding: 0.3rem 0.7rem; border-radius: 0.5rem; "
        "border: 1px solid var(--st-green-color, #16a34a)} "
        ".ad-meeting-line {font-family: 'Source Code Pro', monospace; font-size: 0.82rem} "
        ".ad-meeting-v {opacity: 0.7} "
        ".ad-meeting-verdict {margin-left: auto; font-weight: 600; color: var(--st-green-text-color, #15803d)} "
        ".ad-meeting-off {border-color: var(--st-red-color, #dc2626)} "
        ".ad-meeting-off .ad-meeting-verdict {color: var(--st-red-text-color, #b91c1c)}</style>"
    )


def explained(forward: bool) -> None:
    """What the walk the page shows does, step by step with its formulas (backward()'s or forward mode's)."""
    with st.expander("What forward mode does" if forward else "What backward() does"):
        for words, formula in forward_mode.FORWARD_EXPLAINED if forward else stepper.BACKWARD_EXPLAINED:
            st.markdown(words)
            st.latex(formula)
