"""The Practice page in a real browser: an answer typed into the lines is checked (Ctrl+Enter), its row takes its
verdict and the graph's box its tick; a wrong answer its cross; the attempt is in the URL and a reload keeps it."""

from __future__ import annotations

from urllib.parse import parse_qs, quote, urlsplit

import pytest

from explorer.practice.exercises import EXERCISES
from explorer.practice.setup import prepare

from .helpers import grad_cells, settled, wait_for_idle, wait_for_view

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PROGRAM = EXERCISES["linear + ReLU"].program
ROWS = '[data-testid="practice-row"]'
EDITOR = '.st-key-practice_editor textarea'


def verdicts(page) -> dict:
    return page.evaluate(f"""() => Object.fromEntries([...document.querySelectorAll('{ROWS}')].map(
        (r) => [r.dataset.name, r.dataset.verdict]))""")


def summary(page) -> dict:
    return page.evaluate("() => ({...(document.querySelector('[data-testid=\"practice-summary\"]') || {}).dataset})")


def type_answers(page, text: str) -> None:
    box = page.locator(EDITOR)
    box.wait_for()
    settled(lambda: box.input_value(), lambda v: v.startswith("dloss"), timeout=30)  # Streamlit fills it late
    box.fill(text)
    box.press("Control+Enter")


def test_an_answer_typed_gets_its_verdict_in_the_table_and_a_tick_in_the_graph(page, app_url, artifacts):
    setup = prepare(PROGRAM)
    ids = {name: str(node.id) for node, name in ((setup.graph.nodes[i], n) for i, n in setup.names.items())}
    page.goto(f"{app_url}/practice?program={quote(PROGRAM)}", wait_until="domcontentloaded")
    wait_for_view(page)
    wait_for_idle(page)
    assert verdicts(page) == dict.fromkeys(setup.asked, "pending")
    assert summary(page)["total"] == "5"

    type_answers(page, "dloss = ones(loss.shape)\ndh = 2 * (h - 1.0) / 20 * dloss\ndz = dh * (z > 0)\ndb = dz")
    got = settled(lambda: verdicts(page), lambda v: v.get("h") == "close", timeout=30)
    assert got["h"] == "close" and got["z"] == "close" and got["b"] == "shape"
    cells = settled(lambda: grad_cells(page), lambda c: "✓ close" in " ".join(c.get(ids["h"], [])), timeout=30)
    assert "✓ close" in " ".join(cells[ids["h"]]), cells
    assert "✗ shape" in " ".join(cells[ids["b"]]), cells
    assert summary(page)["solved"] == "2"
    page.screenshot(path=str(artifacts / "practice-browser.png"))

    answers = parse_qs(urlsplit(page.url).query)["answers"][0]
    assert answers.endswith("db = dz")
    page.reload(wait_until="domcontentloaded")
    wait_for_view(page)
    assert settled(lambda: verdicts(page), lambda v: v.get("b") == "shape", timeout=30)["b"] == "shape"
