"""The depth lab's pictures: spread and gradient per layer, the activations' histograms, the per-layer table.

Plain Plotly figures and an HTML table (no Streamlit). Colours are transparent where there is nothing,
so the page's own background, light or dark, shows through. The table's root carries the browser
tests' hooks: data-testid="depth-lab", one row per layer with data-layer, data-act-std, data-grad-norm.
"""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explorer.depth_lab import LabResult, LayerStats
from explorer.numbers import fmt_number, power_of_ten

ACT_COLOUR = "rgb(31, 119, 220)"
GRAD_COLOUR = "rgb(220, 96, 38)"
#: share of a layer's activations in a bin: 0 transparent (the page's background), up to a strong blue
SHARES = [[0.0, "rgba(31, 119, 220, 0)"], [0.15, "rgba(31, 119, 220, 0.45)"], [1.0, "rgba(31, 119, 220, 1)"]]


def _positive(values: list[float]) -> list[float | None]:
    """Values for a log axis: 0, nan and inf have no place on it (None leaves a gap)."""
    return [v if np.isfinite(v) and v > 0 else None for v in values]


def depth_figure(result: LabResult) -> go.Figure:
    """Two panels over the layers: the activations' spread (std) and the weights' gradient norm, log scales."""
    layers = [s.layer for s in result.layers]
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.1,
                        subplot_titles=("Activation spread (std), log scale", "Gradient norm ‖∂L/∂W‖, log scale"))
    for col, (name, values, colour) in enumerate([
        ("activation std", [s.act_std for s in result.layers], ACT_COLOUR),
        ("gradient norm", [s.grad_norm for s in result.layers], GRAD_COLOUR),
    ], start=1):
        shown = _positive(values)
        fig.add_trace(go.Bar(x=layers, y=shown, name=name, marker_color=colour, showlegend=False,
                             hovertemplate=f"layer %{{x}}: {name} %{{y:.3g}}<extra></extra>"), row=1, col=col)
        fig.update_yaxes(type="log", exponentformat="power", row=1, col=col)
        fig.update_xaxes(title_text="layer", row=1, col=col)
        if all(v is None for v in shown):
            axis = "" if col == 1 else str(col)
            fig.add_annotation(text="0 in every layer: nothing to draw on a log scale", showarrow=False,
                               xref=f"x{axis} domain", yref=f"y{axis} domain", x=0.5, y=0.5)
    fig.update_layout(height=300, margin=dict(l=50, r=20, t=40, b=40), bargap=0.15)
    return fig


def histogram_figure(result: LabResult) -> go.Figure:
    """Every layer's histogram at once: a column per layer, the activation's value up the side, the share
    of the batch's activations in each bin as colour (the bins are the same for all layers)."""
    edges = result.edges
    centres = (edges[:-1] + edges[1:]) / 2
    share = result.hist.T * 100  # (bins, layers), in %
    fig = go.Figure(go.Heatmap(
        x=[s.layer for s in result.layers], y=centres, z=share, colorscale=SHARES, zmin=0.0,
        zmax=max(float(share.max()), 1e-9),
        colorbar=dict(title=dict(text="% of layer", side="right"), thickness=10),
        hovertemplate="layer %{x}, activation ≈ %{y:.3g}: %{z:.1f} % of the layer's values<extra></extra>",
    ))
    fig.update_layout(height=300, margin=dict(l=50, r=20, t=40, b=40),
                      title=dict(text="Where each layer's activations lie", font=dict(size=14)),
                      xaxis_title="layer", yaxis_title="activation")
    return fig


def layer_histogram(result: LabResult, layer: int) -> go.Figure:
    """One layer's histogram as bars (share of the batch's activations per bin)."""
    edges = result.edges
    stats = result.layers[layer - 1]
    fig = go.Figure(go.Bar(
        x=(edges[:-1] + edges[1:]) / 2, y=result.hist[layer - 1] * 100, width=np.diff(edges), marker_color=ACT_COLOUR,
        hovertemplate="activation ≈ %{x:.3g}: %{y:.1f} %<extra></extra>",
    ))
    fig.update_layout(height=300, margin=dict(l=50, r=20, t=40, b=40), bargap=0.05,
                      title=dict(text=f"Layer {layer}: mean {fmt_number(stats.act_mean)}, std "
                                      f"{fmt_number(stats.act_std)}", font=dict(size=14)),
                      xaxis_title="activation", yaxis_title="% of the layer's values")
    fig.update_xaxes(range=[edges[0], edges[-1]])
    return fig


# ------------------------------------------------------------------------------------------- the table

_STYLE = """<style>
.depth-lab { max-height: 340px; overflow-y: auto; border: 1px solid rgba(128, 128, 128, 0.3); border-radius: 6px; }
.depth-lab table { border-collapse: collapse; width: 100%; font-size: 0.85rem; color: inherit; }
.depth-lab th { position: sticky; top: 0; background: rgba(128, 128, 128, 0.18); backdrop-filter: blur(6px);
  text-align: right; font-weight: 600; padding: 4px 10px; }
.depth-lab td { text-align: right; padding: 2px 10px; border-top: 1px solid rgba(128, 128, 128, 0.15);
  font-variant-numeric: tabular-nums; }
.depth-lab th:first-child, .depth-lab td:first-child { text-align: left; }
.depth-lab tr[data-trouble="true"] td { color: rgb(214, 39, 40); }
</style>"""


def _share(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def _versus(stats: LayerStats, last: LayerStats) -> str:
    if stats.grad_norm == 0 or last.grad_norm == 0 or not np.isfinite(stats.grad_norm / last.grad_norm):
        return "—"
    ratio = stats.grad_norm / last.grad_norm
    return fmt_number(ratio) if 1e-2 <= ratio <= 1e2 else power_of_ten(ratio)


def layer_table_html(result: LabResult) -> str:
    """Every hidden layer's numbers as a table (one row per layer, with its data-* hooks). Rows whose
    gradient is under 1 % of the last layer's or over 100 times it, or whose activations are mostly
    saturated or dead, are marked (red)."""
    activation = result.config.activation
    extra = {"tanh": "saturated", "sigmoid": "saturated", "relu": "dead neurons"}.get(activation)
    last = result.layers[-1]
    rows = []
    for s in result.layers:
        ratio = s.grad_norm / last.grad_norm if last.grad_norm else float("nan")
        shares = s.saturated if s.saturated is not None else s.dead
        trouble = bool((np.isfinite(ratio) and not 1e-2 <= ratio <= 1e2) or (shares is not None and shares > 0.5))
        cells = [str(s.layer), fmt_number(s.act_mean), fmt_number(s.act_std)]
        cells += [_share(shares)] if extra else []
        cells += [fmt_number(s.grad_norm), _versus(s, last)]
        rows.append(
            f'<tr data-layer="{s.layer}" data-act-std="{float(s.act_std)!r}" data-grad-norm="{float(s.grad_norm)!r}"'
            f' data-trouble="{str(trouble).lower()}">' + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>"
        )
    head = ["Layer", "Activation mean", "Activation std"] + ([extra.capitalize()] if extra else [])
    head += ["Gradient norm ‖∂L/∂W‖", "× the last layer's"]
    c = result.config
    caption = (f"{c.depth} hidden layers of {c.width} {activation} neurons, {html.escape(c.init)} initialisation, "
               f"a batch of {c.batch} points")
    return (
        _STYLE
        + f'<div class="depth-lab" data-testid="depth-lab" data-depth="{c.depth}" aria-label="{caption}">'
        + "<table><thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr></thead><tbody>"
        + "".join(rows) + "</tbody></table></div>"
    )
