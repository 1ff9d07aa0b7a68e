"""Draws a traced graph (autograd.graph.Graph) as DOT text: one box per tensor, edges in argument order.

Colour legend (also in ``LEGEND``, which the app shows beside the picture; the hex colours are the
light theme's, written into the DOT for downloads; the graph view recolours by each entry's
``tone``, a colour of Streamlit's active theme):

- **input** — pale blue: a leaf that requires grad (a variable of the program).
- **param** — pale green: an ``nn.Parameter`` (a weight or bias of a module).
- **const** — pale grey: a leaf without grad (data that is not differentiated). Data an op reads without
  differentiating it (cross_entropy's labels, an index tensor) comes in on a dashed edge named for its role
  (``y``, ``index``).
- **op** — white: an intermediate result, labelled with the op that made it.
- **output** — pale orange: the tensor ``backward()`` starts from.

During a backward step (``STATE_LEGEND``, drawn by the graph view): the **active** node is bright
yellow with a thick red border and the edges to its parents are red; **done** nodes keep their
colours; **waiting** nodes are greyed out with a dashed border. Chains collapsed to fit
``max_nodes`` are lilac. An edge whose grad was summed over broadcast axes is orange and says which.
An edge into a ``detach`` is **cut**: red, dashed, marked ✂ (``CUT_LEGEND``): the value passes, backward stops.

Structure the graph view relies on (components/graph_view): each box is ``n<id>`` with
``id="n<id>"`` and ``class="kind-<kind>"``; its data, grad and shape sit in cells with the ids
``n<id>.d``, ``n<id>.g`` and ``n<id>.s`` (data and grad one text line per array line, so they can be
retexted in place), and each edge into box ``b`` has the id ``e<b>.<k>``. A box whose edges would cross so many
ranks that Graphviz takes long over them (``LONG_EDGE_BUDGET``) draws none: each use is a small tag beside the box
it goes to, with the id ``t<source>-<b>.<k>`` (``tnotice-<b>`` for inputs not drawn), its edge keeping ``e<b>.<k>``.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

import graphviz
import numpy as np
from graphviz import quoting

from autograd.ops import PRIMITIVES
from explorer.numbers import SMALL, format_array, shape_dtype_text, shape_text, summarised_in_compact, value_lines

#: Above this many boxes a drawing is compact: a scalar box on one row, a bigger array on one line (a sparkline and
#: the range) unless its numbers fit (explorer.numbers.summarised_in_compact).
COMPACT_ABOVE = 20
#: The layout directions the pages offer, with their labels (to_dot also takes BT and RL).
LAYOUTS = {"TB": "top → bottom", "LR": "left → right"}
#: What a box can show, in the order the pages offer them.
PARTS = ("data", "grad", "shape")
#: Ops whose argument order does not change the result: their edges carry no slot label (from the op registry).
COMMUTATIVE = frozenset(name for name, prim in PRIMITIVES.items() if prim.commutative)
#: Graphviz's dot gives an edge that crosses k ranks k - 1 virtual nodes, and places them all with a network
#: simplex that grows much faster than their number: x feeding the 360 adds of four chains of 90 asked for
#: 34,040 (dot took 100 s, the browser's Graphviz longer). A drawing whose edges would need more than this many
#: draws the edges of the boxes that need the most (the notice's too) as tags beside the boxes they go to.
LONG_EDGE_BUDGET = 1500
#: A drawing holds a tag (see LONG_EDGE_BUDGET) if it holds this.
TAG_CLASS = 'class="ref '
#: How a collapsed chain's box title ends ("<b>… 12 ops …</b>"): a drawing holds a chain if it holds this.
CHAIN_TITLE_END = " ops …</b>"


@dataclass(frozen=True)
class LegendEntry:
    key: str
    label: str
    fill: str  # light theme, for the DOT text
    border: str
    short: str  # a few words for the chip
    meaning: str  # a sentence for the tooltip
    tone: str  # the theme colour the graph view draws it in (Streamlit's --st-<tone>-color)


LEGEND: tuple[LegendEntry, ...] = (
    LegendEntry("input", "input", "#dbeafe", "#2563eb", "has grad", "a leaf that requires grad: a variable", "blue"),
    LegendEntry("param", "param", "#dcfce7", "#16a34a", "weight", "an nn.Parameter: a weight or bias of a module",
                "green"),
    LegendEntry("const", "const", "#f3f4f6", "#9ca3af", "no grad", "a leaf without grad: data, not differentiated",
                "gray"),
    LegendEntry("op", "op", "#ffffff", "#6b7280", "result", "an intermediate result, labelled with its op", "plain"),
    LegendEntry("output", "output", "#ffedd5", "#ea580c", "backward starts here", "the tensor backward() starts from",
                "orange"),
    LegendEntry("chain", "… N ops …", "#ede9fe", "#7c3aed", "collapsed", "a chain of elementwise ops drawn as one box",
                "violet"),
    LegendEntry("ref", "x", "#f9fafb", "#9ca3af", "a use of x",
                "a box that feeds many boxes far down the graph draws no edges: each use is a small dashed tag with "
                "its name beside the box it goes to (hover it for the box's values); an orange tag names inputs not "
                "drawn", "gray"),
    # the backward as a graph (explorer/program/backward_view.py): what the backward pass made, and each leaf's grad
    LegendEntry("backward", "backward", "#fee2e2", "#dc2626", "made by backward", "a node the backward pass made "
                "(G ⊙ B, Gᵀ @, sum-to-shape, …), recorded from the same primitives", "red"),
    LegendEntry("grad", "grad x", "#fef9c3", "#ca8a04", "a leaf's grad", "a leaf's grad: an output of the backward's "
                "graph, equal to what backward() puts in .grad", "yellow"),
)
STATE_LEGEND: tuple[LegendEntry, ...] = (
    LegendEntry("active", "active", "#fde047", "#dc2626", "this step", "the node whose VJP runs at this step",
                "yellow"),
    LegendEntry("done", "done", "#ffffff", "#6b7280", "processed", "processed already: drawn in its usual colours",
                "plain"),
    LegendEntry("waiting", "waiting", "#f9fafb", "#d1d5db", "not yet", "not processed yet: greyed, dashed border",
                "gray"),
)
_KIND = {e.key: e for e in LEGEND}
#: The legend's entry for a cut edge (an edge into a detach), shown when the drawing has one.
CUT_LEGEND = LegendEntry("cut", "✂ cut", "#ffffff", "#dc2626", "backward stops",
                         "an edge into a detach: the value passes forward, no grad flows back through it", "red")
CUT_COLOUR = "#dc2626"

#: Text colours written into the DOT (light theme); the graph view maps each to a theme colour.
TEXT_COLOURS = {"text": "#111827", "meta": "#6b7280", "data": "#1d4ed8", "grad": "#b91c1c", "broadcast": "#c2410c"}
_GREY = TEXT_COLOURS["meta"]
_BR = '<br align="left"/>'


# ----------------------------------------------------------------------------- text in a label
# (the numbers themselves are written by explorer.numbers)
#
# Graphviz reads text two ways here: a box's label is HTML-like (XML: <<table>…</table>>), and a tag's or an edge's
# label is a quoted string. In both it turns \N into the node's name and \G into the graph's (\\ into \), reads
# &amp; as &, and in a quoted string \n, \l and \r break the line. So every text a program or the engine names
# (a tensor's name, an op) goes through one of the three helpers below and is drawn as itself: its backslashes
# doubled by the graphviz package's escape(), a quoted string quoted by its quote(); the package writes no HTML, so
# the XML entities are ours.


def _xml(text: str) -> str:
    """Text as XML in an HTML-like label, its backslashes doubled (the entities as the old DOT wrote them)."""
    return (graphviz.escape(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


@functools.lru_cache(maxsize=4096)
def _esc(text: str) -> str:
    """Text in a Graphviz HTML-like label, drawn as itself (a newline breaks the line: XML would drop it)."""
    return _xml(text).replace("\n", _BR)


@functools.lru_cache(maxsize=1024)
def _attr(text: str) -> str:
    """An attribute's value in an HTML-like label (a cell's tooltip), drawn as itself."""
    return _xml(text).replace("\n", "&#10;")


@functools.lru_cache(maxsize=1024)
def _quoted(text: str) -> str:
    """A DOT quoted string (a tag's or an edge's label) that Graphviz draws as ``text`` itself; always in quotes,
    as the graph view and the tests read ``label="…"``."""
    quoted = quoting.quote(graphviz.escape(text.replace("&", "&amp;")))
    if not quoted.startswith('"'):  # quote() leaves an ID (x, add) bare
        quoted = f'"{quoted}"'
    return quoted.replace("\n", "\\n")


def _small_font(array: np.ndarray | None, compact: bool) -> bool:
    """Whether an array's cell uses the small font (summaries and sparklines do)."""
    if array is None:
        return False
    array = np.asarray(array)
    return array.size > SMALL or (compact and summarised_in_compact(array))


