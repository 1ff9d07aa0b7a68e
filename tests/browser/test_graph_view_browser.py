"""The graph view itself in a real browser: zoom (Ctrl + wheel, buttons), pan (drag), Fit and 100 %, the
size a graph opens at, light and dark themes, and a phone-wide window."""

from __future__ import annotations

from urllib.parse import quote

import numpy as np
import pytest

from benchmarks.graph_view import MLP6
from explorer.numbers import fmt_number
from explorer.program import presets
from tests.support.helpers import traced

from .helpers import (
    GRAPH,
    boxes,
    horizontal_overflow,
    install_run_tracker,
    settled,
    view_state,
    wait_for_idle,
    wait_for_view,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PANE = f"{GRAPH} .gv-pane"

# How far the pane and every box around it (and the window) have scrolled, in one number.
SCROLLED_JS = """(sel) => {
    let sum = window.scrollX + window.scrollY;
    for (let e = document.querySelector(sel); e; e = e.parentElement || (e.getRootNode() || {}).host)
        sum += e.scrollTop + e.scrollLeft;
    return sum;
}"""


def open_explorer(page, app_url, program: str):
    page.goto(f"{app_url}/?program={quote(program)}", wait_until="domcontentloaded")
    wait_for_view(page)
    page.wait_for_function(
        "([sel, n]) => document.querySelectorAll(sel).length === n",
        arg=[f"{GRAPH} svg.gv-graph g.node", len(traced(program).nodes)],
    )
    wait_for_idle(page)


def zoom(page) -> float:
    return float(view_state(page)["zoom"])


def text_px(page) -> dict:
    """Node text as drawn: the smallest and largest font size in screen pixels."""
    return page.evaluate(
        f"""() => {{
            const sizes = [...document.querySelectorAll('{GRAPH} svg.gv-graph g.node text')]
              .filter((t) => t.textContent.trim())
              .map((t) => parseFloat(t.getAttribute('font-size')) * t.getScreenCTM().a);
            return {{min: Math.min(...sizes), max: Math.max(...sizes)}};
        }}"""
    )


def point_under(page, x: float, y: float) -> dict:
    """The graph point (layout units) drawn at window point (x, y)."""
    return page.evaluate(
        f"""([x, y]) => {{
            const svg = document.querySelector('{GRAPH} svg.gv-graph');
            const r = svg.getBoundingClientRect(), vb = svg.viewBox.baseVal;
            return {{x: (x - r.left) * vb.width / r.width, y: (y - r.top) * vb.height / r.height}};
        }}""",
        [x, y],
    )


def test_ctrl_wheel_zooms_around_the_pointer_and_the_buttons_zoom_fit_and_reset(page, app_url, artifacts):
    open_explorer(page, app_url, presets.program("micrograd"))
    start = zoom(page)
    pane = page.locator(PANE).bounding_box()
    x, y = pane["x"] + pane["width"] * 0.4, pane["y"] + min(pane["height"], 500) * 0.5
    before = point_under(page, x, y)
    page.mouse.move(x, y)
    page.keyboard.down("Control")
    page.mouse.wheel(0, -300)
    page.keyboard.up("Control")
    page.wait_for_function("([sel, z]) => parseFloat(document.querySelector(sel).dataset.zoom) > z", arg=[GRAPH, start])
    after = point_under(page, x, y)
    assert abs(after["x"] - before["x"]) < 3 and abs(after["y"] - before["y"]) < 3, "the point under the pointer stays"
    # a plain wheel scrolls (the pane, then the page); it never zooms
    zoomed = zoom(page)
    scrolled = page.evaluate(SCROLLED_JS, PANE)
    page.mouse.wheel(0, 200)
    # NOTE: the view zooms inside the wheel event's handler, which runs before the browser scrolls: once something
    # has scrolled, a zoom would already show.
    page.wait_for_function(f"([sel, before]) => ({SCROLLED_JS})(sel) !== before", arg=[PANE, scrolled])
    assert zoom(page) == zoomed

    page.locator(f"{GRAPH} button.gv-actual").click()
    assert zoom(page) == 1.0 and text_px(page)["max"] == pytest.approx(13, abs=0.2)
    page.locator(f"{GRAPH} button.gv-zoom-in").click()
    assert zoom(page) == 1.25
    page.locator(f"{GRAPH} button.gv-zoom-out").click()
    page.locator(f"{GRAPH} button.gv-zoom-out").click()
    assert zoom(page) == 0.8
    page.locator(f"{GRAPH} button.gv-fit").click()
    fitted = page.evaluate(
        f"""() => {{
            const pane = document.querySelector('{PANE}'), svg = pane.querySelector('svg.gv-graph');
            return {{pane: [pane.clientWidth, pane.clientHeight], svg: [svg.clientWidth, svg.clientHeight],
                     scroll: [pane.scrollWidth, pane.scrollHeight]}};
        }}"""
    )
    assert fitted["scroll"][0] <= fitted["pane"][0] + 1 and fitted["scroll"][1] <= fitted["pane"][1] + 1, fitted
    page.screenshot(path=str(artifacts / "graph-view-fit.png"))


def test_drag_pans_and_a_drag_is_not_a_click(page, app_url):
    open_explorer(page, app_url, presets.program("micrograd"))
    page.locator(f"{GRAPH} button.gv-zoom-in").click()
    page.locator(f"{GRAPH} button.gv-zoom-in").click()
    pane = page.locator(PANE).bounding_box()
    scroll = f"""() => {{
        const p = document.querySelector('{PANE}');
        return [p.scrollLeft, p.scrollTop, p.scrollWidth - p.clientWidth, p.scrollHeight - p.clientHeight];
    }}"""
    left, top, most_left, most_top = page.evaluate(scroll)
    x, y = pane["x"] + pane["width"] / 2, pane["y"] + min(pane["height"], 400) / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x - 30, y - 40, steps=6)
    page.mouse.move(x - 60, y - 80, steps=6)
    page.mouse.up()
    end = page.evaluate(scroll)
    assert end[0] == pytest.approx(min(left + 60, most_left), abs=2), (left, end)
    assert end[1] == pytest.approx(min(top + 80, most_top), abs=2), (top, end)
    assert end[:2] != [left, top]
    assert view_state(page)["selected"] == "", "dragging across boxes selects none"


