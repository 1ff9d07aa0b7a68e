"""The Initialisation & depth page in a real browser: its per-layer hooks at depth 50, light and dark, 1280x800."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from .helpers import open_page, wait_for_idle, wait_for_text

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = '[data-testid="depth-lab"]'


def open_lab(page, app_url: str, **settings) -> list[dict]:
    """Open the lab with these settings in the URL; the table's rows once they are there."""
    open_page(page, f"{app_url}/depth_lab?{urlencode(settings)}")
    depth = int(settings.get("depth", 50))
    page.wait_for_function(
        "([sel, n, init]) => { const r = document.querySelector(sel); return r && r.dataset.depth == n &&"
        " r.getAttribute('aria-label').includes(init) && r.querySelectorAll('[data-layer]').length == n; }",
        arg=[ROOT, depth, settings["init"]], timeout=60_000,
    )
    wait_for_idle(page)
    return page.locator(f"{ROOT} [data-layer]").evaluate_all(
        "(rows) => rows.map(r => ({layer: +r.dataset.layer, std: +r.dataset.actStd, grad: +r.dataset.gradNorm,"
        " cells: [...r.cells].map(c => c.textContent)}))"
    )


def test_depth_50_tanh_with_unit_normal_saturates_and_relu_with_he_keeps_the_spread(page, app_url, artifacts):
    tanh = open_lab(page, app_url, init="N(0, 1)", activation="tanh", width=64, depth=50)
    assert [r["layer"] for r in tanh] == list(range(1, 51))
    saturated = [float(r["cells"][3].rstrip("%")) / 100 for r in tanh]  # the table's "Saturated" column
    assert min(saturated[10:]) > 0.6, saturated
    assert all(r["std"] > 0.85 for r in tanh[10:])  # bunched at -1 and +1
    assert tanh[0]["grad"] / tanh[-1]["grad"] > 1e6  # the gradient grows on the way back
    wait_for_text(page, "flat tails")
    page.screenshot(path=str(artifacts / "depth-lab-tanh-normal.png"))

    relu = open_lab(page, app_url, init="He normal", activation="relu", width=64, depth=50)
    stds = [r["std"] for r in relu]
    grads = [r["grad"] for r in relu]
    assert max(stds) / min(stds) < 4, stds
    assert max(grads) / min(grads) < 100, grads
    wait_for_text(page, "spread (std) stays between")
    page.screenshot(path=str(artifacts / "depth-lab-relu-he.png"))
    assert page.console_errors == [], "\n".join(page.console_errors)
    assert page.external_requests == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_lab_fits_1280x800_and_follows_the_theme(browser, app_url, artifacts, scheme):
    context = browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme=scheme)
    try:
        page = context.new_page()
        open_lab(page, app_url, init="PyTorch default", activation="relu", width=64, depth=50)
        wait_for_text(page, "vanishing gradients")
        charts = page.locator('[data-testid="stPlotlyChart"] .main-svg')
        charts.first.wait_for(timeout=30_000)
        page.screenshot(path=str(artifacts / f"depth-lab-{scheme}.png"))
        seen = page.evaluate(
            """(sel) => {
                const lum = (c) => { const [r, g, b] = c.match(/[\\d.]+/g).map(Number); return (r + g + b) / 765; };
                const app = document.querySelector('[data-testid="stApp"]');
                const cell = document.querySelector(sel + ' th');
                const chart = document.querySelector('[data-testid="stPlotlyChart"]').getBoundingClientRect();
                return {page: lum(getComputedStyle(app).backgroundColor), text: lum(getComputedStyle(cell).color),
                        chartTop: chart.top, chartBottom: chart.bottom, width: document.documentElement.scrollWidth};
            }""",
            ROOT,
        )
        if scheme == "dark":
            assert seen["page"] < 0.2 and seen["text"] > 0.7, seen
        else:
            assert seen["page"] > 0.9 and seen["text"] < 0.4, seen
        assert seen["width"] <= 1280, "no sideways scrolling"
        assert seen["chartTop"] < 800, f"the spread and gradient chart starts on the first screen: {seen}"
    finally:
        context.close()
