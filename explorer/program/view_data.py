"""What the graph view (components/graph_view) is sent: a program's DOT, laid out once in the browser,
and what it changes in place on that drawing — each box's texts and, for the stepper, every backward
step's node states, grads and panel. Plain JSON-ready dicts, built once per program.

The stepper's data, per box that shows a grad: the versions of that grad (from the position at which
it arrives, its cell's lines and a one-line summary); per node: the Timeline (when it is active and
from when it is done); per step: the panel (program_stepper.describe_step). The browser picks, for a
position k, each box's last version at or before k and each node's state at k.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math

import numpy as np

from explorer import numbers
from explorer.graph import dot as dotmod
from explorer.graph import names
from explorer.program import forward_mode
from explorer.program import stepper as program_stepper

#: Boxes drawn at most; bigger graphs are summarised around the output (see explorer.graph.dot.plan).
MAX_DRAWN = 400
DONE = "Done: every grad now equals what backward() gives."


def _key(*parts: str) -> str:
    digest = hashlib.sha1()
    for part in parts:
        digest.update(part.encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def _forward_versions(run, drawing: dotmod.Drawing) -> dict[int, list[tuple[int, list[str], str]]]:
    """grad_versions for forward mode: each drawn box's tangent, from the seed (an input's share of v) or from the
    step that computes it."""
    graph = run.graph
    drawn = {b for b in drawing.boxes if b not in drawing.chains and graph.nodes[b].requires_grad}
    versions: dict[int, list[tuple[int, list[str], str]]] = {}
    seeded = [(0, node, tangent) for node, tangent in forward_mode.tangents_at(run, 0).items()]
    for position, node, tangent in seeded + [(k, step.node, step.tangent) for k, step in enumerate(run.steps, 1)]:
        if node in drawn:
            versions.setdefault(node, []).append(
                (position, numbers.value_lines(tangent, drawing.compact), numbers.compact(tangent)))
    return versions


def _tip(node, grad) -> dict:
    """What hovering a box shows: its heading, kind, op, shape, and its data and grad in short."""
    return {
        "title": names.node_heading(node),
        "kind": node.kind,
        "op": node.op,
        "shape": numbers.shape_dtype_text(node.shape, node.dtype),
        "data": numbers.compact(node.data),
        "grad": numbers.compact(grad) if node.requires_grad else "",
    }


#: What the legend says instead in forward mode (the walk starts at the inputs and ends at the output).
FORWARD_LEGEND = {
    "input": ("has a tangent", "a leaf that requires grad: its tangent is its share of the direction v"),
    "output": ("forward ends here", "the tensor the forward walk ends at: its tangent is J·v"),
    "active": ("this step", "the node whose JVP runs at this step"),
}


def _legend(graph, drawing: dotmod.Drawing, states: bool, forward: bool = False, tags: bool = False) -> list[dict]:
    kinds = {node.kind for node in graph.nodes}
    if drawing.chains:
        kinds.add("chain")
    if tags:
        kinds.add("ref")
    entries = [e for e in dotmod.LEGEND if e.key in kinds] + (list(dotmod.STATE_LEGEND) if states else [])
    entries += [dotmod.CUT_LEGEND] if dotmod.has_cut(graph) else []
    legend = [{"key": e.key, "label": e.label, "short": e.short, "meaning": e.meaning} for e in entries]
    for entry in legend if forward else ():
        entry["short"], entry["meaning"] = FORWARD_LEGEND.get(entry["key"], (entry["short"], entry["meaning"]))
    return legend


def grad_versions(graph, steps, drawing: dotmod.Drawing) -> dict[int, list[tuple[int, list[str], str]]]:
    """Box id -> [(position, the grad cell's lines, a one-line summary), ...] in order of position.

    Position 0 is the seed (the output's grad); a contribution made by step k gives its parent's
    accumulated grad from position k on. Only boxes that draw a grad cell are listed.
    """
    drawn = {b for b in drawing.boxes if b not in drawing.chains and graph.nodes[b].requires_grad}
    versions: dict[int, list[tuple[int, list[str], str]]] = {}

    def add(node: int, position: int, grad) -> None:
        if node in drawn:
            versions.setdefault(node, []).append(
                (position, numbers.value_lines(grad, drawing.compact), numbers.compact(grad))
            )

    if steps:
        add(graph.output, 0, steps[0].upstream)
    for k, step in enumerate(steps, start=1):
        for c in step.contributions:
            add(c.parent, k, c.accumulated)
    return versions


def _widest(versions: list[tuple[int, list[str], str]]) -> list[str]:
    """The lines of the version that needs the widest box (every version of a grad has its shape)."""
    return max((lines for _, lines, _ in versions), key=lambda lines: (max(map(len, lines)), len(lines)))


def download_dot(graph, steps, options: dict, forward=None) -> str:
    """The DOT text of the picture as the graph view shows it: ``options`` = {show: parts, rankdir}; in forward mode
    (``forward``: explorer.program.forward_mode.ForwardRun) each box's tangent where its grad is drawn."""
    show = options.get("show", dotmod.PARTS)
    return dotmod.to_dot(
        graph if forward is None else forward.graph,
        show_data="data" in show,
        show_grad="grad" in show,
        show_shape="shape" in show,
        rankdir=options.get("rankdir", "TB"),
        max_nodes=MAX_DRAWN,
        broadcast=program_stepper.broadcast_edges(graph, steps) if forward is None else None,
        grad_word="grad" if forward is None else "tangent",
    )


def value_texts(graph, *, max_nodes: int | None = MAX_DRAWN, compact: bool | None = None,
                tips: bool = True) -> dict[str, dict]:
    """Each drawn box's data and grad as its cells show them, and its tooltip's summaries:
    {box: {"d": lines, "g": lines, "tip": [data, grad]}} (without "tip" if not ``tips``: the view's
    tooltip then shows the cells' lines).

    For a graph of the same program with other numbers (the same shapes), this is what the view
    retexts in place over the layout it already has (``graph_view(..., values=...)``): no new layout.
    ``compact`` must be the drawing's (see ``view_data``).
    """
    drawing = dotmod.plan(graph, max_nodes=max_nodes, compact=compact)
    texts = {}
    for b in drawing.boxes:
        if b in drawing.chains:
            continue
        node = graph.nodes[b]
        entry = {"d": numbers.value_lines(node.data, drawing.compact)}
        if node.requires_grad:
            entry["g"] = numbers.value_lines(node.grad, drawing.compact)
        if tips:
            entry["tip"] = [numbers.compact(node.data), numbers.compact(node.grad) if node.requires_grad else ""]
        texts[str(b)] = entry
    return texts


#: A number as wide as the four-significant-digit format prints any (digits, a sign, a 3-digit exponent).
_WIDEST = 9.999e100


def widest(graph):
    """A copy of ``graph`` in which every data and grad is an array of its shape that a compact drawing
    prints as wide as it prints any array of that shape (a full sparkline and 11-character numbers; a small
    array printed whole, each of its numbers that wide).

    A layout made from it (``view_data(widest(graph), compact=True)``) fits any values of those shapes,
    retexted in place with ``value_texts(..., compact=True)``, and its DOT (and key) depends on the
    graph's structure and shapes alone: it is laid out once, whatever the numbers.
    """
    def filler(shape):
        n = math.prod(shape)
        if n > 1 and numbers.summarised_in_compact(np.empty(shape)):  # a sparkline and its range
            return -np.linspace(_WIDEST, _WIDEST / 9, n).reshape(shape)
        return np.full(shape, -_WIDEST)  # printed whole: every number as wide as any

    nodes = tuple(
        dataclasses.replace(node, data=filler(node.shape), grad=filler(node.shape) if node.requires_grad else None)
        for node in graph.nodes
    )
    return dataclasses.replace(graph, nodes=nodes)


def view_data(graph, steps=(), *, stepper: bool = False, max_nodes: int | None = MAX_DRAWN,
              compact: bool | None = None, forward=None) -> dict:
    """The graph view's data for a traced graph (final grads) and its backward steps.

    Without ``stepper``: the Explorer's picture, each box with its final data and grad. With it:
    the same boxes, each sized for the longest grad it will show, and everything the browser needs
    to step through ``steps`` without asking the server (see the module docstring). ``compact``
    draws every value on one line (default: above ``dot.COMPACT_ABOVE`` boxes).

    ``forward`` (forward_mode.ForwardRun of the same run): forward mode instead, each box's tangent where
    its grad is drawn, and with ``stepper`` the forward walk's steps, parents first (``mode`` says which).
    """
    if forward is not None:
        graph, steps = forward.graph, forward.steps
    drawing = dotmod.plan(graph, max_nodes=max_nodes, compact=compact)
    marks = program_stepper.broadcast_edges(graph, steps) if forward is None else {}
    versions = {}
    if stepper:
        versions = grad_versions(graph, steps, drawing) if forward is None else _forward_versions(forward, drawing)
    widest_grads = {box: _widest(v) for box, v in versions.items()}
    dot = dotmod.to_dot(graph, max_nodes=max_nodes, compact=compact, broadcast=marks,
                        grad_lines=widest_grads if stepper else None,
                        grad_word="grad" if forward is None else "tangent")
    boxes = {}
    for b in drawing.boxes:
        if b in drawing.chains:
            members = drawing.chains[b]
            boxes[b] = {"title": f"{len(members):,} ops, collapsed", "kind": "chain", "op": "",
                        "shape": numbers.shape_text(tuple(graph.nodes[b].shape)), "data": "", "grad": "",
                        "members": members}
        else:
            boxes[b] = _tip(graph.nodes[b], graph.nodes[b].grad)
    data = {
        "key": _key(dot),
        "dot": dot,
        "boxes": {str(b): info for b, info in boxes.items()},
        "legend": _legend(graph, drawing, stepper, forward is not None, dotmod.TAG_CLASS in dot),
        "output": graph.output,
        "mode": "reverse" if forward is None else "forward",
    }
    if stepper:
        if forward is None:
            timeline = program_stepper.step_timeline(graph, steps)
            panels = [dataclasses.asdict(program_stepper.describe_seed(graph, steps))] + [
                dataclasses.asdict(program_stepper.describe_step(graph, step, len(steps))) for step in steps]
            done = DONE
        else:
            timeline = forward_mode.forward_timeline(forward)
            panels = [dataclasses.asdict(forward_mode.describe_forward_seed(forward))] + [
                dataclasses.asdict(forward_mode.describe_forward_step(graph, step, len(steps))) for step in steps]
            done = forward_mode.forward_done(forward)
        data["steps"] = {
            "count": len(steps),
            "mode": data["mode"],
            "output": graph.output,  # its node id (the timeline is by node, boxes may hold several)
            "takes_part": [int(t) for t in timeline.takes_part],
            "active_at": list(timeline.active_at),
            "done_at": list(timeline.done_at),
            "grads": {
                str(box): [[pos, lines] + ([tip] if tip != " ".join(lines) else []) for pos, lines, tip in v]
                for box, v in versions.items()
            },
            "panels": panels,
            "done": done,
        }
        data["steps"]["version"] = _key(json.dumps([data["steps"]["grads"], data["steps"]["panels"]]))
    return data


def over_layout(data: dict, layout: dict) -> dict:
    """``data`` (view_data of a program run with poked inputs) drawn over ``layout`` (view_data of the same program
    with its own numbers): with layout's DOT and key, the browser keeps the drawing it has and retexts it
    (send ``value_texts`` of the poked graph as ``values``; the stepper's steps replace themselves in place)."""
    return {**data, "dot": layout["dot"], "key": layout["key"]}


def with_jacobians(data: dict, jacobians: dict) -> dict:
    """Stepper data with the Jacobian of each step's node (explorer.program.jacobian_view.step_jacobians: node id ->
    view, or {"later": True} for one the browser asks for when it is shown); the steps' version follows."""
    steps = {**data["steps"], "jacobians": jacobians}
    steps["version"] = _key(data["steps"]["version"], json.dumps(jacobians, sort_keys=True))
    return {**data, "steps": steps}
