"""What the pictures need: a traced graph as plain data, and the backward (and forward-mode) pass one step at a time."""

from dataclasses import dataclass

import numpy as np

from autograd.forward import push_tangents
from autograd.tensor import Parameter, Tensor, broadcast_axes, fit_gradient, run_backward, toposort


@dataclass(frozen=True)
class Node:
    id: int  # index in topological order (parents before children)
    name: str  # the tensor's name (Tensor.name), '' if none
    op: str  # '' for leaves
    kind: str  # 'input', 'param', 'const', 'op' or 'output'
    shape: tuple
    dtype: str
    data: np.ndarray
    grad: np.ndarray | None
    parents: tuple  # parent ids in argument order (x * x lists x twice)
    formula: str  # the op's VJP as a formula, '' for leaves
    requires_grad: bool
    data_parents: tuple = ()  # ids of tensors the op reads as data, not differentiated (labels, index tensors)


@dataclass(frozen=True)
class Graph:
    nodes: tuple  # of Node, in topological order, output last
    edges: tuple  # of (parent id, child id), one per argument slot
    output: int

    def __len__(self):
        return len(self.nodes)


def kind_of(t, root):
    """What a tensor is in a drawing of the graph of `root`: output, op, param, input or const."""
    if t is root:
        return "output"
    if t._prim is not None:
        return "op"
    if isinstance(t, Parameter):
        return "param"
    return "input" if t.requires_grad else "const"


def order(output, uses=None):
    """The tensors of `output`'s graph, parents before children (a node's id is its position here).

    `uses` (op result -> the tensors it read as data: cross_entropy's labels, an index tensor), if given,
    puts each such tensor (and what made it) just before its first reader, so the drawings show the data an
    op read beside the inputs it differentiates (the expression language records them: Result.uses).
    """
    tensors = toposort(output, only_grad=False)
    if not uses:
        return tensors
    seen = set(tensors)
    placed = []
    for t in tensors:
        for d in uses.get(t, ()):
            if d not in seen:
                new = [n for n in toposort(d, only_grad=False) if n not in seen]
                seen.update(new)
                placed.extend(new)
        placed.append(t)
    return placed


def _order(output, uses=None):
    tensors = order(output, uses)
    return tensors, {t: i for i, t in enumerate(tensors)}


def _build(tensors, ids, output, uses=None):
    nodes = tuple(
        Node(
            id=i,
            name=t.name or "",
            op=t.op,
            kind=kind_of(t, output),
            shape=tuple(t.shape),
            dtype=str(t.dtype),
            data=t.data,
            grad=t.grad,
            parents=tuple(ids[p] for p in t._parents),
            formula=t._prim.formula if t._prim is not None else "",
            requires_grad=t.requires_grad,
            data_parents=tuple(ids[d] for d in uses.get(t, ()) if d in ids) if uses else (),
        )
        for i, t in enumerate(tensors)
    )
    edges = tuple((p, node.id) for node in nodes for p in (*node.parents, *node.data_parents))
    return Graph(nodes=nodes, edges=edges, output=ids[output])


def trace(output, uses=None):
    """The graph that made `output`: every tensor (constants too), its data, grad and parents, and with
    `uses` the tensors its ops read as data (see `order`)."""
    if not isinstance(output, Tensor):
        raise TypeError(f"trace() needs a Tensor, got {type(output).__name__}")
    tensors, ids = _order(output, uses)
    return _build(tensors, ids, output, uses)


@dataclass(frozen=True)
class Contribution:
    parent: int  # id of the node receiving gradient
    raw: np.ndarray  # what the VJP returned
    grad: np.ndarray  # what is added to the parent, after undoing broadcasting
    summed_axes: tuple  # axes of `raw` summed to undo broadcasting, () if none
    accumulated: np.ndarray  # the parent's gradient after this contribution (running sum)
    fan_out_index: int  # 1 for the first contribution this parent receives, 2 for the second...
    fan_out_total: int  # how many contributions the parent receives in the whole pass


@dataclass(frozen=True)
class Step:
    index: int
    node: int  # id of the node being processed
    op: str
    formula: str
    upstream: np.ndarray  # the node's complete gradient G when it is processed
    contributions: tuple  # of Contribution, in argument order (only parents that need grad)
    plugged: object = None  # what backward_steps' `plugged` hook made of this step's numbers, if given one


