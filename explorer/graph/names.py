"""How the pages name a graph and its nodes: a caption, a node's label, heading and choice line."""

from __future__ import annotations

import numpy as np

from explorer.numbers import fmt_number, shape_dtype_text
from explorer.words import counted


def graph_caption(graph, max_drawn: int) -> str:
    """The line under a graph: how many tensors and edges, and how it is drawn when there are too many."""
    caption = f"{counted(len(graph.nodes), 'tensor')}, {counted(len(graph.edges), 'edge')}."
    if len(graph.nodes) > max_drawn:
        caption += (f" Too many to read at once: chains of elementwise ops are collapsed and at most {max_drawn}"
                    " boxes nearest the output are drawn (the downloads hold the same picture).")
    return caption


def node_label(node) -> str:
    """How the pages name a node: its variable name, else its op and id (``mul #5``)."""
    if node.name:
        return node.name
    if node.op:
        return f"{node.op} #{node.id}"
    return f"{node.kind} #{node.id}"


def node_heading(node) -> str:
    """A node named as its box's title reads: ``d = mul`` for a named op, else ``node_label``."""
    return f"{node.name} = {node.op}" if node.name and node.op else node_label(node)


def node_choice(node) -> str:
    """A selectbox line for a node: ``d = mul  ·  op, (3, 4)``; a scalar shows its value, as its
    box does (``c = add  ·  op, scalar = -2``), which tells apart the nodes of ``c += ...``."""
    value = f" = {fmt_number(np.asarray(node.data).item())}" if np.size(node.data) == 1 else ""  # (1,), (1, 1) too
    return f"{node_heading(node)}  ·  {node.kind}, {shape_dtype_text(node.shape, node.dtype)}{value}"
