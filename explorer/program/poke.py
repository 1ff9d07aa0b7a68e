"""Poking a program's numbers: a slider for each input (a scalar's value, an array's scale), the values
poked (kept in the session and the URL), the program run with them, and what a gradient means as a
picture — the output against one input with the tangent whose slope is that input's grad, and against
two inputs as a contour plot with the gradient arrow.

Plain Python (no Streamlit). The functions that evaluate a program take its text and the poked values
(a hashable ``Poked``) and return plain data, so the pages can run them in-process or in a worker.

    sliders = poke.sliders(text)                   # one Slider per input that may take a new value
    poked = (("a", -3.5), ("W", 1.5))              # a: its new value; W: its program values times 1.5
    inputs = poke.resolve(program, poked)          # name -> array, for Program.run(inputs=...)
    poke.curve(text, poked, "a", lo, hi)           # the output (summed) as a moves over [lo, hi]
"""

from __future__ import annotations

import math
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass

import numpy as np

from autograd import no_grad
from explorer import links
from explorer.graph.names import node_label
from explorer.numbers import finite_or_none, fmt_number, json_numbers, number_from_link
from explorer.program import keys
from explorer.words import clip_text
from language import compile_program
from language.source import ExpressionError

#: (name, number) pairs sorted by name: a scalar input's new value, or an array input's scale.
Poked = tuple

#: A scale slider's range (an array input multiplied by s).
SCALE_RANGE = (-2.0, 2.0)
#: What a picture may cost: its points × one run's cost, counted as the forward's numbers and multiply-adds
#: plus NODE_COST per graph node (an op's fixed overhead: ~3-9 µs, like ~1,500 numbers' arithmetic).
#: About 0.2 s on these machines: micrograd's contour plot gets 25 × 25 points, a 361-node program's 8 × 8.
PICTURE_BUDGET = 40_000_000
NODE_COST = 1_500
CURVE_POINTS = 61
SURFACE_POINTS = 25
#: The largest poked value or scale, either sign (a link's or a report's; further out, a slider's range and its
#: steps stop being numbers a browser can draw: 1e308 made the range infinite and the page an OverflowError).
POKE_LIMIT = 1e6


@dataclass(frozen=True)
class Slider:
    """One slider: ``kind`` 'value' (a one-element input: the slider is its value) or 'scale' (an array
    input: the slider multiplies the program's own values, so 1 is the program)."""

    name: str
    shape: tuple
    kind: str
    base: float  # the program's value (kind 'value') or 1.0 (kind 'scale')
    lo: float
    hi: float
    step: float
    array: np.ndarray | None = None  # the program's values of a 'scale' input

    def contains(self, value: float) -> bool:
        return self.lo <= value <= self.hi

    def widened(self, value: float) -> Slider:
        """The same slider with its range stretched (by whole steps) to hold ``value`` (a link's poked value)."""
        if self.contains(value):
            return self
        lo = self.lo - self.step * math.ceil(max(self.lo - value, 0) / self.step)
        hi = self.hi + self.step * math.ceil(max(value - self.hi, 0) / self.step)
        return Slider(self.name, self.shape, self.kind, self.base, lo, hi, self.step, self.array)

    def as_dict(self) -> dict:
        """What the browser needs (no arrays)."""
        return {"name": self.name, "shape": list(self.shape), "kind": self.kind, "base": self.base,
                "lo": self.lo, "hi": self.hi, "step": self.step}


def _nice_step(span: float) -> float:
    """A slider step of 1, 2 or 5 × 10^k, about span / 100."""
    raw = span / 100
    power = 10.0 ** math.floor(math.log10(raw))
    return next(m * power for m in (5, 2, 1) if m * power <= raw * 1.0000001)


def _rounded(x: float, step: float) -> float:
    decimals = max(0, -math.floor(math.log10(step)) + 1)
    return round(x, decimals)


def slider_for(name: str, value: np.ndarray) -> Slider:
    """The slider an input gets, from its program value: a one-element input moves over its value ± max(1, |v|)
    (the value sits on a step); an array input is scaled by s in SCALE_RANGE."""
    value = np.asarray(value, dtype=np.float64)
    if value.size == 1:
        v = float(value.reshape(-1)[0])
        if not math.isfinite(v):
            v = 0.0
        span = max(1.0, abs(v))
        step = _nice_step(span)
        return Slider(name, tuple(value.shape), "value", v, _rounded(v - span, step), _rounded(v + span, step), step)
    lo, hi = SCALE_RANGE
    return Slider(name, tuple(value.shape), "scale", 1.0, lo, hi, 0.01, value.copy())


