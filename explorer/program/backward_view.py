"""What the Explorer's "Show the backward as a graph" draws (issue 32): a program's backward pass as a graph of its
own, forward and backward in one picture, and "differentiate again" through both layers. No Streamlit.

    data = backward_view(text, poked)            # the graph view's data (explorer.program.view_data's format)
    data = backward_view(text, poked, again="x") # ... of Σ grad x differentiated again: three layers
    second_order(text, poked, "x")               # the second-order grads, each checked

The boxes carry their layer as a class ``order-<n>`` in the DOT (the graph view sets ``data-order`` from it): 1 for
the forward pass, 2 for the nodes the backward pass made (G ⊙ B, Gᵀ @ …, sum-to-shape) with each leaf's grad an
output, and, differentiated again, 3 for the nodes that second backward made.
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np

from autograd import grad as autograd_grad
from autograd import no_grad
from autograd.graph import Graph, Node
from explorer import numbers
from explorer.graph import dot as dotmod
from explorer.program import poke
from explorer.program.backward_graph import backward_graph
from explorer.program.view_data import _key, _legend, _tip
from explorer.settings import read_query, rows, setting
from language import compile_program

#: Boxes drawn at most: a bigger backward graph keeps those nearest the grads, under a notice that says so.
MAX_DRAWN = 240
#: "Differentiate again" of every leaf's grad at once: Σ over the leaves of Σ grad · u, u all ones.
ALL = "all"
#: Central differences check the second-order grads of programs with at most this many input numbers.
FD_MOST = 64
FD_EPS = 1e-5
#: Each layer's words: the legend chip's tone comes from the kind (explorer/graph/dot.py's LEGEND).
ORDER_WORDS = {1: "the forward pass", 2: "the backward pass", 3: "the backward of the backward"}


def _on(text: str) -> bool:
    if text not in ("0", "1"):
        raise ValueError("0 or 1")
    return text == "1"


@dataclasses.dataclass(frozen=True)
class BackwardSettings:
    """The switch and the choice of what to differentiate again, as the URL keeps them (``backward=1&again=x``)."""

    backward: bool = setting(False, "Show the backward as a graph", "select", choices=(False, True), reads=_on,
                             writes=lambda on: "1" if on else "0")
    again: str = setting("", "Differentiate again", "text")


SETTINGS = rows(BackwardSettings)
PARAMS = tuple(s.name for s in SETTINGS)


class NoBackward(ValueError):
    """The program's output depends on nothing that requires grad: there is no backward pass to draw."""


def _result(text: str, poked: tuple = ()):
    program = compile_program(text)
    own = None
    if poked:
        with no_grad():
            own = program.run().inputs
    return program.run(inputs=poke.resolve(program, poked, own))


def choices(bg) -> list[str]:
    """What "differentiate again" offers for a BackwardGraph: each leaf whose grad the backward made (by name), then
    ALL."""
    names = [bg.tensors[leaf].name for leaf, g in bg.grads if g is not None and bg.tensors[leaf].name]
    return names + ([ALL] if len(names) > 1 else [])


def again_output(graph, result, again: str):
    """The new scalar output: Σ grad ``again`` (its grad times ones), or with ALL Σ over every leaf's grad."""
    by_leaf = {graph.tensors[leaf].name: grad_id for leaf, grad_id in graph.grads if grad_id is not None}
    picked = list(by_leaf) if again == ALL else [again]
    if not picked or any(name not in by_leaf for name in picked):
        raise ValueError(f"there is no grad of {again!r} to differentiate again: choose one of "
                         f"{', '.join(choices(graph)) or 'none'}")
    total = None
    for name in picked:
        term = graph.tensors[by_leaf[name]].sum()
        total = term if total is None else total + term
    total.name = "Σ grad " + (" + Σ grad ".join(picked) if len(picked) < 4 else "(every leaf)")
    return total


