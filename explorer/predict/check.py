"""A prediction of one backward step checked: for each parent of the step's node, the learner's line (a value in the
program's language, or just a shape such as ``(3, 4)``) against what the engine's VJP sends it there.

The rule is Practice's (explorer/practice/check.py): the same answer language with the forward values by name in
scope (language/answers.py), the same verdicts (``exact`` bit for bit, ``close`` within 1e-10 relative, ``wrong``
with the max difference, ``shape`` with why, ``error`` with the language's message), compared by the same
``compare`` and explained by the same ``why_shape``. Two more words: ``right-shape`` (a shape-only prediction that
holds) and ``pending`` (a parent left blank). Besides the program's names the line may read ``G``, the upstream
grad of the step's node (also by its own name, ``d<node>``).
"""

from __future__ import annotations

import re
from types import SimpleNamespace

import numpy as np

from autograd import no_grad
from explorer import numbers
from explorer.graph.dot import slot_names
from explorer.practice.check import compare, why_shape
from explorer.practice.setup import Asked, prepare
from explorer.practice.written import summed, term
from explorer.program import poke, run
from explorer.program.stepper import contribution_slots
from language import compile_program
from language.answers import Given, compile_answers
from language.source import ExpressionError

#: A shape alone: a tuple of whole numbers in brackets, ``()`` and ``(3,)`` included (``(3)`` is the number 3).
SHAPE = re.compile(r"^\s*\(\s*(?:(\d+)\s*,\s*((?:\d+\s*,\s*)*(?:\d+\s*)?))?\)\s*$")
GOOD = ("exact", "close", "right-shape")
#: At most this many characters in one prediction (a step's value fits in far fewer).
MAX_CHARS = 2_000
UPSTREAM = "G"


def shape_of(text: str) -> tuple | None:
    """The shape a prediction names (``(3, 4)``, ``(3,)``, ``()``), or None if it is a value."""
    found = SHAPE.match(text)
    if not found:
        return None
    return tuple(int(d) for d in re.findall(r"\d+", text))


def _target(scope: dict) -> str:
    name = "received"
    while name in scope:
        name += "_"
    return name


def _one(setup, step, position: int, contribution, text: str, scope: dict, values: dict) -> dict:
    """One parent's row: its name, slot position, verdict, message and the max difference."""
    name = setup.names[contribution.parent]
    needs = tuple(np.shape(contribution.grad))
    row = {"parent": name, "position": position, "text": text, "maxdiff": None}
    text = (text or "").replace("\n", " ").strip()
    if not text:
        return {**row, "verdict": "pending", "message": "left blank"}
    if len(text) > MAX_CHARS:
        return {**row, "verdict": "error", "message": f"a prediction is at most {MAX_CHARS:,} characters"}
    node = setup.graph.nodes[step.node]
    # NOTE: why_shape reads the tensor's uses; here only this step's use of it matters
    here = SimpleNamespace(graph=setup.graph, names=setup.names, by_name=lambda _: Asked(
        contribution.parent, name, needs, setup.graph.nodes[contribution.parent].op, ((step.node, position),)))
    has = shape_of(text)
    if has is not None:
        if has == needs:
            return {**row, "verdict": "right-shape", "message": f"the shape is right: {_shape(needs)}"}
        return {**row, "verdict": "shape", "message": why_shape(here, name, has, needs), "has": list(has),
                "needs": list(needs)}
    target = _target(scope)
    prefix = f"{target} = "
    answers = compile_answers(prefix + text, scope, frozenset(scope))
    line = answers.lines[0] if answers.lines else None
    error = answers.problems[0] if answers.problems else (line.error if line is not None else None)
    outcome = None
    if error is None and line is not None:
        outcome = answers.run(values)[0]
        error = outcome.error
    if error is not None or outcome is None or outcome.value is None:
        message = error.message if isinstance(error, ExpressionError) else "nothing to check"
        col = max(1, error.col - len(prefix)) if isinstance(error, ExpressionError) else None
        return {**row, "verdict": "error", "message": message, "col": col}
    verdict = compare(name, outcome.value, contribution.grad)
    if verdict.verdict == "shape":
        return {**row, "verdict": "shape", "message": why_shape(here, name, verdict.has, verdict.needs),
                "has": list(verdict.has), "needs": list(verdict.needs)}
    message = ""
    if verdict.verdict == "wrong":
        count = int(np.sum(verdict.wrong)) if verdict.wrong is not None else None
        message = (f"{count} of {np.size(contribution.grad)} elements are off" if count is not None
                   else "elements are off") + f" (max difference {numbers.fmt_number(verdict.maxdiff)})"
        if node.op and contribution.summed_axes and np.shape(outcome.value) == needs:
            message += f"; the {node.op} broadcast {name}, so what it receives is summed back"
    elif verdict.verdict == "close":
        message = f"max difference {numbers.fmt_number(verdict.maxdiff)}"
    return {**row, "verdict": verdict.verdict, "message": message, "maxdiff": verdict.maxdiff}


