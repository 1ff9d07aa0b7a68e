"""Interventions on a node of a program: change what flows, and see what the gradient predicted about it.

On a named tensor of the program (a variable: the language can only name those):
- **detach** it: a line ``h = h.detach()`` after its last assignment, so the drawing shows the cut edge (the value
  passes, backward stops: everything upstream of h gets nothing through it);
- **straight**-through: its backward replaced by the identity (each input that needs grad gets h's grad, summed to
  its shape), the straight-through estimator on any node: its VJP's flow is stopped with a hook and h's grad is
  sent on from each input with a second backward (backward is linear in its seed, so the two add up exactly);
- **scale_grad** / **clip_grad**: its grad scaled, or clipped to [-c, c], by ``Tensor.register_hook``;
- an override of its value: **set** (every element to a number), **scale** (times a number), **zero**.

For an override the gradient predicts the change in the output before it is made, ΔL ≈ g · Δa (g = dL/dh, Δa the
change in h; L is the output's sum, the function backward differentiates), and the program run with the override
gives the actual change. Along the path h + t·(target − h), t from 0 to 1, the prediction is t·g·(target − h): exact
to first order, off by O(t²) where the output curves (a tanh or softmax saturating).

Everything here is plain functions of the program's text: the program with an override is the same program with
one line more, written by `with_line` (the language checks and runs it; nothing is evaluated by Python).
"""

from __future__ import annotations

import ast
import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from autograd.graph import order
from explorer.numbers import compact, fmt_number
from explorer.program import poke
from explorer.words import clip_text, markdown_safe
from language import compile_program

#: kind -> (what the menu says, whether it takes an amount, the amount's label, its default)
KINDS: dict[str, tuple[str, bool, str, float]] = {
    "detach": ("detach it: the value passes, backward stops", False, "", 0.0),
    "straight": ("straight-through: its backward is the identity", False, "", 0.0),
    "scale_grad": ("scale its grad (a hook)", True, "grad × ", 2.0),
    "clip_grad": ("clip its grad to [-c, c] (a hook)", True, "c = ", 0.1),
    "set": ("set its value: every element to", True, "value = ", 0.0),
    "scale": ("scale its value", True, "value × ", 1.5),
    "zero": ("zero its value", False, "", 0.0),
}
GRAD_KINDS = ("detach", "straight", "scale_grad", "clip_grad")
VALUE_KINDS = ("set", "scale", "zero")
#: The points of the predicted-against-actual plot: the override's fraction t from 0 to 1 (and past it, to 2).
PATH = tuple(np.round(np.linspace(0.0, 2.0, 21), 3))
#: The name of the path's fraction inside the program that runs the plot (an input of the program, run again per t).
T_NAME = "intervention_t"


@dataclass(frozen=True)
class Intervention:
    name: str  # the variable intervened on
    kind: str  # a key of KINDS
    amount: float = 0.0

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown intervention {self.kind!r}: one of {', '.join(KINDS)}")
        if not math.isfinite(self.amount):
            raise ValueError(f"the amount must be a finite number, not {self.amount}")
        if self.kind == "clip_grad" and self.amount < 0:
            raise ValueError("clip_grad's c must be ≥ 0")

    def text(self) -> str:
        """The link's form: ``name:kind`` or ``name:kind:amount``."""
        return f"{self.name}:{self.kind}" + (f":{self.amount!r}" if KINDS[self.kind][1] else "")

    def describe(self) -> str:
        words, takes, label, _ = KINDS[self.kind]
        return f"{self.name}: {words}" + (f" ({label.strip()} {fmt_number(self.amount)})" if takes else "")


def from_text(text: str) -> Intervention:
    """``name:kind[:amount]`` -> an Intervention; ValueError saying what is wrong (a long text echoed clipped)."""
    parts = text.strip().split(":")
    text = clip_text(text)
    if len(parts) not in (2, 3) or not parts[0].isidentifier():
        raise ValueError(f"{text!r} is not name:kind or name:kind:amount")
    kind = parts[1]
    if kind not in KINDS:
        raise ValueError(f"{text!r}: unknown intervention {kind!r} (one of {', '.join(KINDS)})")
    amount = KINDS[kind][3]
    if len(parts) == 3:
        try:
            amount = float(parts[2])
        except ValueError:
            raise ValueError(f"{text!r}: the amount {clip_text(parts[2])!r} is not a number") from None
    try:
        return Intervention(parts[0], kind, amount)
    except ValueError as exc:
        raise ValueError(f"{text!r}: {exc}") from None


