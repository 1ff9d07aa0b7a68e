"""Draws a traced graph (autograd.graph.Graph) as DOT text: one box per tensor, edges in argument order.

Colour legend (also in ``LEGEND``, which the app shows beside the picture):

- **input** — pale blue: a leaf that requires grad (a variable of the program).
- **param** — pale green: an ``nn.Parameter`` (a weight or bias of a module).
- **const** — pale grey: a leaf without grad (data that is not differentiated).
- **op** — white: an intermediate result, labelled with the op that made it.
- **output** — pale orange: the tensor ``backward()`` starts from.

During a backward step (``state``): the **active** node is bright yellow with a thick red
border and the edges to its parents are red; **done** nodes keep their colours; **waiting**
nodes are greyed out with a dashed border. Chains collapsed to fit ``max_nodes`` are lilac.
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass

import numpy as np

from autograd.ops import PRIMITIVES

#: Arrays with at most this many elements are shown in full; larger ones are summarised.
SMALL = 12
#: Numbers per printed line in a node's value rows.
PER_LINE = 6
#: The layout directions the pages offer, with their labels (to_dot also takes BT and RL).
LAYOUTS = {"TB": "top → bottom", "LR": "left → right"}
#: Ops whose argument order does not change the result: their edges carry no slot label (from the op registry).
COMMUTATIVE = frozenset(name for name, prim in PRIMITIVES.items() if prim.commutative)
#: How a collapsed chain's box title ends ("<b>… 12 ops …</b>"): a drawing holds a chain if it holds this.
CHAIN_TITLE_END = " ops …</b>"


@dataclass(frozen=True)
class LegendEntry:
    key: str
    label: str
    fill: str
    border: str
    short: str  # a few words for the chip
    meaning: str  # a sentence for the tooltip


LEGEND: tuple[LegendEntry, ...] = (
    LegendEntry("input", "input", "#dbeafe", "#2563eb", "has grad", "a leaf that requires grad: a variable"),
    LegendEntry("param", "param", "#dcfce7", "#16a34a", "weight", "an nn.Parameter: a weight or bias of a module"),
    LegendEntry("const", "const", "#f3f4f6", "#9ca3af", "no grad", "a leaf without grad: data, not differentiated"),
    LegendEntry("op", "op", "#ffffff", "#6b7280", "result", "an intermediate result, labelled with its op"),
    LegendEntry("output", "output", "#ffedd5", "#ea580c", "backward starts here", "the tensor backward() starts from"),
    LegendEntry("chain", "… N ops …", "#ede9fe", "#7c3aed", "collapsed", "a chain of elementwise ops drawn as one box"),
)
STATE_LEGEND: tuple[LegendEntry, ...] = (
    LegendEntry("active", "active", "#fde047", "#dc2626", "this step", "the node whose VJP runs at this step"),
    LegendEntry("done", "done", "#ffffff", "#6b7280", "processed", "processed already: drawn in its usual colours"),
    LegendEntry("waiting", "waiting", "#f9fafb", "#d1d5db", "not yet", "not processed yet: greyed, dashed border"),
)
_KIND = {e.key: e for e in LEGEND}
_STATE = {e.key: e for e in STATE_LEGEND}

_GREY = "#6b7280"
_GRAD_COLOUR = "#b91c1c"
_SPARK = "▁▂▃▄▅▆▇█"


# ----------------------------------------------------------------------------- formatting


def _esc(text: str) -> str:
    """Escapes text for a Graphviz HTML-like label."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


_FOUR = "{:.4g}".format


def fmt_number(value: float) -> str:
    """Four significant digits, no '-0' (nan and inf print as such)."""
    text = _FOUR(value)
    return "0" if text == "-0" else text


def _cells(values: list) -> list[str]:
    cells = list(map(_FOUR, values))
    if "-0" in cells:
        cells = ["0" if c == "-0" else c for c in cells]
    return cells


