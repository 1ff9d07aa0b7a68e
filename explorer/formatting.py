"""Pictures and HTML snippets for the explorer pages: the colour legend and a node's data/grad heatmaps."""

from __future__ import annotations

import html
import re

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explorer.dot import CHAIN_TITLE_END, LEGEND, STATE_LEGEND
from explorer.explain import as_table


def legend_html(kinds: set[str] | None = None, states: bool = False) -> str:
    """The node colours as a row of small chips: the ``kinds`` present (all if None), and with
    ``states`` the stepper's active / done / waiting. Each chip's tooltip says what it means."""
    entries = [e for e in LEGEND if kinds is None or e.key in kinds]
    entries += list(STATE_LEGEND) if states else []
    chips = []
    for e in entries:
        dashed = "dashed" if e.key == "waiting" else "solid"
        width = 3 if e.key == "active" else 1
        chips.append(
            f'<span title="{html.escape(e.meaning)}" style="display:inline-block;margin:0 4px 4px 0;'
            f"padding:0 7px;border-radius:6px;background:{e.fill};border:{width}px {dashed} {e.border};"
            f'color:#111827;font-size:0.75rem;white-space:nowrap">{html.escape(e.label)}'
            f'<span style="color:#4b5563"> · {html.escape(e.short)}</span></span>'
        )
    return '<div style="line-height:1.7">' + "".join(chips) + "</div>"


def kinds_in(graph, dot: str) -> set[str]:
    """The legend keys a drawing uses: the graph's node kinds, plus 'chain' if a chain was collapsed."""
    kinds = {node.kind for node in graph.nodes}
    if CHAIN_TITLE_END in dot:
        kinds.add("chain")
    return kinds


def heatmap_figure(data: np.ndarray, grad: np.ndarray | None, title: str = "") -> go.Figure:
    """data and grad side by side as heatmaps (diverging colours centred on 0), values written in when small."""
    panels = [("data", data)] + ([("grad", grad)] if grad is not None else [])
    fig = make_subplots(
        rows=1, cols=len(panels), subplot_titles=[name for name, _ in panels], horizontal_spacing=0.2
    )
    for col, (name, array) in enumerate(panels, start=1):
        table = as_table(np.asarray(array, dtype=np.float64))
        small = table.size <= 100
        domain = fig.layout[f"xaxis{col if col > 1 else ''}"].domain
        fig.add_trace(
            go.Heatmap(
                z=table,
                colorscale="RdBu_r",
                zmid=0.0,
                texttemplate="%{z:.3g}" if small else None,
                hovertemplate=f"{name}[%{{y}}, %{{x}}] = %{{z:.6g}}<extra></extra>",
                colorbar=dict(len=0.9, x=domain[1] + 0.01, xanchor="left", thickness=10),
            ),
            row=1,
            col=col,
        )
        fig.update_yaxes(autorange="reversed", row=1, col=col, title_text="row" if col == 1 else None)
        fig.update_xaxes(title_text="column", row=1, col=col)
    height = int(min(480, max(220, 60 + 28 * min(as_table(np.asarray(data)).shape[0], 14))))
    fig.update_layout(title=title or None, height=height, margin=dict(l=40, r=20, t=50, b=40))
    return fig


def short_number(x: float) -> str:
    """A number in at most 7 characters for a metric tile: 0.00137, 12.3, 5.1e-4, 1.1e278, inf."""
    if not np.isfinite(x) or x == 0:
        return f"{x:.3g}"
    if 1e-3 <= abs(x) < 1e5:
        text = f"{x:.3g}"
        if "e" not in text:
            return text
    mantissa, exponent = f"{x:.1e}".split("e")
    return f"{mantissa}e{int(exponent)}"


_MARKDOWN = re.compile(r"([\\*_\[\]<>$~#|])")


def markdown_safe(message: str) -> str:
    """A message for st.error and friends, which render Markdown: characters that would format
    (``__class__`` turning bold, ``my_file.csv`` italic, ``$x$`` LaTeX) are escaped outside its
    `code spans`, which the messages use on purpose. Unpaired backticks are escaped too."""
    parts = message.split("`")
    if len(parts) % 2 == 0:
        return _MARKDOWN.sub(r"\\\1", message).replace("`", "\\`")
    return "`".join(part if i % 2 else _MARKDOWN.sub(r"\\\1", part) for i, part in enumerate(parts))
