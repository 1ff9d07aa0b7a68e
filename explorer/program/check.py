"""The gradient check: every input's grad against central differences in a time budget: rows, verdicts, a table."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from autograd import no_grad
from autograd.gradcheck import numerical_vjp
from autograd.graph import trace
from explorer.numbers import compact, fmt_number, shape_dtype_text
from explorer.program.poke import resolve
from explorer.program.run import data_only
from explorer.words import counted
from language import compile_program


@dataclass(frozen=True)
class GradCheckRow:
    name: str
    shape: tuple[int, ...]
    grad: np.ndarray | None  # what backward() gave
    numeric: np.ndarray | None  # central differences (nan where an element was not checked)
    max_abs_error: float | None
    checked: int  # elements checked
    total: int  # elements in the tensor
    ok: bool | None  # None: not checked (see note)
    note: str = ""  # why a variable was not checked
    float_error: float = 0.0  # > 0: it passed only once rounding noise this large was allowed for
    dtype: str = "float64"

    @property
    def finite(self) -> bool:
        """False when backward()'s grad or a checked central difference is nan or inf."""
        grad_ok = self.grad is None or bool(np.isfinite(self.grad).all())
        return grad_ok and (self.max_abs_error is None or bool(np.isfinite(self.max_abs_error)))


@dataclass(frozen=True)
class CheckTime:
    """What the check's time budget allowed: inputs (and elements) checked of all, and seconds spent."""

    inputs_checked: int
    inputs: int
    seconds: float
    budget: float | None
    eval_seconds: float  # the slowest evaluation of the program seen

    @property
    def partial(self) -> bool:
        return self.inputs_checked < self.inputs


def finite_difference_check(
    run: Callable[[dict[str, np.ndarray]], np.ndarray],
    inputs: Mapping[str, np.ndarray],
    analytic: Mapping[str, np.ndarray | None],
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-4,
    max_elements: int = 64,
    time_budget: float | None = None,
    eval_seconds: float = 0.0,
    float_error: float = 0.0,
    timing: list | None = None,
) -> list[GradCheckRow]:
    """Central differences in float64 of ``sum(run(values))`` for elements of each input
    (``autograd.gradcheck.numerical_vjp``).

    ``run(values)`` evaluates the program with the inputs set to ``values`` (name -> float64
    array) and returns the output's data; backward seeds with ones, so the scalar checked is
    the output's sum. Each input is checked on up to ``max_elements`` evenly spread elements,
    taken in turns (every input's first element, then every input's second...), and no pair of
    evaluations starts unless it is expected to end within ``time_budget`` seconds (the slowest
    evaluation so far, at first ``eval_seconds``, predicts the next): rows say how many elements
    were checked, and an input with none is not checked. An element passes when
    ``|grad - numeric| <= atol + rtol * |numeric|``, or within ``float_error`` more (the rounding
    noise of the program's own arithmetic; such rows carry it). ``timing``, if given, receives a
    ``CheckTime``.
    """

    started = time.monotonic()
    deadline = None if time_budget is None else started + time_budget
    names = list(inputs)
    tensors = [SimpleNamespace(data=np.array(inputs[name], dtype=np.float64)) for name in names]
    slowest = [eval_seconds]

    def fn(*xs):
        t = time.monotonic()
        out = run({name: x.data for name, x in zip(names, xs)})
        slowest[0] = max(slowest[0], time.monotonic() - t)
        return SimpleNamespace(data=out)

    picks = [np.unique(np.linspace(0, x.data.size - 1, min(x.data.size, max_elements)).astype(int)) for x in tensors]
    done: list[list[int]] = [[] for _ in names]

    def elements():
        for turn in range(max((p.size for p in picks), default=0)):
            for k, p in enumerate(picks):
                if turn < p.size:
                    done[k].append(int(p[turn]))
                    yield k, int(p[turn])

    def out_of_time() -> bool:
        return deadline is not None and time.monotonic() + 2 * slowest[0] > deadline

    numeric = numerical_vjp(fn, tensors, 1.0, eps, elements=elements(), stop=out_of_time)
    rows = []
    for name, x, num, picked in zip(names, tensors, numeric, done):
        grad = analytic.get(name)
        if not picked:
            why = (f"not checked: one evaluation takes {slowest[0]:.1f} s, too long for the check's "
                   f"{time_budget:.1f} s budget" if 2 * slowest[0] > (time_budget or 0) else
                   "not checked: the check's time budget ran out")
            rows.append(GradCheckRow(name=name, shape=tuple(x.data.shape), grad=grad, numeric=None,
                                     max_abs_error=None, checked=0, total=int(x.data.size), ok=None, note=why))
            continue
        index = np.array(picked, dtype=int)
        g = np.zeros(x.data.shape) if grad is None else np.asarray(grad, dtype=np.float64)
        got, want = g.reshape(-1)[index], num.reshape(-1)[index]
        err = np.abs(got - want)
        allowed = atol + rtol * np.abs(want)
        strict = bool(np.all(err <= allowed))
        ok = strict or bool(np.all(err <= allowed + float_error))
        rows.append(
            GradCheckRow(
                name=name,
                shape=tuple(x.data.shape),
                grad=grad,
                numeric=num,
                max_abs_error=float(err.max()),
                checked=int(index.size),
                total=int(x.data.size),
                ok=ok,
                float_error=float_error if ok and not strict else 0.0,
            )
        )
    if timing is not None:
        checked = sum(1 for picked in done if picked)
        timing.append(CheckTime(checked, len(names), time.monotonic() - started, time_budget, slowest[0]))
    return rows