# ----------------------------------------------------------------------------- nodes


def slot_names(node) -> list[str]:
    """Names of an op's argument slots, as the op registry declares them (matmul: ['X', 'W']); numbers
    for ops that take any number of inputs (concat)."""
    prim = PRIMITIVES.get(node.op)
    slots = prim.slots if prim is not None else ()
    if len(slots) >= len(node.parents):
        return list(slots[: len(node.parents)])
    return [str(i) for i in range(len(node.parents))]


def data_role(node) -> str:
    """What the tensors an op reads as data are to it, as its formula names them: cross_entropy's labels are y
    (``onehot(y)``), anything else reads an index."""
    return "y" if node.op == "cross_entropy" else "index"


def _title(node) -> str:
    if node.name and node.op:
        return f"<b>{_esc(node.name)}</b> = {_esc(node.op)}"
    if node.name:
        return f"<b>{_esc(node.name)}</b>"
    if node.op:
        return f"<b>{_esc(node.op)}</b>"
    return f"<b>{node.kind}</b>"


def _value_row(box: int, part: str, lines: list[str], small: bool, tip: str, word: str = "") -> str:
    """A data or grad row: the coloured word (``part``, or ``word``) in the first column, the value's lines in the
    second (its cell's id from ``part``: the views find a grad cell, or forward mode's tangent, by ``.g``)."""
    colour = TEXT_COLOURS[part]
    body = _BR.join(_esc(line) for line in lines)
    if len(lines) > 1:
        body += _BR
        if small:  # statistics, then the sparkline in the row's colour
            body = f'{_esc(lines[0])}{_BR}<font color="{colour}">{_BR.join(_esc(x) for x in lines[1:])}</font>{_BR}'
    if small and len(lines) == 1:  # compact: the sparkline and range in the row's colour
        body = f'<font color="{colour}">{body}</font>'
    if small:
        body = f'<font point-size="12">{body}</font>'
    return (
        f'<tr><td align="left" valign="top"><font color="{colour}">{word or part}</font></td>'
        f'<td id="n{box}.{part[0]}" tooltip="{_attr(tip)}" align="left">{body}</td></tr>'
    )


