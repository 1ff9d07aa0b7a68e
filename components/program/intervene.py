"""The Explorer's interventions, under the node inspector: detach the node, make its backward the identity, scale or
clip its grad, or override its value, with the gradient's prediction of the override's effect against the actual one.
The words, numbers and figure come from explorer/program/intervene.py; the applied interventions live in the URL
(``intervene=name:kind[:amount],...``) by the program pages' rule (explorer/links.py)."""

from __future__ import annotations

import html

import streamlit as st

from components.common import session
from explorer import links
from explorer.numbers import fmt_number
from explorer.program import intervene as iv
from explorer.program import keys
from explorer.words import markdown_safe

ss = st.session_state
PARAM = "intervene"
NEEDS_A_NAME = ("Interventions act on a named tensor: pick a box that a line of the program names (`h = …`). "
                "For a name bound more than once, they act on its last binding.")


def _applied() -> tuple:
    """The applied interventions: a link's, unless this session wrote it (its bad parts said, the rest kept)."""
    given = st.query_params.get(PARAM)
    if links.link_wins(ss, PARAM, given):
        items, problems = iv.read_list(given)
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
