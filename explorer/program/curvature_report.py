"""The Explorer's "Curvature" tab's words and pictures (plain HTML and Plotly, no Streamlit): H·v three ways as a
table with the browser tests' hooks, how they agree, the Hessian as a heatmap and what its eigenvalues' signs say.

The table's root carries data-testid="curvature" with data-hvp-reverse, data-hvp-forward and data-hvp-fd (JSON
arrays of H·v over the input numbers, null for nan or inf), data-n, data-direction, data-agree ('true' when the
three agree) and, where the Hessian was built, data-eigenvalues (a JSON array, ascending), data-kind and
data-asymmetry. Colours are the page's own text over a transparent background (light and dark themes).
"""

from __future__ import annotations

import html
import json
import math

import numpy as np
import plotly.graph_objects as go

from explorer.numbers import finite_or_none, fmt_number
from explorer.program import curvature as curv
from explorer.program.inspector import DIVERGING
from explorer.words import markdown_safe

WHAT = ("**How f curves here.** The Hessian H holds every second derivative of the output; H·v is how the "
        "gradient changes as the inputs move along v. Each way below computes H·v without building H.")

HOW_COUNTED = (
    "Operations are counted on each node's own VJP and JVP, as the Forward vs reverse tab counts them; every way "
    "also runs f's forward pass (finite differences twice). The time is measured once, in a worker process. "
    "Reverse over reverse: the gradient is recorded (create_graph), then Σ ∇f·v is differentiated by one backward "
    "pass through both graphs. Forward over reverse: the same recorded gradient, then one forward-mode pass pushes v "
    "through it (the JVP of the gradient). Finite differences: (∇f(x + εv) − ∇f(x − εv)) / 2ε."
)

DIRECTION_WORDS = {curv.RANDOM: "a random unit vector (seeded: the same every time)",
                   curv.ONES: "all ones", curv.BASIS: "one input number's basis vector"}
#: The same, short, for the direction's select box.
DIRECTION_CHOICES = {curv.RANDOM: "random unit vector (seeded)", curv.ONES: "all ones",
                     curv.BASIS: "one input number (basis vector)"}

_STYLE = """<style>
.ad-curvature { overflow-x: auto; }
.ad-curvature table { border-collapse: collapse; width: 100%; font-size: 0.875rem; color: inherit; }
.ad-curvature th { text-align: right; font-weight: 600; padding: 4px 7px; white-space: nowrap;
  background: rgba(128, 128, 128, 0.12); }
.ad-curvature td { text-align: right; padding: 4px 7px; border-top: 1px solid rgba(128, 128, 128, 0.2);
  font-variant-numeric: tabular-nums; white-space: nowrap; }
.ad-curvature th:first-child, .ad-curvature td:first-child { text-align: left; white-space: normal; }
.ad-curvature small { opacity: 0.75; }
</style>"""


def _json(values) -> str:
    return json.dumps([finite_or_none(float(x)) for x in np.asarray(values, np.float64).ravel()])


def hvp_text(c: curv.Curvature, limit: int = 8) -> str:
    """H·v's first numbers (reverse over reverse's), in words."""
    value = c.way(curv.REVERSE).value
    shown = ", ".join(fmt_number(float(x)) for x in value[:limit])
    more = f", … ({value.size:,} numbers)" if value.size > limit else ""
    return f"H·v = [{shown}{more}]"


def agree(c: curv.Curvature) -> bool:
    """The three ways agree (to rounding between the exact two, to finite differences' error with the third)."""
    return c.exact_agree and c.fd_agree


