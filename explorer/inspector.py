"""What the node inspector shows of one node, bounded whatever its size: a preview table, a summary, heatmaps.

``node_view(text, poked, node_id)`` runs the program and returns plain data, so the page runs it in a sandbox
worker (components/session.py): a 1,000,000-number tensor sent whole became a table of one row and 1,000,000
columns and a heatmap of as many cells (139.6 s of the server's CPU, +4.4 GB, a 216.8 MB message the browser
never got). Here the browser gets at most PREVIEW_ROWS x PREVIEW_COLS numbers per table and a heatmap of at
most HEATMAP_CELLS, each cell the mean of the block it stands for.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer import explain
from explorer.numbers import fmt_number, summarise

#: A table shows at most this many rows and columns of a tensor (the first ones; a summary says the rest).
PREVIEW_ROWS = 100
PREVIEW_COLS = 20
#: A heatmap has at most this many rows and columns of cells.
HEATMAP_CELLS = (48, 120)


@dataclass(frozen=True)
class Preview:
    """An array as the inspector's table shows it: ``table`` (2-D, its rows and columns numbered from 0 as in
    the array's table), ``summary`` (one line: count, mean, min, max, norm) and ``note`` (what is left out, or "")."""

    table: np.ndarray
    summary: str
    note: str


@dataclass(frozen=True)
class NodeView:
    data: Preview
    grad: Preview | None
    figure: object  # a Plotly figure: data and grad as heatmaps


def table_of(array: np.ndarray) -> np.ndarray:
    """An array as a 2-D table: explain.as_table's rows of the last axis, except that a 1-D array longer than
    PREVIEW_COLS is one column (its index runs down the rows), not one row of as many columns."""
    array = np.asarray(array)
    if array.ndim == 1 and array.shape[0] > PREVIEW_COLS:
        return array.reshape(-1, 1)
    return explain.as_table(array)


def preview(array: np.ndarray) -> Preview:
    """The first PREVIEW_ROWS x PREVIEW_COLS of ``array``'s table, with a summary of all of it."""
    array = np.asarray(array)
    table = table_of(array)
    rows, cols = table.shape
    shown = np.array(table[:PREVIEW_ROWS, :PREVIEW_COLS])  # a copy: the whole array is not kept alive
    stats = summarise(array)
    summary = (f"{array.size:,} number{'s' if array.size != 1 else ''}: mean {fmt_number(stats['mean'])}, "
               f"min {fmt_number(stats['min'])}, max {fmt_number(stats['max'])}, norm {fmt_number(stats['norm'])}")
    left = []
    if rows > PREVIEW_ROWS:
        left.append(f"the first {PREVIEW_ROWS:,} of {rows:,} rows")
    if cols > PREVIEW_COLS:
        left.append(f"the first {PREVIEW_COLS:,} of {cols:,} columns")
    note = f"Showing {' and '.join(left)}." if left else ""
    if note and array.ndim > 2:
        note += f" Rows run over the first {array.ndim - 1} axes of shape {tuple(array.shape)}."
    return Preview(shown, summary, note)


def binned(table: np.ndarray, cells: tuple[int, int] = HEATMAP_CELLS) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(means, row starts, column starts): ``table`` cut into at most ``cells`` blocks of nearly equal size, each
    the mean of its numbers (a table that fits is returned as it is, with starts 0, 1, 2, ...)."""
    rows, cols = table.shape
    row_edges = np.linspace(0, rows, min(rows, cells[0]) + 1).astype(np.int64)
    col_edges = np.linspace(0, cols, min(cols, cells[1]) + 1).astype(np.int64)
    if rows <= cells[0] and cols <= cells[1]:
        return table, row_edges[:-1], col_edges[:-1]
    if rows == 0 or cols == 0:
        return np.zeros((0, 0)), row_edges[:-1], col_edges[:-1]
    sums = np.add.reduceat(np.add.reduceat(table, row_edges[:-1], axis=0), col_edges[:-1], axis=1)
    return sums / np.outer(np.diff(row_edges), np.diff(col_edges)), row_edges[:-1], col_edges[:-1]


def node_view(text: str, poked: tuple, node_id: int, dark: bool = False) -> NodeView | None:
    """The inspector's view of node ``node_id`` of the program run with its ``poked`` values (None if no such
    node). ``dark``: the page's theme, for the heatmap's numbers."""
    from explorer.formatting import heatmap_figure

    graph, _ = explain.step_program(text, poked)
    if not 0 <= node_id < len(graph.nodes):
        return None
    node = graph.nodes[node_id]
    grad = None if node.grad is None else preview(node.grad)
    figure = heatmap_figure(node.data, node.grad, explain.node_label(node), dark=dark)
    return NodeView(preview(node.data), grad, figure)