def test_graphs_open_at_a_readable_size(browser, app_url, artifacts):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    install_run_tracker(context)
    page = context.new_page()
    try:
        # three nodes: not blown up
        open_explorer(page, app_url, "x = 2.0\ny = x * 3.0\n")
        assert text_px(page)["max"] <= 16.01
        # micrograd: node text 11-16 px
        open_explorer(page, app_url, presets.program("micrograd"))
        px = text_px(page)
        assert 10.9 <= px["max"] <= 16.01, px
        # the 6-layer MLP at 1280x800: readable without zooming, every node text at least 10 px
        open_explorer(page, app_url, MLP6)
        px = text_px(page)
        assert px["min"] >= 10, px
        page.screenshot(path=str(artifacts / "graph-view-mlp6.png"))
    finally:
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_view_takes_its_colours_from_the_theme(browser, app_url, artifacts, scheme):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
    install_run_tracker(context)
    page = context.new_page()
    try:
        open_explorer(page, app_url, presets.program("broadcasting bias"))
        theme = page.evaluate(
            f"""() => {{
                const s = getComputedStyle(document.querySelector('{GRAPH}'));
                const rgb = (c) => {{
                    const d = document.createElement('div');
                    d.style.color = c;
                    document.body.appendChild(d);
                    const v = getComputedStyle(d).color;
                    d.remove();
                    return v;
                }};
                return {{page: rgb(s.getPropertyValue('--st-background-color')),
                         blue_bg: rgb(s.getPropertyValue('--st-blue-background-color')),
                         text: rgb(s.getPropertyValue('--st-text-color')),
                         orange: rgb(s.getPropertyValue('--st-orange-color'))}};
            }}"""
        )
        dark = scheme == "dark"
        assert view_state(page)["theme"] == scheme
        graph = traced(presets.program("broadcasting bias"))
        drawn = boxes(page)
        x = [n for n in graph.nodes if n.name == "X"][0]
        assert drawn[str(x.id)]["fill"] == theme["blue_bg"], "an input box is the theme's blue background"
        title = page.evaluate(
            f"() => getComputedStyle(document.querySelector('{GRAPH} g.node[data-node=\"{x.id}\"] text')).fill"
        )
        assert title == theme["text"], "box text is the theme's text colour"
        brightness = sum(int(v) for v in theme["blue_bg"][4:-1].split(",")[:3]) / 3
        assert (brightness < 100) == dark, theme
        # the broadcast edge is marked in the theme's orange
        edge = page.evaluate(
            f"() => getComputedStyle(document.querySelector('{GRAPH} g.edge.broadcast > path')).stroke"
        )
        assert edge == theme["orange"]
        page.screenshot(path=str(artifacts / f"graph-view-{scheme}.png"))
    finally:
        context.close()


