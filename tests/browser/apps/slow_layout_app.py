"""A test app for the graph view's layout budget: a DOT Graphviz takes minutes over (x feeding the 360 adds of four
chains of 90, drawn with every edge, as explorer/graph/dot.py drew it before its tags), a 3-s budget, and a button that
reruns the page (it must answer while Graphviz works)."""

from unittest import mock

import streamlit as st

from autograd.expr import evaluate
from autograd.graph import trace
from components.graph_view import graph_view
from explorer.graph import dot
from explorer.program import view_data as graph_data
from tests.support.helpers import fan_out_program


@st.cache_data
def slow_view() -> dict:
    result = evaluate(fan_out_program(4, 90))
    result.output.backward()
    with mock.patch.object(dot, "LONG_EDGE_BUDGET", 10**9):  # every use an edge: 16,000 virtual nodes for dot
        return graph_data.view_data(trace(result.output))


st.session_state.setdefault("pings", 0)
if st.button("Ping"):
    st.session_state.pings += 1
st.write(f"pings: {st.session_state.pings}")
graph_view(slow_view(), key="slow_graph", layout_seconds=3)