#: The gap before a one-row box's value cell (an empty cell, so that a value retexted in place keeps it). The graph
#: view hides a part of a one-row box by cutting its value's cell, the gap before it and the word before that.
_ROW_GAP = '<td width="4"></td>'


def _one_row(node, grad, grad_lines, show: frozenset, compact: bool) -> list[tuple[str, list[str]]] | None:
    """A compact box's parts on its title's row, when it is a scalar and each value is one line: [(part, lines)]
    of the parts shown, else None. Graphs of many scalars (micrograd's) are then a third as tall. Which boxes take
    one row does not depend on ``show``: the graph view hides a part by cutting its cells (see ``_ROW_GAP``)."""
    if not compact or shape_dtype_text(node.shape, node.dtype) != "scalar":
        return None
    parts = [("data", value_lines(node.data, compact), node.data)]
    if node.requires_grad:
        parts.append(("grad", grad_lines if grad_lines is not None else value_lines(grad, compact),
                      node.data if grad_lines is not None else grad))
    if any(len(lines) != 1 or _small_font(array, compact) for _, lines, array in parts):
        return None
    return [(part, lines) for part, lines, _ in parts if part in show]


def _one_row_label(node, parts, grad_word: str) -> str:
    """A box on one row: its title, its data (in the data's colour) and its grad after the word (``grad_word``).
    The title's cell has the id ``n<id>.t``: the graph view hides a part here by its cell, not by its row."""
    name = node.name or node.op or node.kind
    cells = [f'<td id="n{node.id}.t" align="left">{_title(node)}</td>']
    for part, lines in parts:
        colour = TEXT_COLOURS[part]
        tip = f"{name}.{part}" if part == "data" or grad_word == "grad" else f"{name}'s {grad_word}"
        word = "" if part == "data" else f'<td align="left"><font color="{colour}"> {grad_word}</font></td>'
        cells.append(f'{word}{_ROW_GAP}<td id="n{node.id}.{part[0]}" tooltip="{_attr(tip)}" align="left">'
                     f'<font color="{colour}">{_esc(lines[0])}</font></td>')
    return '<<table border="0" cellborder="0" cellspacing="0" cellpadding="1"><tr>' + "".join(cells) + "</tr></table>>"


