"""The "Forward vs reverse" tab's words and pictures: a Jacobian's cost each way as an HTML table with the browser
tests' hooks, and the lab's crossover plot (plain HTML and Plotly, no Streamlit).

The table's root carries data-testid (``ad-cost`` for the program's, ``ad-cost-lab`` for the lab's) with data-n,
data-m, data-forward-passes, data-reverse-passes, data-forward-operations, data-reverse-operations, data-winner
('forward', 'reverse' or 'tie') and data-built ('true' or 'false'). Colours are the page's own text over a
transparent background, so the light and the dark theme both show through.
"""

from __future__ import annotations

import html
import math

import plotly.graph_objects as go

from explorer.depth_lab.figures import log_range, log_ticks
from explorer.numbers import fmt_number
from explorer.program.mode_cost import JacobianCost, LabCurve, cost_rows

FORWARD_COLOUR = "rgb(31, 119, 220)"
REVERSE_COLOUR = "rgb(220, 96, 38)"
CROSSOVER_COLOUR = "rgba(128, 128, 128, 0.9)"

HOW_COUNTED = (
    "Operations are counted by running each node's own JVP and VJP on arrays that count: one per element an "
    "elementwise step computes, one multiply-add per term of a matrix product, one per number a sum folds in. "
    "The time is building J, the faster of two builds each way, in a worker process."
)

_STYLE = """<style>
.ad-cost { overflow-x: auto; }
.ad-cost table { border-collapse: collapse; width: 100%; font-size: 0.875rem; color: inherit; }
.ad-cost th { text-align: right; font-weight: 600; padding: 4px 7px; white-space: nowrap;
  background: rgba(128, 128, 128, 0.12); }
.ad-cost td { text-align: right; padding: 4px 7px; border-top: 1px solid rgba(128, 128, 128, 0.2);
  font-variant-numeric: tabular-nums; white-space: nowrap; }
.ad-cost th:first-child, .ad-cost td:first-child { text-align: left; }
.ad-cost tr[data-wins="true"] td { font-weight: 600; background: rgba(33, 195, 84, 0.12); }
.ad-cost tr[data-wins="true"] td:first-child { box-shadow: inset 3px 0 0 rgb(33, 195, 84); }
</style>"""


def shape_text(cost: JacobianCost) -> str:
    """f: ℝⁿ → ℝᵐ in words, with where the n numbers live: 'n = 22 input numbers (x 6, W 12, b 4), m = 1 output
    number: J is 1 × 22'."""
    n, m = cost.n, cost.m
    where = ""
    if len(cost.inputs) > 1:
        where = " (" + ", ".join(f"{name} {size:,}" for name, size in cost.inputs) + ")"
    elif len(cost.inputs) == 1:
        where = f" (in {cost.inputs[0][0]})"
    return (f"n = {n:,} input number{'s' * (n != 1)}{where}, m = {m:,} output number{'s' * (m != 1)}: "
            f"J is {m:,} × {n:,}")


def difference_text(cost: JacobianCost) -> str:
    """The two Jacobians against each other when built, else the note saying why J was not built."""
    if not cost.built:
        return cost.note
    entries = cost.n * cost.m
    if entries == 0:
        return f"J is empty ({cost.m:,} × {cost.n:,}): nothing to compare."
    odd = (f"{cost.nonfinite:,} of its {entries:,} entr{'ies' if entries != 1 else 'y'} "
           f"{'are' if cost.nonfinite != 1 else 'is'} nan or inf")
    if cost.max_difference == math.inf:
        return (f"J built both ways: {odd}, and the two ways disagree on which (a rule's 0 × inf is nan, and each "
                f"way meets its zeros in other entries).")
    rest = f"; {odd} both ways" if cost.nonfinite else ""
    if cost.nonfinite == entries:
        return "J built both ways: every entry is nan or inf, the same both ways."
    return (f"J built both ways: the largest |J by forward − J by reverse| is {fmt_number(cost.max_difference)}, "
            f"its largest entry {fmt_number(cost.max_entry)} (the same Jacobian to rounding){rest}.")


