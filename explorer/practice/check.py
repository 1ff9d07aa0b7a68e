"""The check: each answered tensor's value against the engine's complete grad of that node, in backward order.

Verdicts, as Karpathy's ``cmp`` says them and a little more:
    exact    bit for bit the engine's grad
    close    within 1e-10 relative (allclose, rtol 1e-10, atol 1e-10 of the grad's largest element): the max difference
    wrong    the max difference, and which elements are off
    shape    the shape it has and the shape it needs, and why (which use sums it over which axis)
    error    the language's message, with its line and column
    pending  no line yet
A line that reads an answer judged wrong (or shape, or error) is marked as depending on it: the first such tensor
in backward order is where to look.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from autograd.tensor import broadcast_axes
from language.answers import compile_answers

RTOL = 1e-10
GOOD = ("exact", "close")
BROADCASTING = {"add", "sub", "mul", "div", "pow", "maximum", "minimum", "where"}
SHOWN = re.compile(r"#\s*shown\b")
#: At most this many of a wrong answer's elements are listed (and drawn).
MAX_MARKED = 400


@dataclass(frozen=True)
class Verdict:
    name: str  # the tensor's name (the answer is d<name>)
    verdict: str  # exact, close, wrong, shape, error, pending
    message: str = ""
    maxdiff: float | None = None
    line: int | None = None  # the answer's line, for error: its line and column
    col: int | None = None
    end_col: int | None = None
    depends_on: tuple = ()  # names of answers judged not good that this answer reads
    wrong: np.ndarray | None = None  # for wrong: a boolean array of the elements off (small tensors)
    has: tuple | None = None
    needs: tuple | None = None
    shown: bool = False  # the line was written by the third hint

    @property
    def good(self) -> bool:
        return self.verdict in GOOD


@dataclass(frozen=True)
class Report:
    rows: tuple  # of Verdict, in backward order, for the asked tensors
    problems: tuple = ()  # messages not tied to one tensor (answers for unknown names, text too long)
    values: dict = field(default_factory=dict)  # d<name> -> its array, for the lines that ran

    @property
    def solved(self) -> int:
        return sum(1 for r in self.rows if r.good and not r.shown)

    @property
    def good(self) -> int:
        return sum(1 for r in self.rows if r.good)

    @property
    def total(self) -> int:
        return len(self.rows)

    def first_bad(self) -> Verdict | None:
        return next((r for r in self.rows if r.verdict in ("wrong", "shape", "error")), None)


def compare(name: str, value: np.ndarray, grad: np.ndarray) -> Verdict:
    """exact / close / wrong / shape of one answer's value against the engine's grad (shape: see why_shape)."""
    value = np.asarray(value)
    grad = np.asarray(grad)
    if value.shape != grad.shape:
        return Verdict(name, "shape", has=tuple(value.shape), needs=tuple(grad.shape))
    a = value.astype(np.float64) if value.dtype.kind != "f" else value
    if np.array_equal(a, grad, equal_nan=True):
        return Verdict(name, "exact", maxdiff=0.0)
    with np.errstate(all="ignore"):
        diff = np.abs(a - grad)
        both_nan = np.isnan(a) & np.isnan(grad)
        diff = np.where(both_nan, 0.0, diff)
        scale = float(np.nanmax(np.abs(grad))) if grad.size and np.isfinite(grad).any() else 0.0
        tol = RTOL * np.abs(grad) + RTOL * max(scale, 1e-300)
        off = ~(diff <= tol) & ~(both_nan | (a == grad))
    finite = diff[np.isfinite(diff)]
    maxdiff = float(finite.max()) if finite.size == diff.size and diff.size else float("inf")
    if not off.any():
        return Verdict(name, "close", maxdiff=maxdiff)
    return Verdict(name, "wrong", maxdiff=maxdiff, wrong=off if off.size <= MAX_MARKED else None)


def why_shape(setup, name: str, has: tuple, needs: tuple) -> str:
    """Why d<name> needs ``needs``: which use sums its grad over which axes (a broadcast), or just the rule."""
    asked = setup.by_name(name)
    words = f"d{name} has shape {has}; it needs {needs}, {name}'s shape"
    if asked is not None:
        for child, _ in asked.uses:
            node = setup.graph.nodes[child]
            if node.op in BROADCASTING and tuple(node.shape) != tuple(needs):
                try:
                    axes = broadcast_axes(tuple(node.shape), tuple(needs))
                except ValueError:
                    continue
                lead = len(node.shape) - len(needs)
                where = "the batch axis" if axes == (0,) and lead == 1 else (
                    f"axis {axes[0]}" if len(axes) == 1 else f"axes {axes}")
                return (f"{name} is {needs}; its grad sums d{setup.names[child]} {tuple(node.shape)} over {where}, "
                        f"where the {node.op} broadcast it")
    if len(has) >= 2 and tuple(has) == tuple(needs)[::-1]:
        return words + " (it has the transpose's shape: a missing .T?)"
    return words


def check(setup, answers_text: str) -> Report:
    """Every asked tensor's Verdict for ``answers_text`` (see the module docstring). Never raises for bad answers."""
    protected = frozenset(setup.scope)
    answers = compile_answers(answers_text, setup.scope, protected - {"d" + n for n in setup.grads})
    outcomes = answers.run(setup.values)
    return judge(setup, answers, outcomes)


