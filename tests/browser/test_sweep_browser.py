"""The sweep in a real browser (issue 17, and issue 32's panels): the shapes that broke panels (written cases) and
programs generated from the op registry (tests/support/program_gen.py), each opened from a link; no page may show an
exception.

Each program is walked by three tests of its own, so each stays well inside the per-test limit on a loaded machine:
the Explorer with its boxes clicked (the inspector opens on each; a generated program's first MAX_BOXES, leaves and
the output among them) and its Memory tab scrubbed; the backward as a graph (every box's layer and each leaf's grad
the engine's), differentiated again where the output is a scalar, and the Curvature tab; the Stepper with steps taken
by key (a generated program's first MAX_STEPS, then its last from a link). The generated programs come from
program_gen.sample with a fixed seed: a test's id is its program's seed (program_gen.seeded(seed) gives it again),
and a failure names the program."""

from __future__ import annotations

import json
import re
from urllib.parse import quote

import numpy as np
import pytest

from autograd.expr import evaluate
from autograd.graph import backward_steps
from explorer import numbers
from explorer.graph import dot as dotmod
from explorer.graph import names
from explorer.program import backward_view, run, view_data
from explorer.program import curvature as curv
from explorer.program.memory import program_memory
from tests.support import program_gen
from tests.support.sweep_cases import CASES

