"""explorer.program.page_data: one evaluation per page run. Its runs equal what the separate evaluations gave, and one
Explorer or Stepper load under AppTest starts exactly one sandboxed evaluation, which compiles the program once
and runs it forward and backward once (counted by language.program.EVALUATIONS in the worker, and by the
sandbox's log of evaluations started)."""

import itertools

import numpy as np
import pytest

from explorer.program import check, jacobian_view, page_data, poke, presets
from explorer.program import keys as program_keys
from explorer.program import run as program_run
from language import EVALUATIONS, compile_program
from tests.support.apptest import STEPPER, app, component, no_exception, sent, trigger, view_data

ONCE = {"compiles": 1, "recorded": 1}  # one compile, one forward pass recording the graph for backward()
_unique = itertools.count()


def same_sliders(a: tuple, b: tuple) -> bool:
    return [k.as_dict() for k in a] == [k.as_dict() for k in b] and all(
        (x.array is None and y.array is None) or np.array_equal(x.array, y.array) for x, y in zip(a, b))


def spent(page_run) -> dict:
    return {name: page_run.evaluations[name] for name in ONCE}


@pytest.mark.parametrize("name", presets.names())
def test_the_explorer_s_run_is_the_separate_evaluations_in_one(name):
    text = presets.program(name)
    page_run = page_data.explorer_run(text)
    assert spent(page_run) == ONCE
    graph, steps = program_run.step_program(text)
    analysis = check.analyse_program(text)
    assert [n.grad is None or n.grad.tolist() for n in page_run.graph.nodes] == \
        [n.grad is None or n.grad.tolist() for n in graph.nodes]
    assert [(s.node, s.plugged) for s in page_run.steps] == [(s.node, s.plugged) for s in steps]
    assert same_sliders(page_run.sliders, poke.sliders(text))
    assert [(r.name, r.ok, r.checked, r.note) for r in page_run.analysis.checks] == \
        [(r.name, r.ok, r.checked, r.note) for r in analysis.checks]
    assert (page_run.analysis.python, page_run.analysis.note) == (analysis.python, analysis.note)


def test_a_poked_run_has_the_program_s_own_sliders_and_the_poked_numbers():
    text = presets.program("attention scores")
    sliders = poke.sliders(text)
    poked = (("Q", 1.5),)  # a scale: the program's own values times 1.5
    page_run = page_data.explorer_run(text, poked)
    assert same_sliders(page_run.sliders, sliders), "the sliders' ranges are the program's, whatever the values"
    assert spent(page_run) == ONCE and page_run.evaluations["runs"] >= 2, "its own values come from a run under no_grad"
    graph, _ = program_run.step_program(text, poked)
    np.testing.assert_array_equal(page_run.graph.nodes[page_run.graph.output].data, graph.nodes[graph.output].data)
    assert [r.ok for r in page_run.analysis.checks] == [r.ok for r in check.analyse_program(text, poked).checks]


def test_the_stepper_s_run_has_the_steps_jacobians_and_sliders():
    text = presets.program("broadcasting bias")
    page_run = page_data.stepper_run(text, (("X", -0.5),))
    alone_graph, alone_steps = program_run.step_program(text, (("X", -0.5),))
    assert spent(page_run) == ONCE and page_run.analysis is None
    assert [s.node for s in page_run.steps] == [s.node for s in alone_steps]
    assert page_run.jacobians == jacobian_view.step_jacobians(text, (("X", -0.5),))
    assert same_sliders(page_run.sliders, poke.sliders(text))


def test_a_program_too_big_to_step_is_refused_as_before():
    with pytest.raises(ValueError) as raised:
        page_data.explorer_run("x = randn(3000, 3000)\ny = (x @ x).sum()\n")
    with pytest.raises(ValueError) as before:
        program_run.step_program("x = randn(3000, 3000)\ny = (x @ x).sum()\n")
    assert str(raised.value) == str(before.value)


def test_the_counter_counts_compiles_and_recorded_runs():
    before = EVALUATIONS.copy()
    program = compile_program("a = 2.0\nb = a * a\n")
    program.run()
    from autograd import no_grad

    with no_grad():
        program.run()
    assert [EVALUATIONS[k] - before[k] for k in ("compiles", "runs", "recorded")] == [1, 2, 1]


# ----------------------------------------------------------------------------- page loads under AppTest


def fresh_program() -> str:
    """A program no earlier test evaluated (the sandbox's cache is the server's, shared by every test)."""
    return f"a = -4.0\nb = 2.0\nc = a * b + {next(_unique) + 0.125}\nd = (c * c).tanh() + b.relu()\n"


def started_by(run) -> list:
    """The sandboxed evaluations that ``run()`` started, as (module.function, arguments)."""
    from components.common import session

    log = session.sandbox().started
    before = list(log)
    run()
    added = list(log)[len(before):] if len(log) < log.maxlen else [k for k in log if k not in before]
    return [(f"{module}.{name}", args) for module, name, args in added]


def evaluations_of(key) -> dict:
    """What the worker counted making that evaluation's run (a cache hit: nothing is evaluated again)."""
    from components.common import session

    name, args = key
    fn = {"explorer.program.page_data.explorer_run": page_data.explorer_run,
          "explorer.program.page_data.stepper_run": page_data.stepper_run}[name]
    return spent(session.sandbox().run(fn, *args))


def test_one_explorer_load_evaluates_the_program_once():
    program = fresh_program()
    at = app()
    at.query_params["program"] = program
    at.session_state[program_keys.TAB] = "Gradients and check"  # the dock's tab with the check's table
    calls = started_by(at.run)
    no_exception(at)
    assert view_data(at)["dot"] and sent(at, "components.poke")["sliders"], "the graph and the sliders"
    assert at.table[0].value is not None, "and the check"
    assert calls == [("explorer.program.page_data.explorer_run", (program, (), None))]
    assert evaluations_of(calls[0]) == ONCE
    # the pictures come when the view asks for them, in evaluations of their own (a curve, a grid)
    calls = started_by(lambda: trigger(at, "components.poke", "pictures"))
    assert sorted(name for name, _ in calls) == ["explorer.program.poke.curve", "explorer.program.poke.surface"]
    assert sent(at, "components.poke")["curve"]


def test_one_stepper_load_evaluates_the_program_once():
    program = fresh_program()
    at = app()
    at.query_params["program"] = program
    calls = started_by(at.switch_page(STEPPER).run)
    no_exception(at)
    assert view_data(at)["steps"]["count"] and component(at, "components.poke")
    assert calls == [("explorer.program.page_data.stepper_run", (program, (), None))]
    assert evaluations_of(calls[0]) == ONCE


@pytest.mark.parametrize("page", ["explorer", "stepper"])
def test_a_forward_mode_load_evaluates_the_program_once(page):
    # the forward pass is pushed through the run the reverse mode made: the same single evaluation
    program = fresh_program()
    at = app()
    at.query_params.update({"program": program, "mode": "forward", "v": "ones"})
    run = at.switch_page(STEPPER).run if page == "stepper" else at.run
    calls = started_by(run)
    no_exception(at)
    assert calls == [(f"explorer.program.page_data.{page}_run", (program, (), "ones"))]
    assert evaluations_of(calls[0]) == ONCE
    assert view_data(at)["mode"] == "forward"