def judge(setup, answers, outcomes, grads: dict | None = None) -> Report:
    """The Report for compiled answers run into ``outcomes``, against ``grads`` (name -> array; the setup's)."""
    grads = setup.grads if grads is None else grads
    problems = [f"line {e.line}, col {e.col}: {e.message}" for e in answers.problems]
    by_target: dict[str, list] = {}
    for line, outcome in zip(answers.lines, outcomes):
        by_target.setdefault(line.target, []).append((line, outcome))
    known = {"d" + n for n in grads}
    asked = {"d" + n for n in setup.asked}
    for line, outcome in zip(answers.lines, outcomes):  # an error no row of the table shows
        if outcome.error is not None and line.target not in asked:
            e = outcome.error
            problems.append(f"line {e.line}, col {e.col}: {e.message}")
    values = {}
    for target, pairs in by_target.items():
        line, outcome = pairs[-1]
        if outcome.value is not None:
            values[target] = outcome.value
        if target.startswith("d") and target not in known and target[1:] in setup.scope:
            problems.append(f"line {line.line}: {target[1:]} needs no grad here (the output does not depend on it "
                            f"through anything that requires grad), so {target} is not checked")
    rows = []
    verdicts: dict[str, str] = {}
    for name in setup.asked:
        target = "d" + name
        pairs = by_target.get(target)
        if not pairs:
            rows.append(Verdict(name, "pending"))
            verdicts[target] = "pending"
            continue
        shown = any(SHOWN.search(line.text) for line, _ in pairs)
        bad = next(((line, o) for line, o in pairs if o.error is not None or o.blocked_by), None)
        reads = sorted({r for line, _ in pairs for r in _reads(line, by_target, known) if r != target})
        depends = tuple(r[1:] for r in reads if verdicts.get(r) not in (None, "exact", "close"))
        if bad is not None:
            line, o = bad
            if o.error is not None:
                e = o.error
                rows.append(Verdict(name, "error", e.message, line=e.line, col=e.col, end_col=e.end_col,
                                    depends_on=depends, shown=shown))
            else:
                rows.append(Verdict(name, "error", f"it uses {o.blocked_by}, whose line has an error",
                                    line=line.line, col=1, depends_on=depends, shown=shown))
            verdicts[target] = "error"
            continue
        line, outcome = pairs[-1]
        verdict = compare(name, outcome.value, grads[name])
        if verdict.verdict == "shape":
            verdict = Verdict(name, "shape", why_shape(setup, name, verdict.has, verdict.needs), line=line.line,
                              has=verdict.has, needs=verdict.needs)
        message = ""
        if verdict.verdict == "wrong":
            count = int(np.sum(verdict.wrong)) if verdict.wrong is not None else None
            message = (f"{count} of {np.size(grads[name])} elements are off" if count is not None
                       else "elements are off") + f" (max difference {verdict.maxdiff:.3g})"
        elif verdict.verdict == "close":
            message = f"max difference {verdict.maxdiff:.3g}"
        if depends:
            message += ("; " if message else "") + "computed from " + ", ".join("d" + d for d in depends) + \
                       ", judged " + ", ".join(verdicts["d" + d] for d in depends)
        rows.append(Verdict(name, verdict.verdict, verdict.message or message, verdict.maxdiff, line.line,
                            depends_on=depends, wrong=verdict.wrong, has=verdict.has, needs=verdict.needs,
                            shown=shown))
        verdicts[target] = verdict.verdict
    return Report(tuple(rows), tuple(problems), values)


def _reads(line, by_target: dict, known: set) -> set:
    """The answers a line reads, through any helper lines (names that are not d<tensor>) on the way."""
    out, stack, seen = set(), list(line.reads), set()
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        out.add(name)
        if name not in known:
            for helper, _ in by_target.get(name, ()):
                stack.extend(helper.reads)
    return out