def _node_label(node, grad, grad_lines, show: frozenset, compact: bool, grad_word: str = "grad") -> str:
    if node.kind == "const" and not node.name and node.data.size <= SMALL:
        # NOTE: unnamed constants (the 2 in x ** 2) are drawn as just their value, to keep graphs light.
        body = _BR.join(format_array(node.data))
        return f'<<font point-size="12" color="{_GREY}">{body}</font>>'
    parts = _one_row(node, grad, grad_lines, show, compact)
    if parts is not None:
        return _one_row_label(node, parts, grad_word)
    name = node.name or node.op or node.kind
    rows = [f'<tr><td colspan="2" align="left">{_title(node)}</td></tr>']
    # NOTE: a float64 scalar says nothing more than its single number; another dtype is said, scalar or not.
    meta = shape_dtype_text(node.shape, node.dtype)
    if "shape" in show and meta != "scalar":
        rows.append(
            f'<tr><td id="n{node.id}.s" colspan="2" align="left">'
            f'<font point-size="12" color="{_GREY}">{_esc(meta)}</font></td></tr>'
        )
    if "data" in show:
        rows.append(_value_row(node.id, "data", value_lines(node.data, compact), _small_font(node.data, compact),
                               f"{name}.data"))
    if "grad" in show and node.requires_grad:
        lines = grad_lines if grad_lines is not None else value_lines(grad, compact)
        small = _small_font(node.data, compact) if grad_lines is not None else _small_font(grad, compact)
        tip = f"{name}.grad" if grad_word == "grad" else f"{name}'s {grad_word}"
        rows.append(_value_row(node.id, "grad", lines, small, tip, grad_word))
    return '<<table border="0" cellborder="0" cellspacing="0" cellpadding="1">' + "".join(rows) + "</table>>"


def _node_attrs(kind: str) -> str:
    entry = _KIND.get(kind, _KIND["op"])
    return (
        f'class="kind-{kind}", fillcolor="{entry.fill}", color="{entry.border}", penwidth=1, '
        f'style="rounded,filled", fontcolor="{TEXT_COLOURS["text"]}"'
    )


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
            and not n.data_parents  # its data's edge would have no box to go to
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


def _cut_attrs() -> list[str]:
    """An edge into a detach: the forward passes along it, backward stops (a red dashed edge with scissors)."""
    return ['class="cut"', f'color="{CUT_COLOUR}"', f'fontcolor="{CUT_COLOUR}"', "style=dashed", 'label="✂"']


def has_cut(graph) -> bool:
    return any(node.op == "detach" for node in graph.nodes)


def _chain_label(graph, members: list[int]) -> str:
    ops = [graph.nodes[i].op for i in members]
    shown = " → ".join(ops[:3]) + (" → …" if len(ops) > 4 else "") + (f" → {ops[-1]}" if len(ops) > 3 else "")
    shape = shape_text(graph.nodes[members[0]].shape)
    return (
        '<<table border="0" cellborder="0" cellspacing="0" cellpadding="1">'
        f"<tr><td><b>… {len(members):,}{CHAIN_TITLE_END}</td></tr>"
        f'<tr><td><font point-size="12" color="{_GREY}">{_esc(shown)}</font></td></tr>'
        f'<tr><td><font point-size="12" color="{_GREY}">{shape}, elementwise</font></td></tr>'
        "</table>>"
    )


# ----------------------------------------------------------------------------- boxes that feed many


