"""The Backward Stepper's walk of a backward's backward (issue 32): "differentiate again" picks a leaf's grad (or
Σ of every leaf's grad), summed, as a new output; its backward runs through the forward pass's nodes and those the
first backward made, and the Stepper walks it step by step as it walks any program's backward. No Streamlit.

    w = walk(text, poked, "x")      # Walk: the second-order graph, its backward's steps, each node's layer
    w.view                          # the graph view's data (explorer.program.view_data's, stepper=True), with orders
    w.grads                         # leaf name -> its grad at the end of the walk: a second derivative (H·1)

The graph is written as a graph, not as a program: the first backward's nodes are unnamed temporaries (``mul #12``)
that a program could not bind. Its boxes carry their layer as the backward view's (class ``order-<n>``: 1 the
forward pass, 2 the nodes the first backward made, the new output among them).
"""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import numpy as np

from autograd.graph import backward_steps, trace
from autograd.graph import order as graph_order
from explorer import numbers
from explorer.graph import dot as dotmod
from explorer.graph import names
from explorer.program import backward_view, jacobian_view, view_data
from explorer.program.rules import plugged_rule


@dataclasses.dataclass(frozen=True)
class Walk:
    """The second backward, recorded step by step: ``graph`` (autograd.graph.Graph: the forward and the first
    backward's nodes, grads those the second backward left), ``steps`` (autograd.graph.Step per VJP), ``orders``
    (node id -> layer), ``output`` (what was differentiated again, in words), ``constant`` (the grad chosen is a
    constant: nothing to walk), ``grads`` (leaf name -> its second-order grad)."""

    graph: object
    steps: tuple
    orders: dict
    output: str
    constant: bool
    grads: dict


def _walk_tensors(text: str, poked: tuple, again: str):
    """(Walk, the tensors by node id, the run's uses): see walk."""
    drawn, _, result, bg = backward_view.layers(text, poked, again)
    if drawn is bg:  # the grad chosen is a constant (the program is linear in what it depends on)
        total = backward_view.again_output(bg, result, again)
        graph = trace(total)
        return Walk(graph, (), {n.id: 2 for n in graph.nodes}, total.name, True, {}), [total], result.uses
    new_output = drawn.tensors[drawn.output]
    tensors = graph_order(new_output, result.uses)
    graph, steps = backward_steps(new_output, plugged=plugged_rule, uses=result.uses)
    first = {t: bg.nodes[i] for i, t in enumerate(bg.tensors)}
    orders = {i: first[t].order if t in first else 2 for i, t in enumerate(tensors)}
    nodes = []
    for node, t in zip(graph.nodes, tensors):
        was = first.get(t)
        if was is not None and was.kind == "grad":  # a leaf's grad, an output of the first backward
            node = dataclasses.replace(node, name=was.name, kind="grad")
        elif orders[node.id] == 2 and node.kind == "op":
            node = dataclasses.replace(node, kind="backward")
        nodes.append(node)
    graph = dataclasses.replace(graph, nodes=tuple(nodes))
    leaves = [bg.tensors[leaf] for leaf, g in bg.grads if g is not None]
    grads = {t.name: (np.zeros(t.shape) if t.grad is None else np.array(t.grad)) for t in leaves}
    return Walk(graph, steps, orders, new_output.name, False, grads), tensors, result.uses


def walk(text: str, poked: tuple = (), again: str = "") -> Walk:
    """The backward of Σ grad ``again`` (backward_view.ALL: of every leaf's grad) of ``text`` at ``poked``, recorded
    as backward() of a program is (autograd.graph.backward_steps, each step's rule with its numbers). Raises
    backward_view.NoBackward when the program has no backward, ValueError when ``again`` names no leaf's grad."""
    return _walk_tensors(text, poked, again)[0]


def sentence(w: Walk) -> str:
    """What the Stepper walks, in one sentence (said at its top)."""
    if w.constant:
        return (f"Walking the backward of `{w.output}`: here that grad is a constant (the program is linear in "
                "what it depends on), so there is nothing to step through and every second derivative is 0.")
    return (f"Walking the backward of `{w.output}` (a grad the backward made, summed) through the forward's boxes and "
            "the red ones the backward made: each leaf's grad at the end is a second derivative (H·1).")


