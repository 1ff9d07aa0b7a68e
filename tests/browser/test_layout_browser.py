"""A lecture fits the screen: at 1280x800 the Explorer's editor and graph, the Stepper's graph and panel are on
screen without scrolling, Fit fits what is visible, the zoom buttons cover no box, the editor keeps a line as one
line (a click on a box shows the inspector beside the graph: test_presenter_browser.py); at 420 px the graph comes
soon and no formula is cut.
(Issue 17 item 6: the title and caption took ~260 px and the Explorer's graph ran 244 px below the window.)"""

from __future__ import annotations

from urllib.parse import quote

import pytest

from explorer.program import presets

from .helpers import (
    GRAPH,
    PANEL,
    pages_at,
    rect,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PRESENTER = {"width": 1280, "height": 800}
PHONE = {"width": 420, "height": 800}
# A 6-layer MLP: the example of a graph that Fit left cut at 41 %.
MLP = "\n".join(
    ["x = tensor([[0.5, -1.0]], requires_grad=False)", "h = x"]
    + [f"W{i} = tensor([[0.5, -0.25], [0.75, {i / 10}]])\nb{i} = tensor([0.1, -0.1])\nh = (h @ W{i} + b{i}).tanh()"
       for i in range(6)]
    + ["out = h.sum()"]
)



@pytest.fixture
def open_at(browser):
    """open_at(size, url) -> a page of that size at that URL, its graph drawn; its context closes after."""
    with pages_at(browser) as go:
        yield go


def assert_on_screen(box: dict, size: dict, what: str) -> None:
    assert box["top"] >= 0 and box["bottom"] <= size["height"], f"{what} runs off the window vertically: {box}"
    assert box["left"] >= 0 and box["right"] <= size["width"], f"{what} runs off the window sideways: {box}"


def test_the_explorer_s_editor_and_graph_are_on_screen_at_1280x800(open_at, app_url):
    page = open_at(PRESENTER, f"{app_url}/?program={quote(MLP)}")
    assert_on_screen(rect(page, '[data-testid="stTextArea"] textarea'), PRESENTER, "the editor")
    assert_on_screen(rect(page, f"{GRAPH} .gv-pane"), PRESENTER, "the graph's pane")
    assert_on_screen(rect(page, f"{GRAPH} .gv-hint"), PRESENTER, "the hint under the graph")
    # Fit fits the whole drawing into the part of the pane the window shows
    page.locator(f"{GRAPH} button.gv-fit").click()
    pane, drawing = rect(page, f"{GRAPH} .gv-pane"), rect(page, f"{GRAPH} svg.gv-graph")
    assert pane["top"] <= drawing["top"] and drawing["bottom"] <= pane["bottom"] <= PRESENTER["height"]
    assert pane["left"] <= drawing["left"] and drawing["right"] <= pane["right"]
    fills = (drawing["bottom"] - drawing["top"] >= pane["bottom"] - pane["top"] - 24
             or drawing["right"] - drawing["left"] >= pane["right"] - pane["left"] - 24)
    assert fills, f"Fit makes the drawing as large as the visible pane allows: {drawing} in {pane}"


def test_the_editor_keeps_a_long_line_as_one_line(open_at, app_url):
    terms = " + ".join(f"x * {i}.0" for i in range(1, 30))  # ~260 characters: three or more lines if wrapped
    lines = ["x = tensor(2.0)"] + [f"y{k} = {terms}" for k in range(16)] + ["out = y15"]
    page = open_at(PRESENTER, f"{app_url}/?program={quote(chr(10).join(lines))}")
    editor = page.locator('[data-testid="stTextArea"] textarea')
    seen = editor.evaluate("(e) => ({ws: getComputedStyle(e).whiteSpace, wide: e.scrollWidth > e.clientWidth,"
                           " lineHeight: parseFloat(getComputedStyle(e).lineHeight), height: e.scrollHeight})")
    assert seen["ws"] == "pre" and seen["wide"], seen  # scrolls sideways instead of wrapping
    assert seen["height"] < (len(lines) + 3) * seen["lineHeight"], f"{len(lines)} lines take {len(lines)}: {seen}"


def test_the_stepper_s_graph_and_panel_are_on_screen_and_no_button_covers_a_box(open_at, app_url):
    program = presets.program(presets.DEFAULT)
    page = open_at(PRESENTER, f"{app_url}/stepper?program={quote(program)}&step=3", step=3)
    pane = rect(page, f"{GRAPH} .gv-pane")
    assert_on_screen(pane, PRESENTER, "the stepper's pane")
    assert_on_screen(rect(page, PANEL), PRESENTER, "the stepper's panel")
    assert_on_screen(rect(page, f"{GRAPH} .gv-controls"), PRESENTER, "Prev / Play / Next")
    zoom = rect(page, f"{GRAPH} .gv-zoom")
    assert zoom["bottom"] <= pane["top"], f"the zoom buttons sit above the pane, not over its boxes: {zoom} {pane}"


def test_at_420px_the_graph_comes_soon_and_no_formula_is_cut(open_at, app_url):
    page = open_at(PHONE, f"{app_url}/?program={quote(presets.program(presets.DEFAULT))}")
    top = page.locator(GRAPH).evaluate(
        "(e) => e.getBoundingClientRect().top + document.querySelector('[data-testid=\"stMain\"]').scrollTop")
    assert top < 1.0 * PHONE["height"], f"the graph starts {top:.0f} px down (was ~1,300: after the sliders)"
    pane = page.locator(f"{GRAPH} .gv-pane").evaluate("(e) => e.getBoundingClientRect().height")
    assert 0.5 * PHONE["height"] < pane < PHONE["height"], pane
    page = open_at(PHONE, f"{app_url}/stepper?step=3", step=3)
    page.get_by_text("What backward() does").click()
    page.locator(".katex-display").first.wait_for()
    cut = page.evaluate(
        """() => [...document.querySelectorAll('.katex-display, [data-testid="graph-view-panel"] pre')]
            .map((e) => { const box = e.getBoundingClientRect(), style = getComputedStyle(e);
              const scrolls = ['auto', 'scroll'].includes(style.overflowX);
              return {text: e.textContent.slice(0, 40), cut: e.scrollWidth > e.clientWidth + 1 && !scrolls,
                      out: box.right > window.innerWidth}; })
            .filter((f) => f.cut || f.out)"""
    )
    assert cut == [], f"formulas cut at the right at 420 px: {cut}"