def backward_steps(output, seed=None, plugged=None, uses=None):
    """Runs `output.backward(seed)` recording every step; returns (graph with final grads, steps).

    The steps are the engine's own backward pass observed (same order, same sums), so the grads
    they end in are exactly those backward() gives. `plugged(prim, g, out, inputs, meta, need)`, if
    given, is called at each step with what its VJP was called with; what it returns is kept as the
    step's `plugged` (the Backward Stepper writes the rule with the step's numbers put in). `uses`: see `order`.
    """
    tensors, ids = _order(output, uses)
    running = {}
    received = {}
    records = []

    def observe(node, g, raw, pending):
        contributions = []
        for parent, r in zip(node._parents, raw):
            if not parent.requires_grad:
                continue
            sent = fit_gradient(r, parent.data, node.op)
            previous = running.get(parent)
            running[parent] = sent if previous is None else previous + sent
            received[parent] = received.get(parent, 0) + 1
            summed = broadcast_axes(np.shape(r), parent.shape) if np.shape(r) != parent.shape else ()
            contributions.append((ids[parent], r, sent, summed, running[parent], received[parent]))
        note = None
        if plugged is not None:
            inputs = tuple(p.data for p in node._parents)
            need = tuple(p.requires_grad for p in node._parents)
            note = plugged(node._prim, g, node.data, inputs, node._meta or {}, need)
        records.append((ids[node], node.op, node._prim.formula, g, contributions, note))

    run_backward(output, seed, observer=observe)
    totals = {ids[t]: n for t, n in received.items()}
    steps = tuple(
        Step(
            index=k,
            node=node_id,
            op=op,
            formula=formula,
            upstream=g,
            contributions=tuple(
                Contribution(pid, r, sent, summed, acc, index, totals[pid])
                for pid, r, sent, summed, acc, index in contributions
            ),
            plugged=note,
        )
        for k, (node_id, op, formula, g, contributions, note) in enumerate(records)
    )
    return _build(tensors, ids, output, uses), steps



@dataclass(frozen=True)
class ForwardStep:
    """One node of a forward-mode pass: its JVP turned the tangents its parents carried into its own."""

    index: int
    node: int  # id of the node computed
    op: str
    formula: str  # the op's JVP as a formula (Primitive.jvp_formula)
    received: tuple  # per argument slot: (parent id, the parent's tangent or None when it carries none)
    tangent: np.ndarray  # the node's tangent, J·v, in its shape
    plugged: object = None  # what forward_steps' `plugged` hook made of this step's numbers, if given one


def forward_steps(output, seeds, plugged=None, uses=None):
    """The forward-mode pass from `seeds` ({leaf Tensor: tangent}) to `output`, recorded node by node in
    topological order: (graph, steps, tangents by node id, the seeds included).

    The steps are the engine's own sweep observed (autograd.forward.push_tangents), so the tangents they end in
    are exactly those autograd.func.jvp gives. `plugged(prim, tangents, out, inputs, meta)`, if given, is called
    at each step with what its JVP was called with; what it returns is kept as the step's `plugged`. `uses`: see
    `order` (with the same `uses`, the nodes have the ids backward_steps gives them).
    """

    order, ids = _order(output, uses)
    records = []

    def observe(node, given, tangent):
        note = None
        if plugged is not None:
            note = plugged(node._prim, given, node.data, tuple(p.data for p in node._parents), node._meta or {})
        received = tuple((ids[p], t) for p, t in zip(node._parents, given))
        records.append((ids[node], node.op, node._prim.jvp_formula, received, tangent, note))

    tangents = push_tangents(toposort(output), seeds, observer=observe)
    steps = tuple(
        ForwardStep(index=k, node=node_id, op=op, formula=formula, received=received, tangent=tangent, plugged=note)
        for k, (node_id, op, formula, received, tangent, note) in enumerate(records)
    )
    return _build(order, ids, output, uses), steps, {ids[t]: v for t, v in tangents.items() if t in ids}

def grads_at(graph, steps, k):
    """The gradient known for each node once steps[0..k-1] have run (k = 0: just the output's seed)."""
    if not 0 <= k <= len(steps):
        raise IndexError(f"step {k} is outside 0..{len(steps)}")
    grads = {}
    if steps:
        grads[graph.output] = steps[0].upstream
    elif graph.nodes[graph.output].grad is not None:
        grads[graph.output] = graph.nodes[graph.output].grad
    for step in steps[:k]:
        for c in step.contributions:
            grads[c.parent] = c.accumulated
    return grads
