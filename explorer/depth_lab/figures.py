"""The depth lab's pictures: spread and gradient per layer, the activations' histograms, the per-layer table.

Plain Plotly figures and an HTML table (no Streamlit). Colours are transparent where there is nothing,
so the page's own background, light or dark, shows through. The table's root carries the browser
tests' hooks: data-testid="depth-lab", one row per layer with data-layer, data-act-std, data-grad-norm.
"""

from __future__ import annotations

import html
import math

import numpy as np
import plotly.graph_objects as go

from explorer.depth_lab.lab import LabResult, LayerStats, scaled
from explorer.numbers import fmt_number, fmt_percent, plain_number, power_of_ten

ACT_COLOUR = "rgb(31, 119, 220)"
GRAD_COLOUR = "rgb(220, 96, 38)"
#: share of a layer's activations in a bin: 0 transparent (the page's background), up to a strong blue
PAD = 1.5  # a log axis reaches this factor below the smallest value and above the largest
SHARES = [[0.0, "rgba(31, 119, 220, 0)"], [0.15, "rgba(31, 119, 220, 0.45)"], [1.0, "rgba(31, 119, 220, 1)"]]


def _positive(values: list[float]) -> list[float | None]:
    """Values for a log axis: 0, nan and inf have no place on it (None leaves a gap)."""
    return [v if np.isfinite(v) and v > 0 else None for v in values]


def log_range(values: list[float | None]) -> tuple[float, float] | None:
    """The log axis's range (in decades) around these values, with room for the smallest bar to show."""
    shown = [v for v in values if v is not None]
    return (math.log10(min(shown) / PAD), math.log10(max(shown) * PAD)) if shown else None


def log_ticks(values: list[float | None]) -> tuple[list[float], list[str]]:
    """Tick values and texts for a log axis over these values (see log_range): powers of ten (at most 7),
    or, within two decades, the first of 1-2-5, 1-2-3-5 and 1 to 9 steps that gives three ticks."""
    span = log_range(values)
    if span is None:
        return [], []
    lo, hi = math.floor(span[0]), math.ceil(span[1])
    if span[1] - span[0] >= 2 + 2 * math.log10(PAD):
        first, last = math.ceil(span[0]), math.floor(span[1])
        ticks = [10.0**k for k in range(first, last + 1, max(1, math.ceil((last - first) / 6)))]
        return ticks, [power_of_ten(t) for t in ticks]
    for mantissas in ((1, 2, 5), (1, 2, 3, 5), range(1, 10)):
        ticks = [m * 10.0**k for k in range(lo, hi + 1) for m in mantissas]
        ticks = [t for t in ticks if span[0] <= math.log10(t) <= span[1]]
        if len(ticks) >= 3:
            break
    return ticks, [plain_number(t) for t in ticks]


def _title(text: str) -> dict:
    return dict(text=text, font=dict(size=14))


def layer_bars(result: LabResult, what: str) -> go.Figure:
    """One bar per layer on a log scale: `what` is "spread" (the activations' std) or "gradient" (‖∂L/∂W‖)."""
    if what == "spread":
        name, values, colour = "activation std", [s.act_std for s in result.layers], ACT_COLOUR
        title = "Activation spread (std) per layer, log scale"
    else:
        name, values, colour = "gradient norm", [s.grad_norm for s in result.layers], GRAD_COLOUR
        title = "Gradient norm ‖∂L/∂W‖ per layer, log scale"
    shown = _positive(values)
    fig = go.Figure(go.Bar(x=[s.layer for s in result.layers], y=shown, name=name, marker_color=colour,
                           hovertemplate=f"layer %{{x}}: {name} %{{y:.3g}}<extra></extra>"))
    ticks, texts = log_ticks(shown)
    fig.update_yaxes(type="log", tickvals=ticks, ticktext=texts, range=log_range(shown))
    fig.update_xaxes(title_text="layer")
    if not ticks:
        fig.add_annotation(text="0 in every layer: nothing to draw on a log scale", showarrow=False,
                           xref="x domain", yref="y domain", x=0.5, y=0.5)
    fig.update_layout(height=280, margin=dict(l=60, r=20, t=40, b=40), bargap=0.15, title=_title(title))
    return fig


def _axis(result: LabResult) -> str:
    return "activation ÷ its layer's std" if scaled(result.config.activation) else "activation"


def histogram_figure(result: LabResult) -> go.Figure:
    """Every layer's histogram at once: a column per layer, the activation's value up the side, the share
    of the batch's activations in each bin as colour (the bins are the same for all layers)."""
    edges = result.edges
    centres = (edges[:-1] + edges[1:]) / 2
    share = result.hist.T * 100  # (bins, layers), in %
    # NOTE: a spike (ReLU's zeros, tanh's ±1) would take the whole scale and leave the rest pale: the
    # colours top out at the 95th percentile of the non-empty bins.
    filled = share[share > 0]
    top = float(np.percentile(filled, 95)) if filled.size else 1.0
    fig = go.Figure(go.Heatmap(
        x=[s.layer for s in result.layers], y=centres, z=share, colorscale=SHARES, zmin=0.0, zmax=max(top, 1e-9),
        colorbar=dict(title=dict(text="% of layer", side="right"), thickness=10),
        hovertemplate="layer %{x}, " + _axis(result) + " ≈ %{y:.3g}: %{z:.1f} % of the layer's values<extra></extra>",
    ))
    fig.update_layout(height=300, margin=dict(l=60, r=20, t=40, b=40), xaxis_title="layer", yaxis_title=_axis(result),
                      title=_title("Where each layer's activations lie"))
    return fig


def layer_histogram(result: LabResult, layer: int) -> go.Figure:
    """One layer's histogram as bars (share of the batch's activations per bin)."""
    edges = result.edges
    stats = result.layers[layer - 1]
    fig = go.Figure(go.Bar(
        x=(edges[:-1] + edges[1:]) / 2, y=result.hist[layer - 1] * 100, width=np.diff(edges), marker_color=ACT_COLOUR,
        hovertemplate="activation ≈ %{x:.3g}: %{y:.1f} %<extra></extra>",
    ))
    title = f"Layer {layer}: mean {fmt_number(stats.act_mean)}, std {fmt_number(stats.act_std)}"
    fig.update_layout(height=300, margin=dict(l=60, r=20, t=40, b=40), bargap=0.05, title=_title(title),
                      xaxis_title=_axis(result), yaxis_title="% of the layer's values")
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
    return "—" if value is None else fmt_percent(value)


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