def format_array(array: np.ndarray) -> list[str]:
    """A small array as printed lines, e.g. ``['[[1, 2],', ' [3, 4]]']``."""
    array = np.asarray(array)
    if array.ndim == 0:
        return [fmt_number(array.item())]
    if array.ndim == 1 and array.shape[0] <= PER_LINE:  # the common case, kept fast
        return ["[" + ", ".join(_cells(array.tolist())) + "]"]
    rows = array.reshape(-1, array.shape[-1]) if array.ndim > 1 else array.reshape(1, -1)
    nested = array.ndim > 1
    lines: list[str] = []
    for r, row in enumerate(rows.tolist()):
        cells = _cells(row)
        chunks = [", ".join(cells[i : i + PER_LINE]) for i in range(0, max(len(cells), 1), PER_LINE)]
        for c, chunk in enumerate(chunks):
            if nested:
                open_ = ("[[" if r == 0 else " [") if c == 0 else "  "
            else:
                open_ = "[" if c == 0 else " "
            close = "]" if c == len(chunks) - 1 else ","
            if nested and c == len(chunks) - 1:
                close += "]" if r == len(rows) - 1 else ","
            lines.append(open_ + chunk + close)
    return lines


def summarise(array: np.ndarray) -> dict[str, float]:
    """mean, min, max and the L2 norm of an array (computed in float64)."""
    a = np.asarray(array, dtype=np.float64).ravel()
    return {
        "mean": float(a.sum()) / a.size if a.size else float("nan"),
        "min": float(a.min()) if a.size else float("nan"),
        "max": float(a.max()) if a.size else float("nan"),
        "norm": math.sqrt(float(np.dot(a, a))),
    }


def sparkline(array: np.ndarray, width: int = 16) -> str:
    """The flattened array as a row of block characters (bin means); '' if constant or not finite."""
    a = np.asarray(array, dtype=np.float64).ravel()
    n = a.size
    if n == 0:
        return ""
    if n > width:
        edges = np.arange(width + 1) * n // width
        a = np.add.reduceat(a, edges[:-1]) / np.diff(edges)
    values = a.tolist()
    if not math.isfinite(sum(values)):
        return ""
    lo, hi = min(values), max(values)
    if hi - lo <= 1e-12 * max(abs(lo), abs(hi), 1.0):
        return ""  # a flat line says nothing the stats do not
    scale = len(_SPARK) / (hi - lo)
    top = len(_SPARK) - 1
    return "".join(_SPARK[min(int((v - lo) * scale), top)] for v in values)


def shape_text(shape: tuple[int, ...]) -> str:
    """A shape as the app prints it: "scalar", "(3,)", "(2, 3)"."""
    if len(shape) == 0:
        return "scalar"
    if len(shape) == 1:
        return f"({shape[0]},)"
    return "(" + ", ".join(str(s) for s in shape) + ")"


def _value_rows(tag: str, array: np.ndarray | None, colour: str) -> list[str]:
    """Table rows for 'data' or 'grad' of a node."""
    head = f'<font color="{colour}">{tag}</font>'
    if array is None:
        return [f'<tr><td align="left">{head} —</td></tr>']
    array = np.asarray(array)
    if array.size <= SMALL:
        lines = format_array(array)
        body = '<br align="left"/>'.join(lines)  # digits, signs, brackets: nothing to escape
        if len(lines) == 1:
            return [f'<tr><td align="left">{head} {body}</td></tr>']
        return [
            f'<tr><td align="left">{head}</td></tr>',
            f'<tr><td align="left">{body}<br align="left"/></td></tr>',
        ]
    s = summarise(array)
    stats = (
        f"mean {fmt_number(s['mean'])}  min {fmt_number(s['min'])}  "
        f"max {fmt_number(s['max'])}  ‖·‖ {fmt_number(s['norm'])}"
    )
    rows = [f'<tr><td align="left">{head} <font point-size="11">{_esc(stats)}</font></td></tr>']
    spark = sparkline(array)
    if spark:
        rows.append(f'<tr><td align="left"><font point-size="11" color="{colour}">{spark}</font></td></tr>')
    return rows


