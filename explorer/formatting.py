"""Pictures and messages for the explorer pages: a node's data/grad heatmaps, messages safe for Markdown.
(Numbers and arrays as text: explorer.numbers.)

(The graph's colour legend is drawn by the graph view, components/graph_view, from explorer.graph.dot.LEGEND.)"""

from __future__ import annotations

import math
import re

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explorer.numbers import json_numbers

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

    A large array is drawn as at most explorer.inspector.HEATMAP_CELLS cells, each the mean of its block (the
    hover says which rows and columns it starts at).
    ``dark``: the page has the dark theme, so the numbers are written light (Plotly picks a text colour for
    the cell's own colour, and takes a transparent cell for a pale one)."""
    from explorer.explain import as_table
    from explorer.inspector import binned

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


_MARKDOWN = re.compile(r"([\\*_\[\]<>$~#|])")


def markdown_safe(message: str) -> str:
    """A message for st.error and friends, which render Markdown: characters that would format
    (``__class__`` turning bold, ``my_file.csv`` italic, ``$x$`` LaTeX) are escaped outside its
    `code spans`, which the messages use on purpose. Unpaired backticks are escaped too."""
    parts = message.split("`")
    if len(parts) % 2 == 0:
        return _MARKDOWN.sub(r"\\\1", message).replace("`", "\\`")
    return "`".join(part if i % 2 else _MARKDOWN.sub(r"\\\1", part) for i, part in enumerate(parts))
