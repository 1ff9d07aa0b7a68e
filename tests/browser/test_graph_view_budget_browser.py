"""The graph view's layout budget in a real browser: Graphviz works in a worker, so the page answers while it
lays out a graph it takes minutes over; past the budget the view stops it and says so, with no stale drawing."""

from __future__ import annotations

import pytest

from .helpers import GRAPH, GRAPH_NODES, open_page, wait_for_idle

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_a_layout_past_its_budget_is_stopped_and_said_and_the_page_answers_meanwhile(page, streamlit_app):
    url = streamlit_app("tests/browser/apps/slow_layout_app.py")
    open_page(page, url)
    page.locator(f"{GRAPH} .gv-message").wait_for(state="visible", timeout=60_000)  # "Laying out the graph…"
    # Graphviz is at work (or already gave up): the page answers a click with a rerun (in the page, Graphviz froze
    # it for minutes)
    page.get_by_role("button", name="Ping").click()
    page.get_by_text("pings: 1").wait_for(timeout=60_000)
    page.wait_for_function("(sel) => document.querySelector(sel).dataset.layout === 'timeout'", arg=GRAPH,
                           timeout=120_000)
    message = page.locator(f"{GRAPH} .gv-message")
    assert message.is_visible()
    text = message.inner_text()
    assert "did not finish laying out this graph within 3 s" in text and "361 boxes" in text
    assert page.locator(GRAPH_NODES).count() == 0  # nothing half drawn, nothing stale
    # a rerun does not start the layout it gave up on again
    page.get_by_role("button", name="Ping").click()
    page.get_by_text("pings: 2").wait_for(timeout=60_000)
    wait_for_idle(page)
    assert page.locator(GRAPH).get_attribute("data-layout") == "timeout"
    assert page.console_errors == []