def sliders(text: str) -> tuple:
    """One Slider per input of the program that may take a new value (inputs that set a shape, an index or an
    axis do not), in the program's order. Raises ExpressionError for a bad program."""

    return sliders_of(compile_program(text))


def sliders_of(program, leaves: dict | None = None) -> tuple:
    """sliders of a compiled program; ``leaves`` (name -> leaf Tensor) are those of a run of it with no inputs
    given, if there was one (else it runs here)."""
    if leaves is None:
        with no_grad():
            leaves = program.run().inputs
    return tuple(slider_for(name, leaves[name].data) for name in program.inputs if name not in program.fixed)


# ----------------------------------------------------------------------------- poked values


def normal(values: Mapping[str, float], sliders_: tuple) -> Poked:
    """Poked values as a Poked: known sliders only, finite numbers only, the program's own values left out."""
    by_name = {k.name: k for k in sliders_}
    kept = []
    for name, value in values.items():
        slider = by_name.get(name)
        if slider is None:
            continue
        try:
            value = float(value)
        except (TypeError, ValueError):
            continue
        if math.isfinite(value) and abs(value) <= POKE_LIMIT and value != slider.base:
            kept.append((name, value))
    return tuple(sorted(kept))


def resolve(program, poked: Poked, own: dict | None = None) -> dict:
    """name -> array for ``program.run(inputs=...)``: a 'value' slider's number in the input's shape, a 'scale'
    slider's s times the program's own values (``own``: the leaves of a run with no inputs given, else that run
    is made here, only if there is a scale)."""
    inputs = {}
    scaled = {}
    for name, value in poked:
        shape = program.inputs[name]
        if math.prod(shape) == 1:
            inputs[name] = np.full(shape, value, dtype=np.float64)
        else:
            scaled[name] = value
    if scaled and own is None:
        with no_grad():
            own = program.run().inputs
    if scaled:
        for name, s in scaled.items():
            inputs[name] = own[name].data * s
    return inputs


def link_text(poked: Poked, sliders_: tuple) -> str:
    """Poked values for a URL: ``a=-3.5,W*=1.5`` (``*=``: a scale)."""
    kinds = {k.name: k.kind for k in sliders_}
    return ",".join(f"{name}{'*' if kinds.get(name) == 'scale' else ''}={value:.8g}" for name, value in poked)


def allowed_text() -> str:
    """What a poked value may be, in words."""
    return f"a finite number from {-POKE_LIMIT:,.0f} to {POKE_LIMIT:,.0f}"


def from_link(text: str, sliders_: tuple) -> tuple[Poked, list[str]]:
    """A URL's poked values (see link_text) and what was ignored in them, each as a short reason (a page says
    a few of them and counts the rest: explorer.links.said_once): unknown inputs, a value where a scale goes or the
    other way round, values that are not finite numbers within ±POKE_LIMIT, an input poked twice (the first counts)."""
    by_name = {k.name: k for k in sliders_}
    values, problems = {}, []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        name, sep, number = part.partition("=")
        scale = name.endswith("*")
        name = name.rstrip("*").strip()
        slider = by_name.get(name)
        shown = f"`{clip_text(part)}`"
        if not sep or slider is None:
            problems.append(f"{shown} (this program has no input named `{clip_text(name)}` that can be poked)"
                            if sep else f"{shown} (expected name=value)")
            continue
        if scale != (slider.kind == "scale"):
            wanted = f"`{name}*=s` (a scale: it is an array)" if slider.kind == "scale" else f"`{name}=v` (a number)"
            problems.append(f"{shown} (write {wanted})")
            continue
        if name in values:
            problems.append(f"{shown} (`{name}` is poked twice; the first value counts)")
            continue
        try:
            value = number_from_link(number)  # ASCII digits only
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and abs(value) <= POKE_LIMIT):
            problems.append(f"{shown} (not {allowed_text()})")
            continue
        values[name] = value
    return normal(values, sliders_), problems


def sync(session: MutableMapping, query: MutableMapping, program: str, sliders_: tuple) -> tuple[Poked, list[str]]:
    """Keeps ``session['poked']`` for ``program`` and the URL's ``?poke=`` in step; returns (poked, problems).

    A link's ``poke`` (one this session did not write) wins, as a link's program does; a new program
    starts from its own values; otherwise the session's poked values are written to the URL. Whenever the
    values are set here rather than by the sliders, ``session['poke_version']`` grows (the sliders follow it).
    """
    problems: list[str] = []
    if session.get(keys.POKED_PROGRAM) != program:
        session[keys.POKED_PROGRAM] = program
        session[keys.POKED] = ()
        session[keys.POKE_VERSION] = session.get(keys.POKE_VERSION, 0) + 1
    from_url = query.get("poke")
    if links.link_wins(session, "poke", from_url):
        session[keys.POKED], problems = from_link(from_url, sliders_)
        session[keys.POKE_VERSION] = session.get(keys.POKE_VERSION, 0) + 1
    poked = normal(dict(session.get(keys.POKED, ())), sliders_)
    session[keys.POKED] = poked
    text = link_text(poked, sliders_)
    if text:
        if query.get("poke") != text:
            query["poke"] = text
    elif "poke" in query:
        del query["poke"]
    links.wrote(session, "poke", text)
    return poked, problems


