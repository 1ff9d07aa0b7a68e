"""What one page run shows of a program, from one evaluation: graph, backward steps, sliders, check or Jacobians.

    page_data.explorer_run(text, poked)             # ProgramRun: graph, steps, sliders, analysis
    page_data.stepper_run(text, poked)              # ProgramRun: graph, steps, sliders, jacobians
    page_data.stepper_run(text, poked, "input:x")   # ... and forward: the forward-mode pass along v
    page_data.drag_run(text, poked, "ones")         # a slider's move: graph, steps (and forward) only
    page_data.stepper_drag_run(text, poked)         # ... on the Stepper: with the steps' Jacobians

One compile and one forward and backward pass per (program, poked values, direction): the pages make one sandboxed
call for a whole run (components/common/session.py caches it), and fetch the rest when it is asked for: the poke
pictures (explorer.program.poke.curve and surface) once the browser shows them, a node's Jacobian when it is
inspected, a Stepper step's past the budget when it is shown. Plain Python (no Streamlit).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from autograd import no_grad
from explorer.program import check as gradient_check
from explorer.program import forward_mode, poke, run, tape
from explorer.program.jacobian_view import budgeted_views
from language import EVALUATIONS, compile_program


@dataclass(frozen=True)
class ProgramRun:
    """A program run with its poked values, backward() recorded step by step."""

    graph: object  # autograd.graph.Graph, grads filled in
    steps: tuple  # autograd.graph.Step per VJP that ran (none if nothing requires grad)
    sliders: tuple  # explorer.program.poke.Slider per input that may be poked
    analysis: gradient_check.Analysis | None = None  # the Explorer's gradient check (explorer_run)
    jacobians: dict | None = None  # the Stepper's Jacobian views within its budget (stepper_run)
    evaluations: dict = field(default_factory=dict)  # what making it cost: language.program.EVALUATIONS' counts
    forward: object = None  # forward_mode.ForwardRun along the direction asked for (forward mode), or None
    saves: dict = field(default_factory=dict)  # node id (str) -> bytes its backward keeps (tape.saved): data-saves


def explorer_run(text: str, poked: poke.Poked = (), direction: str | None = None) -> ProgramRun:
    """The Expression Explorer's run: graph, steps, sliders and the gradient check (gradient_check.analyse_program's),
    and with a ``direction`` (forward_mode's URL form) the forward-mode pass along it (all ones, with a note,
    when it does not fit the program). Raises ExpressionError for a bad program, or one whose steps would be too
    big to record."""
    return _run(text, poked, direction, check=True)


def stepper_run(text: str, poked: poke.Poked = (), direction: str | None = None) -> ProgramRun:
    """The Backward Stepper's run: graph, steps, sliders and the steps' Jacobian views within the budget
    (explorer.program.jacobian_view.step_jacobians'; the rest are asked for one by one), and with a ``direction`` the
    forward-mode pass along it (whose steps visit the same nodes, so the Jacobians serve both)."""
    return _run(text, poked, direction, jacobians=True)


def drag_run(text: str, poked: poke.Poked = (), direction: str | None = None) -> ProgramRun:
    """What a slider's move redraws on the Explorer: graph and steps, and with a ``direction`` the forward pass
    along it (no sliders or check: the page run after the drag settles makes those)."""
    return _run(text, poked, direction, with_sliders=False)


def stepper_drag_run(text: str, poked: poke.Poked = (), direction: str | None = None) -> ProgramRun:
    """What a slider's move redraws on the Stepper: drag_run's, and the steps' Jacobian views within the budget."""
    return _run(text, poked, direction, jacobians=True, with_sliders=False)


def _run(text: str, poked: poke.Poked, direction: str | None = None, *, check: bool = False,
         jacobians: bool = False, with_sliders: bool = True) -> ProgramRun:
    """One evaluation of ``text`` at ``poked``: graph and steps, and what the flags ask for (the gradient check, the
    steps' Jacobians within the budget, the sliders)."""

    before = EVALUATIONS.copy()
    started = time.monotonic()
    program = compile_program(text)
    program.check_stepper()
    own = None
    if poked and with_sliders:  # the program's own input values: the sliders' ranges and a scale's base
        with no_grad():
            own = program.run().inputs
    result = program.run(inputs=poke.resolve(program, poked, own))
    eval_seconds = time.monotonic() - started
    sliders = poke.sliders_of(program, own or result.inputs) if with_sliders else ()
    graph, steps = run.recorded_backward(result.output, result.uses)
    forward = None
    if direction is not None:  # after backward(): the meeting line takes the inputs' grads it left
        forward = forward_mode.forward_of(result, direction, backward=False, fallback=True)
    analysis = gradient_check.checked_analysis(program, result, graph, started, eval_seconds,
                                        time_budget=gradient_check.check_seconds()) if check else None
    views = budgeted_views(graph, result) if jacobians else None
    saves = {str(s.node): s.bytes for s in tape.saved(result.output, result.uses)} if with_sliders else {}
    spent = {name: EVALUATIONS[name] - before[name] for name in ("compiles", "runs", "recorded")}
    return ProgramRun(graph, steps, sliders, analysis, views, spent, forward, saves)