# ----------------------------------------------------------------------------- nodes


def slot_names(node) -> list[str]:
    """Names of an op's argument slots, as the op registry declares them (matmul: ['X', 'W']); numbers
    for ops that take any number of inputs (concat)."""
    prim = PRIMITIVES.get(node.op)
    slots = prim.slots if prim is not None else ()
    if len(slots) >= len(node.parents):
        return list(slots[: len(node.parents)])
    return [str(i) for i in range(len(node.parents))]


def _title(node) -> str:
    if node.name and node.op:
        return f"<b>{_esc(node.name)}</b> = {_esc(node.op)}"
    if node.name:
        return f"<b>{_esc(node.name)}</b>"
    if node.op:
        return f"<b>{_esc(node.op)}</b>"
    return f"<b>{node.kind}</b>"


@functools.lru_cache(maxsize=64)
def _node_attrs(kind: str, state: str | None) -> str:
    entry = _KIND.get(kind, _KIND["op"])
    fill, border, width, style, font = entry.fill, entry.border, "1", "rounded,filled", "#111827"
    if state == "active":
        fill, border, width = _STATE["active"].fill, _STATE["active"].border, "3"
    elif state == "waiting":
        fill, border, style, font = _STATE["waiting"].fill, _STATE["waiting"].border, "rounded,filled,dashed", "#9ca3af"
    return f'fillcolor="{fill}", color="{border}", penwidth={width}, style="{style}", fontcolor="{font}"'


def _node_label(node, grad, show_data: bool, show_grad: bool, show_shape: bool, font: str | None) -> str:
    if node.kind == "const" and not node.name and node.data.size <= SMALL:
        # NOTE: unnamed constants (the 2 in x ** 2) are drawn as just their value, to keep graphs light.
        body = '<br align="left"/>'.join(format_array(node.data))
        return f'<<font point-size="12" color="{_GREY}">{body}</font>>'
    rows = [f'<tr><td align="left">{_title(node)}</td></tr>']
    if show_shape and node.shape != ():  # scalars say nothing more than their single number
        meta = shape_text(node.shape)
        if node.dtype and node.dtype != "float64":
            meta += f" {node.dtype}"
        rows.append(f'<tr><td align="left"><font point-size="11" color="{_GREY}">{_esc(meta)}</font></td></tr>')
    if show_data:
        rows.extend(_value_rows("data", node.data, font or "#1d4ed8"))
    if show_grad and node.requires_grad:
        rows.extend(_value_rows("grad", grad, font or _GRAD_COLOUR))
    return '<<table border="0" cellborder="0" cellspacing="0" cellpadding="1">' + "".join(rows) + "</table>>"


# ----------------------------------------------------------------------------- summarising


def _collapse_chains(graph, keep: set[int]) -> dict[int, list[int]]:
    """Runs of >= 2 single-parent, single-child, shape-preserving ops: last member id -> member ids."""
    nodes = graph.nodes
    out_degree = [0] * len(nodes)
    for node in nodes:
        for p in node.parents:
            out_degree[p] += 1

    def collapsible(i: int) -> bool:
        n = nodes[i]
        return (
            n.kind == "op"
            and len(n.parents) == 1
            and out_degree[i] == 1
            and n.shape == nodes[n.parents[0]].shape
            and i not in keep
        )

    flags = [collapsible(i) for i in range(len(nodes))]
    child_of = [-1] * len(nodes)
    for node in nodes:
        if len(node.parents) == 1:
            child_of[node.parents[0]] = node.id
    chains: dict[int, list[int]] = {}
    for i in range(len(nodes)):
        if not flags[i] or flags[nodes[i].parents[0]]:
            continue  # not the start of a run
        run = [i]
        while child_of[run[-1]] >= 0 and flags[child_of[run[-1]]] and out_degree[run[-1]] == 1:
            run.append(child_of[run[-1]])
        if len(run) >= 2:
            chains[run[-1]] = run
    return chains