def curvature_html(c: curv.Curvature) -> str:
    """The three ways as a table (way and its passes, operations, time, max difference from reverse over reverse)
    under the root with the hooks (see the module's docstring)."""
    rows = []
    for way in c.ways:
        gap = "—" if way.way == curv.REVERSE else fmt_number(c.difference(curv.REVERSE, way.way))
        cells = [f"{way.operations:,}", f"{way.seconds * 1e3:.3g} ms", gap]
        rows.append(f'<tr data-way="{way.way}"><td>{html.escape(way.label)}<br><small>{html.escape(way.passes)}'
                    "</small></td>" + "".join(f"<td>{html.escape(x)}</td>" for x in cells) + "</tr>")
    head = {"Way and its passes": "how H·v is computed, and the passes over the graph it takes",
            "Operations": "counted on the derivative passes (each node's own VJP and JVP)",
            "Time": "measured once", "Max |Δ|": "max |this H·v − reverse over reverse's|"}
    hooks = {"n": c.n, "direction": c.direction, "agree": str(agree(c)).lower(),
             "hvp-reverse": _json(c.way(curv.REVERSE).value), "hvp-forward": _json(c.way(curv.FORWARD).value),
             "hvp-fd": _json(c.way(curv.FD).value)}
    if c.eigenvalues is not None:
        hooks.update({"eigenvalues": _json(c.eigenvalues), "kind": c.kind, "asymmetry": repr(c.asymmetry)})
    attributes = " ".join(f'data-{k}="{html.escape(str(v))}"' for k, v in hooks.items())
    return (_STYLE + f'<div class="ad-curvature" data-testid="curvature" {attributes} role="group" '
            'aria-label="H·v computed three ways">'
            + "<table><thead><tr>" + "".join(f'<th title="{html.escape(why)}">{h}</th>' for h, why in head.items())
            + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table></div>")


def direction_text(c: curv.Curvature) -> str:
    """v in words: which one and over how many input numbers (Markdown, the names escaped)."""
    what = DIRECTION_WORDS[c.direction]
    if c.direction == curv.BASIS:
        what += f" (e for `{c.element_names[c.element]}`)"
    where = ", ".join(f"{markdown_safe(name)} {int(np.prod(shape)):,}" for name, shape in c.inputs)
    return f"v is {what}, over the n = {c.n:,} input numbers ({where})."


def agreement_text(c: curv.Curvature) -> str:
    """How the three H·v agree, in a sentence (the kinks, when there are, say why finite differences differ)."""
    exact, fd, scale = c.difference(curv.REVERSE, curv.FORWARD), c.difference(curv.REVERSE, curv.FD), c.scale
    first = (f"Reverse over reverse and forward over reverse agree to {fmt_number(exact)} (the same H·v to "
             "rounding)" if c.exact_agree else
             f"Reverse over reverse and forward over reverse differ by up to {fmt_number(exact)}")
    if c.fd_agree:
        second = f"finite differences (ε = {fmt_number(c.eps)}) come within {fmt_number(fd)}"
    elif any(k.jumps for k in c.kinks):
        second = (f"finite differences (ε = {fmt_number(c.eps)}) differ by up to {fmt_number(fd)}: they step across "
                  "a kink (below), where the gradient jumps")
    elif c.kinks:
        second = (f"finite differences (ε = {fmt_number(c.eps)}) differ by up to {fmt_number(fd)}: they see how the "
                  "value moves past a detach (below), which the engine's gradient leaves out")
    else:
        second = (f"finite differences (ε = {fmt_number(c.eps)}) differ by up to {fmt_number(fd)}: the gradient "
                  "changes fast here, faster than a step of ε follows")
    return f"{first}; {second}. The largest |H·v| is {fmt_number(scale)}."


def kinks_text(c: curv.Curvature) -> str:
    """Where the program is not twice differentiable at this point, naming the nodes ('' when it is)."""
    def said(kinks) -> str:
        return "; ".join(f"**{markdown_safe(k.label)}**: {k.words}"
                         + (f" at {k.count:,} elements" if k.count > 1 else "") for k in kinks)

    jumps, cuts = [k for k in c.kinks if k.jumps], [k for k in c.kinks if not k.jumps]
    parts = []
    if jumps:
        parts.append(f"**Not twice differentiable here.** {said(jumps)}. The gradient jumps at such a point, so H "
                     "does not exist there: both exact ways use the engine's one-sided rule (relu'(0) = 0, a tie "
                     "split evenly), and finite differences see the jump. Poke the input off the kink to see H.")
    if cuts:
        parts.append(f"**The gradient is not the output's derivative.** {said(cuts)}. Both exact ways differentiate "
                     "the engine's gradient, which a detach cuts; finite differences of it see how the value really "
                     "moves, so they may differ.")
    return " ".join(parts)


KIND_WORDS = {
    curv.MINIMUM: "every eigenvalue is positive: f curves up in every direction, as at the bottom of a bowl (a "
                  "minimum)",
    curv.MAXIMUM: "every eigenvalue is negative: f curves down in every direction, as at a hilltop (a maximum)",
    curv.SADDLE: "eigenvalues of both signs: f curves up along some directions and down along others (a saddle)",
    curv.FLAT: "every eigenvalue is 0: f does not curve at all here (it is linear, or flat, around this point)",
    curv.VALLEY: "eigenvalues ≥ 0 with some 0: f curves up or stays flat (a trough; along the flat directions the "
                 "second derivatives cannot tell a minimum from a slope)",
    curv.RIDGE: "eigenvalues ≤ 0 with some 0: f curves down or stays flat (a ridge; along the flat directions the "
                "second derivatives cannot tell a maximum from a slope)",
}


def eigen_text(c: curv.Curvature) -> str:
    """The eigenvalues' signs and what they mean, in a paragraph (with the gradient: they classify a stationary
    point only where the gradient is 0)."""
    up, flat, down = curv.sign_counts(c.eigenvalues)
    tol = fmt_number(curv.zero_tolerance(c.eigenvalues))
    counts = f"{up} positive, {flat} zero, {down} negative (|λ| below {tol} counts as 0)"
    low, high = fmt_number(float(c.eigenvalues[0])), fmt_number(float(c.eigenvalues[-1]))
    if c.gradient_norm <= 1e-8 * max(1.0, c.scale):
        where = "The gradient is 0 here, so this point is a stationary point of that kind."
    else:
        where = (f"The gradient is not 0 here (‖∇f‖ = {fmt_number(c.gradient_norm)}), so this is not a stationary "
                 "point: the signs say how f bends around it, as it would at such a point.")
    return f"**Eigenvalues** from {low} to {high}: {counts}. {KIND_WORDS[c.kind].capitalize()}. {where}"


def symmetry_text(c: curv.Curvature) -> str:
    return (f"H is symmetric (∂²f/∂xᵢ∂xⱼ = ∂²f/∂xⱼ∂xᵢ for a twice-differentiable f): its largest |H − Hᵀ| here is "
            f"{fmt_number(c.asymmetry)}. Built from {c.n:,} reverse passes through the gradient's graph, one per "
            "row.")


#: Up to this many input numbers every cell of the heatmap carries its number, and every row and column its name.
CELL_NUMBERS = 12
#: Past CELL_NUMBERS, an input's rows are named at its first number and every this many numbers after it.
TICK_EVERY = 8


def hessian_ticks(c: curv.Curvature) -> tuple[list[str], list[tuple[int, str]]]:
    """The row and column names the heatmap writes (all up to CELL_NUMBERS; else each input's first number and every
    TICK_EVERY-th of it), and where each input's block starts after the first: [(index of its first number, name)]."""
    names = list(c.element_names)
    if c.n <= CELL_NUMBERS:
        ticked = names
    else:
        ticked, start = [], 0
        for _, shape in c.inputs:
            size = int(np.prod(shape))
            ticked += names[start:start + size:TICK_EVERY]
            start += size
    starts, start = [], 0
    for name, shape in c.inputs:
        if start:
            starts.append((start, name))
        start += int(np.prod(shape))
    return ticked, starts


#: Past CELL_NUMBERS, a Hessian whose largest |entry| is more than this many times its median nonzero |entry| is
#: coloured on a signed log scale: on a linear one most of its entries were as pale as 0 (a 64 × 64 with a cubic's
#: diagonal at ±11 left its 0.1-size block white).
LOG_RANGE = 20.0
#: The signed log scale's decades below the largest |entry| (smaller entries are coloured as 0's neighbours).
DECADES = 4


def log_scale(h: np.ndarray) -> float | None:
    """The signed log scale's linear threshold t for H (colour = sign(h) log10(1 + |h| / t)), or None where a
    linear scale shows it (a small range of sizes, or nothing finite and nonzero)."""
    sizes = np.abs(h[np.isfinite(h)])
    sizes = sizes[sizes > 0]
    if not sizes.size:
        return None
    top = float(sizes.max())
    return top / 10.0 ** DECADES if top > LOG_RANGE * float(np.median(sizes)) else None


def _log_colours(h: np.ndarray, t: float) -> tuple[list, dict]:
    """H's colours on the signed log scale and its colour bar's ticks, labelled with the entries they stand for."""
    z = np.sign(h) * np.log10(1.0 + np.abs(h) / t)
    top = float(np.max(np.abs(h[np.isfinite(h)])))
    decade = math.floor(math.log10(top))
    real = [10.0 ** (decade - k) for k in range(DECADES)]  # round decades: 10, 1, 0.1, 0.01
    values = [float(np.log10(1.0 + v / t)) for v in real]
    ticks = dict(tickvals=[*(-v for v in values), 0.0, *values[::-1]],
                 ticktext=[*(fmt_number(-v) for v in real), "0", *(fmt_number(v) for v in real[::-1])])
    return z.tolist(), ticks


def hessian_figure(c: curv.Curvature, dark: bool = False) -> go.Figure:
    """H as a heatmap (diverging colours centred on 0, a colour bar with the scale), rows and columns named by input
    number, a line between inputs' blocks. Up to CELL_NUMBERS input numbers each cell carries its number; past it
    the hover gives each entry (in the page's number format), the rows are named at intervals and a wide range of
    sizes is coloured on a signed log scale (the colour bar says so and labels its ticks with entries)."""
    names = list(c.element_names)
    small = c.n <= CELL_NUMBERS
    hover = [[fmt_number(float(v)) for v in row] for row in c.hessian]
    t = None if small else log_scale(c.hessian)
    z, ticks = (c.hessian.tolist(), {}) if t is None else _log_colours(c.hessian, t)
    fig = go.Figure(go.Heatmap(
        z=z, x=names, y=names, colorscale=DIVERGING, zmid=0.0, text=hover,
        texttemplate="%{text}" if small else None, textfont=dict(color="#fafafa") if dark else None,
        hovertemplate="∂²f / ∂%{y} ∂%{x} = %{text}<extra></extra>",
        colorbar=dict(thickness=10, tickfont=dict(size=10), **ticks,
                      title=dict(text="H entry" + ("" if t is None else " (log scale)"), side="right")),
    ))
    ticked, starts = hessian_ticks(c)
    line = "rgba(250, 250, 250, 0.55)" if dark else "rgba(49, 51, 63, 0.55)"
    for start, _ in starts:  # where the next input's numbers begin, across and down
        edge = start - 0.5
        fig.add_shape(type="line", x0=edge, x1=edge, y0=-0.5, y1=c.n - 0.5, line=dict(color=line, width=1))
        fig.add_shape(type="line", y0=edge, y1=edge, x0=-0.5, x1=c.n - 0.5, line=dict(color=line, width=1))
    axis = dict(showgrid=False, type="category", tickmode="array", tickvals=ticked, ticktext=ticked,
                tickfont=dict(size=11 if small else 10))
    fig.update_xaxes(**axis, tickangle=-45 if not small or max(map(len, names)) > 4 else 0)
    fig.update_yaxes(**axis, autorange="reversed")
    size = int(min(520, max(260, 120 + 18 * c.n)))
    fig.update_layout(title=dict(text=f"The Hessian: {c.n} × {c.n}", font=dict(size=14)), height=size,
                      margin=dict(l=60, r=20, t=40, b=60))
    return fig


def heatmap_hint(c: curv.Curvature) -> str:
    """Under a heatmap too big for numbers in its cells: where its numbers are ('' when the cells carry them)."""
    if c.n <= CELL_NUMBERS:
        return ""
    scale = ("a signed log scale (each decade of |entry| a step of colour, so small entries show beside large "
             "ones)" if log_scale(c.hessian) is not None else "a linear scale centred on 0")
    return (f"{c.n} × {c.n}: too many cells for their numbers. Hover a cell for its entry; the colours follow "
            f"{scale}, the colour bar gives the entries; lines part the inputs' blocks.")
