"""What the node inspector shows of one node, bounded whatever its size: a preview table, a summary, heatmaps.

``inspect_node(text, poked, node_id)`` runs the program and returns plain data, so the page runs it in a sandbox
worker (components/common/session.py): a 1,000,000-number tensor sent whole became a table of one row and 1,000,000
columns and a heatmap of as many cells (139.6 s of the server's CPU, +4.4 GB, a 216.8 MB message the browser
never got). Here the browser gets at most PREVIEW_ROWS x PREVIEW_COLS numbers per table and a heatmap of at
most HEATMAP_CELLS, each cell the mean of the block it stands for.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explorer.graph import names
from explorer.numbers import fmt_number, json_numbers, summarise
from explorer.program import run

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
class Inspection:
    """What the inspector shows of one node: its data and grad (None if it has none) as previews, and both as
    heatmaps."""

    data: Preview
    grad: Preview | None
    figure: object  # a Plotly figure: data and grad as heatmaps


def table_of(array: np.ndarray) -> np.ndarray:
    """An array as a 2-D table: as_table's rows of the last axis, except that a 1-D array longer than
    PREVIEW_COLS is one column (its index runs down the rows), not one row of as many columns."""
    array = np.asarray(array)
    if array.ndim == 1 and array.shape[0] > PREVIEW_COLS:
        return array.reshape(-1, 1)
    return as_table(array)


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


def inspect_node(text: str, poked: tuple, node_id: int, dark: bool = False) -> Inspection | None:
    """What the inspector shows of node ``node_id`` of the program run with its ``poked`` values (None if no such
    node). ``dark``: the page's theme, for the heatmap's numbers."""
    graph, _ = run.step_program(text, poked)
    if not 0 <= node_id < len(graph.nodes):
        return None
    node = graph.nodes[node_id]
    grad = None if node.grad is None else preview(node.grad)
    figure = heatmap_figure(node.data, node.grad, names.node_label(node), dark=dark)
    return Inspection(preview(node.data), grad, figure)

# ----------------------------------------------------------------------------- values as text


def as_table(array: np.ndarray) -> np.ndarray:
    """An array as a 2-D table for display (scalar -> 1x1, vector -> one row, nd -> rows of the last axis)."""
    array = np.asarray(array)
    if array.ndim == 0:
        return array.reshape(1, 1)
    if array.ndim == 1:
        return array.reshape(1, -1)
    return array.reshape(int(np.prod(array.shape[:-1])), array.shape[-1])  # -1 is ambiguous for an empty one


#: Diverging colours centred on 0 over the page's own background, light or dark: 0 is transparent, and the
#: theme's background shows through it (as the Jacobian view mixes its red and blue into the background);
#: a fixed scale such as RdBu_r put white cells on the dark theme's page.
DIVERGING = [
    [0.0, "rgba(31, 119, 220, 1)"],
    [0.5, "rgba(128, 128, 128, 0)"],
    [1.0, "rgba(220, 38, 50, 1)"],
]


def heatmap_figure(data: np.ndarray, grad: np.ndarray | None, title: str = "", dark: bool = False) -> go.Figure:
    """data and grad side by side as heatmaps (diverging colours centred on 0), values written in when small.

    A large array is drawn as at most HEATMAP_CELLS cells, each the mean of its block (the
    hover says which rows and columns it starts at).
    ``dark``: the page has the dark theme, so the numbers are written light (Plotly picks a text colour for
    the cell's own colour, and takes a transparent cell for a pale one)."""

    panels = [("data", data)] + ([("grad", grad)] if grad is not None else [])
    fig = make_subplots(
        rows=1, cols=len(panels), subplot_titles=[name for name, _ in panels], horizontal_spacing=0.2
    )
    blocks = ""
    for col, (name, array) in enumerate(panels, start=1):
        table = as_table(np.asarray(array, dtype=np.float64))
        cells, row_starts, col_starts = binned(table)
        whole = cells.shape == table.shape
        small = table.size <= 100
        domain = fig.layout[f"xaxis{col if col > 1 else ''}"].domain
        where = "[%{y}, %{x}] = %{z:.6g}" if whole else "[rows from %{y}, columns from %{x}], mean = %{z:.4g}"
        if not whole:
            blocks = f" (each cell the mean of up to {-(-table.shape[0] // cells.shape[0]):,} x " \
                     f"{-(-table.shape[1] // cells.shape[1]):,} numbers)"
        # NOTE: block means to 4 digits (the hover's): 11,520 cells at full precision were 164 KB of JSON.
        z = cells if whole else [json_numbers(row, 4) for row in cells]
        fig.add_trace(
            go.Heatmap(
                z=z,
                x=col_starts,
                y=row_starts,
                colorscale=DIVERGING,
                zmid=0.0,
                texttemplate="%{z:.3g}" if small else None,
                textfont=dict(color="#fafafa") if dark else None,
                hovertemplate=f"{name}{where}<extra></extra>",
                colorbar=dict(len=0.9, x=domain[1] + 0.01, xanchor="left", thickness=10),
            ),
            row=1,
            col=col,
        )
        fig.update_yaxes(autorange="reversed", row=1, col=col, title_text="row" if col == 1 else None, showgrid=False,
                         **index_ticks(table.shape[0]))
        fig.update_xaxes(title_text="column", row=1, col=col, showgrid=False, **index_ticks(table.shape[1]))
    rows = as_table(np.asarray(data)).shape[0]
    height = int(min(480, max(220, 60 + 28 * min(rows, 14))))
    fig.update_layout(title=(title + blocks) if title else None, height=height, margin=dict(l=40, r=20, t=50, b=40))
    return fig


def index_ticks(n: int, most: int = 10) -> dict:
    """An axis of n cells at 0 .. n-1: ticks on whole indices only, at most ``most`` of them (Plotly's own
    choice for 1 or 2 cells was -0.5, 0, 0.5, 1, 1.5: positions between cells, no index at all)."""
    return {"tickmode": "linear", "tick0": 0, "dtick": max(1, math.ceil(n / most))}