def _shape(shape: tuple) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def overall(rows: list) -> str:
    """The step's verdict: the first parent's that is not good (in argument order), else close if one is close,
    right-shape if one names only a shape, else exact; pending if every parent was left blank."""
    answered = [r for r in rows if r["verdict"] != "pending"]
    if not answered:
        return "pending"
    bad = next((r["verdict"] for r in answered if r["verdict"] not in GOOD), None)
    if bad is not None:
        return bad
    for word in ("right-shape", "close"):
        if any(r["verdict"] == word for r in answered):
            return word
    return "exact"


def walk(text: str, poked: tuple = ()):
    """(setup, steps): the program made ready for practice (names, scope, forward values) and backward's steps,
    with the same node ids as the Stepper's (explorer.program.page_data)."""
    program = compile_program(text)
    own = None
    if poked:
        with no_grad():
            own = program.run().inputs
    inputs = poke.resolve(program, poked, own) if poked else None
    setup = prepare(text, inputs=inputs, program=program)
    result = program.run(inputs=inputs)
    graph, steps = run.recorded_backward(result.output, result.uses)
    if [n.shape for n in graph.nodes] != [n.shape for n in setup.graph.nodes]:
        raise AssertionError("the practice trace and the stepper's differ")  # NOTE: both order(output, uses)
    return setup, steps


def step_scope(setup, step) -> tuple[dict, dict]:
    """What a prediction of ``step`` may read: the program's names, and G (and d<node>) = the node's upstream grad."""
    scope, values = dict(setup.scope), dict(setup.values)
    upstream = np.asarray(step.upstream)
    for name in (UPSTREAM, "d" + setup.names[step.node]):
        if name not in scope:
            scope[name] = Given(tuple(upstream.shape), "f", None)
            values[name] = upstream
    return scope, values


def check_step(text: str, poked: tuple, position: int, predictions: tuple) -> dict:
    """The prediction of the Stepper's step ``position`` (1 is backward's first VJP): one line per parent that
    receives a grad there (``predictions``, in the step's contribution order). Never raises for bad predictions.

    Returns {step, node, verdict (overall), right (bool), rows: [{parent, position, text, verdict, message,
    maxdiff}]}, plain data for the page and the browser.
    """
    setup, steps = walk(text, poked)
    return check_at(setup, steps, position, predictions)


def check_at(setup, steps, position: int, predictions: tuple) -> dict:
    """check_step's result for a walk already made (``walk``'s setup and steps)."""
    if not 1 <= position <= len(steps):
        return {"step": position, "verdict": "error", "right": False, "rows": [],
                "message": f"there is no step {position} (the walk has {len(steps)})"}
    step = steps[position - 1]
    scope, values = step_scope(setup, step)
    node = setup.graph.nodes[step.node]
    positions = contribution_slots(node, step)  # the argument slot of each contribution
    rows = [_one(setup, step, p, c, predictions[i] if i < len(predictions) else "", scope, values)
            for i, (c, p) in enumerate(zip(step.contributions, positions))]
    verdict = overall(rows)
    return {"step": position, "node": setup.names[step.node], "verdict": verdict,
            "right": verdict in GOOD and all(r["verdict"] in GOOD for r in rows), "rows": rows}


def score(verdicts: dict) -> tuple[int, int]:
    """(right, checked) over a walk's checked steps."""
    checked = [v for v in verdicts.values() if v.get("verdict") not in ("pending", "error")]
    return sum(1 for v in checked if v.get("right")), len(checked)


def written(setup, step) -> list[str]:
    """The true prediction of ``step`` for each parent, in the language (Practice's written-out VJP line of this use,
    G read as d<node>, summed back where broadcasting stretched the parent: the term's shape as the language
    predicts it, as Practice's written answers do)."""
    node = setup.graph.nodes[step.node]
    terms = [term(setup, step.node, p) for p in contribution_slots(node, step)]
    scope, _ = step_scope(setup, step)
    probes = compile_answers("\n".join(f"probe_{i} = {t}" for i, t in enumerate(terms)), scope)
    return [summed(t, line.shape, tuple(np.shape(c.grad)))
            for t, line, c in zip(terms, probes.lines, step.contributions)]


def asks(text: str, poked: tuple = ()) -> dict:
    """What the browser asks before each step (str(step) -> {node, names, rows: [{parent, shape_text, slot}]}):
    the practice names the prediction may use, and each parent that receives a grad there, with its shape."""
    setup, steps = walk(text, poked)
    out = {}
    for k, step in enumerate(steps, start=1):
        node = setup.graph.nodes[step.node]
        slots = slot_names(node)
        names = [setup.names[step.node], *dict.fromkeys(setup.names[p] for p in node.parents)]
        out[str(k)] = {"node": setup.names[step.node], "names": names, "rows": [
            {"parent": setup.names[c.parent], "shape_text": _shape(tuple(np.shape(c.grad))),
             "slot": slots[p] if len(node.parents) > 1 and p < len(slots) else ""}
            for c, p in zip(step.contributions, contribution_slots(node, step))]}
    return out