def _chain_label(graph, members: list[int]) -> str:
    ops = [graph.nodes[i].op for i in members]
    shown = " → ".join(ops[:3]) + (" → …" if len(ops) > 4 else "") + (f" → {ops[-1]}" if len(ops) > 3 else "")
    shape = shape_text(graph.nodes[members[0]].shape)
    return (
        '<<table border="0" cellborder="0" cellspacing="0" cellpadding="1">'
        f"<tr><td><b>… {len(members):,}{CHAIN_TITLE_END}</td></tr>"
        f'<tr><td><font point-size="11" color="{_GREY}">{_esc(shown)}</font></td></tr>'
        f'<tr><td><font point-size="11" color="{_GREY}">{shape}, elementwise</font></td></tr>'
        "</table>>"
    )


def _chain_state(members: list[int], state: dict[int, str] | None) -> str | None:
    if not state:
        return None
    states = [state.get(i) for i in members]
    if "active" in states:
        return "active"
    if "waiting" in states:
        return "waiting"
    return "done" if all(s == "done" for s in states) else None


# ----------------------------------------------------------------------------- the drawing


def to_dot(
    graph,
    *,
    show_data: bool = True,
    show_grad: bool = True,
    show_shape: bool = True,
    rankdir: str = "TB",
    grads: dict[int, np.ndarray] | None = None,
    state: dict[int, str] | None = None,
    max_nodes: int | None = 200,
) -> str:
    """DOT text for ``graph`` (see the module docstring for the colours).

    ``grads`` replaces the nodes' grads (a stepper state: nodes missing from it show
    "grad —"); ``state`` maps node id -> 'active' | 'done' | 'waiting'. Graphs with more
    than ``max_nodes`` tensors are summarised: chains of elementwise ops collapse into one
    box, then only the last ``max_nodes`` boxes in topological order (the output's
    neighbourhood) are drawn, under a notice saying how many are shown.
    """
    if rankdir not in ("TB", "LR", "BT", "RL"):
        raise ValueError(f"rankdir must be TB, LR, BT or RL, not {rankdir!r}")
    nodes = graph.nodes
    total = len(nodes)
    active = {i for i, s in (state or {}).items() if s == "active"}

    # Boxes to draw, in topological order: (representative id, members).
    chains: dict[int, list[int]] = {}
    if max_nodes is not None and total > max_nodes:
        chains = _collapse_chains(graph, active | {graph.output})
    in_chain = {m: last for last, members in chains.items() for m in members}
    boxes = [i for i in range(total) if i not in in_chain or in_chain[i] == i]
    notice = None
    if max_nodes is not None and len(boxes) > max_nodes:
        boxes = boxes[-max(max_nodes - 1, 1) :]
        shown = sum(len(chains[b]) if b in chains else 1 for b in boxes)
        notice = f"showing {shown:,} of {total:,} nodes (nearest the output)"
    visible = set(boxes)

    def box_of(i: int) -> int:
        return in_chain.get(i, i)

    out = [
        "digraph autograd {",
        f'  graph [rankdir={rankdir}, bgcolor="transparent", nodesep=0.25, ranksep=0.3, fontname="Helvetica"];',
        '  node [shape=box, fontname="Helvetica", fontsize=13, margin="0.1,0.05"];',
        f'  edge [color="{_GREY}", arrowsize=0.6, fontname="Helvetica", fontsize=8, fontcolor="{_GREY}"];',
    ]
    if notice:
        out.append(
            f'  notice [label="{notice}", shape=note, style=filled, fillcolor="#fef3c7", '
            'color="#d97706", fontcolor="#92400e"];'
        )
    for b in boxes:
        if b in chains:
            members = chains[b]
            s = _chain_state(members, state)
            attrs = _node_attrs("chain", s)
            out.append(f"  n{b} [label={_chain_label(graph, members)}, {attrs}];")
            continue
        node = nodes[b]
        s = state.get(b) if state else None
        grad = grads.get(b) if grads is not None else node.grad
        font = "#9ca3af" if s == "waiting" else None
        label = _node_label(node, grad, show_data, show_grad, show_shape, font)
        out.append(f"  n{b} [label={label}, {_node_attrs(node.kind, s)}];")

    hidden_parents: list[int] = []
    for b in boxes:
        first = chains[b][0] if b in chains else b
        node = nodes[first]
        parents = node.parents
        slots = slot_names(node) if len(parents) > 1 and node.op not in COMMUTATIVE else None
        hot = b in active
        for slot, p in enumerate(parents):
            src = box_of(p)
            if src not in visible:
                if not hidden_parents or hidden_parents[-1] != b:
                    hidden_parents.append(b)
                continue
            attrs = []
            if slots:
                attrs.append(f'label="{_esc(slots[slot])}"')
            if hot:
                attrs.append('color="#dc2626", penwidth=2')
            elif state and state.get(first) == "waiting":
                attrs.append('color="#d1d5db"')
            out.append(f"  n{src} -> n{b}" + (f" [{', '.join(attrs)}]" if attrs else "") + ";")
    for b in hidden_parents:
        out.append(f'  notice -> n{b} [style=dashed, color="#d97706"];')
    out.append("}")
    return "\n".join(out) + "\n"