def as_drawn(bg, orders: dict[int, int] | None = None) -> tuple[Graph, dict[int, int]]:
    """A BackwardGraph as a traced Graph the DOT writer draws (every value a data cell: the grads are boxes of
    their own), and each node's layer. ``orders`` (node id -> layer) overrides bg's own."""
    orders = orders or {n.id: n.order for n in bg.nodes}
    nodes = []
    for n in bg.nodes:
        kind = n.kind
        if orders[n.id] > 1 and kind in ("op", "output"):
            kind = "backward"
        nodes.append(Node(id=n.id, name=n.name, op=n.op, kind=kind, shape=n.shape, dtype=n.dtype, data=n.value,
                          grad=None, parents=n.parents, formula=n.formula, requires_grad=False))
    grad_ids = [g for _, g in bg.grads if g is not None]
    output = max(grad_ids) if grad_ids else bg.output
    return Graph(nodes=tuple(nodes), edges=bg.edges, output=output), orders


_BOX = re.compile(r'^(  n(\d+) \[.*?class="kind-[a-z]+)"', re.MULTILINE)


def with_orders(dot: str, orders: dict[int, int]) -> str:
    """``dot`` with each box's class saying its layer (``order-<n>``; a collapsed chain's box: its last member's)."""
    return _BOX.sub(lambda m: f'{m.group(1)} order-{orders.get(int(m.group(2)), 1)}"', dot)


def layers(text: str, poked: tuple = (), again: str = ""):
    """(the BackwardGraph drawn, each node's layer, the run's result, the first backward's graph)."""
    result = _result(text, poked)
    if not result.output.requires_grad:
        raise NoBackward("The output depends on nothing that requires grad: there is no backward pass to draw as a "
                         "graph (a literal assigned to a name is a leaf that requires grad).")
    bg = backward_graph(result.output, uses=result.uses)
    if not again:
        return bg, {n.id: n.order for n in bg.nodes}, result, bg
    leaves = [bg.tensors[leaf] for leaf, g in bg.grads if g is not None]
    new_output = again_output(bg, result, again)
    if not new_output.requires_grad:  # the grads are constants (the program is linear in its leaves)
        return bg, {n.id: n.order for n in bg.nodes}, result, bg
    twice = backward_graph(new_output, inputs=leaves)
    first = {t: bg.nodes[i] for i, t in enumerate(bg.tensors)}
    orders = {n.id: first[twice.tensors[n.id]].order if twice.tensors[n.id] in first else 2 if n.order == 1 else 3
              for n in twice.nodes}
    # NOTE: the first backward's grads keep their names and kind (in `twice` they are intermediates); the second
    # backward's are second-order grads: "2nd grad x" is the grad of the new output with respect to x
    nodes = tuple(
        dataclasses.replace(n, name=first[t].name, kind=first[t].kind) if t in first and first[t].kind == "grad"
        else dataclasses.replace(n, name=n.name.replace("grad ", "2nd grad ")) if n.kind == "grad" and n.order == 2
        else n
        for n, t in zip(twice.nodes, twice.tensors))
    return dataclasses.replace(twice, nodes=nodes), orders, result, bg