def rounding_noise(graph, eps: float = 1e-6) -> float:
    """How far central differences of step ``eps`` can stray from the true slope by rounding alone.

    First-order forward error analysis: each node's value v carries a relative rounding error of up to
    one machine epsilon, which moves the output's sum by about |v · grad v|; summed over every element
    of every node, that bounds the error of one evaluation (the chain's conditioning), and a central
    difference divides the error of two evaluations by 2·eps. It is ~1e-9 for the presets and ~1e-4
    for a chain of eight ops over a million numbers, where one evaluation's rounding is no longer
    small next to the nudge.
    """
    total = 0.0
    for node in graph.nodes:
        if node.grad is None or node.data.dtype.kind != "f":
            continue
        with np.errstate(all="ignore"):
            total += float(np.finfo(node.data.dtype).eps * np.sum(np.abs(node.data * node.grad)))
    return total / eps if np.isfinite(total) else 0.0


def check_note(timing: CheckTime | None, rows: list[GradCheckRow]) -> str:
    """One line on how far the check went: how many inputs it checked in how long, and any that
    passed only within rounding noise ('' when everything was checked strictly)."""
    parts = []
    if timing is not None and timing.partial and not timing.inputs_checked:
        parts.append(
            f"No input was checked: one evaluation of the program takes {timing.eval_seconds:.2g} s, too long "
            f"for two of them in the check's {timing.budget:.1f} s budget."
        )
    elif timing is not None and timing.partial:
        parts.append(
            f"Checked {timing.inputs_checked:,} of {counted(timing.inputs, 'input')} in {timing.seconds:.1f} s, "
            f"the check's time budget (one evaluation of the program takes {timing.eval_seconds:.2g} s); "
            "the rest are marked 'not checked'."
        )
    noisy = [r for r in rows if r.ok and r.float_error > 0]
    if noisy:
        names = ", ".join(r.name for r in noisy[:5]) + (", …" if len(noisy) > 5 else "")
        parts.append(
            f"{names} {'matches' if len(noisy) == 1 else 'match'} within float error "
            f"(±{fmt_number(max(r.float_error for r in noisy))}): the program's own rounding moves its output more "
            "than the check's usual tolerance, so that is all central differences can tell here."
        )
    return " ".join(parts)


@dataclass(frozen=True)
class Analysis:
    """Everything the explorer shows about one program."""

    graph: object  # autograd.graph.Graph, grads filled in by backward()
    checks: tuple[GradCheckRow, ...]
    python: str  # the program as plain Python with autograd
    note: str = ""  # said above the graph when backward() could not run
    check_note: str = ""  # how far the gradient check went (see check_note())


