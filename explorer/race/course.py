"""The optimiser race: the engine's own optimisers stepping over a program's surface, every step recorded.

Plain Python (no Streamlit). A race is a program of the language (a preset or the learner's own) with two of
its scalar inputs as the plane, a start point there and up to MAX_RUNNERS optimisers, each an
``autograd.optim`` object with its own settings. Each runner's parameter is the point (x, y); at every step
the compiled program runs at the point, ``backward()`` gives the gradient, and the optimiser's ``step()``
moves the point. What the browser shows is read from the optimiser itself: its state (momentum buffer,
Adam's m and v, through ``state_dict()``) and the point before and after the step.

    race = Race(text=presets_text, x="x", y="y", start=(-1.5, 2.0), runners=(Runner("adam", lr=0.1),), steps=300)
    result = run_race(race)        # {"paths": [...]} ready for JSON
    picture = grid(race)           # the contour grid of the surface around the start point

The race minimises the output summed (as ``backward()`` seeds it with ones); inputs other than the plane's
keep the program's values. A path that diverges (a non-finite loss, gradient or point, or a point
DIVERGED_WIDTHS plot widths away) stops there, with a message saying where and why.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from autograd import Tensor, optim
from explorer.numbers import fmt_number, json_numbers
from explorer.program import poke
from language import compile_program

MAX_STEPS = 1000
MAX_RUNNERS = 6
GRID_POINTS = 81  # per axis, fewer for a costly program (poke's picture budget)
DIVERGED_WIDTHS = 1000  # a point this many plot widths from the plot's centre has diverged
#: What a race may cost: runs of the program (steps × optimisers) × one run's cost with its backward, counted as
#: poke counts a picture's. Rosenbrock's 500 steps of four optimisers are ~0.09 of it (0.4-0.6 s here), so the
#: budget is a few seconds of a worker, inside the sandbox's CPU limit.
RACE_BUDGET = 600_000_000


# ----------------------------------------------------------------------------- the surfaces offered


@dataclass(frozen=True)
class Surface:
    """A preset: a program with inputs x and y, where to start and what part of the plane to show."""

    title: str
    about: str
    text: str
    start: tuple
    box: tuple  # ((x_lo, x_hi), (y_lo, y_hi))
    lr: Mapping = field(default_factory=dict)  # kind -> a learning rate that races well here
    minima: tuple = ()  # where the loss is least: the contour plot marks each with a star

    def runner(self, kind: str) -> Runner:
        """An optimiser of ``kind`` with the settings that suit this surface."""
        return runner(kind, **({"lr": self.lr[kind]} if kind in self.lr else {}))

    def runners(self) -> tuple:
        """The race a learner sees first: SGD, momentum and Adam."""
        return tuple(self.runner(kind) for kind in ("sgd", "momentum", "adam"))


SURFACES = {
    "rosenbrock": Surface(
        "Rosenbrock's valley", "a curved, flat-bottomed valley; the minimum is at (1, 1)",
        "# Rosenbrock's function: a banana-shaped valley, minimum 0 at (1, 1)\n"
        "x = -1.5\ny = 2.0\nloss = (1 - x) ** 2 + 100 * (y - x ** 2) ** 2\n",
        (-1.5, 2.0), ((-2.0, 2.0), (-1.0, 3.0)), {"adam": 0.1, "adamw": 0.1}, ((1.0, 1.0),)),
    "quadratic": Surface(
        "Narrow bowl", "an ill-conditioned quadratic: 20 times steeper across than along",
        "# an ill-conditioned quadratic: curvature 1 along x, 20 along y\n"
        "x = -4.5\ny = 1.5\nloss = 0.5 * x ** 2 + 10 * y ** 2\n",
        (-4.5, 1.5), ((-5.0, 5.0), (-5.0, 5.0)),
        {"sgd": 0.09, "momentum": 0.02, "nesterov": 0.02, "adam": 0.3, "adamw": 0.3}, ((0.0, 0.0),)),
    "saddle": Surface(
        "Saddle", "flat at the saddle point (0, 0); the minima are at y = ±1.41",
        "# a saddle at (0, 0) between two minima at y = ±sqrt(2)\n"
        "x = -2.0\ny = 0.01\nloss = x ** 2 - y ** 2 + y ** 4 / 4\n",
        (-2.0, 0.01), ((-2.5, 2.5), (-2.5, 2.5)),
        {"sgd": 0.05, "momentum": 0.01, "nesterov": 0.01, "adam": 0.05, "adamw": 0.05},
        ((0.0, 2 ** 0.5), (0.0, -(2 ** 0.5)))),
    "beale": Surface(
        "Beale's function", "flat plateaus and steep walls; the minimum is at (3, 0.5)",
        "# Beale's function: minimum 0 at (3, 0.5)\n"
        "x = 1.0\ny = 1.4\n"
        "loss = (1.5 - x + x * y) ** 2 + (2.25 - x + x * y ** 2) ** 2 + (2.625 - x + x * y ** 3) ** 2\n",
        (1.0, 1.4), ((-4.5, 4.5), (-4.5, 4.5)),
        {"sgd": 0.005, "momentum": 0.001, "nesterov": 0.001, "adam": 0.05, "adamw": 0.05}, ((3.0, 0.5),)),
    "kink": Surface(
        "ReLU kink", "a valley whose floor is a kink (x = 0): the gradient jumps from -1 to 3 there",
        "# relu's kink: the slope along x jumps from -1 to 3 at x = 0\n"
        "x = -2.0\ny = -1.5\nloss = 3 * relu(x) + relu(-x) + 0.25 * (y - 1) ** 2\n",
        (-2.0, -1.5), ((-3.0, 3.0), (-2.5, 3.5)),
        {"sgd": 0.1, "momentum": 0.02, "nesterov": 0.02, "adam": 0.1, "adamw": 0.1}, ((0.0, 1.0),)),
}
#: The choice of the learner's own program (the Expression Explorer's).
OWN = "program"


# ----------------------------------------------------------------------------- the optimisers


@dataclass(frozen=True)
class Kind:
    title: str
    settings: tuple  # the Runner fields this optimiser uses, in the order shown
    default: Mapping


KINDS = {
    "sgd": Kind("SGD", ("lr", "weight_decay"), {"lr": 0.001}),
    "momentum": Kind("Momentum", ("lr", "momentum", "weight_decay"), {"lr": 0.001, "momentum": 0.9}),
    "nesterov": Kind("Nesterov", ("lr", "momentum", "weight_decay"), {"lr": 0.001, "momentum": 0.9}),
    "adam": Kind("Adam", ("lr", "beta1", "beta2", "eps", "weight_decay"), {"lr": 0.1}),
    "adamw": Kind("AdamW", ("lr", "beta1", "beta2", "eps", "weight_decay"), {"lr": 0.1, "weight_decay": 0.01}),
}
#: name -> (words, lowest, highest, lowest allowed itself): what a setting may be.
SETTINGS = {
    "lr": ("learning rate", 0.0, 10.0, False),
    "momentum": ("momentum", 0.0, 1.0, False),
    "beta1": ("β₁", 0.0, 1.0, True),
    "beta2": ("β₂", 0.0, 1.0, True),
    "eps": ("ε", 0.0, 1.0, False),
    "weight_decay": ("weight decay", 0.0, 1.0, True),
}


@dataclass(frozen=True)
class Runner:
    """One optimiser of the race and its settings (a kind uses only the fields in its KINDS entry)."""

    kind: str
    lr: float = 0.001
    momentum: float = 0.9
    beta1: float = 0.9
    beta2: float = 0.999
    eps: float = 1e-8
    weight_decay: float = 0.0

    def settings(self) -> dict:
        """The settings this kind uses: name -> value."""
        return {name: getattr(self, name) for name in KINDS[self.kind].settings}

    def optimiser(self, params: list) -> optim.Optimizer:
        """The engine's optimiser for ``params``, as a plain script would make it."""
        if self.kind in ("sgd", "momentum", "nesterov"):
            return optim.SGD(params, lr=self.lr, momentum=0 if self.kind == "sgd" else self.momentum,
                             weight_decay=self.weight_decay, nesterov=self.kind == "nesterov")
        cls = optim.AdamW if self.kind == "adamw" else optim.Adam
        return cls(params, lr=self.lr, betas=(self.beta1, self.beta2), eps=self.eps, weight_decay=self.weight_decay)

    def title(self) -> str:
        """``Adam (lr 0.1)``: the kind and the settings that differ from its default."""
        kind = KINDS[self.kind]
        base = Runner(self.kind, **kind.default)
        shown = [f"{_SHORT[n]} {fmt_number(v)}" for n, v in self.settings().items()
                 if n == "lr" or v != getattr(base, n)]
        return f"{kind.title} ({', '.join(shown)})"