def to_svg(dot: str) -> str | None:
    """SVG text for DOT text via the ``dot`` binary; None when Graphviz is not installed."""
    import graphviz

    try:
        return graphviz.Source(dot).pipe(format="svg", encoding="utf-8")
    except graphviz.ExecutableNotFound:
        return None


# ----------------------------------------------------------------------------- benchmark


def synthetic_graph(n: int = 2000, seed: int = 0):
    """A Graph of ``n`` nodes built by hand (no engine): chains, fan-out, a few matrices."""
    from autograd.graph import Graph, Node

    rng = np.random.default_rng(seed)
    nodes: list = []

    def add(name, op, kind, data, parents):
        data = np.asarray(data, dtype=np.float64)
        nodes.append(
            Node(
                id=len(nodes),
                name=name,
                op=op,
                kind=kind,
                shape=data.shape,
                dtype=str(data.dtype),
                data=data,
                grad=np.ones_like(data) if kind != "const" else None,
                parents=tuple(parents),
                formula="" if not op else "dx = G",
                requires_grad=kind != "const",
            )
        )
        return len(nodes) - 1

    x = add("x", "", "input", rng.normal(size=(4,)), ())
    w = add("W", "", "param", rng.normal(size=(64, 4)), ())
    c = add("", "", "const", 2.0, ())
    last = x
    while len(nodes) < n - 1:
        r = rng.random()
        if r < 0.6:
            last = add("", "tanh", "op", np.tanh(nodes[last].data), (last,))
        elif r < 0.8:
            last = add("", "mul", "op", nodes[last].data * 2.0, (last, c))
        elif r < 0.95:
            last = add("", "add", "op", nodes[last].data + nodes[x].data, (last, x))
        else:
            h = add("", "matmul", "op", nodes[w].data @ nodes[last].data, (w, last))
            last = add("", "matmul", "op", nodes[h].data @ nodes[w].data, (h, w))
    out = add("out", "sum", "output", nodes[last].data.sum(), (last,))
    edges = tuple((p, nd.id) for nd in nodes for p in nd.parents)
    return Graph(nodes=tuple(nodes), edges=edges, output=out)


def bench_dot(n: int = 2000, repeat: int = 10) -> dict[str, float]:
    """Best-of-``repeat`` milliseconds for to_dot on an ``n``-node graph, summarised and in full."""
    graph = synthetic_graph(n)
    result = {}
    for label, limit in (("summarised_ms", 200), ("full_ms", None)):
        best = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            to_dot(graph, max_nodes=limit)
            best = min(best, time.perf_counter() - t0)
        result[label] = best * 1000.0
    result["nodes"] = float(n)
    return result