def cost_html(cost: JacobianCost, testid: str, label: str) -> str:
    """The cost each way as a table (passes, operations per pass and in all, time or 'not built'), the winner's row
    marked (bold, green), under a root with the tests' hooks (see the module's docstring); ``label`` is its
    accessible name."""
    winner = cost.winner
    rows = []
    for mode, row in zip((cost.forward, cost.reverse), cost_rows(cost)):
        wins = mode.mode == winner
        cells = [html.escape(str(row[k])) for k in ("mode", "passes", "per pass", "operations", "time")]
        title = ' title="fewer operations: this way wins"' if wins else ""
        rows.append(f'<tr data-mode="{mode.mode}" data-wins="{str(wins).lower()}"{title}>'
                    + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    head = {"Mode": "JVPs push a direction of the inputs forward, VJPs pull one of the output back",
            "Passes": "how many JVPs (n, one per input number) or VJPs (m, one per output number) build J",
            "Per pass": "operations counted in one pass (forward mode's: the mean over its passes)",
            "Operations": "operations counted over all passes",
            "Time": "measured building J this way (the faster of two builds)"}
    hooks = {
        "n": cost.n, "m": cost.m, "forward-passes": cost.forward.passes, "reverse-passes": cost.reverse.passes,
        "forward-operations": cost.forward.operations, "reverse-operations": cost.reverse.operations,
        "winner": winner, "built": str(cost.built).lower(),
    }
    attributes = " ".join(f'data-{k}="{html.escape(str(v))}"' for k, v in hooks.items())
    return (
        _STYLE
        + f'<div class="ad-cost" data-testid="{html.escape(testid)}" {attributes} role="group" '
          f'aria-label="{html.escape(label)}">'
        + "<table><thead><tr>" + "".join(f'<th title="{html.escape(why)}">{h}</th>' for h, why in head.items())
        + "</tr></thead><tbody>"
        + "".join(rows) + "</tbody></table></div>"
    )


def _powers_of_two(last: int) -> list[int]:
    ticks, k = [], 1
    while k <= last:
        ticks.append(k)
        k *= 2
    return ticks


def crossover_figure(curve: LabCurve, n: int) -> go.Figure:
    """The lab's counted operations each way against n (log axes) at the curve's m: forward mode's line rises as
    n² (n passes of m·n each), reverse mode's as n (m passes of m·n each); they cross where the counts do (n = m),
    and the chosen n is marked on both."""
    m = curve.m
    fig = go.Figure()
    for name, counts, colour, passes in (("forward", curve.forward, FORWARD_COLOUR, "n JVPs"),
                                         ("reverse", curve.reverse, REVERSE_COLOUR, f"{m:,} VJPs")):
        fig.add_trace(go.Scatter(
            x=list(curve.ns), y=list(counts), mode="lines", name=f"{name} ({passes})", line=dict(color=colour, width=2),
            hovertemplate=f"n = %{{x}}: %{{y:,}} operations<extra>{name}</extra>",
        ))
    if n in curve.ns:
        at = curve.ns.index(n)
        fig.add_trace(go.Scatter(
            x=[n, n], y=[curve.forward[at], curve.reverse[at]], mode="markers", name=f"your n = {n:,}",
            marker=dict(size=11, color=[FORWARD_COLOUR, REVERSE_COLOUR], line=dict(width=2, color="white"),
                        symbol="circle"),
            hovertemplate=f"n = {n:,}: %{{y:,}} operations<extra>your n</extra>",
        ))
    values = list(curve.forward) + list(curve.reverse)
    if curve.crossover is not None:
        at = curve.crossover
        fig.add_trace(go.Scatter(  # NOTE: a trace, not a shape, so that the legend names it
            x=[at, at], y=[min(values), max(values)], mode="lines", name=f"n = m = {at:,}",
            line=dict(color=CROSSOVER_COLOUR, width=1.5, dash="dash"), hoverinfo="skip",
        ))
        if at > curve.ns[0]:
            fig.add_annotation(x=math.log10(at), y=0, yref="y domain", text="← forward cheaper", showarrow=False,
                               xanchor="right", yanchor="bottom", xshift=-4, font=dict(size=11, color=FORWARD_COLOUR))
        if at < curve.ns[-1]:
            fig.add_annotation(x=math.log10(at), y=0, yref="y domain", text="reverse cheaper →", showarrow=False,
                               xanchor="left", yanchor="bottom", xshift=4, font=dict(size=11, color=REVERSE_COLOUR))
    yticks, ytexts = log_ticks(values)
    xticks = _powers_of_two(max(curve.ns))
    fig.update_xaxes(type="log", title_text="n (input numbers)", tickvals=xticks, ticktext=[str(t) for t in xticks],
                     range=log_range([min(curve.ns), max(curve.ns)]))
    fig.update_yaxes(type="log", title_text="operations to build J", tickvals=yticks, ticktext=ytexts,
                     range=log_range(values))
    fig.update_layout(
        height=340, margin=dict(l=60, r=20, t=40, b=40),
        title=dict(text=f"Operations to build J of y = tanh(W @ x) for m = {m:,}, n = {n:,}", font=dict(size=14)),
        legend=dict(orientation="h", yanchor="top", y=-0.25, xanchor="left", x=0),
    )
    return fig
