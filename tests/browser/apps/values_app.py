"""A test app for the graph view's in-place values (the path live sliders take): one program laid out
once, its numbers changed by a slider and sent as `values` over the same layout."""

import streamlit as st

from autograd.expr import evaluate
from autograd.graph import trace
from components.graph_view import graph_view
from explorer.program import view_data as graph_data


def traced(a: float):
    result = evaluate(f"a = {a}\nb = [1.0, -2.0, 0.5]\ny = (a * b).tanh().sum()\n")
    result.output.backward()
    return trace(result.output)


a = st.slider("a", -3.0, 3.0, 1.0, step=0.5)
base = traced(1.0)  # the layout: always the first numbers' DOT
graph_view(graph_data.view_data(base), key="values_graph", values=graph_data.value_texts(traced(a)))