def slider_values(sliders_: tuple, poked: Poked) -> dict:
    """name -> the slider's position: the poked value, else the program's."""
    values = dict(poked)
    return {k.name: values.get(k.name, k.base) for k in sliders_}


# ----------------------------------------------------------------------------- the pictures


@dataclass(frozen=True)
class Point:
    """Where the program is: the output (summed, as backward() seeds it) and its slope along each slider."""

    output: float
    slopes: dict  # name -> d(output)/d(slider): the input's grad (a value), Σ program values ⊙ grad (a scale)


def point(graph, sliders_: tuple) -> Point:
    """The output and the slopes of a poked program's traced graph (grads filled in by backward())."""
    out = graph.nodes[graph.output]
    grads = {node.name: node.grad for node in graph.nodes if node.kind == "input" and node.name}
    slopes = {}
    for k in sliders_:
        grad = grads.get(k.name)
        if grad is None:
            slopes[k.name] = 0.0
        elif k.kind == "value":
            slopes[k.name] = float(np.sum(grad))
        else:
            slopes[k.name] = float(np.sum(k.array * grad))  # chain rule: x = s · x₀, so d/ds = Σ x₀ ⊙ x.grad
    return Point(output=float(np.sum(out.data)), slopes=slopes)


def _points(program, wanted: int, per_axis: int) -> int:
    """Points per axis the picture budget allows (at least 7)."""
    costs = program.costs
    allowed = PICTURE_BUDGET / max(costs.forward_elements + costs.matmul_work + NODE_COST * costs.nodes, 1)
    return int(max(7, min(wanted, allowed ** (1 / per_axis))))


def _sums(program, base_inputs: dict, name: str, xs, other: str | None = None, ys=None, scale=None) -> np.ndarray:
    with no_grad():
        own = program.run().inputs if scale else {}

    def value_of(input_name, v):
        if scale and input_name in scale:
            return own[input_name].data * v
        return np.full(program.inputs[input_name], v, dtype=np.float64)

    grid_y = [None] if other is None else ys
    out = np.empty((len(grid_y), len(xs)))
    with no_grad():
        for r, y in enumerate(grid_y):
            inputs = dict(base_inputs)
            if other is not None:
                inputs[other] = value_of(other, y)
            for c, x in enumerate(xs):
                inputs[name] = value_of(name, x)
                out[r, c] = float(np.sum(program.run(inputs=inputs).output.data))
    return out


@dataclass(frozen=True)
class Curve:
    name: str
    xs: np.ndarray
    ys: np.ndarray  # the output (summed) at each x, the other inputs as poked


def curve(text: str, poked: Poked, name: str, lo: float, hi: float) -> Curve:
    """The output (summed) as input ``name`` moves over [lo, hi], everything else as poked."""

    program = compile_program(text)
    others = tuple((n, v) for n, v in poked if n != name)
    xs = np.linspace(lo, hi, _points(program, CURVE_POINTS, 1))
    scale = {name} if math.prod(program.inputs[name]) > 1 else set()
    ys = _sums(program, resolve(program, others), name, xs, scale=scale)[0]
    return Curve(name=name, xs=xs, ys=ys)


@dataclass(frozen=True)
class Surface:
    x_name: str
    y_name: str
    xs: np.ndarray
    ys: np.ndarray
    zs: np.ndarray  # zs[i, j]: the output (summed) at (xs[j], ys[i])


def square(x_slider: Slider, y_slider: Slider) -> tuple[tuple[float, float], tuple[float, float]]:
    """The ranges of a contour plot over two sliders: each slider's range centred, both as wide as the wider,
    so one unit is as long on both axes and the gradient arrow is drawn at right angles to the contours."""
    span = max(x_slider.hi - x_slider.lo, y_slider.hi - y_slider.lo)
    cx, cy = (x_slider.lo + x_slider.hi) / 2, (y_slider.lo + y_slider.hi) / 2
    return (cx - span / 2, cx + span / 2), (cy - span / 2, cy + span / 2)


