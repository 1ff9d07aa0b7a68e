"""The backward pass as a graph of its own (issue 32): the data "Show the backward as a graph" draws. No Streamlit.

    g = backward_graph(result.output)        # the forward graph and, around it, the nodes the backward made
    [n for n in g.nodes if n.order == 2]     # G ⊙ B, Gᵀ @ ..., sum-to-shape, ...: the backward's own nodes
    g.grads                                  # (leaf id, the id of its grad, an output of the graph) per leaf
    backward_graph(g.tensors[grad_id])       # differentiate again: the backward of both layers

The backward pass is run by autograd.grad(create_graph=True), so each VJP records its gradient from the
primitives; the nodes it made are those of the gradients' graphs that the forward graph does not hold. Each
grad's value is the engine's gradient (what backward() puts in the leaf's .grad); nothing is written to .grad.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from autograd import grad
from autograd.graph import kind_of
from autograd.graph import order as forward_order
from autograd.tensor import Tensor, toposort

FORWARD, BACKWARD = 1, 2  # a node's `order` (the graph view's data-order)


@dataclass(frozen=True)
class BackwardNode:
    id: int  # position in `nodes`: the forward's nodes first (parents before children), then the backward's
    name: str  # a forward node's name (Tensor.name); a grad's "grad <leaf name>" (", "-joined if shared); else ''
    op: str  # '' for leaves and constants
    kind: str  # 'input', 'param', 'const', 'op', 'output' (the forward's output) or 'grad' (a leaf's grad)
    order: int  # FORWARD (1): the forward pass made it; BACKWARD (2): the backward pass did
    shape: tuple
    dtype: str
    value: np.ndarray
    parents: tuple  # parent ids in argument order
    formula: str  # the op's VJP as the Stepper shows it ('' for leaves)


@dataclass(frozen=True)
class BackwardGraph:
    nodes: tuple  # of BackwardNode
    edges: tuple  # (parent id, child id), one per argument slot
    output: int  # the forward output's id
    grads: tuple  # (leaf id, its grad's id) per leaf that requires grad, in the forward's order
    tensors: tuple = field(default=(), compare=False, repr=False)  # the Tensor of each node, to differentiate again

    def forward(self):
        return [n for n in self.nodes if n.order == FORWARD]

    def backward(self):
        return [n for n in self.nodes if n.order == BACKWARD]


def _kind(t, output, grad_of):
    return "grad" if t in grad_of else kind_of(t, output)


def backward_graph(output, inputs=None, uses=None):
    """The forward graph of `output` and the nodes its backward pass creates under create_graph.

    `inputs` (Tensors requiring grad) are the leaves whose grads are the backward's outputs; by default every
    leaf of the graph that requires grad. `uses` as autograd.graph.trace takes it (the data an op read).
    Raises ValueError when `output` does not require grad (there is no backward pass to draw).
    """
    if not isinstance(output, Tensor):
        raise TypeError(f"backward_graph() needs a Tensor, got {type(output).__name__}")
    if not output.requires_grad:
        raise ValueError("the output does not depend on anything that requires grad: there is no backward pass")
    forward = forward_order(output, uses)
    if inputs is None:
        inputs = [t for t in forward if t._prim is None and t.requires_grad]
    # NOTE: an input the output does not depend on (x in Σ grad x of a linear layer: relu's mask is a constant) is
    # still a leaf of the picture, with no grad
    inputs = list(inputs)
    seen = set(forward)
    forward = list(forward) + [x for x in dict.fromkeys(inputs) if x not in seen]
    grads = grad(output, list(inputs), create_graph=True, allow_unused=True)
    tensors, ids = list(forward), {t: i for i, t in enumerate(forward)}
    for g in grads:
        if g is None:
            continue
        for t in toposort(g, only_grad=False):
            if t not in ids:
                ids[t] = len(tensors)
                tensors.append(t)
    # NOTE: one Tensor may be the grad of several leaves (a + b passes G on to both): it is named after each.
    grad_of = {}
    for x, g in zip(inputs, grads):
        if g is not None and ids[g] >= len(forward):
            grad_of.setdefault(g, []).append(x)
    nodes = tuple(
        BackwardNode(
            id=i,
            name=", ".join(f"grad {x.name or ids[x]}" for x in grad_of[t]) if t in grad_of else (t.name or ""),
            op=t.op,
            kind=_kind(t, output, grad_of),
            order=FORWARD if i < len(forward) else BACKWARD,
            shape=tuple(t.shape),
            dtype=str(t.dtype),
            value=t.data,
            parents=tuple(ids[p] for p in t._parents),
            formula=t._prim.formula if t._prim is not None else "",
        )
        for i, t in enumerate(tensors)
    )
    edges = tuple((p, node.id) for node in nodes for p in node.parents)
    pairs = tuple((ids[x], None if g is None else ids[g]) for x, g in zip(inputs, grads))
    return BackwardGraph(nodes=nodes, edges=edges, output=ids[output], grads=pairs, tensors=tuple(tensors))