def read_list(text: str) -> tuple[list[Intervention], list[str]]:
    """A link's ``intervene=`` value (comma-separated) -> the interventions read and the problems, in words."""
    found, problems = [], []
    for part in filter(None, (p.strip() for p in (text or "").split(","))):
        try:
            found.append(from_text(part))
        except ValueError as exc:
            problems.append(str(exc))
    return found, problems


def write_list(items) -> str:
    return ",".join(item.text() for item in items)


# ---- the program with a line more -------------------------------------------------------------------------------
def _assigned(target) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def last_assignment(text: str, name: str) -> int | None:
    """The (1-based) last line of the last statement that assigns ``name``, or None if none does."""
    try:
        tree = ast.parse(text)  # NOTE: parsed to find lines, never compiled or evaluated
    except SyntaxError:
        return None
    last = None
    for statement in tree.body:
        targets = statement.targets if isinstance(statement, ast.Assign) else \
            [statement.target] if isinstance(statement, ast.AugAssign) else []
        if any(name in _assigned(t) for t in targets):
            last = statement.end_lineno
    return last


def with_line(text: str, name: str, line: str) -> str:
    """``text`` with ``line`` after the last assignment of ``name``; ValueError if the program never assigns it."""
    at = last_assignment(text, name)
    if at is None:
        raise ValueError(f"the program never assigns {name}: only a named tensor (a variable) can be intervened on")
    lines = text.splitlines()
    return "\n".join([*lines[:at], line, *lines[at:]]) + "\n"


def _target(item: Intervention, name: str) -> str:
    """The override's target as an expression of the language."""
    if item.kind == "set":
        return f"{name} * 0 + {item.amount!r}"
    if item.kind == "scale":
        return f"{name} * {item.amount!r}"
    return f"{name} * 0"


def override_line(item: Intervention, t: float | str = 1.0) -> str:
    """h moved the fraction ``t`` (a number or a name) of the way to the override's target: at t = 1, the override."""
    n = item.name
    if t == 1.0:
        return f"{n} = {_target(item, n)}"
    return f"{n} = {n} + {t} * ({_target(item, n)} - {n})"


def program_text(text: str, items) -> str:
    """The program with the interventions that change its text: detach and the value overrides, in order."""
    for item in items:
        if item.kind == "detach":
            text = with_line(text, item.name, f"{item.name} = {item.name}.detach()")
        elif item.kind in VALUE_KINDS:
            text = with_line(text, item.name, override_line(item))
    return text


# ---- gradients with the hooks ----------------------------------------------------------------------------------
def _sum_to(g: np.ndarray, shape: tuple) -> np.ndarray:
    lead = g.ndim - len(shape)
    if lead < 0:
        raise ValueError(f"a grad of shape {g.shape} cannot flow straight to a tensor of shape {shape}")
    g = g.sum(axis=tuple(range(lead))) if lead else g
    axes = tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1)
    if any(s not in (1, gs) for s, gs in zip(shape, g.shape)):
        raise ValueError(f"a grad of shape {g.shape} cannot flow straight to a tensor of shape {shape}")
    return g.sum(axis=axes, keepdims=True) if axes else g


def run(text: str, items=(), poked: poke.Poked = ()):
    """Runs the program with the interventions and its backward: the language's Result (variables with their
    grads), with its inputs' ``poked`` values (explorer.program.poke). ValueError (or the language's ExpressionError)
    says what cannot be done."""
    items = list(items)
    program = compile_program(program_text(text, items))
    result = program.run(inputs=poke.resolve(program, poked) if poked else None)
    straight = []
    for item in items:
        if item.kind not in ("straight", "scale_grad", "clip_grad"):
            continue
        node = result.variables.get(item.name)
        if node is None or not node.requires_grad:
            raise ValueError(f"{item.name} has no grad to change: it does not depend on an input")
        if item.kind == "scale_grad":
            node.register_hook(lambda g, s=item.amount: g * s)
        elif item.kind == "clip_grad":
            node.register_hook(lambda g, c=item.amount: np.clip(g, -c, c))
        else:
            if not node.parents:
                raise ValueError(f"{item.name} is an input: it has no backward to replace")
            caught = {}

            def stop(g, caught=caught):
                caught["g"] = np.array(g)
                return np.zeros_like(g)

            node.register_hook(stop)
            straight.append((node, caught))
    out = result.output
    if out.requires_grad:
        out.backward()
        for node, caught in straight:
            g = caught.get("g")
            if g is None:
                continue
            for parent in node.parents:
                if parent.requires_grad:
                    parent.backward(_sum_to(g, parent.shape))
            node.grad = g  # what arrived at the node (its hook stopped the VJP's flow, and .grad kept that 0)
    return result