def analyse_program(text: str, poked: tuple = (), max_elements: int = 64, time_budget: float = 3.0) -> Analysis:
    """Evaluates a program (with its inputs' ``poked`` values, explorer.program.poke), runs backward, traces the graph
    and checks each grad numerically.

    Each named input (a leaf that requires grad) is checked by re-running the compiled program with
    its elements nudged one at a time (``Program.run(inputs=...)``: no parsing again), for at most
    ``time_budget`` seconds. Other variables are listed with their grad. Raises
    ``autograd.expr.ExpressionError`` for a bad program.
    """

    started = time.monotonic()
    program = compile_program(text)
    result = program.run(inputs=resolve(program, poked))
    eval_seconds = time.monotonic() - started
    if result.output.requires_grad:
        result.output.backward()
    graph = trace(result.output, uses=result.uses)
    return checked_analysis(program, result, graph, started, eval_seconds, max_elements, time_budget)


#: The gradient check's default time budget, in seconds.
CHECK_SECONDS = 3.0


def check_seconds() -> float:
    """How long the Explorer's gradient check may take: ``AUTOGRAD_CHECK_SECONDS`` (a server sets it: less on a
    classroom's busy machine, more for a patient user), else CHECK_SECONDS; a value that is not a number of
    seconds from 0 to 25 (the check must end well within an evaluation's 30 s of wall clock) is ignored."""
    try:
        seconds = float(os.environ.get("AUTOGRAD_CHECK_SECONDS", CHECK_SECONDS))
    except ValueError:
        return CHECK_SECONDS
    return seconds if 0.0 <= seconds <= 25.0 else CHECK_SECONDS


def checked_analysis(program, result, graph, started: float, eval_seconds: float, max_elements: int = 64,
                     time_budget: float = 3.0) -> Analysis:
    """analyse_program's Analysis of a program already run (``result``, backward() done: ``graph`` traced with its
    grads), ``started`` at that monotonic time, one run having taken ``eval_seconds``."""

    python = program.to_python()
    if not result.output.requires_grad:
        note = "Nothing here requires grad (the output is made of constants only), so backward() has nothing to do."
        rows = tuple(_unchecked(name, t, "no grad") for name, t in result.variables.items())
        return Analysis(graph=graph, checks=rows, python=python, note=note)
    # The inputs: leaves that require grad made by a name's first assignment, if the graph differentiates them
    # (a float tensor read as labels or an index is drawn, but a nudge would only make its labels fractional).
    as_data = data_only(graph)
    in_graph = {id(node.data) for node in graph.nodes if node.kind == "input" and node.id not in as_data}
    leaves = {name: t for name, t in result.inputs.items() if id(t.data) in in_graph}
    shadowed = [n for n in graph.nodes
                if n.kind == "input" and n.name and leaves.get(n.name) is None and n.id not in as_data]
    fixed = {name: leaves.pop(name) for name in program.fixed if name in leaves}  # a nudge would change a shape
    base = {name: t.data for name, t in leaves.items()}

    def run(values: Mapping[str, np.ndarray]) -> np.ndarray:
        with no_grad():  # only the output's numbers: no graph to record
            return program.run(inputs=values).output.data

    note = ""
    checked = []
    timing: list[CheckTime] = []
    try:
        grads = {name: node.grad for name, node in leaves.items()}
        checked = finite_difference_check(
            run, base, grads, max_elements=max_elements, eval_seconds=eval_seconds, timing=timing,
            time_budget=max(0.0, time_budget - (time.monotonic() - started)), float_error=rounding_noise(graph),
        )
    except ValueError as exc:  # ExpressionError: a nudged input made the program invalid
        note = f"not checked: {getattr(exc, 'message', exc)}"
    rows = checked or [_unchecked(name, node, note) for name, node in leaves.items()]
    for name, t in fixed.items():
        rows.append(_unchecked(name, t, "not checked: it sets a shape, an index or an axis"))
    for node in shadowed:
        note = "not checked: assigned more than once (give each input a name of its own)"
        rows.append(_unchecked(node.name, node, note))
    read = {graph.nodes[i].name for i in as_data}
    for name, t in result.variables.items():
        if name not in leaves and name not in fixed and not any(node.name == name for node in shadowed):
            rows.append(_unchecked(name, t, "not checked: read as labels or an index (data), not differentiated"
                                   if t.requires_grad and name in read else "not an input"))
    return Analysis(graph=graph, checks=tuple(rows), python=python,
                    check_note=check_note(timing[0] if timing else None, checked))


