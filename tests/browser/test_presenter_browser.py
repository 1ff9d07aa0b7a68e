"""A lesson on one screen (issue 29): at 1280x800, light and dark, the Explorer shows its editor (60 columns), the
whole micrograd graph in its pane (nothing to scroll) with every box's text at 11 px or more and the output in
view, and after a click the inspector beside the graph without the page scrolling; two quick clicks never show the
previous node under the new one; the Stepper shows the graph at 60 % of the width beside its panel, the step's rule
with the sum back of a broadcast parent, and micrograd's whole graph at 11 px; at 390 px the Explorer opens on its
graph and nothing runs off the window sideways."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from explorer.program import presets
from tests.support.helpers import traced

from .helpers import GRAPH, PANEL, RECT, pages_at, rect, wait_for_rerun

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PRESENTER = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
MICROGRAD = presets.program("micrograd")
BROADCAST = ("X = tensor([[0.5, -1.0, 2.0], [1.5, 0.5, -0.5], [1.0, 1.0, 1.0], [0.0, 2.0, 1.0]])\n"
             "b1 = tensor([0.1, 0.2, 0.3])\nz = X * b1 + b1\nout = z.sum()")
# Each box's text on screen (px): the SVG's font size times the drawing's scale on screen.
BOX_TEXT_PX = """(sel) => { const svg = document.querySelector(sel + ' svg.gv-graph');
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  return [...svg.querySelectorAll('g.node text')].map((t) => parseFloat(t.getAttribute('font-size')) * scale); }"""
SIDEBAR_SHUT = """() => { const s = document.querySelector('[data-testid="stSidebar"]');
  return !s || s.getAttribute('aria-expanded') === 'false' || s.getBoundingClientRect().right <= 0; }"""
PENDING = "(e) => getComputedStyle(e, '::after').content"
DRAWING_HIGH = "(sel) => document.querySelector(sel + ' svg.gv-graph').getBoundingClientRect().height"
# Whether the graph's pane shows all of the drawing: it has nothing to scroll to and the drawing lies inside it.
WHOLE = """(sel) => { const pane = document.querySelector(sel + ' .gv-pane');
  const svg = pane.querySelector('svg.gv-graph').getBoundingClientRect(), p = pane.getBoundingClientRect();
  return pane.scrollHeight <= pane.clientHeight + 1 && pane.scrollWidth <= pane.clientWidth + 1
    && svg.top >= p.top - 1 && svg.bottom <= p.bottom + 1 && svg.left >= p.left - 1 && svg.right <= p.right + 1; }"""


@pytest.fixture
def open_at(browser):
    """open_at(size, url) -> a page of that size at that URL, its graph drawn; its context closes after."""
    with pages_at(browser) as go:
        yield go


def inside(inner: dict, outer: dict) -> bool:
    return (inner["top"] >= outer["top"] - 1 and inner["bottom"] <= outer["bottom"] + 1
            and inner["left"] >= outer["left"] - 1 and inner["right"] <= outer["right"] + 1)


def main_scroll(page) -> float:
    return page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollTop")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_explorer_shows_editor_graph_output_and_the_inspector_beside_it(open_at, app_url, scheme):
    program = MICROGRAD
    page = open_at(PRESENTER, f"{app_url}/?program={quote(program)}", scheme)
    assert page.locator(GRAPH).get_attribute("data-theme") == scheme
    assert page.evaluate(SIDEBAR_SHUT), "the sidebar opens collapsed on a lesson's page"
    window = {"top": 0, "left": 0, "bottom": PRESENTER["height"], "right": PRESENTER["width"]}
    pane = rect(page, f"{GRAPH} .gv-pane")
    assert inside(pane, window), pane
    assert pane["right"] - pane["left"] >= 0.6 * PRESENTER["width"], f"the graph's pane is 60 % of the width: {pane}"
    sizes = page.evaluate(BOX_TEXT_PX, GRAPH)
    assert sizes and min(sizes) >= 11 - 0.05, f"every box's text at 11 px or more: {min(sizes):.2f}"
    assert page.evaluate(WHOLE, GRAPH), "the whole graph in its pane: nothing to scroll to"
    # NOTE: the pane is as high as the drawing it holds whole (its width decides its scale): at most the window's
    # height from its top, and at least 60 % of the window's height when the drawing needs that much
    assert pane["bottom"] - pane["top"] >= min(0.6 * PRESENTER["height"], page.evaluate(DRAWING_HIGH, GRAPH)), pane
    output = traced(program).output
    assert inside(rect(page, f'{GRAPH} g.node[data-node="{output}"]'), pane), "the output's box is in view"
    editor = page.locator('[data-testid="stTextArea"] textarea')
    assert inside(editor.evaluate(RECT), window)
    columns = editor.evaluate("""(e) => {
        const s = getComputedStyle(e), c = document.createElement('canvas').getContext('2d');
        c.font = `${s.fontSize} ${s.fontFamily}`;
        const inner = e.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
        return inner / c.measureText('0'.repeat(60)).width * 60; }""")
    assert columns >= 60, f"the editor shows {columns:.1f} columns, not 60"
    # a click on a box: its inspector, beside the graph, the page not scrolled
    picked = traced(program).nodes[output].parents[0]
    wait_for_rerun(page, page.locator(f'{GRAPH} g.node[data-node="{picked}"]').click)
    shown = page.locator(f".st-key-explorer_inspecting_{picked}")
    shown.wait_for(state="visible")
    box = shown.evaluate(RECT)
    assert box["right"] <= pane["left"] and box["top"] < PRESENTER["height"] / 2, f"beside the graph: {box} {pane}"
    assert main_scroll(page) == 0, "the page did not scroll"
    assert inside(rect(page, f"{GRAPH} .gv-pane"), window), "the graph stays in view"


def test_two_quick_clicks_never_show_the_previous_node(open_at, app_url):
    page = open_at(PRESENTER, f"{app_url}/?program={quote(MICROGRAD)}")
    graph = traced(MICROGRAD)
    first, second = graph.nodes[graph.output].parents[:2]
    wait_for_rerun(page, page.locator(f'{GRAPH} g.node[data-node="{first}"]').click)
    page.locator(f".st-key-explorer_inspecting_{first}").wait_for(state="visible")
    # what the dock says as the click is handled, in the click's own dispatch (so within the frame that shows the
    # click, whatever the server does). NOTE: the click's timestamp to its handlers measured 127-133 ms here at a
    # load of 13 (the browser's own queue, before any of our code): the bound on it is loose
    page.evaluate("""() => document.addEventListener('click', (e) => {
        const content = getComputedStyle(document.querySelector('.st-key-explorer_dock'), '::after').content;
        window.pendingSeen = {after: performance.now() - e.timeStamp, content}; })""")
    page.locator(f'{GRAPH} g.node[data-node="{second}"]').click()
    said = page.evaluate("window.pendingSeen")
    assert said["content"] == f'"Inspecting node {second}…"' and said["after"] < 1000, said
    old = page.locator(f".st-key-explorer_inspecting_{first}")
    for _ in range(200):  # until the new node's inspector shows: never the old one meanwhile
        assert not old.evaluate_all("(es) => es.some((e) => e.checkVisibility({visibilityProperty: true}))"), \
            "the previous node's inspector is on screen under the new selection"
        if page.locator(f".st-key-explorer_inspecting_{second}").is_visible():
            break
        page.wait_for_timeout(50)
    page.locator(f".st-key-explorer_inspecting_{second}").wait_for(state="visible")
    assert page.locator(".st-key-explorer_dock").evaluate(PENDING) == "none"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_stepper_shows_the_graph_the_rule_and_the_sum_back(open_at, app_url, scheme):
    page = open_at(PRESENTER, f"{app_url}/stepper?program={quote(BROADCAST)}&step=2", scheme, step=2)
    assert page.evaluate(SIDEBAR_SHUT), "the sidebar opens collapsed on the Stepper"
    window = {"top": 0, "left": 0, "bottom": PRESENTER["height"], "right": PRESENTER["width"]}
    pane, panel = rect(page, f"{GRAPH} .gv-pane"), rect(page, PANEL)
    assert inside(pane, window) and pane["right"] - pane["left"] >= 0.6 * PRESENTER["width"], pane
    assert panel["left"] >= pane["right"], f"the panel beside the graph: {panel} {pane}"
    sizes = page.evaluate(BOX_TEXT_PX, GRAPH)
    assert min(sizes) >= 11 - 0.05, min(sizes)
    plugged = page.locator(f"{PANEL} pre.gv-plugged")
    assert "dB = Σ₀ G = [4, 4, 4]" in plugged.inner_text(), "the sum back is the plugged rule itself"
    assert inside(plugged.evaluate(RECT), window), "with its numbers, on screen"
    assert inside(rect(page, f"{GRAPH} g.node.active"), pane), "the active step's box in view"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_stepper_shows_the_whole_micrograd_graph_at_11px(open_at, app_url, scheme):
    page = open_at(PRESENTER, f"{app_url}/stepper?program={quote(MICROGRAD)}", scheme)
    sizes = page.evaluate(BOX_TEXT_PX, GRAPH)
    assert sizes and min(sizes) >= 11 - 0.05, f"every box's text at 11 px or more: {min(sizes):.2f}"
    assert page.evaluate(WHOLE, GRAPH), "the whole graph in the Stepper's pane"


def test_at_390px_the_explorer_opens_on_its_graph_and_nothing_runs_off_sideways(open_at, app_url):
    page = open_at(PHONE, f"{app_url}/?program={quote(MICROGRAD)}", "dark")
    top = page.locator(GRAPH).evaluate("(e) => e.getBoundingClientRect().top")
    assert top < 0.5 * PHONE["height"], f"the graph starts {top:.0f} px down"
    assert page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollWidth") <= PHONE["width"]
    assert page.locator('[data-testid="stTextArea"] textarea').count() == 1, "the editor is still there, after it"
