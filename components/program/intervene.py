"""The Explorer's interventions, under the node inspector: detach the node, make its backward the identity, scale or
clip its grad, or override its value, with the gradient's prediction of the override's effect against the actual one.
The words, numbers and figure come from explorer/program/intervene.py; the applied interventions live in the URL
(``intervene=name:kind[:amount],...``) by the program pages' rule (explorer/links.py)."""

from __future__ import annotations

import html

import streamlit as st

from components.common import session
from components.common.st_internals import in_fragment_rerun
from explorer import links
from explorer.numbers import fmt_number
from explorer.program import intervene as iv
from explorer.program import keys
from explorer.words import clip_text, markdown_safe

ss = st.session_state
PARAM = "intervene"
NEEDS_A_NAME = ("Interventions act on a named tensor: pick a box that a line of the program names (`h = …`). "
                "For a name bound more than once, they act on its last binding.")


def _applied(say: bool = True) -> tuple:
    """The applied interventions: a link's, unless this session wrote it (its bad parts said, the rest kept); without
    ``say``, read only (the panel takes the link's in and says what it could not read)."""
    given = st.query_params.get(PARAM)
    if links.link_wins(ss, PARAM, given):
        items, problems = iv.read_list(given)
        if not say:
            return tuple(items)
        ss[keys.INTERVENTIONS] = tuple(items)
        links.wrote(ss, PARAM, given)
        for problem in links.said_once(problems):
            st.warning(links.ignored(problem), icon=":material/link_off:")
    return tuple(ss.get(keys.INTERVENTIONS, ()))


def _write(items: tuple) -> None:
    ss[keys.INTERVENTIONS] = items
    text = iv.write_list(items)
    if text:
        st.query_params[PARAM] = text
    else:
        st.query_params.pop(PARAM, None)
    links.wrote(ss, PARAM, text or None)


def _apply(item) -> None:
    kept = tuple(i for i in ss.get(keys.INTERVENTIONS, ()) if i.name != item.name)  # one per tensor: the newest
    _write((*kept, item))


def _clear() -> None:
    _write(())


def _remove(name: str) -> None:
    _write(tuple(i for i in ss.get(keys.INTERVENTIONS, ()) if i.name != name))


def _marker(page_run, words: str = "", marks: dict | None = None):
    """The function that completes the view's data where the graph goes: it writes ``words`` (above the graph), and
    adds the boxes' intervention marks and, on a full run, their saved bytes (the boxes keep them between a
    fragment's reruns, which send numbers only)."""
    saves = None if in_fragment_rerun() else getattr(page_run, "saves", None)

    def marked(data: dict) -> dict:
        if words:
            st.caption(words)
        extra = {"interventions": marks} if marks is not None else {}
        return {**data, **extra, **({"saves": saves} if saves else {})}
    return marked


def on_graph(program: str, graph, page_run, poked):
    """What the Explorer's main graph draws: (the graph whose numbers retext the boxes, or None for the drawing's
    own; a function of the view's data, called where the graph goes, that says a line above it and adds the boxes'
    marks and saved bytes: _marker). With interventions applied (reverse mode), the run with them on the program's
    own boxes (explorer/program/intervene.py: on_boxes)."""
    drawn = None if poked is None else (poked.forward or poked).graph  # forward mode draws tangents
    applied = _applied(say=False)
    if not applied:
        return drawn, _marker(page_run)
    if page_run.forward is not None:
        return drawn, _marker(page_run, "Forward mode draws the program as written: the interventions show in "
                                        "reverse mode.")
    try:
        boxes = session.sandboxed(iv.on_boxes, program, applied, tuple(ss.get(keys.POKED) or ()))
        intervened = iv.drawn_graph(graph, boxes)
    except Exception as exc:  # noqa: BLE001 - the program as written is drawn; the panel says what went wrong
        return drawn, _marker(page_run, "The graph shows the program as written: the run with the interventions "
                                        "did not work (" + markdown_safe(clip_text(str(exc))) + ").")
    return intervened, _marker(page_run, iv.graph_caption(applied), boxes.marks)


def intervention_panel(program: str, graph) -> None:
    """Under the inspector: the intervention on the inspected node, and what the applied ones do."""
    st.markdown("**Intervene on this node**")
    applied = _applied()
    node_id = ss.get(keys.NODE)
    node = graph.nodes[node_id] if node_id in range(len(graph.nodes)) else graph.nodes[graph.output]
    candidate = None
    if not node.name or iv.last_assignment(program, node.name) is None:
        st.caption(NEEDS_A_NAME)
    else:
        kind = st.selectbox(f"What to do to {node.name}", list(iv.KINDS), key=keys.INTERVENE_KIND,
                            format_func=lambda k: iv.KINDS[k][0])
        _, takes, label, default = iv.KINDS[kind]
        amount = st.number_input(label.strip(" =×") or "amount", value=float(default), step=0.1,
                                 key=keys.intervene_amount(kind)) if takes else 0.0
        try:
            candidate = iv.Intervention(node.name, kind, float(amount))
        except ValueError as exc:
            st.warning(markdown_safe(str(exc)))
        if candidate is not None:
            st.button(f"Apply to {node.name}", on_click=_apply, args=(candidate,), icon=":material/content_cut:")
    data = None
    with session.failures_shown(program):
        data = session.sandboxed(iv.panel_data, program, applied, candidate)
    if data is None:
        if applied:
            st.button("Clear the interventions", on_click=_clear)
        return
    _prediction(data["prediction"])
    if applied:
        st.markdown("Applied: " + "; ".join(markdown_safe(i.describe()) for i in applied))
        st.caption(f"The output's sum: {fmt_number(data['plain_output'])} without them, "
                   f"{fmt_number(data['output'])} with them.")
        st.table(data["rows"])
        for item in applied if len(applied) > 1 else ():
            st.button(f"Remove {item.name}: {iv.badge(item)}", on_click=_remove, args=(item.name,),
                      key=keys.intervene_remove(item.name), icon=":material/close:")
        st.button("Clear the interventions", on_click=_clear, icon=":material/undo:")


def _prediction(p: dict | None) -> None:
    """The override's hook (``data-testid="intervention"`` with ``data-predicted``, ``data-actual``), its words
    and the plot of predicted against actual along the override's path."""
    attrs = "" if p is None else f' data-predicted="{p["predicted"]!r}" data-actual="{p["actual"]!r}"'
    st.html(f'<div data-testid="intervention"{attrs} data-name="{html.escape(p["name"]) if p else ""}"></div>')
    if p is None:
        return
    st.markdown(markdown_safe(p["describe"]) + ". " + p["words"])
    st.plotly_chart(iv.figure(p, st.context.theme.type == "dark"), width="stretch", config={"displayModeBar": False})
