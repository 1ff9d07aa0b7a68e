"""The backward-twice scene on the Stepper in a real browser: backward() again shows every box's grad doubled, equal
to 2× backward()'s (the engine's grads, formatted as the app formats them); zero_grad() clears them."""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import quote

import pytest

from explorer.program import presets
from explorer.program import view_data as graph_data
from tests.support.helpers import traced

from .helpers import GRAPH, settled, wait_for_idle, wait_for_view

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PROGRAM = presets.program(presets.DEFAULT)


def scene_grads(page) -> dict[str, list[str]]:
    cells = page.evaluate(
        f"""() => {{
            const views = [...document.querySelectorAll('{GRAPH}')];
            const view = views[views.length - 1];
            return Object.fromEntries([...view.querySelectorAll('g[data-cell$=".g"]')].map(
              (g) => [g.closest('g.node').dataset.node, [...g.querySelectorAll('text')].map((t) => t.textContent)]));
        }}"""
    )
    return {key: [line for line in lines if line] for key, lines in cells.items()}


def expected(factor) -> dict[str, list[str]]:
    graph = traced(PROGRAM)
    nodes = tuple(replace(n, grad=None if n.grad is None or factor is None else n.grad * factor) for n in graph.nodes)
    texts = graph_data.value_texts(replace(graph, nodes=nodes))
    return {box: t["g"] for box, t in texts.items() if "g" in t}


def shown(page, factor):
    want = expected(factor)
    got = settled(lambda: scene_grads(page), lambda g: all(g.get(k) == v for k, v in want.items()), timeout=30)
    assert all(got.get(k) == v for k, v in want.items()), (got, want)


def test_backward_twice_doubles_the_grads_on_the_boxes_and_zero_grad_clears_them(page, app_url, artifacts):
    page.goto(f"{app_url}/stepper?program={quote(PROGRAM)}", wait_until="domcontentloaded")
    wait_for_view(page, steps=25)
    wait_for_idle(page)
    page.locator(".st-key-twice_on label").first.click()
    page.wait_for_function(f"() => document.querySelectorAll('{GRAPH}[data-ready=\"1\"]').length == 2", timeout=60_000)
    shown(page, 1)
    page.get_by_role("button", name="backward() again").click()
    page.wait_for_selector('[data-testid="backward-twice"][data-since-clear="2"]', state="attached")
    shown(page, 2)
    a = [n for n in traced(PROGRAM).nodes if n.name == "a"][0]
    assert scene_grads(page)[str(a.id)] == ["277.7"], "a.grad = 2 × 138.8338"
    page.get_by_text("retain_graph=True").first.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "stepper-backward-twice.png"), full_page=True)
    page.get_by_role("button", name="zero_grad()").click()
    page.wait_for_selector('[data-testid="backward-twice"][data-since-clear="0"]', state="attached")
    shown(page, None)
    page.get_by_role("button", name="backward() again").click()
    page.wait_for_selector('[data-testid="backward-twice"][data-calls="4"]', state="attached")
    shown(page, 1)