_SHORT = {"lr": "lr", "momentum": "μ", "beta1": "β₁", "beta2": "β₂", "eps": "ε", "weight_decay": "wd"}


def runner(kind: str, **settings) -> Runner:
    """A Runner of ``kind`` with its default settings, changed by ``settings``."""
    return Runner(kind, **(dict(KINDS[kind].default) | settings))


def check_runner(r: Runner) -> str:
    """'' when the runner's settings are allowed, else what is wrong, in words."""
    if r.kind not in KINDS:
        return f"there is no optimiser called `{r.kind[:20]}` (choose from {', '.join(KINDS)})"
    for name, value in r.settings().items():
        words, lo, hi, lo_ok = SETTINGS[name]
        if not (math.isfinite(value) and (value >= lo if lo_ok else value > lo) and value < hi):
            low = f"{'at least' if lo_ok else 'above'} {fmt_number(lo)}"
            return f"{KINDS[r.kind].title}'s {words} must be {low} and below {fmt_number(hi)}, not {value:g}"
    return ""


# ----------------------------------------------------------------------------- a race


@dataclass(frozen=True)
class Race:
    """What a race needs: hashable, so the sandbox can cache its run."""

    text: str
    x: str
    y: str
    start: tuple
    runners: tuple
    steps: int = 300
    box: tuple | None = field(default=None)  # ((x_lo, x_hi), (y_lo, y_hi)); None: around the program's values

    def plot_box(self, program=None) -> tuple:
        """The part of the plane the contour plot shows: the race's box, else a square around the program's
        values of x and y (as the poke view's contour), stretched to hold the start point."""
        if self.box is not None:
            (x0, x1), (y0, y1) = self.box
        else:
            if program is None:

                program = compile_program(self.text)
            own = program.run().inputs
            kx, ky = (poke.slider_for(n, own[n].data) for n in (self.x, self.y))
            (x0, x1), (y0, y1) = poke.square(kx, ky)
            (x0, x1), (y0, y1) = ((x0 * 2 - (x0 + x1) / 2, x1 * 2 - (x0 + x1) / 2),
                                  (y0 * 2 - (y0 + y1) / 2, y1 * 2 - (y0 + y1) / 2))  # twice as wide
        sx, sy = self.start
        pad_x, pad_y = (x1 - x0) * 0.05, (y1 - y0) * 0.05
        return ((min(x0, sx - pad_x), max(x1, sx + pad_x)), (min(y0, sy - pad_y), max(y1, sy + pad_y)))