def _hubs(boxes, edges, hidden_parents) -> tuple[dict[int, int], bool]:
    """Which boxes draw their edges as tags (box -> how many boxes it feeds), and whether the notice does.

    Each box's rank is estimated as its longest path from a box with no drawn parent, which sits just above
    its first child (dot's own ranks are close), and so does the notice; an edge from rank r to rank s costs
    s - r - 1 virtual nodes. While the drawing's cost is over LONG_EDGE_BUDGET, the source (a box, or the
    notice) that costs most draws tags.
    """
    rank: dict[int, int] = {}
    into: dict[int, list[int]] = {}
    out_of: dict[int, list[int]] = {}
    for src, b, _, _ in edges:
        into.setdefault(b, []).append(src)
        out_of.setdefault(src, []).append(b)
    for b in boxes:  # topological order
        rank[b] = 1 + max((rank[src] for src in into.get(b, ())), default=-1)
    for b in boxes:  # a box with no parent drawn sits just above its first child (dot's ranking pulls it down)
        if b not in into and b in out_of:
            rank[b] = min(rank[child] for child in out_of[b]) - 1
    cost: Counter = Counter()
    for src, b, _, _ in edges:
        cost[src] += max(rank[b] - rank[src] - 1, 0)
    if hidden_parents:
        top = min(rank[b] for b in hidden_parents)
        cost["notice"] = sum(rank[b] - top for b in hidden_parents)
    hubs: dict[int, int] = {}
    tag_hidden = False
    total = sum(cost.values())
    for src, spent in cost.most_common():
        if total <= LONG_EDGE_BUDGET or spent == 0:
            break
        total -= spent
        if src == "notice":
            tag_hidden = True
        else:
            hubs[src] = len(out_of[src])
    return hubs, tag_hidden


def _hub_name(graph, box: int, chains: Mapping[int, list[int]]) -> str:
    """What the tags of a box that feeds many say: its name, else its op (a chain's: its ops, collapsed)."""
    if box in chains:
        return f"… {len(chains[box]):,} ops …"
    node = graph.nodes[box]
    return node.name or node.op or (format_array(node.data)[0] if node.data.size == 1 else node.kind)


def _tag_attrs(kind: str, tag_id: str) -> str:
    """A tag: small, dashed, in the colours of the box it stands for (the notice's for inputs not drawn)."""
    entry = _KIND.get(kind)
    fill, border = (entry.fill, entry.border) if entry else ("#fef3c7", "#d97706")
    classes = f"kind-{kind}" if entry else kind
    return (f'id="{tag_id}", {TAG_CLASS}{classes}", shape=box, style="rounded,filled,dashed", fillcolor="{fill}", '
            f'color="{border}", fontcolor="{_GREY}", fontsize=10, height=0.2, width=0.2, margin="0.04,0.01"')


def _with_uses_row(label: str, count: int, name: str) -> str:
    """``label`` (a box's HTML table) with the row a box that feeds many adds: how many boxes it feeds and how
    they show it."""
    end = "</table>>"
    if not label.endswith(end):
        return label
    return (label[: -len(end)] + f'<tr><td colspan="2" align="left"><font point-size="10" color="{_GREY}">'
            f"feeds {count:,} boxes: each has a tag {_esc(name)}</font></td></tr>" + end)


# ----------------------------------------------------------------------------- the drawing


@dataclass(frozen=True)
class Drawing:
    """Which boxes a drawing of a graph has: see ``plan``."""

    boxes: tuple[int, ...]  # the ids of the boxes drawn, in topological order (a chain by its last member)
    chains: dict[int, list[int]]  # a collapsed chain's box -> its members' ids
    notice: str | None  # what the notice box says when the graph was cut to its output's neighbourhood
    compact: bool  # values on one line each

    def box_of(self, node: int) -> int:
        """The box that draws node ``node`` (a chain's box for its members; the node itself otherwise)."""
        return self._member_of.get(node, node)

    @functools.cached_property
    def _member_of(self) -> dict[int, int]:
        return {m: last for last, members in self.chains.items() for m in members}