from .helpers import (
    GRAPH,
    PANEL,
    app_exception,
    box_orders,
    boxes,
    data_cells,
    main_text,
    settled,
    view_state,
    wait_for_idle,
    wait_for_rerun,
    wait_for_view,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WRITTEN = ["size-1 bias", "label picking", "empty reductions"]
MEMORY = '[data-testid="tape-memory"]'
CURVATURE = '[data-testid="curvature"]'
#: The generated programs: (seed, program) from this seed on (the AppTest sweep's are tests/pages/test_sweep.py's).
SEED = 1700
GENERATED = program_gen.sample(6, seed=SEED, max_lines=3)
IDS = [f"seed {s}" for s, _ in GENERATED]
#: A generated program's walk clicks at most this many boxes and takes at most this many steps by key: at a load
#: average of 25-34 each click or step cost 3-8 s, and a walk of every one ran past the 180 s limit.
MAX_BOXES = 6
MAX_STEPS = 4


def no_exception_shown(page, where: str) -> None:
    exception = app_exception(page)
    assert exception is None, f"{where}: {exception[:800]}"
    assert "Traceback" not in main_text(page), where


def picked_boxes(graph, most: int | None) -> list:
    """The boxes to click: all, or ``most`` of them spread over the graph, its leaves and its output first."""
    if most is None or len(graph.nodes) <= most:
        return list(graph.nodes)
    first = [n for n in graph.nodes if n.kind in ("input", "param")][:2] + [graph.nodes[graph.output]]
    rest = [n for n in graph.nodes if n not in first]
    step = max(1, len(rest) // max(1, most - len(first)))
    return (first + rest[::step])[:most]


def part_toggles(page) -> list[str]:
    """The graph view's part toggles shown (components/frontend/graph_view/parts.js hides those with nothing to
    hide)."""
    return page.eval_on_selector_all(f"{GRAPH} .gv-toggle",
                                     "(bs) => bs.filter((b) => !b.hidden).map((b) => b.textContent)")


def parts_in(dot: str) -> list[str]:
    """The parts the DOT has cells of (a scalar's one-row box has no shape cell; the backward's boxes no grad cell)."""
    return [part for part in ("data", "grad", "shape") if re.search(rf'id="n\d+\.{part[0]}"', dot)]


def walk_the_explorer(page, app_url: str, program: str, most: int | None = None) -> None:
    graph, _ = run.step_program(program)
    page.goto(f"{app_url}/?program={quote(program)}", wait_until="domcontentloaded")
    wait_for_view(page)
    wait_for_idle(page)
    no_exception_shown(page, "the Explorer's first run")
    drawn = boxes(page)
    assert len(drawn) == len(graph.nodes), "a box per tensor"
    assert part_toggles(page) == parts_in(view_data.view_data(graph, run.step_program(program)[1])["dot"])
    for node in picked_boxes(graph, most):
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






def walk_the_backward(page, app_url: str, program: str) -> None:
    """The backward as a graph from a link (``backward=1``): every box's data-order backward_view's, each leaf's
    grad box drawn with the engine's grad; then, for a scalar output, its first leaf's grad differentiated again
    (``again=``): the third layer drawn and the second-order grads' table shown."""
    want = backward_view.backward_view(program)
    page.goto(f"{app_url}/?program={quote(program)}&backward=1", wait_until="domcontentloaded")
    wait_for_view(page)
    wait_for_idle(page)
    no_exception_shown(page, "the backward as a graph")
    if "none" in want:  # nothing requires grad: said, the forward graph drawn
        assert "no backward pass to draw" in main_text(page)
        return
    expected = {b: str(o) for b, o in want["orders"].items()}
    assert settled(lambda: box_orders(page), lambda got: got == expected, timeout=30) == expected
    shown = part_toggles(page)
    assert shown == parts_in(want["dot"]) and "grad" not in shown, "every grad is a box of its own: no grad toggle"
    bg, _, result, _ = backward_view.layers(program)
    drawn, _ = backward_view.as_drawn(bg)
    compact = dotmod.plan(drawn, max_nodes=backward_view.MAX_DRAWN).compact
    result.output.backward()
    cells = data_cells(page)
    for leaf, g in bg.grads:
        tensor = result.inputs.get(bg.tensors[leaf].name)
        if g is not None and tensor is not None and str(g) in cells:
            assert cells[str(g)] == numbers.value_lines(tensor.grad, compact), f"grad {bg.tensors[leaf].name}"
    choices = backward_view.choices(bg)
    if not choices or np.size(result.output.data) != 1:
        return
    twice = backward_view.backward_view(program, (), choices[0])
    page.goto(f"{app_url}/?program={quote(program)}&backward=1&again={quote(choices[0])}",
              wait_until="domcontentloaded")
    wait_for_view(page)
    wait_for_idle(page)
    no_exception_shown(page, f"differentiating grad {choices[0]} again")
    expected = {b: str(o) for b, o in twice["orders"].items()}
    assert settled(lambda: box_orders(page), lambda got: got == expected, timeout=30) == expected
    page.locator('.st-key-explorer_backward_second [data-testid="stDataFrame"]').wait_for(timeout=30_000)


def open_the_curvature_tab(page, program: str) -> None:
    """The Curvature tab on the page open: H·v three ways, the hooks the panel's data (the exact two agreeing, and
    finite differences or a kink named), or a note saying why not; no exception."""
    c = curv.curvature(program)
    wait_for_rerun(page, page.get_by_role("tab", name="Curvature").click)
    page.locator(f'{CURVATURE}, [role="tabpanel"] [data-testid="stAlert"]').first.wait_for(timeout=60_000)
    wait_for_idle(page)
    no_exception_shown(page, "the Curvature tab")
    if c.note:
        assert page.locator(CURVATURE).count() == 0
        page.get_by_text(c.note[:20]).first.wait_for(timeout=30_000)
        return
    found = page.locator(CURVATURE).evaluate("(el) => ({...el.dataset})")
    got = {h: np.array(json.loads(found[h]), dtype=np.float64) for h in ("hvpReverse", "hvpForward", "hvpFd")}
    for hook, way in (("hvpReverse", curv.REVERSE), ("hvpForward", curv.FORWARD), ("hvpFd", curv.FD)):
        np.testing.assert_allclose(got[hook], c.way(way).value, rtol=1e-12, atol=1e-300, equal_nan=True)
    scale = max(1.0, float(np.nanmax(np.abs(got["hvpReverse"]), initial=0.0)))
    np.testing.assert_allclose(got["hvpForward"], got["hvpReverse"], rtol=1e-9, atol=1e-9 * scale, equal_nan=True)
    if found["agree"] != "true":
        assert c.kinks, "finite differences disagree and no kink is named"
        heading = "Not twice differentiable here." if c.kinks[0].jumps else "The gradient is not the output"
        page.get_by_text(heading, exact=False).first.wait_for(timeout=30_000)


def walk_the_stepper(page, app_url: str, program: str, most: int | None = None) -> None:
    """The Stepper: its first ``most`` steps (all when None) by key, each panel its step's; then, when it stopped
    short, the last step from a link."""
    _, steps = backward_steps(evaluate(program).output)
    page.goto(f"{app_url}/stepper?program={quote(program)}", wait_until="domcontentloaded")
    wait_for_view(page, steps=len(steps))
    wait_for_idle(page)
    no_exception_shown(page, "the Stepper's first run")
    page.locator(f"{GRAPH} .gv-pane").click(position={"x": 5, "y": 5})
    taken = len(steps) if most is None else min(most, len(steps))
    for k in range(1, taken + 1):
        page.keyboard.press("ArrowRight")
        wait_for_view(page, step=k)
        panel = page.locator(PANEL)
        assert panel.get_attribute("data-step") == str(k)
        assert f"Step {k} of {len(steps)}:" in panel.inner_text()
    if taken < len(steps):
        page.goto(f"{app_url}/stepper?program={quote(program)}&step={len(steps)}", wait_until="domcontentloaded")
        wait_for_view(page, steps=len(steps), step=len(steps))
        assert f"Step {len(steps)} of {len(steps)}:" in page.locator(PANEL).inner_text()
    wait_for_idle(page)
    no_exception_shown(page, "after the last step")
    assert view_state(page)["step"] == str(len(steps))


@pytest.mark.parametrize("name", WRITTEN)
def test_every_box_and_every_step_of_a_written_case(page, app_url, name):
    walk_the_explorer(page, app_url, CASES[name])
    open_the_curvature_tab(page, CASES[name])
    walk_the_stepper(page, app_url, CASES[name])


@pytest.mark.parametrize(("seed", "program"), GENERATED, ids=IDS)
def test_the_boxes_and_the_memory_tab_of_a_generated_program(page, app_url, seed, program):
    with program_gen.named(seed, program):
        walk_the_explorer(page, app_url, program, most=MAX_BOXES)


@pytest.mark.parametrize(("seed", "program"), GENERATED, ids=IDS)
def test_the_backward_and_the_curvature_tab_of_a_generated_program(page, app_url, seed, program):
    with program_gen.named(seed, program):
        walk_the_backward(page, app_url, program)
        open_the_curvature_tab(page, program)


@pytest.mark.parametrize(("seed", "program"), GENERATED, ids=IDS)
def test_the_steps_of_a_generated_program(page, app_url, seed, program):
    with program_gen.named(seed, program):
        if not evaluate(program).output.requires_grad:
            pytest.skip("nothing requires grad: the Stepper has no backward to walk")
        walk_the_stepper(page, app_url, program, most=MAX_STEPS)
