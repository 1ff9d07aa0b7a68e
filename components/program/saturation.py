"""The Explorer's softmax saturation panel (issue 35): a slider that scales the first softmax's logits, the
sentence of what passes back, and the grad's norm against the scale. The numbers come from
explorer/program/saturation.py, evaluated in the sandbox like every program."""

from __future__ import annotations

import streamlit as st

from components.common import session
from explorer.numbers import fmt_number
from explorer.program import keys, saturation
from explorer.words import markdown_safe


def saturation_panel(text: str, poked, graph) -> bool:
    """Draws the panel if the program (its traced ``graph``) has a softmax; says whether it did. Only then is
    anything evaluated (in the sandbox: a failure there is the page's one message)."""
    if not any(node.op == "softmax" for node in graph.nodes):
        return False
    scale = float(st.session_state.get(keys.SATURATION_SCALE, 1.0))
    if scale not in saturation.SCALES:
        scale = st.session_state[keys.SATURATION_SCALE] = 1.0
    data = None
    with session.failures_shown():
        data = session.sandboxed(saturation.panel_data, text, poked, scale)
    if data is None:
        return False
    st.select_slider("Scale the softmax's logits", options=data["scales"], value=data["scale"],
                     key=keys.SATURATION_SCALE, format_func=lambda s: f"× {fmt_number(s)}",
                     help="softmax(s · logits), the mask kept, with the program's own upstream grad: how much grad "
                          "reaches the logits as the head sharpens (large s) or flattens (small s).")
    st.markdown(markdown_safe(data["sentence"]))
    st.plotly_chart({
        "data": [{"type": "scatter", "mode": "lines+markers", "x": data["scales"], "y": data["norms"],
                  "name": "‖grad of the logits‖"},
                 {"type": "scatter", "mode": "markers", "x": [data["scale"]],
                  "y": [data["norm"]], "marker": {"size": 12},
                  "name": "the slider"}],
        "layout": {"height": 220, "margin": {"l": 50, "r": 10, "t": 10, "b": 40}, "showlegend": False,
                   "xaxis": {"type": "log", "title": "logit scale"}, "yaxis": {"title": "‖grad‖"},
                   "template": "plotly_dark" if st.context.theme.type == "dark" else "plotly_white"},
    }, width="stretch", config={"displayModeBar": False})
    return True
