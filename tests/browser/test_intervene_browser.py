"""The Explorer's interventions in a real browser: the straight-through preset's detach drawn as a cut edge (with its
legend chip), and a link with an override opening the inspector's intervention panel with the gradient's prediction
and the actual change as the engine computes them (the hook's data-predicted, data-actual), light at 1280x800 and
dark at 390 px."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from explorer.program import intervene as iv
from explorer.program import presets

from .helpers import install_run_tracker, open_page, wait_for_idle, wait_for_rerun, wait_for_view

pytestmark = [pytest.mark.browser, pytest.mark.slow]

STE = presets.PRESETS["straight-through estimator"][1]
HOOK = '[data-testid="intervention"]'
CUT = '[data-testid="stMain"] g.edge[data-cut="true"]'


def _open(page, app_url: str, intervene: str) -> None:
    open_page(page, f"{app_url}/?program={quote(STE)}&intervene={quote(intervene)}")
    wait_for_view(page, timeout=60_000)
    wait_for_idle(page)


def _open_panel(page) -> dict:
    wait_for_rerun(page, page.get_by_role("tab", name="Inspect a node").click)
    page.locator(f"{HOOK}[data-predicted]").first.wait_for(state="attached", timeout=60_000)
    page.locator('[data-testid="stPlotlyChart"] .main-svg').first.wait_for(timeout=60_000)
    return page.locator(HOOK).first.evaluate("(el) => ({...el.dataset})")


def test_the_cut_edge_and_the_override_s_prediction(page, app_url, artifacts):
    _open(page, app_url, "y:scale:1.5")
    assert page.locator(CUT).count() == 1, "the edge into the detach is drawn cut"
    style = page.locator(f"{CUT} > path").first.evaluate(
        "(p) => ({dash: getComputedStyle(p).strokeDasharray, stroke: getComputedStyle(p).stroke})")
    assert style["dash"] not in ("", "none"), style
    assert "✂" in page.locator(CUT).first.text_content()
    assert page.locator(".gv-chip.kind-cut").count() == 1, "the legend says what a cut edge is"
    found = _open_panel(page)
    expected = iv.predict(STE, iv.Intervention("y", "scale", 1.5))
    assert float(found["predicted"]) == expected.predicted and float(found["actual"]) == expected.actual, found
    assert found["name"] == "y"
    assert page.get_by_text("Before", exact=False).first.is_visible()
    assert page.external_requests == []


@pytest.mark.parametrize(("scheme", "width", "height"), [("light", 1280, 800), ("dark", 390, 844)])
def test_the_panel_fits_and_follows_the_theme(browser, app_url, artifacts, scheme, width, height):
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    install_run_tracker(context)
    try:
        page = context.new_page()
        _open(page, app_url, "y:scale:1.5,q:detach")
        _open_panel(page)
        if width >= 1280:  # the whole graph in view, its cut edge too (the README's picture)
            page.get_by_role("button", name="Fit", exact=True).click()
        page.locator(HOOK).first.scroll_into_view_if_needed()
        seen = page.evaluate(
            """() => {
                const lum = (c) => { const [r, g, b] = c.match(/[\\d.]+/g).map(Number); return (r + g + b) / 765; };
                const app = document.querySelector('[data-testid="stApp"]');
                return {page: lum(getComputedStyle(app).backgroundColor), width: document.documentElement.scrollWidth};
            }""")
        page.screenshot(path=str(artifacts / f"intervene-{scheme}-{width}.png"))
        assert seen["width"] <= width, f"no sideways scrolling: {seen}"
        assert (seen["page"] < 0.2) if scheme == "dark" else (seen["page"] > 0.9), seen
    finally:
        context.close()
