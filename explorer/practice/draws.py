"""Random re-checks: the learner's answers run again on the same program with fresh random inputs.

An answer that holds only for today's numbers (a hard-coded value, a missing broadcast sum that a size-1 axis
hides, a missing .T on a square matrix when the values happen to be symmetric) is caught on some draw, and the
first draw that broke it is kept to be shown. The answers are compiled once (the shapes do not change); each draw
is one run of the program with new values for its inputs (those that set no shape, index or axis), a backward
pass and one run of the answers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.practice.check import judge
from explorer.practice.setup import prepare
from language.answers import compile_answers
from language.source import ExpressionError

DRAWS = 20


@dataclass(frozen=True)
class Broken:
    """The first draw on which an answer that was good on the page's numbers is not."""

    draw: int  # 1-based
    name: str
    verdict: str
    message: str
    inputs: dict  # input name -> the array it had on that draw


@dataclass(frozen=True)
class Redraws:
    draws: int  # how many ran
    held: tuple  # names good on the page's numbers and on every draw
    broken: tuple  # of Broken, one per tensor that broke (its first draw), in backward order
    skipped: str = ""  # why no draw ran, if none did


def fresh_inputs(program, rng, base=None) -> dict:
    """New values for a program's inputs that set no shape: normal draws on the scale of the old ones (positive
    where the old ones were all positive, since they may feed a log or a square root). ``base``: a run of the
    program (its inputs' old values), made here if not given."""
    base = base if base is not None else program.run()
    given = {}
    for name, shape in program.inputs.items():
        if name in program.fixed:
            continue
        old = base.inputs[name].data
        scale = float(np.abs(old).mean()) if old.size and np.isfinite(old).all() and np.abs(old).mean() > 0 else 1.0
        new = rng.standard_normal(shape) * scale
        if old.size and (old > 0).all():
            new = np.abs(new) + 0.1 * scale
        given[name] = new
    return given


def redraw(setup, answers_text: str, draws: int = DRAWS, seed: int = 1) -> Redraws:
    """Runs the answers on ``draws`` fresh draws (see the module docstring)."""
    protected = frozenset(setup.scope) - {"d" + n for n in setup.grads}
    answers = compile_answers(answers_text, setup.scope, protected)
    first = judge(setup, answers, answers.run(setup.values))
    good = [r.name for r in first.rows if r.good]
    if not good:
        return Redraws(0, (), (), "no answer is right on the page's numbers yet")
    rng = np.random.default_rng(seed)
    broken: dict[str, Broken] = {}
    ran = 0
    base = setup.program.run()
    for k in range(1, draws + 1):
        inputs = fresh_inputs(setup.program, rng, base)
        try:
            drawn = prepare(setup.text, inputs=inputs, seed=setup.program.seed + k, program=setup.program)
        except ExpressionError:
            continue  # a draw the program itself cannot take (labels are not drawn, so this is rare)
        ran += 1
        report = judge(drawn, answers, answers.run(drawn.values), drawn.grads)
        for row in report.rows:
            if row.name in good and not row.good and row.name not in broken:
                broken[row.name] = Broken(k, row.name, row.verdict, row.message, inputs)
    order = [n for n in setup.asked if n in broken]
    return Redraws(ran, tuple(n for n in good if n not in broken), tuple(broken[n] for n in order))
