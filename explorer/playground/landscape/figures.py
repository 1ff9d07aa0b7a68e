"""The Landscape tab's pictures as Plotly figures: the slice with the path, the line from the first weights, λmax
over the steps against 2/lr, the training points sized by their gradients, and a batch's agreement with the data.

The tab redraws them only when the panel is recomputed (every few seconds while playing), never per frame:
Plotly remounts a chart for each new figure, which the live view's pictures must not do (TESTING.md).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from explorer.numbers import fmt_number
from explorer.playground.landscape.curvature import Sharpness
from explorer.playground.landscape.directions import PCA
from explorer.playground.landscape.panel import Panel

DIFFERS_COLOUR = "#dc2626"
PATH_COLOUR = "#f8fafc"
LINE_COLOUR = "#2563eb"
EDGE_COLOUR = "#dc2626"
CLASS_COLOURS = ("#f59e0b", "#2563eb", "#16a34a", "#9333ea", "#dc2626", "#0891b2", "#db2777", "#65a30d", "#78716c",
                 "#4f46e5")
SMALL_POINT, BIG_POINT = 4, 22


def _layout(fig: go.Figure, height: int, **axes) -> go.Figure:
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=30, b=10), showlegend=False, **axes)
    return fig


def slice_figure(panel: Panel) -> go.Figure:
    """The loss over the plane (log₁₀ for the colours: a slice spans orders of magnitude), the path's projection
    over it (a red × where the contour under a point is not its loss) and the current weights (the star)."""
    sl, pa = panel.slice, panel.path
    finite = np.isfinite(sl.loss) & (sl.loss > 0)
    floor = float(sl.loss[finite].min()) if finite.any() else 1.0
    z = np.log10(np.where(finite, sl.loss, np.nan).clip(min=floor))
    text = np.vectorize(fmt_number)(sl.loss)
    fig = go.Figure(go.Contour(
        x=sl.alphas, y=sl.betas, z=z, text=text, colorscale="Viridis", ncontours=18, connectgaps=False,
        colorbar=dict(title=dict(text="log₁₀ loss", side="right"), thickness=12),
        hovertemplate="α %{x:.3g}, β %{y:.3g}<br>loss %{text}<extra></extra>"))
    if len(pa.steps):
        custom = np.column_stack([pa.steps, np.vectorize(fmt_number)(pa.real), np.vectorize(fmt_number)(pa.contour),
                                  np.vectorize(fmt_number)(pa.distance)])
        fig.add_trace(go.Scatter(
            x=pa.coords[:, 0], y=pa.coords[:, 1], mode="lines+markers", customdata=custom,
            line=dict(color=PATH_COLOUR, width=1.5), marker=dict(size=5, color=PATH_COLOUR),
            hovertemplate="step %{customdata[0]}<br>its loss %{customdata[1]}<br>the contour's %{customdata[2]}"
                          "<br>%{customdata[3]} from the plane<extra>path</extra>"))
        off = pa.differs
        if off.any():
            fig.add_trace(go.Scatter(
                x=pa.coords[off, 0], y=pa.coords[off, 1], mode="markers", customdata=custom[off],
                marker=dict(size=9, color=DIFFERS_COLOUR, symbol="x"),
                hovertemplate="step %{customdata[0]}: its loss %{customdata[1]}, the contour's %{customdata[2]}"
                              "<br>%{customdata[3]} from the plane<extra>off the plane</extra>"))
    fig.add_trace(go.Scatter(x=[0], y=[0], mode="markers", marker=dict(size=14, symbol="star", color="#facc15",
                                                                       line=dict(width=1, color="#1e293b")),
                             hovertemplate=f"now: step {panel.step}, loss {fmt_number(sl.origin_loss)}<extra></extra>"))
    names = ("PC 1", "PC 2") if sl.directions.kind == PCA else ("α (random direction 1)", "β (random direction 2)")
    return _layout(fig, 420, xaxis_title=names[0], yaxis_title=names[1],
                   title=dict(text=f"The loss around step {panel.step}", font=dict(size=14)))


def line_figure(panel: Panel) -> go.Figure:
    """The loss along the straight line from the first recorded weights (t = 0) to now (t = 1), and past both."""
    li = panel.line
    fig = go.Figure(go.Scatter(x=li.t, y=li.loss, mode="lines", line=dict(color=LINE_COLOUR, width=2),
                               hovertemplate="t %{x:.3g}: loss %{y:.4g}<extra></extra>"))
    ends = [int(np.argmin(np.abs(li.t - t))) for t in (0.0, 1.0)]
    fig.add_trace(go.Scatter(x=li.t[ends], y=li.loss[ends], mode="markers+text", textposition="top center",
                             text=[f"step {li.start_step}", f"step {panel.step} (now)"],
                             marker=dict(size=9, color=LINE_COLOUR), hoverinfo="skip"))
    return _layout(fig, 260, xaxis_title="t (0: the first weights, 1: now)", yaxis_title="loss",
                   title=dict(text="The straight line from the first weights to now", font=dict(size=14)))


def sharpness_figure(track: Sharpness, panel: Panel) -> go.Figure:
    """λmax at each step it was measured, and the edge 2/lr (the run's lr now) it is compared with."""
    fig = go.Figure(go.Scatter(x=track.steps, y=track.values, mode="lines+markers", line=dict(color=LINE_COLOUR),
                               marker=dict(size=4), hovertemplate="step %{x}: λmax %{y:.4g}<extra></extra>"))
    if panel.lr > 0:  # NOTE: λmax above 2/lr is the same as lr above 2/λmax
        fig.add_hline(y=2 / panel.lr, line=dict(color=EDGE_COLOUR, dash="dash"),
                      annotation_text=f"2/lr = {fmt_number(2 / panel.lr)}", annotation_position="top left")
    return _layout(fig, 260, xaxis_title="step", yaxis_title="λmax",
                   title=dict(text="λmax over the steps, and 2/lr", font=dict(size=14)))


def points_figure(panel: Panel, sized: bool) -> go.Figure:
    """The training points, each sized by its own gradient's norm (or all alike), coloured by class; a click
    selects one (its pull on each layer shows beside)."""
    norms = panel.each.norms
    top = float(norms.max()) if len(norms) and np.isfinite(norms).all() and norms.max() > 0 else 1.0
    sizes = SMALL_POINT + (BIG_POINT - SMALL_POINT) * np.sqrt(norms / top) if sized else np.full(len(norms), 7.0)
    X, y = panel.points, panel.labels
    regression = panel.task == "regression"
    xs, ys = X[:, 0], (y if regression else X[:, 1])
    colours = ([LINE_COLOUR] * len(y) if regression else [CLASS_COLOURS[int(c) % len(CLASS_COLOURS)] for c in y])
    custom = np.column_stack([np.arange(len(norms)), np.vectorize(fmt_number)(norms),
                              np.vectorize(fmt_number)(panel.each.losses)])
    fig = go.Figure(go.Scatter(
        x=xs, y=ys, mode="markers", customdata=custom,
        marker=dict(size=sizes, color=colours, opacity=0.8, line=dict(width=0.5, color="#1e293b")),
        hovertemplate="point %{customdata[0]}<br>‖its gradient‖ %{customdata[1]}<br>its loss %{customdata[2]}"
                      "<extra></extra>"))
    return _layout(fig, 360, xaxis_title="x" if regression else "x1", yaxis_title="y" if regression else "x2",
                   title=dict(text="Each training point sized by its gradient's norm" if sized
                              else "The training points", font=dict(size=14)), clickmode="event+select")


def agreement_figure(panel: Panel) -> go.Figure:
    """cos(batch gradient, full-data gradient) against the batch size: the mean over random batches and the band
    from their 10th to 90th percentile."""
    rows = sorted({r.size: r for r in panel.agreement}.values(), key=lambda r: r.size)
    sizes = [r.size for r in rows]
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=sizes + sizes[::-1], y=[r.high for r in rows] + [r.low for r in rows][::-1],
                             fill="toself", fillcolor="rgba(37, 99, 235, 0.15)", line=dict(width=0),
                             hoverinfo="skip"))
    fig.add_trace(go.Scatter(x=sizes, y=[r.mean for r in rows], mode="lines+markers", line=dict(color=LINE_COLOUR),
                             hovertemplate="batch of %{x}: cos %{y:.3f}<extra></extra>"))
    return _layout(fig, 300, xaxis=dict(title="batch size", type="log"), yaxis=dict(title="cosine", range=[-1, 1.05]),
                   title=dict(text="How well a batch's gradient points along the data's", font=dict(size=14)))