def _unchecked(name: str, tensor, note: str) -> GradCheckRow:
    return GradCheckRow(
        name=name, shape=tuple(tensor.shape), grad=tensor.grad, numeric=None, max_abs_error=None,
        checked=0, total=int(tensor.data.size), ok=None, note=note, dtype=str(tensor.dtype),
    )


def check_verdicts(rows) -> list[tuple[str, str]]:
    """What the check says above its table, as (kind, message): "success" when every checked input matches,
    "warning" for inputs whose numbers are not finite and for those on a kink."""
    checked = [r for r in rows if r.ok is not None]
    left = [r for r in rows if r.ok is None and "budget" in r.note]  # inputs the time budget left unchecked
    said = []
    if checked and all(r.ok for r in checked):
        if left:  # never "all" when the budget stopped the check: only what was checked matched
            inputs = (f"The {counted(len(checked), 'input')} checked "
                      f"{'matches' if len(checked) == 1 else 'match'} (of {len(checked) + len(left):,})")
        else:
            inputs = "The input matches" if len(checked) == 1 else f"All {len(checked)} inputs match"
        said.append(("success", f"{inputs} central differences (float64, eps = 1e-6)."))
    not_finite = ", ".join(r.name for r in checked if not r.ok and not r.finite)
    kinked = ", ".join(r.name for r in checked if not r.ok and r.finite)
    if not_finite:
        said.append(("warning", f"Not a finite number (nan or inf) for: {not_finite}. The program divides by zero, "
                                "takes log or sqrt of a value ≤ 0, or overflows somewhere; there is no slope to "
                                "compare there."))
    if kinked:
        said.append(("warning", f"The numerical check disagrees for: {kinked}. Where an input sits on a kink (relu "
                                "of exactly 0, abs of 0, a tie in max) the two one-sided slopes differ: backward() "
                                "takes relu'(0) = 0, central differences average the two sides."))
    return said


CHECK_CAPTION = (
    "grad: what backward() gave (seeded with ones). numerical grad: (f(x + ε) − f(x − ε)) / 2ε per element "
    "of each input, ε = 1e-6; pass when |error| ≤ 1e-5 + 1e-4·|numerical|. Variables that are not inputs "
    "show their grad only."
)


def check_table(rows: list[GradCheckRow]) -> list[dict[str, object]]:
    """Rows for the check table: variable, shape, grad, numerical grad, max |error|, verdict."""
    table = []
    for row in rows:
        if row.ok is None:
            verdict = row.note or "not checked"
        elif row.ok:
            verdict = f"pass (within float error ±{fmt_number(row.float_error)})" if row.float_error else "pass"
        else:
            verdict = "FAIL"
        sample = "" if row.checked == row.total else f" ({row.checked} of {row.total} checked)"
        table.append(
            {
                "variable": row.name,
                "shape": shape_dtype_text(row.shape, row.dtype),
                "grad": compact(row.grad),
                "numerical grad": _numeric_text(row, sample),
                "max |error|": "—" if row.max_abs_error is None else fmt_number(row.max_abs_error),
                "check": verdict,
            }
        )
    return table


def _numeric_text(row: GradCheckRow, sample: str) -> str:
    if row.numeric is None:
        return "—"
    if row.checked < row.total and row.total > 12:
        return f"{row.checked} of {row.total} elements checked"
    return compact(row.numeric) + sample