def surface(text: str, poked: Poked, x_name: str, y_name: str, x_range: tuple, y_range: tuple,
            points: int = SURFACE_POINTS) -> Surface:
    """The output (summed) over a grid of inputs ``x_name`` × ``y_name``, everything else as poked: ``points`` per
    axis, or fewer for a costly program (the picture budget)."""

    program = compile_program(text)
    others = tuple((n, v) for n, v in poked if n not in (x_name, y_name))
    n = _points(program, points, 2)
    xs, ys = np.linspace(*x_range, n), np.linspace(*y_range, n)
    scale = {k for k in (x_name, y_name) if math.prod(program.inputs[k]) > 1}
    zs = _sums(program, resolve(program, others), x_name, xs, y_name, ys, scale=scale)
    return Surface(x_name=x_name, y_name=y_name, xs=xs, ys=ys, zs=zs)


def picture_data(sliders_: tuple, poked: Poked, at: Point, active: str, curve_: Curve | None,
                 surface_: Surface | None) -> dict:
    """What the poke view draws: the sliders (with each slope), the curve of the active slider with its tangent
    point, and the contour plot of the active slider against its partner (if there is one)."""
    values = slider_values(sliders_, poked)
    data = {
        "sliders": [k.as_dict() | {"value": values[k.name], "slope": finite_or_none(at.slopes.get(k.name, 0.0))}
                    for k in sliders_],
        "output": finite_or_none(at.output),
        "active": active,
        "poked": bool(poked),
    }
    if curve_ is not None:
        data["curve"] = {"name": curve_.name, "xs": json_numbers(curve_.xs), "ys": json_numbers(curve_.ys)}
    if surface_ is not None:
        data["surface"] = {"x": surface_.x_name, "y": surface_.y_name, "xs": json_numbers(surface_.xs),
                           "ys": json_numbers(surface_.ys), "zs": json_numbers(surface_.zs)}
    return data


def partner(sliders_: tuple, active: str, previous: str | None) -> str | None:
    """The slider the contour plot pairs with the active one: the one moved before it, else the first other."""
    names = [k.name for k in sliders_]
    if previous in names and previous != active:
        return previous
    return next((n for n in names if n != active), None)


def output_name(graph) -> str:
    """How the pictures name the output: its label, or sum(label) for an array (backward() seeds with ones,
    so the grads are those of its sum)."""

    out = graph.nodes[graph.output]
    label = node_label(out)
    return label if np.size(out.data) == 1 else f"sum({label})"


def _without(poked: Poked, *names: str) -> Poked:
    return tuple((n, v) for n, v in poked if n not in names)


def pictures(text: str, sliders_: tuple, poked: Poked, graph, active: str, previous: str | None, *,
             curve=curve, surface=surface, unfinished: tuple[type[Exception], ...] = ()) -> dict:
    """picture_data for a program run with ``poked`` (its traced ``graph``): the curve of ``active`` and the contour
    plot of ``active`` and its partner (see ``partner``), the two on the axes in the sliders' order. ``curve``
    and ``surface`` compute the pictures (these functions, or cached versions of them); each is asked without
    the values it sweeps, so a drag of ``active`` asks again only for its point. A picture whose computation
    raises ExpressionError or one of ``unfinished`` (e.g. the sandbox's limits, when they run in it) is left out."""

    failed = (ExpressionError, *unfinished)

    values = slider_values(sliders_, poked)
    sliders_ = tuple(k.widened(values[k.name]) for k in sliders_)
    by_name = {k.name: k for k in sliders_}
    slider = by_name[active]
    try:
        curve_ = curve(text, _without(poked, active), active, slider.lo, slider.hi)
    except failed:  # NOTE: a picture that did not finish is left out, the rest drawn
        curve_ = None
    other = partner(sliders_, active, previous)
    surface_ = None
    if other is not None:
        # NOTE: the axes in the sliders' order, whichever of the two moves: the same picture (and one cache
        # entry) for a drag of either.
        x_name, y_name = sorted((active, other), key=list(by_name).index)
        x_range, y_range = square(by_name[x_name], by_name[y_name])
        try:
            surface_ = surface(text, _without(poked, x_name, y_name), x_name, y_name, x_range, y_range)
        except failed:
            surface_ = None
    data = picture_data(sliders_, poked, point(graph, sliders_), active, curve_, surface_)
    data["out"] = output_name(graph)
    return data


def described(poked: Poked, sliders_: tuple) -> str:
    """Poked values in words: ``a = -2.5, W × 1.5``."""
    kinds = {k.name: k.kind for k in sliders_}
    return ", ".join(f"{name} {'×' if kinds.get(name) == 'scale' else '='} {fmt_number(value)}"
                     for name, value in poked)
