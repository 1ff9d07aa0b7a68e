"""The Explorer's Curvature tab in a real browser: its data-* hooks (the three H·v, the eigenvalues) equal the
panel's data, the direction chosen in the page moves them, the Hessian's heatmap is drawn; light at 1280x800 and
dark at 390 px wide, without sideways scrolling."""

from __future__ import annotations

import json
from urllib.parse import quote

import numpy as np
import pytest

from explorer.program import curvature as curv
from explorer.program import presets

from .helpers import install_run_tracker, open_page, wait_for_idle, wait_for_rerun, wait_for_view

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PANEL = '[data-testid="curvature"]'
HEATMAP = '.st-key-explorer_curvature_hessian [data-testid="stPlotlyChart"] .main-svg'
PRESET = "attention scores"  # 36 input numbers: the heatmap is drawn


def open_curvature_tab(page, app_url: str, program: str, heatmap: bool = True) -> None:
    open_page(page, f"{app_url}/?program={quote(program)}")
    wait_for_view(page, timeout=60_000)
    wait_for_idle(page)
    wait_for_rerun(page, page.get_by_role("tab", name="Curvature").click)
    page.locator(PANEL).wait_for(timeout=60_000)
    if heatmap:
        page.locator(HEATMAP).first.wait_for(timeout=60_000)


def hooks(page) -> dict:
    return page.locator(PANEL).evaluate("(el) => ({...el.dataset})")


def test_the_hooks_are_the_panel_s_data_and_follow_the_direction(page, app_url, artifacts):
    program = presets.program(PRESET)
    open_curvature_tab(page, app_url, program)
    c = curv.curvature(program)
    found = hooks(page)
    for hook, way in (("hvpReverse", curv.REVERSE), ("hvpForward", curv.FORWARD), ("hvpFd", curv.FD)):
        np.testing.assert_allclose(json.loads(found[hook]), c.way(way).value, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(json.loads(found["eigenvalues"]), c.eigenvalues, rtol=1e-12, atol=1e-12)
    assert found["n"] == "36" and found["direction"] == "random" and found["agree"] == "true"
    assert found["kind"] == c.kind
    assert page.locator(f"{PANEL} tr").count() == 4, "a header and the three ways"
    page.screenshot(path=str(artifacts / "curvature-tab.png"))

    box = page.get_by_role("combobox", name="Direction v")
    box.scroll_into_view_if_needed()
    box.click()
    option = page.get_by_role("option", name="all ones")
    option.wait_for()
    wait_for_rerun(page, option.click)
    page.wait_for_function("(sel) => document.querySelector(sel).dataset.direction === 'ones'", arg=PANEL,
                           timeout=30_000)
    ones = curv.curvature(program, direction=curv.ONES)
    np.testing.assert_allclose(json.loads(hooks(page)["hvpForward"]), ones.way(curv.FORWARD).value, rtol=1e-12,
                               atol=1e-12)
    assert page.console_errors == [], "\n".join(page.console_errors)
    assert page.external_requests == []


def test_a_kink_is_named_in_the_page(page, app_url):
    open_curvature_tab(page, app_url, presets.program(presets.KINK_PRESET))
    assert hooks(page)["agree"] == "false"
    page.get_by_text("Not twice differentiable here.").wait_for(timeout=30_000)


@pytest.mark.parametrize(("scheme", "width", "height"), [("light", 1280, 800), ("dark", 390, 844)])
def test_the_tab_fits_and_follows_the_theme(browser, app_url, artifacts, scheme, width, height):
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    install_run_tracker(context)
    try:
        page = context.new_page()
        open_curvature_tab(page, app_url, presets.program(PRESET))
        page.locator(PANEL).scroll_into_view_if_needed()
        seen = page.evaluate(
            """(panel) => {
                const lum = (c) => { const [r, g, b] = c.match(/[\\d.]+/g).map(Number); return (r + g + b) / 765; };
                const app = document.querySelector('[data-testid="stApp"]');
                const el = document.querySelector(panel);
                return {page: lum(getComputedStyle(app).backgroundColor),
                        text: lum(getComputedStyle(el.querySelector('td')).color),
                        width: document.documentElement.scrollWidth, overflow: getComputedStyle(el).overflowX};
            }""",
            PANEL,
        )
        page.screenshot(path=str(artifacts / f"curvature-tab-{scheme}-{width}.png"))
        if scheme == "dark":
            assert seen["page"] < 0.2 and seen["text"] > 0.7, seen
        else:
            assert seen["page"] > 0.9 and seen["text"] < 0.4, seen
        assert seen["width"] <= width, f"no sideways scrolling of the page: {seen}"
        assert seen["overflow"] == "auto", "a table wider than the dock scrolls within itself"
    finally:
        context.close()


SIXTY_FOUR = "W = randn(6, 8)\nx = randn(16)\nf = (W @ x[:8]).tanh().sum() + (x * x * x).sum()"


@pytest.mark.parametrize(("scheme", "width", "height"), [("light", 1280, 800), ("dark", 390, 844)])
def test_a_64_by_64_heatmap_gives_each_entry_on_hover_beside_its_log_colour_bar(browser, app_url, artifacts, scheme,
                                                                               width, height):
    """64 input numbers (no numbers in the cells): the colour bar on a signed log scale labelled with entries, rows
    named at intervals, a hovered cell's entry in the page's number format, no sideways scrolling."""
    from explorer.numbers import fmt_number

    c = curv.curvature(SIXTY_FOUR)
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    install_run_tracker(context)
    try:
        page = context.new_page()
        open_curvature_tab(page, app_url, SIXTY_FOUR)
        chart = page.locator(HEATMAP.removesuffix(" .main-svg")).first
        chart.scroll_into_view_if_needed()
        page.locator(f"{HEATMAP} .colorbar .cbtitle text").first.wait_for(timeout=30_000)
        assert "H entry (log scale)" in chart.locator(".colorbar").first.text_content()
        assert "x[8]" in chart.locator(".yaxislayer-above").first.text_content()
        page.get_by_text("too many cells for their numbers").wait_for(timeout=30_000)
        box = page.locator(f"{HEATMAP} .nsewdrag").first.bounding_box()
        row = col = 60  # on the cubic's diagonal, x[8:]: H[x[12], x[12]] = 6 x[12]
        page.mouse.move(box["x"] + (col + 0.5) * box["width"] / 64, box["y"] + (row + 0.5) * box["height"] / 64)
        hover = chart.locator(".hoverlayer .hovertext")
        hover.first.wait_for(timeout=10_000)
        shown = hover.first.text_content()
        want = fmt_number(float(c.hessian[row, col]))
        assert want != "0" and f"∂{c.element_names[row]} ∂{c.element_names[col]} = {want}" in shown, shown
        page.screenshot(path=str(artifacts / f"curvature-hessian64-{scheme}-{width}.png"))
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    finally:
        context.close()
