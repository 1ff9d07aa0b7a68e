"""The Practice page in a real browser: an answer typed into the lines is checked as it is typed (no key to press),
its row takes its verdict and the graph's box its tick, a wrong shape its cross; the attempt is in the URL and a
reload keeps it; the Explorer's link opens its program here."""

from __future__ import annotations

from urllib.parse import parse_qs, quote, urlsplit

import pytest

from explorer.practice.exercises import EXERCISES
from explorer.practice.setup import prepare

from .helpers import grad_cells, settled, wait_for_idle, wait_for_view

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PROGRAM = EXERCISES["linear + ReLU"].program
ROWS = '[data-testid="practice-row"]'
EDITOR = 'textarea[data-testid="practice-editor"]'


def verdicts(page) -> dict:
    return page.evaluate(f"""() => Object.fromEntries([...document.querySelectorAll('{ROWS}')].map(
        (r) => [r.dataset.name, r.dataset.verdict]))""")


def summary(page) -> dict:
    return page.evaluate("() => ({...(document.querySelector('[data-testid=\"practice-summary\"]') || {}).dataset})")


def type_answers(page, text: str) -> None:
    box = page.locator(EDITOR)
    box.wait_for()
    settled(lambda: box.input_value(), lambda v: v.startswith("dloss"), timeout=30)  # Streamlit fills it late
    box.click()
    box.press("Control+End")
    box.type(text[len(box.input_value()):], delay=5)  # typed key by key: each pause of 300 ms sends the text


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


def test_the_explorer_s_link_opens_its_program_on_the_practice_page(page, app_url):
    page.goto(f"{app_url}/?program={quote(PROGRAM)}", wait_until="domcontentloaded")
    wait_for_view(page)
    link = page.get_by_role("link", name="Practise this program")
    with page.context.expect_page(timeout=5_000) if link.get_attribute("target") == "_blank" else _same(page) as opened:
        link.click()
    target = opened.value if hasattr(opened, "value") else page
    target.wait_for_url("**/practice?**")
    wait_for_view(target)
    assert parse_qs(urlsplit(target.url).query)["program"][0] == PROGRAM
    assert settled(lambda: verdicts(target), lambda v: len(v) == 5, timeout=30) == dict.fromkeys(
        ("h", "z", "b", "W", "x"), "pending")


class _same:
    def __init__(self, page):
        self.page = page

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


SWEPT = ["size-1 bias", "label picking", "empty reductions"]


@pytest.mark.parametrize("name", SWEPT)
def test_the_sweep_s_programs_with_their_written_answers(page, app_url, name):
    """The sweep's shapes that broke panels (tests/support/sweep_cases.py) on the Practice page with their
    written-out answers from the link: every row right, no exception (tests/pages/test_practice_sweep.py breaks
    one answer of every program)."""
    from explorer.practice.written import written_answers
    from tests.support.sweep_cases import CASES

    from .helpers import app_exception

    text = CASES[name]
    written = written_answers(prepare(text))
    answers = "\n".join(written.values())
    page.goto(f"{app_url}/practice?program={quote(text)}&answers={quote(answers)}", wait_until="domcontentloaded")
    wait_for_view(page)
    wait_for_idle(page)
    assert app_exception(page) is None
    got = settled(lambda: verdicts(page), lambda v: len(v) == len(written), timeout=30)
    assert set(got.values()) <= {"exact", "close"}, got
