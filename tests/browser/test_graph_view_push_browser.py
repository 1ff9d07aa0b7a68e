"""The graph view's values pushed by other code in the page (a window event, as the Training Playground's
live view sends its step graph's with every frame): retexted over the same layout, only for the view
showing that program, boxes left out keep their texts, and the tooltip follows."""

from __future__ import annotations

import pytest

from explorer.numbers import fmt_number
from explorer.program import view_data as graph_data
from tests.support.helpers import traced

from .helpers import GRAPH, boxes, view_state, wait_for_idle, wait_for_view

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# tests/browser/apps/values_app.py draws this program (its slider's first value, a = 1.0)
PROGRAM = "a = {a}\nb = [1.0, -2.0, 0.5]\ny = (a * b).tanh().sum()\n"

PUSH_JS = """([key, values, caption]) => window.dispatchEvent(
    new CustomEvent('graph-view:values', {detail: {key, values, caption}}))"""


def test_pushed_values_retext_the_view_of_their_program(browser, streamlit_app):
    url = streamlit_app("tests/browser/apps/values_app.py")
    context = browser.new_context(viewport={"width": 1000, "height": 800})
    page = context.new_page()
    try:
        page.goto(url, wait_until="domcontentloaded")
        state = wait_for_view(page)
        wait_for_idle(page)
        key = graph_data.view_data(traced(PROGRAM.format(a=1.0)))["key"]
        graph = traced(PROGRAM.format(a=2.5))
        values = graph_data.value_texts(graph, tips=False)
        names = {node.name: str(node.id) for node in graph.nodes if node.name}
        before = boxes(page)
        del values[names["b"]]  # a push may leave boxes out: they keep their texts

        page.evaluate(PUSH_JS, ["not this program", values, "Step 7"])
        # NOTE: a deliberate wait in which nothing may happen (the event's listeners ran inside the evaluate; a
        # repaint put off to a later frame would show here); the next push counting one update, not two, says it again.
        page.wait_for_timeout(200)
        assert view_state(page)["updates"] == state["updates"] and boxes(page) == before, "another program's values"

        page.evaluate(PUSH_JS, [key, values, "Step 7"])
        now = view_state(page)
        assert int(now["updates"]) == int(state["updates"]) + 1 and now["layouts"] == state["layouts"] == "1"
        assert now["caption"] == "Step 7" and page.locator(f"{GRAPH} .gv-caption").inner_text() == "Step 7"
        texts = {k: b["text"] for k, b in boxes(page).items()}
        y = graph.nodes[graph.output]
        assert f"data {fmt_number(y.data)}" in texts[names["y"]], texts[names["y"]]
        assert f"grad {fmt_number(graph.nodes[int(names['a'])].grad)}" in texts[names["a"]], texts[names["a"]]
        assert texts[names["b"]] == before[names["b"]]["text"]
        # The tooltip of a box whose push had no "tip" shows its cells' lines.
        page.locator(f'{GRAPH} g.node[data-node="{names["a"]}"]').hover()
        tip = page.locator(f"{GRAPH} .gv-tip")
        tip.wait_for()
        grad = fmt_number(graph.nodes[int(names["a"])].grad)
        assert "data 2.5" in tip.inner_text() and f"grad {grad}" in tip.inner_text()
    finally:
        context.close()


def test_pushes_to_a_view_off_screen_wait_until_it_is_seen(browser, streamlit_app):
    url = streamlit_app("tests/browser/apps/values_app.py")
    context = browser.new_context(viewport={"width": 1000, "height": 800})
    page = context.new_page()
    try:
        page.goto(url, wait_until="domcontentloaded")
        wait_for_view(page)
        wait_for_idle(page)
        key = graph_data.view_data(traced(PROGRAM.format(a=1.0)))["key"]
        # A tall block above the view pushes it below the window.
        page.evaluate("""() => { const spacer = document.createElement('div'); spacer.id = 'spacer';
            spacer.style.height = '3000px';
            document.querySelector('[data-testid="stMainBlockContainer"]').prepend(spacer); window.scrollTo(0, 0); }""")
        page.locator(f'{GRAPH}[data-on-screen="0"]').wait_for(state="attached")  # the view has heard it is hidden
        before = view_state(page)
        for i, a in enumerate((2.0, 2.5)):
            page.evaluate(PUSH_JS, [key, graph_data.value_texts(traced(PROGRAM.format(a=a)), tips=False), f"Step {i}"])
        page.wait_for_timeout(300)  # NOTE: deliberate, nothing may happen: a paint put off to a later frame would show
        assert view_state(page)["updates"] == before["updates"], "nothing is painted while the view is off screen"
        page.locator(GRAPH).scroll_into_view_if_needed()
        page.wait_for_function("([sel, n]) => document.querySelector(sel).dataset.updates === n",
                               arg=[GRAPH, str(int(before["updates"]) + 1)])
        graph = traced(PROGRAM.format(a=2.5))
        a = str(next(node.id for node in graph.nodes if node.name == "a"))
        assert "data 2.5" in boxes(page)[a]["text"] and view_state(page)["caption"] == "Step 1", "the latest push"
    finally:
        context.close()