def backward_view(text: str, poked: tuple = (), again: str = "") -> dict:
    """The graph view's data (explorer.program.view_data.view_data's keys) for the backward of ``text`` at ``poked``
    (or, with ``again``, of that backward's Σ grad again), plus ``counts`` (boxes per layer), ``orders`` (box ->
    layer) and ``sentence`` (what the picture is, and what was left out). A program whose output has no backward
    pass (nothing it depends on requires grad) gives only ``none``: the words saying so."""
    try:
        bg, orders, _, _ = layers(text, poked, again)
    except NoBackward as why:
        return {"none": str(why)}
    graph, orders = as_drawn(bg, orders)
    drawing = dotmod.plan(graph, max_nodes=MAX_DRAWN)
    dot = with_orders(dotmod.to_dot(graph, max_nodes=MAX_DRAWN, show_grad=False), orders)
    boxes = {}
    for b in drawing.boxes:
        node = graph.nodes[b]
        if b in drawing.chains:
            boxes[str(b)] = {"title": f"{len(drawing.chains[b]):,} ops, collapsed", "kind": "chain", "op": "",
                             "shape": numbers.shape_text(tuple(node.shape)), "data": "", "grad": "",
                             "members": drawing.chains[b]}
        else:
            boxes[str(b)] = _tip(node, None) | {"order": orders[b]}
    counts = {str(k): sum(1 for v in orders.values() if v == k) for k in sorted(set(orders.values()))}
    return {
        "key": _key(dot),
        "dot": dot,
        "boxes": boxes,
        "legend": _legend(graph, drawing, False, False, dotmod.TAG_CLASS in dot),
        "output": graph.output,
        "mode": "reverse",
        "orders": {str(b): orders[b] for b in drawing.boxes},
        "counts": counts,
        "grads": [[leaf, g] for leaf, g in bg.grads],
        "cut": cut_words(len(drawing.boxes), len(graph.nodes)) if drawing.notice is not None else "",
        "sentence": sentence(counts, len(drawing.boxes), drawing.notice is not None, bool(again))
        + (CONSTANT if again and "3" not in counts else ""),
    }


#: What "differentiate again" says when the grad chosen is a constant: nothing in its graph requires grad.
CONSTANT = (" That grad is a constant here (nothing in its graph requires grad: the program is linear in what it "
            "depends on), so its backward makes no nodes and every second derivative is 0.")


def _structure(bg) -> tuple:
    return tuple((n.op, n.kind, n.shape, n.parents) for n in bg.nodes)


def poked_view(text: str, poked: tuple = (), again: str = "") -> tuple[dict, dict | None]:
    """What the view is sent for ``text`` at ``poked``: (the layout: backward_view at the program's own numbers, the
    poked numbers as explorer.program.view_data.value_texts gives them, box -> {"d": lines, "tip"}), so a dragged
    slider retexts the drawing in place instead of laying it out again. Values are None without ``poked``; where the
    poked backward has another structure, the layout is the poked one's own (and values None)."""
    layout = backward_view(text, (), again)
    if not poked or "none" in layout:
        return (layout if not poked else backward_view(text, poked, again)), None
    own, moved = layers(text, (), again)[0], layers(text, poked, again)[0]
    if _structure(own) != _structure(moved):
        return backward_view(text, poked, again), None
    graph, _ = as_drawn(moved)
    drawing = dotmod.plan(graph, max_nodes=MAX_DRAWN)
    values = {}
    for b in drawing.boxes:
        if b in drawing.chains:
            continue
        value = graph.nodes[b].data
        values[str(b)] = {"d": numbers.value_lines(value, drawing.compact), "tip": [numbers.compact(value), ""]}
    return layout, values


def sentence(counts: dict[str, int], drawn: int, cut: bool, again: bool) -> str:
    """What the picture shows, in words: its layers' sizes, and whether it was cut to fit."""
    parts = [f"{counts[k]:,} {'node' if counts[k] == 1 else 'nodes'} of {ORDER_WORDS[int(k)]}" for k in counts]
    said = "The backward as a graph: " + ", ".join(parts) + "."
    said += (" Each leaf's grad is an output of that graph (red boxes are what backward() computes, recorded "
             "from the same primitives), so it can be differentiated again.") if not again else (
        " The grad chosen, summed, was differentiated again: its backward ran through both layers.")
    total = sum(counts.values())
    if cut:
        said += " " + cut_words(drawn, total)
    return said


def cut_words(drawn: int, total: int) -> str:
    """What a backward graph too big to read whole says (under it, and over it as the graph view's caption)."""
    return (f"Too big to read whole: {drawn:,} of {total:,} boxes are drawn (chains of elementwise ops collapsed, "
            "then those nearest the grads); the Export tab's DOT has every box.")


@dataclasses.dataclass(frozen=True)
class SecondOrder:
    """Differentiate again's result: per leaf, (name, the second-order grad, autograd.grad twice's, central
    differences' or None when the program has too many input numbers)."""

    output: str  # what was differentiated again
    rows: tuple
    worst_twice: float  # the largest |difference| from autograd.grad(create_graph=True) twice
    worst_fd: float | None