def plane_inputs(program) -> list[str]:
    """The inputs a plane may use: those holding one number that may take a new value."""
    return [n for n, shape in program.inputs.items() if math.prod(shape) == 1 and n not in program.fixed]


def program_plane(text: str) -> dict:
    """What the race needs to know of the learner's program before it runs: the inputs a plane may use and
    their values in the program (name -> number). Raises ExpressionError for a program that does not run."""

    program = compile_program(text)
    own = program.run().inputs
    planes = plane_inputs(program)
    return {"planes": planes, "values": {n: float(np.asarray(own[n].data).reshape(-1)[0]) for n in planes}}


def preset_race(name: str, runners: tuple | None = None, steps: int = 300) -> Race:
    """A race on the preset surface ``name``: its start point and box, its first runners unless given."""
    s = SURFACES[name]
    return Race(text=s.text, x="x", y="y", start=s.start, runners=s.runners() if runners is None else runners,
                steps=steps, box=s.box)


class _Surface:
    """The program at a point of the plane: the loss (summed output) and its gradient (dx, dy)."""

    def __init__(self, program, x: str, y: str):
        self.program, self.x, self.y = program, x, y
        self.shapes = (program.inputs[x], program.inputs[y])

    def __call__(self, point: np.ndarray) -> tuple[float, np.ndarray]:
        result = self.program.run(inputs={self.x: np.full(self.shapes[0], point[0]),
                                          self.y: np.full(self.shapes[1], point[1])})
        out = result.output
        with np.errstate(all="ignore"):
            out.backward()
        grads = [result.inputs[n].grad for n in (self.x, self.y)]
        grad = np.array([0.0 if g is None else float(np.sum(g)) for g in grads])
        return float(np.sum(out.data)), grad


def _pair(v) -> list[str]:
    return [fmt_number(float(v[0])), fmt_number(float(v[1]))]


def _where(point) -> str:
    return f"({fmt_number(float(point[0]))}, {fmt_number(float(point[1]))})"


