"""The sweep in a real browser (issue 17): a handful of programs, the shapes that broke panels and a few generated
from the op registry (tests/support/program_gen.py), each opened from a link in the Explorer with every box clicked (the
inspector opens on it; the written cases' Curvature tab too) and its Memory tab scrubbed, and in the Stepper with
every step taken by key; no page may show an exception."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings

from autograd.expr import evaluate
from autograd.graph import backward_steps
from explorer.graph import names
from explorer.program import run
from explorer.program.memory import program_memory
from tests.support import program_gen
from tests.support.sweep_cases import CASES

from .helpers import (
    GRAPH,
    PANEL,
    app_exception,
    boxes,
    main_text,
    view_state,
    wait_for_idle,
    wait_for_rerun,
    wait_for_view,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WRITTEN = ["size-1 bias", "label picking", "empty reductions"]
MEMORY = '[data-testid="tape-memory"]'

GENERATED = settings(derandomize=True, max_examples=3, deadline=None, database=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def no_exception_shown(page, where: str) -> None:
    exception = app_exception(page)
    assert exception is None, f"{where}: {exception[:800]}"
    assert "Traceback" not in main_text(page), where


def walk_the_explorer(page, app_url: str, program: str) -> None:
    graph, _ = run.step_program(program)
    page.goto(f"{app_url}/?program={quote(program)}", wait_until="domcontentloaded")
    wait_for_view(page)
    wait_for_idle(page)
    no_exception_shown(page, "the Explorer's first run")
    drawn = boxes(page)
    assert len(drawn) == len(graph.nodes), "a box per tensor"
    for node in graph.nodes:
        box = page.locator(f'{GRAPH} svg.gv-graph g.node[data-node="{node.id}"]')
        box.scroll_into_view_if_needed()
        wait_for_rerun(page, box.click)
        wait_for_view(page, selected=node.id)
        wait_for_idle(page)
        no_exception_shown(page, f"inspecting {names.node_label(node)}")
        picked = page.get_by_role("combobox", name="Node")
        page.wait_for_function("([box, head]) => box.value.startsWith(head)",
                               arg=[picked.element_handle(), names.node_heading(node)])
    walk_the_memory_tab(page, program)


def walk_the_memory_tab(page, program: str) -> None:
    """The Memory tab: its timeline drawn with its peaks, every box's data-saves its saved bytes, scrubbed to its
    last step with the boxes the tape still holds lit."""
    shown = program_memory(program)
    wait_for_rerun(page, page.get_by_role("tab", name="Memory").click)
    page.locator(f"{MEMORY} path.tm-line").first.wait_for(timeout=60_000)
    no_exception_shown(page, "the Memory tab")
    assert page.locator(MEMORY).get_attribute("data-peak-bytes") == str(shown.peak("engine"))
    saves = page.eval_on_selector_all(f"{GRAPH} g.node[data-saves]",
                                      "(gs) => Object.fromEntries(gs.map((g) => [g.dataset.node, g.dataset.saves]))")
    assert saves == {k: str(v) for k, v in shown.saves.items()}
    last = len(shown.labels) - 1
    page.locator(f"{MEMORY} input.tm-slider").evaluate(
        "(el, v) => { el.value = String(v); el.dispatchEvent(new Event('input')); }", last)
    held = sum(1 for a, b in shown.alive.values() if a <= last < b)
    page.wait_for_function("([sel, n]) => document.querySelector(sel).dataset.alive === String(n)",
                           arg=[GRAPH, held], timeout=10_000)


def open_the_curvature_tab(page) -> None:
    """The Curvature tab on the program: H·v three ways (its hooks), or a note saying why not; no exception."""
    wait_for_rerun(page, page.get_by_role("tab", name="Curvature").click)
    page.locator('[data-testid="curvature"], [role="tabpanel"] [data-testid="stAlert"]').first.wait_for(
        timeout=60_000)
    wait_for_idle(page)
    no_exception_shown(page, "the Curvature tab")


def walk_the_stepper(page, app_url: str, program: str) -> None:
    _, steps = backward_steps(evaluate(program).output)
    page.goto(f"{app_url}/stepper?program={quote(program)}", wait_until="domcontentloaded")
    wait_for_view(page, steps=len(steps))
    wait_for_idle(page)
    no_exception_shown(page, "the Stepper's first run")
    page.locator(f"{GRAPH} .gv-pane").click(position={"x": 5, "y": 5})
    for k in range(1, len(steps) + 1):
        page.keyboard.press("ArrowRight")
        wait_for_view(page, step=k)
        panel = page.locator(PANEL)
        assert panel.get_attribute("data-step") == str(k)
        assert f"Step {k} of {len(steps)}:" in panel.inner_text()
    wait_for_idle(page)
    no_exception_shown(page, "after the last step")
    assert view_state(page)["step"] == str(len(steps))


@pytest.mark.parametrize("name", WRITTEN)
def test_every_box_and_every_step_of_a_written_case(page, app_url, name):
    walk_the_explorer(page, app_url, CASES[name])
    open_the_curvature_tab(page)  # NOTE: not in the generated programs' walk, at its time limit on a loaded machine
    walk_the_stepper(page, app_url, CASES[name])


@GENERATED
@given(program_gen.programs(max_lines=3))
def test_every_box_and_every_step_of_generated_programs(page, app_url, program):
    walk_the_explorer(page, app_url, program)
    if evaluate(program).output.requires_grad:
        walk_the_stepper(page, app_url, program)
