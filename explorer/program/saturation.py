"""How much gradient a softmax passes back as its logits are scaled up or down (issue 35's logit-scale slider): the
numbers and the sentence, as plain data (no Streamlit).

A program's softmax (the first one in graph order) is found as the program ran: its logits (the input of
its `masked_fill` when one sits in between, so that the mask stays a mask at every scale), its axis, and
the grad that reached its output. `at_scale(site, s)` runs softmax(s · logits) through the engine with that
upstream grad held fixed and reports ‖∂loss/∂logits‖ (at s = 1 that is the program's own grad of the
logits) and how peaked the weights are. Large scales saturate softmax (its weights go one-hot, its
Jacobian diag(p) − p pᵀ goes to 0) and almost nothing passes back; very small ones flatten it, and the
factor s itself shrinks the grad.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from autograd import Tensor
from autograd import functional as F
from autograd.graph import order
from explorer.numbers import fmt_number, fmt_percent
from explorer.program import poke
from language import compile_program

#: Scales a slider can offer: a factor of two apart, around the program as written (1).
SCALES = (0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0)
#: The mean largest weight from which softmax is called saturated (nearly one-hot).
SATURATED = 0.99


@dataclass(frozen=True)
class Site:
    """A softmax of a program as the program ran: what scaling its logits needs."""

    node: int  # the softmax's node id (the graph's topological order)
    logits: np.ndarray  # what the slider scales: the softmax's input, or the scores under its masked_fill
    mask: np.ndarray | None  # masked_fill's mask (True = set to `fill`), None without one
    fill: float
    upstream: np.ndarray  # the grad that reached the softmax's output, held fixed at every scale
    axis: int


@dataclass(frozen=True)
class Point:
    scale: float
    grad_norm: float  # ‖∂loss/∂logits‖ with the logits multiplied by `scale`
    peak: float  # the largest weight of each row, averaged over the rows with a choice (two or more allowed keys)
    uniform: float  # what `peak` would be with all weights equal (1 / allowed keys, averaged the same way)


def softmax_site(text: str, poked: poke.Poked = ()) -> Site | None:
    """The first softmax of the program ``text`` (run with its ``poked`` values), or None if it has none that needs
    grad. Raises ExpressionError for a bad program."""
    program = compile_program(text)
    result = program.run(inputs=poke.resolve(program, poked))
    if not result.output.requires_grad:
        return None
    result.output.backward()
    tensors = order(result.output, result.uses)
    node = next((i for i, t in enumerate(tensors) if t.op == "softmax" and t.requires_grad), None)
    if node is None:
        return None
    softmax = tensors[node]
    (source,) = softmax.parents
    axis = (softmax._meta or {}).get("axis", -1)
    upstream = np.zeros(softmax.shape) if softmax.grad is None else np.asarray(softmax.grad, dtype=np.float64)
    if source.op == "masked_fill":
        (scores,) = source.parents
        mask = np.broadcast_to(np.asarray(source._meta["mask"], dtype=bool), source.shape)
        fill = float(source.data[mask][0]) if mask.any() else 0.0
        site = Site(node, np.broadcast_to(scores.data, source.shape).astype(np.float64), mask, fill, upstream, axis)
    else:
        site = Site(node, np.asarray(source.data, dtype=np.float64), None, 0.0, upstream, axis)
    return site if axis is not None else _one_row(site)


def _one_row(site: Site) -> Site:
    """A softmax over every element (``axis=None``) as the same softmax over the last axis of its logits laid out
    in one row: the same weights, peak and grad norm (it raised TypeError on int(None))."""
    row = (1, -1)
    mask = None if site.mask is None else site.mask.reshape(row)
    return Site(site.node, site.logits.reshape(row), mask, site.fill, site.upstream.reshape(row), -1)


def at_scale(site: Site, scale: float) -> Point:
    """softmax(scale · logits) (masked again, if the program masks) with the site's upstream grad: the norm of the grad
    it sends back to the logits, and how peaked its weights are."""
    logits = Tensor(site.logits.copy(), requires_grad=True)
    z = logits * float(scale)
    if site.mask is not None:
        z = z.masked_fill(site.mask, site.fill)
    p = F.softmax(z, axis=site.axis)
    p.backward(site.upstream)
    allowed = np.ones(p.shape, dtype=bool) if site.mask is None else ~site.mask
    keys = allowed.sum(axis=site.axis)
    rows = keys >= 2  # a row with one allowed key is one-hot at every scale: no choice to saturate
    peaks = p.data.max(axis=site.axis)
    if not rows.any():
        rows = np.ones(keys.shape, dtype=bool)
    with np.errstate(divide="ignore"):
        uniform = float(np.mean(1.0 / np.maximum(keys[rows], 1)))
    return Point(float(scale), float(np.linalg.norm(logits.grad)), float(np.mean(peaks[rows])), uniform)


def curve(site: Site, scales=SCALES) -> list[Point]:
    """at_scale at each of ``scales``."""
    return [at_scale(site, s) for s in scales]


#: A grad under this share of the most the curve passes is "almost nothing".
ALMOST_NOTHING = 0.05


def sentence(point: Point, points: list[Point]) -> str:
    """What the slider's position means, in one sentence or two: how peaked softmax is at ``point`` and the grad it
    passes back, against the program as written (the point at scale 1 of ``points``, the curve the slider moves
    along) and the most the curve passes at any scale."""
    base = next((p for p in points if p.scale == 1.0), points[0])
    most = max(points, key=lambda p: p.grad_norm)
    scale = f"logits × {fmt_number(point.scale)}"
    norm = f"‖grad‖ = {fmt_number(point.grad_norm)}"
    if point.scale == base.scale:
        share = "as the program is written"
    elif base.grad_norm > 0:
        share = f"{fmt_percent(point.grad_norm / base.grad_norm)} of the {fmt_number(base.grad_norm)} at × 1"
    else:
        share = "where × 1 passes nothing"
    peak = fmt_number(point.peak)
    if point.peak >= SATURATED and point.peak > point.uniform:
        if point.grad_norm <= ALMOST_NOTHING * most.grad_norm:
            return (f"At {scale} softmax is saturated (its largest weight averages {peak}): its Jacobian "
                    f"diag(p) − p pᵀ is nearly 0, so it passes back only {norm}, {share}. A saturated head passes "
                    "almost nothing back.")
        return (f"At {scale} softmax is close to saturated (its largest weight averages {peak}): it passes back "
                f"{norm}, {share}, down from {fmt_number(most.grad_norm)} at × {fmt_number(most.scale)}; scaled "
                "further, its Jacobian diag(p) − p pᵀ goes to 0 and it passes almost nothing back.")
    if point.peak <= 1.1 * point.uniform:
        return (f"At {scale} softmax is nearly flat (its largest weight averages {peak}, against "
                f"{fmt_number(point.uniform)} for equal weights): it passes back {norm}, {share}; the small scale "
                "shrinks every grad to the logits with it.")
    return f"At {scale} softmax's largest weight averages {peak}; it passes back {norm}, {share}."


def panel_data(text: str, poked: poke.Poked, scale: float) -> dict | None:
    """What the Explorer's saturation panel shows for the program ``text`` with the logits scaled by ``scale``:
    None when the program has no softmax that needs grad; else the sentence, and the curve (grad norm and peak
    at every slider scale) with the slider's point."""
    site = softmax_site(text, poked)
    if site is None:
        return None
    points = curve(site)
    point = next((p for p in points if p.scale == scale), None) or at_scale(site, scale)
    return {"sentence": sentence(point, points), "scale": point.scale, "norm": point.grad_norm,
            "scales": [p.scale for p in points],
            "norms": [p.grad_norm for p in points], "peaks": [p.peak for p in points], "node": site.node}