def _first_order_sum(text, again, values):
    """Σ grad ``again`` of the program with its leaves set to ``values`` (name -> array), by backward()."""
    result = compile_program(text).run(inputs=values)
    result.output.backward()
    names = [n for n, t in result.inputs.items() if t.requires_grad] if again == ALL else [again]
    return sum(float(np.sum(result.inputs[n].grad)) for n in names if result.inputs[n].grad is not None)


def second_order(text: str, poked: tuple = (), again: str = "", fd: bool = True) -> SecondOrder:
    """The grads of Σ grad ``again`` through both layers, beside autograd.grad(create_graph=True) twice and, with
    ``fd``, for programs of at most FD_MOST input numbers, central differences of the first-order grads (float64)."""
    twice, _, result, bg = layers(text, poked, again)
    leaves = [(bg.tensors[leaf], leaf) for leaf, g in bg.grads if g is not None]
    got = {} if twice is bg else {twice.tensors[leaf].name: twice.nodes[g].value if g is not None else None
                                  for leaf, g in twice.grads}
    firsts = autograd_grad(result.output, [t for t, _ in leaves], create_graph=True, allow_unused=True)
    by_name = {t.name: g for (t, _), g in zip(leaves, firsts)}
    picked = list(by_name) if again == ALL else [again]
    total = None
    for n in picked:
        total = by_name[n].sum() if total is None else total + by_name[n].sum()
    if total is None or not total.requires_grad:
        seconds = [None] * len(leaves)
    else:
        seconds = autograd_grad(total, [t for t, _ in leaves], allow_unused=True)
    size = sum(t.size for t, _ in leaves)
    own = {t.name: np.array(t.data, dtype=np.float64) for t, _ in leaves}
    out, worst_twice, worst_fd = [], 0.0, (0.0 if fd and size <= FD_MOST else None)
    for (t, _), ref in zip(leaves, seconds):
        value = got.get(t.name)
        value = np.zeros(t.shape) if value is None else np.asarray(value)
        ref = np.zeros(t.shape) if ref is None else ref.data
        worst_twice = max(worst_twice, float(np.max(np.abs(value - ref), initial=0.0)))
        fd = None
        if worst_fd is not None:
            fd = np.zeros(t.shape)
            for i in range(t.size):
                hi, lo = dict(own), dict(own)
                hi[t.name] = own[t.name].copy().reshape(-1)
                lo[t.name] = own[t.name].copy().reshape(-1)
                hi[t.name][i] += FD_EPS
                lo[t.name][i] -= FD_EPS
                hi[t.name], lo[t.name] = hi[t.name].reshape(t.shape), lo[t.name].reshape(t.shape)
                fd.reshape(-1)[i] = (_first_order_sum(text, again, hi)
                                     - _first_order_sum(text, again, lo)) / (2 * FD_EPS)
            worst_fd = max(worst_fd, float(np.max(np.abs(value - fd), initial=0.0)))
        out.append((t.name, value, ref, fd))
    label = "Σ grad " + again if again != ALL else "Σ of every leaf's grad"
    return SecondOrder(output=label, rows=tuple(out), worst_twice=worst_twice, worst_fd=worst_fd)


def settings_of(params) -> tuple[BackwardSettings, list[str]]:
    """A URL's ``backward`` and ``again`` read by the settings codec: (settings, problems in words)."""
    values, refused, problems = read_query(SETTINGS, params, kept=lambda name: getattr(BackwardSettings(), name))
    return BackwardSettings(**values), problems + [why for _, why in refused]


def query_of(settings: BackwardSettings) -> dict[str, str]:
    """The settings as URL parameters: none when the switch is off (the link stays as it was)."""
    if not settings.backward:
        return {}
    query = {"backward": "1"}
    if settings.again:
        query["again"] = settings.again
    return query