def plan(graph, *, max_nodes: int | None = 200, compact: bool | None = None) -> Drawing:
    """The boxes of a drawing: every tensor, or for graphs of more than ``max_nodes`` tensors a summary.

    Chains of elementwise ops collapse into one box, then only the last ``max_nodes`` boxes in
    topological order (the output's neighbourhood) are drawn, under a notice saying how many are
    shown. ``compact`` (default: above ``COMPACT_ABOVE`` boxes) draws each value on one line.
    """
    total = len(graph.nodes)
    chains: dict[int, list[int]] = {}
    if max_nodes is not None and total > max_nodes:
        chains = _collapse_chains(graph, {graph.output})
    in_chain = {m: last for last, members in chains.items() for m in members}
    boxes = [i for i in range(total) if i not in in_chain or in_chain[i] == i]
    notice = None
    if max_nodes is not None and len(boxes) > max_nodes:
        boxes = boxes[-max(max_nodes - 1, 1) :]
        shown = sum(len(chains[b]) if b in chains else 1 for b in boxes)
        notice = f"showing {shown:,} of {total:,} nodes (nearest the output)"
    kept = set(boxes)
    chains = {b: members for b, members in chains.items() if b in kept}
    if compact is None:
        compact = len(boxes) > COMPACT_ABOVE
    return Drawing(boxes=tuple(boxes), chains=chains, notice=notice, compact=compact)


def _spine(graph, boxes: list[int], box_of) -> set[int]:
    """The boxes on the longest path into the output: Graphviz keeps them in one straight line.

    Without it a deep network is drawn as a staircase: every layer's weight pushes the next layer
    one box to the side. Depth is counted in boxes; ties go to the first argument.
    """
    visible = set(boxes)
    depth: dict[int, int] = {}
    best: dict[int, int | None] = {}
    for b in boxes:  # topological order
        parents = [box_of(p) for p in graph.nodes[b].parents if box_of(p) in visible and box_of(p) != b]
        top = max(parents, key=lambda p: depth[p], default=None)
        depth[b] = 1 + (depth[top] if top is not None else 0)
        best[b] = top
    line, b = set(), boxes[-1] if boxes else None
    while b is not None:
        line.add(b)
        b = best[b]
    return line if len(line) >= 3 else set()


def _separations(compact: bool) -> str:
    """The gaps between boxes (inches): a compact drawing's are half as wide, so that micrograd's graph (35 boxes)
    fits a 1280x800 window's pane with its text at 11 px or more."""
    return "nodesep=0.12, ranksep=0.12" if compact else "nodesep=0.25, ranksep=0.3"


def _least_height(compact: bool) -> str:
    """A compact drawing's boxes are as low as their text (Graphviz's least height, 0.5 in, left a one-row box
    half empty)."""
    return ", height=0.3" if compact else ""


def _beside(attrs: list[str]) -> list[str]:
    """An edge's attributes with its label drawn beside it (``xlabel``): dot gives a ``label`` a rank of its own,
    which doubled the ranks of a compact drawing (each sub, div and pow's slots)."""
    return [f"x{a}" if a.startswith("label=") else a for a in attrs]