def walk_view(text: str, poked: tuple = (), again: str = "") -> dict:
    """The Stepper's data for walk(text, poked, again): view_data(..., stepper=True) with each box's layer (class
    ``order-<n>`` in the DOT, ``order`` in its tooltip; the graph view sets data-order from it), the steps' Jacobian
    views within their budget, ``sentence``, and ``values`` (the boxes' texts, for a drawing laid out at other
    numbers: explorer.program.view_data.value_texts)."""
    w, tensors, uses = _walk_tensors(text, poked, again)
    data = view_data.view_data(w.graph, w.steps, stepper=True)
    dot = backward_view.with_orders(data["dot"], w.orders)
    boxes = {b: info | {"order": w.orders.get(int(b), 1)} for b, info in data["boxes"].items()}
    data = data | {"dot": dot, "key": view_data._key(dot), "boxes": boxes,
                   "orders": {b: w.orders.get(int(b), 1) for b in data["boxes"]}}
    if w.steps:
        views = jacobian_view.budgeted_views(w.graph, SimpleNamespace(output=tensors[-1], uses=uses))
        data = view_data.with_jacobians(data, views)
    return data | {"sentence": sentence(w), "values": view_data.value_texts(w.graph),
                   "structure": [[n.op, n.kind, list(n.shape), list(n.parents)] for n in w.graph.nodes]}


def walk_jacobians(text: str, poked: tuple, again: str, only: tuple) -> dict:
    """The Jacobian views of the walk's nodes ``only`` (those the browser asked for, past the budget)."""
    w, tensors, _ = _walk_tensors(text, poked, again)
    return {str(n): jacobian_view.graph_node_view(w.graph, tensors, n) for n in only if 0 <= n < len(tensors)}


# ----------------------------------------------------------------------------- the backward graph's boxes


def inspect_box(text: str, poked: tuple = (), again: str = "", box: int | None = None) -> dict:
    """What the Explorer's inspector shows of one box of the backward as a graph (backward_view's drawing of
    ``text`` at ``poked``, differentiated ``again``): its heading, layer, op, VJP formula, inputs, value and, after
    differentiating again, its grad from that second backward (None for the nodes that second backward made).
    ``box`` None (or not a box) picks the drawing's output. ``choices``: every node, (id, its line), to pick from."""
    drawn, orders, result, bg = backward_view.layers(text, poked, again)
    graph, orders = backward_view.as_drawn(drawn, orders)
    box = box if isinstance(box, int) and 0 <= box < len(graph.nodes) else graph.output
    node, grad, grad_note = graph.nodes[box], None, ""
    if again and drawn is not bg:
        new_output = drawn.tensors[drawn.output]
        new_output.backward()  # NOTE: a fresh run (layers'): its .grads are this backward's alone
        t = drawn.tensors[box]
        if orders[box] == 3:
            grad_note = "a node the second backward made: it has no grad of its own in that backward"
        elif t.grad is None:
            grad_note = f"{new_output.name} does not depend on it: no grad reaches it"
        else:
            grad = np.array(t.grad)
    elif again:
        grad_note = backward_view.CONSTANT.strip()
    label = names.node_label
    return {
        "box": box,
        "heading": names.node_heading(node),
        "kind": node.kind,
        "order": orders[box],
        "layer": backward_view.ORDER_WORDS[orders[box]],
        "op": node.op,
        "formula": node.formula,
        "shape": numbers.shape_dtype_text(node.shape, node.dtype),
        "inputs": [f"{label(graph.nodes[p])}  ·  {numbers.shape_text(graph.nodes[p].shape)}" for p in node.parents],
        "value": numbers.array_text(node.data),
        "grad": None if grad is None else numbers.array_text(grad),
        "grad_note": grad_note,
        "output": drawn.nodes[drawn.output].name if again and drawn is not bg else "",
        "choices": [(n.id, names.node_choice(n)) for n in graph.nodes],
    }


def download_dot(text: str, poked: tuple = (), again: str = "", show: tuple = dotmod.PARTS, rankdir: str = "TB") -> str:
    """The DOT of the backward as a graph as the Explorer shows it (every box, with its layer's class), with the
    graph view's options: the parts ``show``n and the direction; the values are data cells (the grads are boxes of
    their own)."""
    drawn, orders, _, _ = backward_view.layers(text, poked, again)
    graph, orders = backward_view.as_drawn(drawn, orders)
    return backward_view.with_orders(dotmod.to_dot(graph, show_data="data" in show, show_grad=False,
                                                   show_shape="shape" in show, rankdir=rankdir, max_nodes=None),
                                     orders)