# ---- the intervened run on the program's own boxes ---------------------------------------------------------------
def badge(item: Intervention) -> str:
    """What the intervened box says, in a few characters (the graph view draws it on the box)."""
    a = fmt_number(item.amount)
    return {"detach": "detached", "straight": "straight-through", "scale_grad": f"×{a} grad",
            "clip_grad": f"grad clipped ±{a}", "set": f"set {a}", "scale": f"×{a} value", "zero": "zeroed"}[item.kind]


#: How many tensors an intervention's line (program_text) puts after the tensor it acts on, each one's first parent
#: the one before: ``h.detach()``, ``h * s``, ``h * 0``, ``h * 0 + v``.
_LINE_DEPTH = {"detach": 1, "scale": 1, "zero": 1, "set": 2}


@dataclass(frozen=True)
class OnBoxes:
    """The run with the interventions, told per box of the program's own graph (its nodes' order): the lines the
    interventions add are folded into the tensor they act on, whose box shows the value (and grad) they give it."""

    numbers: tuple  # (data, grad) per node of the program's own graph, in the intervened run
    ops: tuple  # (op, shape) per node: what the program's own graph must match (drawn_graph checks)
    marks: dict  # str(node id) -> {"kind", "badge", "name"}: the boxes intervened on


def on_boxes(text: str, items, poked: poke.Poked = ()) -> OnBoxes:
    """run(text, items, poked) told on the boxes of the program as written (see OnBoxes). Plain data (it is computed
    in the sandbox); ValueError or ExpressionError as run's."""
    items = list(items)
    result = run(text, items, poked)
    folded, dropped = {}, set()  # an intervention's last tensor -> the tensor it acts on; the tensors of its line
    for item in items:
        if item.kind not in _LINE_DEPTH:
            continue
        new = t = result.variables[item.name]
        if len(t.parents) < 1:  # nothing it depends on needs grad: the run recorded no line to fold
            raise ValueError(f"{item.name} is a constant here (nothing it depends on needs grad): the graph shows the "
                             "program as written")
        for _ in range(_LINE_DEPTH[item.kind]):
            dropped.update((t, *t.parents[1:]))  # the line's op and its constants
            t = t.parents[0]
        folded[t] = new
    kept = [t for t in order(result.output, result.uses) if t not in dropped]
    numbers = tuple((folded.get(t, t).data, folded.get(t, t).grad) for t in kept)
    where = {id(t): i for i, t in enumerate(kept)}
    acted_on = {new: old for old, new in folded.items()}
    marks = {}
    for item in items:
        node = result.variables[item.name]
        box = acted_on.get(node, node)
        at = where.get(id(box))
        if at is not None:  # a box titled by another name bound to the same tensor (out = t0) says whose it is
            said = badge(item) if box.name == item.name else f"{item.name}: {badge(item)}"
            marks[str(at)] = {"kind": item.kind, "badge": said, "name": item.name}
    return OnBoxes(numbers, tuple((t.op, tuple(t.shape)) for t in kept), marks)


def drawn_graph(graph, boxes: OnBoxes):
    """``graph`` (the program as written, autograd.graph.Graph) with the numbers of the intervened run on its nodes
    (a box that needs grad and got none says so: "—"); ValueError if the run's tensors are not the graph's."""
    if tuple((n.op, tuple(n.shape)) for n in graph.nodes) != boxes.ops:
        raise ValueError("the run with the interventions does not match the program's boxes")
    nodes = tuple(dataclasses.replace(n, data=data, grad=grad if n.requires_grad else None)
                  for n, (data, grad) in zip(graph.nodes, boxes.numbers))
    return dataclasses.replace(graph, nodes=nodes)


def graph_caption(items) -> str:
    """The line above the main graph while interventions are applied."""
    one = len(items) == 1
    listed = markdown_safe("; ".join(f"{i.name} {badge(i)}" for i in items))  # W_1 stays itself in Markdown
    return (f"The graph shows the run with {len(items)} intervention{'' if one else 's'} ({listed}, marked on "
            f"{'its box' if one else 'their boxes'}). Remove {'it' if one else 'them'} under *Intervene on this "
            "node* to see the program as written, which the inspector, export and other tabs show.")


# ---- predicted against actual --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Prediction:
    predicted: float  # g · Δa at t = 1
    actual: float  # L(override) - L
    ts: tuple  # the path's fractions
    predicted_path: tuple
    actual_path: tuple
    output: float  # L before


def _output(result) -> float:
    return float(np.sum(result.output.data))


def _overridden(item: Intervention, a: np.ndarray) -> np.ndarray:
    """The value an override (set, scale, zero) gives a tensor whose value is ``a`` (_target's line, as numbers)."""
    return {"set": np.full(a.shape, item.amount), "scale": a * item.amount, "zero": np.zeros(a.shape)}[item.kind]