def run_path(surface: _Surface, r: Runner, start: tuple, steps: int, box: tuple, digits: int = 10) -> dict:
    """One runner's path: its points and the loss at each (to ``digits`` significant digits), and each step's
    arithmetic as printed numbers (the gradient, the optimiser's state after the step, the step itself);
    ``stopped`` says why it ended early."""
    (x0, x1), (y0, y1) = box
    centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
    far = DIVERGED_WIDTHS * max(x1 - x0, y1 - y0)
    param = Tensor(np.array(start, dtype=np.float64), requires_grad=True)
    opt = r.optimiser([param])
    points, losses = [param.data.copy()], []
    arith: dict[str, list] = {key: [] for key, _ in rules(r)}
    stopped = None
    with np.errstate(all="ignore"):
        try:
            loss, grad = surface(param.data)
        except ValueError as exc:  # an ExpressionError: the program cannot run at this point
            loss, grad, stopped = math.nan, None, f"the program cannot run at the start point: {exc}"
        if stopped is None and not (math.isfinite(loss) and np.isfinite(grad).all()):
            stopped = f"the loss or its gradient is not a finite number at the start point {_where(points[0])}"
        losses.append(loss)
        for k in range(1, steps + 1):
            if stopped:
                break
            before = param.data.copy()
            param.grad = grad
            opt.step()
            after = param.data.copy()
            if not np.isfinite(after).all() or np.abs(after - centre).max() > far:
                stopped = (f"diverged at step {k}: it would move to {_where(after)}, "
                           f"{'not a finite point' if not np.isfinite(after).all() else 'far off the plot'}. "
                           "A smaller learning rate may help")
                break
            try:
                new_loss, new_grad = surface(after)
            except ValueError as exc:
                stopped = f"stopped at step {k}: the program cannot run at {_where(after)}: {exc}"
                break
            if not (math.isfinite(new_loss) and np.isfinite(new_grad).all()):
                stopped = (f"diverged at step {k}: the loss or its gradient at {_where(after)} is not a finite "
                           "number. A smaller learning rate may help")
                break
            _record(arith, r, opt, grad, before, after)
            points.append(after)
            losses.append(new_loss)
            loss, grad = new_loss, new_grad
    xy = np.array(points)
    return {
        "kind": r.kind, "title": r.title(), "settings": r.settings(),
        "x": json_numbers(xy[:, 0], digits), "y": json_numbers(xy[:, 1], digits),
        "loss": json_numbers(losses, digits),
        "rules": rules(r), "arith": arith, "stopped": stopped,
    }


def adam_terms(opt: optim.Adam, state: dict) -> tuple[np.ndarray, np.ndarray]:
    """Adam's bias-corrected first moment m̂ = m / (1 − β₁ᵗ) and √v̂ = √v / √(1 − β₂ᵗ), from its state after
    step t, as PyTorch's update uses them (its step is −lr · m̂ / (√v̂ + ε))."""
    beta1, beta2 = opt.betas
    t = state["step"]
    return state["m"] / (1 - beta1**t), np.sqrt(state["v"]) / math.sqrt(1 - beta2**t)


def _record(arith: dict, r: Runner, opt, grad, before, after) -> None:
    state = opt.state_dict()["state"].get(0, {})
    d = grad + r.weight_decay * before if r.kind != "adamw" else grad  # the gradient the optimiser uses (L2 added)
    values = {"g": grad, "d": d, "step": after - before}
    if "momentum" in state:
        values["v"] = state["momentum"]
        values["u"] = d + r.momentum * state["momentum"]
    if "m" in state:
        values["m"], values["sv"] = adam_terms(opt, state)
    for key, printed in arith.items():
        printed.append(_pair(values[key]))


def run_race(race: Race) -> dict:
    """Every runner's path (see run_path) over the race's program. Raises ExpressionError for a program that
    does not compile and ValueError for a race that is not allowed (see check_race)."""

    program = compile_program(race.text)
    problem = check_race(race, program)
    if problem:
        raise ValueError(f"{problem[:1].upper()}{problem[1:]}.")
    surface = _Surface(program, race.x, race.y)
    box = race.plot_box(program)
    return {"paths": [run_path(surface, r, race.start, race.steps, box) for r in race.runners]}


