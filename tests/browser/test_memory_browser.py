"""The Explorer's Memory tab in a real browser: the timeline's peak hooks against the accounts, every drawn box's
data-saves against its saved bytes, and scrubbing (the slider, then the pointer over the plot) lighting on the graph
exactly the tensors the tape holds at that step; the Playground's step the same, with its slider over k moving the
checkpointed line."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from components.playground.step_memory import EVERY
from explorer.playground import training
from explorer.playground.settings import TrainConfig
from explorer.playground.step_memory import DEFAULT_EVERY, step_memory
from explorer.program import presets
from explorer.program.memory import program_memory

from .helpers import open_live, open_page, wait_for_idle, wait_for_rerun, wait_for_view

pytestmark = [pytest.mark.browser, pytest.mark.slow]

MEMORY = '[data-testid="tape-memory"]'
VIEW = '[data-testid="graph-view"]'
PRESET = "micrograd"


def open_memory_tab(page, app_url: str, program: str) -> None:
    open_page(page, f"{app_url}/?program={quote(program)}")
    wait_for_view(page, timeout=60_000)
    wait_for_idle(page)
    wait_for_rerun(page, page.get_by_role("tab", name="Memory").click)
    page.locator(f"{MEMORY} path.tm-line").first.wait_for(timeout=60_000)


def hooks(page, selector: str) -> dict:
    return page.locator(selector).evaluate("(el) => ({...el.dataset})")


def lit(page) -> list[str]:
    return sorted(page.eval_on_selector_all(f"{VIEW} g.node.alive[data-node]", "(gs) => gs.map((g) => g.dataset.node)"),
                  key=int)


def test_the_tab_s_hooks_saves_on_boxes_and_scrubbing_lights_what_the_tape_holds(page, app_url, artifacts):
    program = presets.program(PRESET)
    want = program_memory(program)
    open_memory_tab(page, app_url, program)
    found = hooks(page, MEMORY)
    assert found["peakBytes"] == str(want.peak("engine"))
    assert found["peakBytesCheckpointed"] == str(want.peak("checkpointed"))
    assert found["peakBytesNoGrad"] == str(want.peak("no_grad"))
    assert found["peakBytesTape"] == str(want.peak("tape"))
    assert int(found["peakBytesCheckpointed"]) < int(found["peakBytes"])
    assert found["step"] == "" and lit(page) == [], "nothing lit before scrubbing"
    assert page.locator(f"{MEMORY} path.tm-line").count() == 4 and page.locator(f"{MEMORY} circle.tm-peak").count() == 4

    saves = page.eval_on_selector_all(f"{VIEW} g.node[data-saves]",
                                      "(gs) => Object.fromEntries(gs.map((g) => [g.dataset.node, g.dataset.saves]))")
    assert saves == {k: str(v) for k, v in want.saves.items()}, saves
    assert any(v != "0" for v in saves.values())

    slider = page.locator(f"{MEMORY} input.tm-slider")
    page.mouse.move(0, 0)  # the pointer off the plot (it scrubs too)
    for step in (want.backward_from - 1, want.backward_from + 3, 0):
        slider.evaluate("(el, v) => { el.value = String(v); el.dispatchEvent(new Event('input')); }", step)
        assert hooks(page, MEMORY)["step"] == str(step)
        expected = sorted((k for k, (a, b) in want.alive.items() if a <= step < b), key=int)
        drawn = set(page.eval_on_selector_all(f"{VIEW} g.node[data-node]", "(gs) => gs.map((g) => g.dataset.node)"))
        assert lit(page) == [k for k in expected if k in drawn], (step, lit(page), expected, sorted(drawn, key=int))
        assert hooks(page, VIEW)["alive"] == str(len(lit(page)))
    assert len(lit(page)) == 1, "at the first step only the first tensor is made"
    page.screenshot(path=str(artifacts / "memory-tab.png"))

    box = page.locator(f"{MEMORY} svg.tm-plot").bounding_box()  # the pointer over the plot's right end: the last step
    page.mouse.move(box["x"] + box["width"] - 1, box["y"] + box["height"] / 2)
    last = len(want.labels) - 1
    page.wait_for_function("([sel, s]) => document.querySelector(sel).dataset.step === String(s)",
                           arg=[MEMORY, last], timeout=10_000)
    assert lit(page) == sorted((k for k, (a, b) in want.alive.items() if a <= last < b), key=int)


def test_the_playground_s_step_memory_lights_its_step_graph(page, app_url, artifacts):
    """The step's timeline (forward → backward → the optimiser's step) in the step-graph panel's drawer: its hooks,
    data-saves on the step graph's boxes, and scrubbing to the optimiser's step lights the weights and their grads'
    tensors that stay."""
    open_live(page, f"{app_url}/playground")
    page.locator(f"{VIEW} svg.gv-graph g.node").first.wait_for(timeout=60_000)
    page.get_by_text("Memory of this step").click()
    page.locator(f"{MEMORY} path.tm-line").first.wait_for(timeout=30_000)
    found = hooks(page, MEMORY)
    assert int(found["peakBytesNoGrad"]) < int(found["peakBytesTape"]) < int(found["peakBytes"])
    assert int(found["peakBytesCheckpointed"]) < int(found["peakBytes"])
    assert page.locator(f"{MEMORY} text", has_text="optimiser").count() == 1, "the optimiser's step marked"
    assert page.locator(f"{VIEW} g.node[data-saves]").count() > 0
    page.mouse.move(0, 0)
    steps = int(found["steps"])
    slider = page.locator(f"{MEMORY} input.tm-slider")
    slider.evaluate("(el, v) => { el.value = String(v); el.dispatchEvent(new Event('input')); }", steps - 2)
    page.wait_for_function("(sel) => document.querySelector(sel).dataset.alive !== ''", arg=VIEW, timeout=10_000)
    assert hooks(page, MEMORY)["step"] == str(steps - 2)
    lit_names = page.eval_on_selector_all(f"{VIEW} g.node.alive", "(gs) => gs.map((g) => g.textContent.trim())")
    assert any(t.startswith("W1") for t in lit_names) and len(lit_names) == int(hooks(page, VIEW)["alive"]) > 0
    page.locator(MEMORY).screenshot(path=str(artifacts / "playground-step-memory.png"))

    # k, checkpoints every k layers: the real checkpointed step moves its line (the default network's 3 layers)
    state = training.new_state(TrainConfig())
    assert int(found["peakBytesCheckpointed"]) == step_memory(state, DEFAULT_EVERY).peak("checkpointed")
    assert int(found["peakBytesCheckpointed"]) < int(found["peakBytesTape"]), "checkpoints every layer: lower"
    thumb = page.get_by_role("slider", name=EVERY)
    thumb.focus()
    for every, key in ((2, "ArrowRight"), (3, "End")):
        want = str(step_memory(state, every).peak("checkpointed"))
        wait_for_rerun(page, lambda key=key: thumb.press(key))
        page.wait_for_function("([sel, v]) => document.querySelector(sel).dataset.peakBytesCheckpointed === v",
                               arg=[MEMORY, want], timeout=30_000)
        assert page.get_by_text(f"checkpointed every {every} layers").first.is_visible()
    assert hooks(page, MEMORY)["peakBytes"] == found["peakBytes"], "the engine's line does not move with k"


def test_closing_the_tab_leaves_nothing_lit(page, app_url):
    program = presets.program("linear + ReLU")
    open_memory_tab(page, app_url, program)
    page.mouse.move(0, 0)
    page.locator(f"{MEMORY} input.tm-slider").evaluate(
        "(el) => { el.value = '2'; el.dispatchEvent(new Event('input')); }")
    page.wait_for_function("(sel) => Number(document.querySelector(sel).dataset.alive) > 0", arg=VIEW)
    wait_for_rerun(page, page.get_by_role("tab", name="Export").click)
    page.wait_for_function("(sel) => document.querySelector(sel).dataset.alive === ''", arg=VIEW, timeout=10_000)
    assert lit(page) == [] and page.locator(f"{VIEW} g.node[data-saves]").count() > 0, "the saves stay on the boxes"