def test_a_phone_wide_window_keeps_everything_inside(browser, app_url, artifacts):
    context = browser.new_context(viewport={"width": 420, "height": 860}, has_touch=True)
    install_run_tracker(context)
    page = context.new_page()
    try:
        page.goto(f"{app_url}/stepper?program={quote(presets.program('micrograd'))}", wait_until="domcontentloaded")
        wait_for_view(page, steps=25)
        wait_for_idle(page)
        overflow = horizontal_overflow(page)
        assert overflow["docScrollWidth"] <= overflow["docClientWidth"] + 1, overflow
        layout = page.evaluate(
            f"""() => {{
                const r = (sel) => document.querySelector(sel).getBoundingClientRect();
                return {{pane: r('{PANE}'), panel: r('[data-testid="graph-view-panel"]'), root: r('{GRAPH}')}};
            }}"""
        )
        assert layout["pane"]["right"] <= layout["root"]["right"] + 1
        assert layout["panel"]["top"] >= layout["pane"]["bottom"] - 1, "the panel goes under the graph"
        # the buttons are reachable and work by touch
        page.locator(f"{GRAPH} button.gv-next").tap()
        wait_for_view(page, step=1)
        # two fingers spreading apart zoom in (readable on a phone by zooming)
        start = float(view_state(page)["zoom"])
        box = page.locator(PANE).bounding_box()
        cx, cy = box["x"] + box["width"] / 2, box["y"] + min(box["height"], 400) / 2
        cdp = page.context.new_cdp_session(page)

        def touch(kind, spread):
            points = [{"x": cx - spread, "y": cy, "id": 1}, {"x": cx + spread, "y": cy, "id": 2}]
            cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": [] if kind == "touchEnd" else points})

        touch("touchStart", 30)
        for spread in range(35, 95, 5):
            touch("touchMove", spread)
        touch("touchEnd", 90)
        zoomed = float(view_state(page)["zoom"])
        assert zoomed == pytest.approx(start * 3, rel=0.1), (start, zoomed)
        page.screenshot(path=str(artifacts / "graph-view-phone.png"), full_page=True)
    finally:
        context.close()


def test_new_values_are_retexted_over_the_same_layout(browser, streamlit_app, artifacts):
    """What live sliders will do: the same program with other numbers, sent as `values`."""
    url = streamlit_app("tests/browser/apps/values_app.py")
    context = browser.new_context(viewport={"width": 1000, "height": 800})
    install_run_tracker(context)
    page = context.new_page()
    try:
        page.goto(url, wait_until="domcontentloaded")
        state = wait_for_view(page)
        wait_for_idle(page)
        a, y = "0", None  # a is the first tensor; y the output
        texts = {key: b["text"] for key, b in boxes(page).items()}
        y = next(key for key, text in texts.items() if text.startswith("y "))
        assert texts[a].startswith("a data 1 grad")
        thumb = page.get_by_role("slider", name="a")
        thumb.focus()
        for _ in range(3):  # 1.0 -> 2.5
            thumb.press("ArrowRight")
        page.wait_for_function(
            "([sel, n]) => parseInt(document.querySelector(sel).dataset.updates) > n",
            arg=[GRAPH, int(state["updates"])],
        )
        wait_for_idle(page)
        shown = settled(lambda: boxes(page)[a]["text"], lambda text: "data 2.5" in text)
        assert "data 2.5" in shown, shown
        assert view_state(page)["layouts"] == state["layouts"] == "1", "new numbers, the same layout"
        texts = {key: b["text"] for key, b in boxes(page).items()}
        expected = np.tanh(2.5 * np.array([1.0, -2.0, 0.5]))
        assert f"data {fmt_number(expected.sum())}" in texts[y], texts[y]
        grad = np.sum((1 - expected**2) * np.array([1.0, -2.0, 0.5]))  # dy/da
        assert f"grad {fmt_number(grad)}" in texts[a], texts[a]
        page.screenshot(path=str(artifacts / "graph-view-values.png"))
    finally:
        context.close()