def to_dot(
    graph,
    *,
    show_data: bool = True,
    show_grad: bool = True,
    show_shape: bool = True,
    rankdir: str = "TB",
    max_nodes: int | None = 200,
    compact: bool | None = None,
    grad_lines: Mapping[int, list[str]] | None = None,
    broadcast: Mapping[tuple[int, int], str] | None = None,
    grad_word: str = "grad",
) -> str:
    """DOT text for ``graph`` (see the module docstring for the colours and the ids).

    ``max_nodes`` and ``compact`` choose the boxes and how values are drawn (see ``plan``: big
    graphs are summarised around the output). ``grad_lines`` replaces the grad cell's lines of the
    nodes it names (the stepper sizes each box for the longest grad it will show); ``broadcast``
    maps (node id, argument slot) to a note such as "Σ axis 0" for edges whose grad was summed over
    broadcast axes. ``grad_word`` names the grad row (forward mode draws each node's tangent there: "tangent").
    """
    if rankdir not in ("TB", "LR", "BT", "RL"):
        raise ValueError(f"rankdir must be TB, LR, BT or RL, not {rankdir!r}")
    nodes = graph.nodes
    show = frozenset(part for part, on in zip(PARTS, (show_data, show_grad, show_shape)) if on)
    drawing = plan(graph, max_nodes=max_nodes, compact=compact)
    boxes, chains, notice, compact = drawing.boxes, drawing.chains, drawing.notice, drawing.compact
    visible = set(boxes)
    box_of = drawing.box_of

    spine = _spine(graph, boxes, box_of)
    edges: list[tuple[int, int, int, list[str]]] = []  # (source box, box, slot, attributes)
    hidden_parents: dict[int, list[int]] = {}  # box -> its parents not drawn
    for b in boxes:
        first = chains[b][0] if b in chains else b
        node = nodes[first]
        parents = node.parents
        slots = slot_names(node) if len(parents) > 1 and node.op not in COMMUTATIVE else None
        for slot, p in enumerate(parents):
            src = box_of(p)
            if src not in visible:
                hidden_parents.setdefault(b, []).append(p)
                continue
            attrs = [f'id="e{b}.{slot}"']
            note = broadcast.get((first, slot)) if broadcast else None
            words = [slots[slot]] if slots else []
            if note:
                words.append(note)
                colour = TEXT_COLOURS["broadcast"]
                attrs.append(f'class="broadcast", color="{colour}", fontcolor="{colour}", style=dashed')
            if words:
                attrs.append(f"label={_quoted(' · '.join(words))}")
            if node.op == "detach":
                attrs.extend(_cut_attrs())
            edges.append((src, b, slot, attrs))
        for k, d in enumerate(node.data_parents, start=len(parents)):  # labels, index tensors: data, not grads
            if box_of(d) in visible:
                label = f"label={_quoted(data_role(node))}"
                edges.append((box_of(d), b, k, [f'id="e{b}.{k}"', 'class="data"', "style=dashed", label]))
    hubs, tag_hidden = _hubs(boxes, edges, hidden_parents)
    if compact:
        edges = [(src, b, slot, _beside(attrs)) for src, b, slot, attrs in edges]
    out = [
        "digraph autograd {",
        f'  graph [rankdir={rankdir}, bgcolor="transparent", {_separations(compact)}, fontname="Helvetica"];',
        f'  node [shape=box, fontname="Helvetica", fontsize=13, margin="0.1,0.05"{_least_height(compact)}];',
        f'  edge [color="{_GREY}", arrowsize=0.6, fontname="Helvetica", fontsize=10, fontcolor="{_GREY}"];',
    ]
    if notice:
        if tag_hidden:
            notice += f"\n{len(hidden_parents):,} boxes take inputs not drawn: each is tagged with their names"
        out.append(
            f'  notice [label={_quoted(notice)}, id="notice", class="notice", shape=note, style=filled, '
            'fillcolor="#fef3c7", color="#d97706", fontcolor="#92400e"];'
        )
    for b in boxes:
        group = ', group="spine"' if b in spine else ""
        if b in chains:
            label, kind = _chain_label(graph, chains[b]), "chain"
        else:
            node = nodes[b]
            lines = grad_lines.get(b) if grad_lines is not None else None
            label, kind = _node_label(node, node.grad, lines, show, compact, grad_word), node.kind
        if b in hubs:
            label = _with_uses_row(label, hubs[b], _hub_name(graph, b, chains))
        out.append(f'  n{b} [label={label}, id="n{b}", {_node_attrs(kind)}{group}];')

    for src, b, slot, attrs in edges:
        if src in hubs:
            tag, kind = f"t{b}_{slot}", "chain" if src in chains else nodes[src].kind
            name = _quoted(_hub_name(graph, src, chains))
            out.append(f'  {tag} [label={name}, {_tag_attrs(kind, f"t{src}-{b}.{slot}")}];')
            out.append(f"  {tag} -> n{b} [{', '.join(attrs)}, arrowsize=0.4];")
        else:
            out.append(f"  n{src} -> n{b} [{', '.join(attrs)}];")
    for b, hidden in hidden_parents.items():
        if tag_hidden:
            names = list(dict.fromkeys(_hub_name(graph, p, {}) for p in hidden))
            name = ", ".join(names[:2]) + (", …" if len(names) > 2 else "")
            out.append(f'  tn{b} [label={_quoted(name)}, {_tag_attrs("notice", f"tnotice-{b}")}];')
            out.append(f'  tn{b} -> n{b} [id="en{b}", style=dashed, color="#d97706", arrowsize=0.4];')
        else:
            out.append(f'  notice -> n{b} [id="en{b}", style=dashed, color="#d97706"];')
    out.append("}")
    return "\n".join(out) + "\n"