def predict(text: str, item: Intervention) -> Prediction:
    """The gradient's prediction of the override's effect on the output's sum, and the effect itself, at t = 1 and
    along the path (PATH)."""
    if item.kind not in VALUE_KINDS:
        raise ValueError(f"{item.kind} changes what flows back, not a value: there is nothing to predict")
    base = compile_program(text).run()
    node = base.variables.get(item.name)
    if node is None:
        raise ValueError(f"the program has no tensor named {item.name}")
    before = _output(base)
    if base.output.requires_grad and node.requires_grad:
        base.output.backward()
        g = np.zeros(node.shape) if node.grad is None else np.asarray(node.grad, dtype=float)
    else:
        g = np.zeros(node.shape)
    a = np.asarray(node.data, dtype=float)
    target = _overridden(item, a)
    slope = float(np.sum(g * (target - a)))
    name = T_NAME
    while last_assignment(text, name) is not None:
        name += "_"
    pathed = with_line(text, item.name, override_line(item, name))
    program = compile_program(f"{name} = 0.0\n" + pathed)
    actual = [_output(program.run(inputs={name: np.array(t)})) - before for t in PATH]
    at_one = _output(program.run(inputs={name: np.array(1.0)})) - before
    return Prediction(slope, at_one, PATH, tuple(slope * t for t in PATH), tuple(actual), before)


def gap(text: str, item: Intervention, t: float) -> float:
    """|actual − predicted| for the override moved the fraction t of its way (the O(t²) remainder)."""
    base = compile_program(text).run()
    before = _output(base)
    base.output.backward()
    node = base.variables[item.name]
    a = np.asarray(node.data, dtype=float)
    target = _overridden(item, a)
    predicted = t * float(np.sum(np.asarray(node.grad) * (target - a)))
    actual = _output(compile_program(with_line(text, item.name, override_line(item, repr(float(t))))).run()) - before
    return abs(actual - predicted)


# ---- what the panel shows ------------------------------------------------------------------------------------------
PREDICTION_WORDS = ("**Before** applying it, the gradient predicts ΔL ≈ g · Δa = {predicted} (g = dL/d{name}, Δa the "
                    "change the override makes). **After**: ΔL = {actual}. Along the way (the plot) the two agree for "
                    "small changes and part where the output curves: a tanh or softmax saturating.")


def _grad_text(t) -> str:
    return "—" if t is None or t.grad is None else compact(np.asarray(t.grad))


def panel_data(text: str, items: tuple, candidate: Intervention | None) -> dict:
    """Plain data for the panel (it is computed in the sandbox): each input's grad without and with the applied
    interventions, the program they make, and for a value override (the candidate's, else the last applied) the
    prediction against the actual change along the path."""
    items = tuple(items)
    plain = run(text)
    changed = run(text, items) if items else plain
    inputs = [name for name, t in plain.variables.items() if not t.parents and t.requires_grad]
    rows = [{"tensor": name, "grad": _grad_text(plain.variables[name]),
             "with the interventions": _grad_text(changed.variables.get(name))} for name in inputs]
    overrides = [i for i in items if i.kind in VALUE_KINDS]
    shown = candidate if candidate is not None and candidate.kind in VALUE_KINDS else \
        (overrides[-1] if overrides else None)
    data = {"rows": rows, "program": program_text(text, items), "output": _output(changed),
            "plain_output": _output(plain), "prediction": None}
    if shown is not None:
        p = predict(text, shown)
        data["prediction"] = {
            "name": shown.name, "describe": shown.describe(), "predicted": p.predicted, "actual": p.actual,
            "ts": list(p.ts), "predicted_path": list(p.predicted_path), "actual_path": list(p.actual_path),
            "words": PREDICTION_WORDS.format(predicted=fmt_number(p.predicted), actual=fmt_number(p.actual),
                                             name=shown.name),
        }
    return data


def figure(prediction: dict, dark: bool) -> dict:
    """Predicted against actual ΔL along the override's path (t = 0: nothing changed, t = 1: the override)."""
    return {
        "data": [{"type": "scatter", "mode": "lines", "x": prediction["ts"], "y": prediction["predicted_path"],
                  "name": "predicted g · Δa", "line": {"dash": "dash"}},
                 {"type": "scatter", "mode": "lines+markers", "x": prediction["ts"], "y": prediction["actual_path"],
                  "name": "actual ΔL"}],
        "layout": {"height": 240, "margin": {"l": 50, "r": 10, "t": 10, "b": 40},
                   "legend": {"orientation": "h", "y": 1.15},
                   "xaxis": {"title": "t: the fraction of the override applied"}, "yaxis": {"title": "ΔL"},
                   "template": "plotly_dark" if dark else "plotly_white"},
    }