def check_race(race: Race, program) -> str:
    """'' when ``race`` may run on ``program``, else what is wrong, in words."""
    planes = plane_inputs(program)
    if len(planes) < 2:
        return ("the race needs a program with at least two inputs that hold one number each "
                f"(this one has {len(planes)}{': ' + planes[0] if planes else ''})")
    for axis in (race.x, race.y):
        if axis not in planes:
            return f"`{axis[:40]}` is not an input of one number in this program (choose from {', '.join(planes)})"
    if race.x == race.y:
        return "the plane needs two different inputs"
    if not all(math.isfinite(v) for v in race.start) or len(race.start) != 2:
        return "the start point must be two finite numbers"
    if not 1 <= race.steps <= MAX_STEPS:
        return f"the number of steps must be between 1 and {MAX_STEPS:,}, not {race.steps:,}"
    if not 1 <= len(race.runners) <= MAX_RUNNERS:
        return f"a race has 1 to {MAX_RUNNERS} optimisers, not {len(race.runners)}"
    for r in race.runners:
        problem = check_runner(r)
        if problem:
            return problem
    costs = program.costs
    one = costs.forward_elements + costs.backward_elements + costs.matmul_work * 3 + poke.NODE_COST * costs.nodes
    if one * race.steps * len(race.runners) > RACE_BUDGET:
        most = max(1, int(RACE_BUDGET / (one * len(race.runners))))
        return (f"this program is too costly to race {len(race.runners)} optimisers for {race.steps:,} steps: "
                f"at most {most:,} steps with {len(race.runners)}, or fewer optimisers")
    return ""


def rules(r: Runner) -> list[list[str]]:
    """What one step of ``r`` computes, as [key, text] lines: the text's {key} fields are filled in by the browser
    with that step's printed pair (key g the gradient, d the gradient with weight decay added, v the momentum
    buffer, u Nesterov's look-ahead, m and sv Adam's m̂ and √v̂, step the step; p the point before it)
    and the settings' with their values. Each line's key is what the step records."""
    decayed = r.weight_decay != 0 and r.kind != "adamw"
    d = "{d}" if decayed else "{g}"
    lines = [["g", "g = ∇loss = {g}"]]
    if decayed:
        lines.append(["d", f"d = g + wd · p = {{g}} + {fmt_number(r.weight_decay)} · {{p}} = {{d}}"])
    lr, mu = fmt_number(r.lr), fmt_number(r.momentum)
    dv = "d" if decayed else "g"
    if r.kind == "sgd":
        lines.append(["step", f"step = −lr · {dv} = −{lr} · {d} = {{step}}"])
    elif r.kind in ("momentum", "nesterov"):
        lines.append(["v", f"v = μ · v + {dv} = {mu} · v + {d} = {{v}}"])
        if r.kind == "nesterov":
            lines.append(["u", f"u = {dv} + μ · v = {d} + {mu} · {{v}} = {{u}}  (the look-ahead)"])
        last = "u" if r.kind == "nesterov" else "v"
        lines.append(["step", f"step = −lr · {last} = −{lr} · {{{last}}} = {{step}}"])
    else:
        b1, b2, eps = fmt_number(r.beta1), fmt_number(r.beta2), fmt_number(r.eps)
        lines.append(["m", f"m = {b1} · m + (1 − {b1}) · {dv};  m̂ = m / (1 − {b1}ᵗ) = {{m}}"])
        lines.append(["sv", f"v = {b2} · v + (1 − {b2}) · {dv}²;  √v̂ = √v / √(1 − {b2}ᵗ) = {{sv}}"])
        if r.kind == "adamw" and r.weight_decay:
            wd = fmt_number(r.weight_decay)
            lines.append(["step", f"step = −lr · (m̂ / (√v̂ + ε) + wd · p) = −{lr} · ({{m}} / ({{sv}} + {eps}) + "
                                  f"{wd} · {{p}}) = {{step}}"])
        else:
            lines.append(["step", f"step = −lr · m̂ / (√v̂ + ε) = −{lr} · {{m}} / ({{sv}} + {eps}) = {{step}}"])
    return lines


# ----------------------------------------------------------------------------- the contour grid


def grid(race: Race) -> dict:
    """The surface over the race's plot box: xs, ys, zs (zs[i][j] the loss at (xs[j], ys[i])), ``log``: True when
    the plot should colour by log(loss) (a surface whose values span many orders), and a preset's ``minima``."""

    program = compile_program(race.text)
    (x0, x1), (y0, y1) = box = race.plot_box(program)
    # every other input keeps the program's value; poke's picture budget caps the points
    s = poke.surface(race.text, (), race.x, race.y, (x0, x1), (y0, y1), points=GRID_POINTS)
    zs = s.zs
    finite = zs[np.isfinite(zs)]
    log = False
    if finite.size:
        lo, mid, hi = np.min(finite), np.median(finite), np.max(finite)
        log = bool(hi - lo > 10 * max(mid - lo, 1e-300))
    minima = next((list(map(list, preset.minima)) for preset in SURFACES.values() if preset.text == race.text), [])
    return {"x": race.x, "y": race.y, "box": [list(box[0]), list(box[1])], "xs": json_numbers(s.xs),
            "ys": json_numbers(s.ys), "zs": json_numbers(zs), "log": log, "minima": minima}
