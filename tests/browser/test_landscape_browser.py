"""The Playground's Landscape tab in a real headless Chromium: it opens on a click, shows the slice, the line and
λmax against 2/lr with the engine's numbers, follows Play without stopping the run, and switches to the path's
PCA directions."""

from __future__ import annotations

import pytest

from explorer.playground import training
from explorer.playground.landscape import curvature
from explorer.playground.landscape import net as nets
from explorer.playground.settings import TrainConfig

from .helpers import app_exception, live_step, open_page, settled, wait_for_idle

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LS = '[data-testid="landscape"]'
PER = '[data-testid="per-example"]'


def _attr(page, name: str) -> str:
    return page.locator(LS).get_attribute(name)


def test_the_landscape_tab_follows_the_run(page, app_url, artifacts):
    open_page(page, f"{app_url}/playground")
    page.locator('[data-testid="live-view"]').wait_for()
    assert page.locator(LS).count() == 0  # closed: nothing computed or sent
    page.get_by_role("tab", name="Landscape").click()
    page.locator(LS).wait_for(state="attached")
    wait_for_idle(page)
    state = training.new_state(TrainConfig())  # the page's run at step 0, computed here by the engine
    lam = curvature.lambda_max(nets.net_of(state), training.flat_params(state)).lambda_max
    assert _attr(page, "data-directions") == "random" and _attr(page, "data-step") == "0"
    assert float(_attr(page, "data-lambda-max")) == pytest.approx(lam, rel=1e-9)
    assert float(_attr(page, "data-lr")) == 0.1
    assert _attr(page, "data-verdict") == ("stable" if 2 / lam > 0.1 else "oscillating")
    assert page.locator(PER).get_attribute("data-count") == str(len(state.y_train))
    page.locator('[data-testid="stPlotlyChart"] .main-svg').first.wait_for()
    assert page.locator('[data-testid="stPlotlyChart"]').count() == 5
    assert "exact autograd.func.hvp" in page.locator(LS).inner_text()
    page.screenshot(path=str(artifacts / "landscape.png"))

    page.get_by_role("button", name="Play", exact=True).click()
    page.get_by_role("button", name="Pause", exact=True).wait_for()
    page.wait_for_function(f"() => Number(document.querySelector('{LS}')?.dataset.step) > 0", timeout=60_000)
    first = int(_attr(page, "data-step"))
    page.wait_for_function(f"() => Number(document.querySelector('{LS}')?.dataset.step) > {first}",
                           timeout=60_000)  # it follows Play (throttled), and the run goes on
    page.get_by_role("button", name="Pause", exact=True).click()
    page.get_by_role("button", name="Play", exact=True).wait_for()
    wait_for_idle(page)
    # paused: the panel shows the step the run is at (the live view sits in a shadow root: read through the locator)
    shown = settled(lambda: (int(_attr(page, "data-step")), live_step(page)), lambda v: v[0] == v[1], timeout=30)
    assert shown[0] == shown[1] > first

    page.get_by_text("PCA of the path", exact=True).click()
    page.wait_for_function(f"() => document.querySelector('{LS}')?.dataset.directions === 'pca'", timeout=30_000)
    explained = float(_attr(page, "data-explained"))
    assert 0 < explained <= 1
    page.get_by_text("of its variance", exact=False).first.wait_for()  # the caption may land a moment after the hook

    points = page.locator('[data-testid="stPlotlyChart"]').nth(3).locator(".scatterlayer .point")
    points.nth(7).click(force=True)  # a training point: its pull on each layer
    page.get_by_text("(the point you clicked)").wait_for(timeout=30_000)
    assert app_exception(page) is None
    assert not page.console_errors, page.console_errors


def test_the_race_says_each_learning_rate_against_2_over_lambda_max(page, app_url):
    open_page(page, f"{app_url}/optimiser_race?surface=quadratic&opt=sgd(lr%3D0.09);sgd(lr%3D0.12)")
    said = page.locator('[data-testid="race-hessian"]')
    said.wait_for(state="attached", timeout=60_000)
    assert float(said.get_attribute("data-lambda-max")) == pytest.approx(20, rel=1e-6)
    verdicts = [li.get_attribute("data-verdict") for li in said.locator("li").all()]
    assert verdicts == ["stable", "oscillating"]
    assert "2/λmax = 0.1" in said.inner_text()
    axes = page.locator("[data-eigen-axis]")
    axes.first.wait_for(state="attached")
    assert [float(axes.nth(i).get_attribute("data-lambda")) for i in range(axes.count())] == pytest.approx([20, 1])
    assert app_exception(page) is None
