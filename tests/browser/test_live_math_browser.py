"""The live view's own arithmetic, run in Chromium: the browser draws every picture from a frame's
weights, so its forward pass must equal the engine's (to 1e-6) for every activation and extra
feature; and its axis ticks and number formats must never leave an axis bare or print "nan"."""

from __future__ import annotations

import numpy as np
import pytest

from components.common.assets import CODE_DIR
from explorer.numbers import fmt_number, fmt_percent
from explorer.playground import catalogue, training
from explorer.playground.controller import Playground
from explorer.playground.settings import TrainConfig
from server.run_store import MemoryRunStore

pytestmark = [pytest.mark.browser, pytest.mark.slow]

FORWARD_JS = """([model, frame, dtype, points]) => {
    const layers = lm.unpack(model.sizes, lm.decode(frame.p, dtype));
    const flat = new Float64Array(points.flat());
    const pass = lm.forward(model, layers, flat, points.length);
    return {hidden: pass.hidden.map((h) => Array.from(h)), out: Array.from(pass.out)};
}"""


@pytest.fixture(scope="module")
def math_page(browser):
    page = browser.new_page()

    # the ES modules alone, as window.lm and window.fmt (components/frontend/web/format.js), served from the components'
    # tree at a made-up origin (live_math.js imports ../../web/format.js by URL)
    def serve(route):
        path = route.request.url.split("/", 3)[3]
        if path == "index.html":
            route.fulfill(body="<html><body></body></html>", content_type="text/html")
        else:
            route.fulfill(body=(CODE_DIR / path).read_bytes(), content_type="text/javascript")

    page.route("http://components.test/**", serve)
    page.goto("http://components.test/index.html")
    page.add_script_tag(type="module", content="import * as lm from '/live_view/static/live_math.js';"
                        " import * as fmt from '/web/format.js'; window.fmt = fmt; window.lm = lm;")
    page.wait_for_function("() => window.lm && window.fmt")
    yield page
    page.close()


def _browser_and_engine(page, config):
    pg = Playground(config, store=MemoryRunStore())
    training.step(pg.state, 15)
    for p in pg.state.model.parameters():  # wider pre-activations reach the tails (gelu's erf, saturation)
        p.data = p.data * 2.5
    data = pg.view_data([], full=True)
    points = np.vstack([training.grid_points(pg.state, 9), pg.state.X_train[:20]])
    got = page.evaluate(FORWARD_JS, [data["model"], data["frames"][0], data["dtype"], points.tolist()])
    want = training.layer_outputs(pg.state, points)
    return got, want


@pytest.mark.parametrize("activation", list(catalogue.ACTIVATIONS))
@pytest.mark.parametrize(
    ("dataset", "features"),
    [("two moons", tuple(catalogue.FEATURES_2D)), ("three blobs", ("x1²", "sin x2")),
     ("sine", tuple(catalogue.FEATURES_1D))],
    ids=["2-classes-every-2d-feature", "3-classes", "regression-every-1d-feature"],
)
def test_the_browser_forward_pass_equals_the_engine(math_page, activation, dataset, features):
    config = TrainConfig(dataset=dataset, activation=activation, features=features, hidden=(6, 5), optimizer="Adam",
                         lr=0.03)
    got, want = _browser_and_engine(math_page, config)
    *hidden, out = want
    assert len(got["hidden"]) == len(hidden) == 2
    for mine, engine in zip(got["hidden"], hidden, strict=True):
        np.testing.assert_allclose(np.array(mine).reshape(engine.shape), engine, rtol=0, atol=1e-6)
    np.testing.assert_allclose(np.array(got["out"]).reshape(out.shape), out, rtol=0, atol=1e-6)
    assert np.ptp(out) > 0.05, "the outputs vary over the plane: the comparison means something"


def test_the_browser_erf_is_accurate(math_page):
    import math

    xs = [-7.0, -3.2, -1.0, -0.3, 0.0, 1e-8, 0.5, 1.7, 2.9, 4.4, 5.99, 6.5]
    got = math_page.evaluate("(xs) => xs.map(lm.erf)", xs)
    for x, value in zip(xs, got, strict=True):
        assert value == pytest.approx(math.erf(x), abs=1e-15), x


def test_float32_frames_decode_to_the_same_numbers(math_page):
    from explorer.playground.controller import encode

    values = np.array([0.1, -2.5, 3e-8, 1e3])
    got = math_page.evaluate("([a, b]) => [Array.from(lm.decode(a, 'f8')), Array.from(lm.decode(b, 'f4'))]",
                             [encode(values, "f8"), encode(values, "f4")])
    assert got[0] == values.tolist()
    np.testing.assert_allclose(got[1], values.astype(np.float32), rtol=0)


@pytest.mark.parametrize(("lo", "hi"), [(0.31, 0.69), (0.52, 0.58), (1.2, 3.9), (0.0041, 0.0093), (2e-5, 0.9),
                                        (1e-30, 1e250)])
def test_a_log_axis_always_has_numbers(math_page, lo, hi):
    # Rough edge 2: a loss that stays within one decade got a log axis with no labels at all.
    ticks = math_page.evaluate("([lo, hi]) => lm.logTicks(lo, hi, 4)", [lo, hi])
    inside = [t for t in ticks if lo <= t <= hi]
    assert len(inside) >= 2, ticks
    assert len(ticks) <= 12, ticks
    labels = math_page.evaluate("(ts) => ts.map((t) => fmt.formatNumber(t))", ticks)
    assert len(set(labels)) == len(labels), labels  # no two ticks read the same


def test_the_browser_prints_numbers_in_the_one_format(math_page):
    # Rough edge 1: with a test split of 0 the caption read "test accuracy nan%" (the tiles now show "—" without
    # test points); numbers print as explorer.numbers does: four significant digits, exponents as 1.235e4.
    got = math_page.evaluate(
        "() => [fmt.formatPercent(null), fmt.formatPercent(0.955), fmt.formatPercent(1), fmt.formatNumber(null),"
        " fmt.formatNumber(0.000123), fmt.formatNumber(12345.6), fmt.formatNumber(Infinity), fmt.formatNumber(2.5e7)]"
    )
    assert got == ["nan", "95.5%", "100%", "nan", "1.23e-4", "1.235e4", "inf", "2.5e7"]
    assert got == [fmt_percent(float("nan")), fmt_percent(0.955), fmt_percent(1.0), fmt_number(float("nan")),
                   fmt_number(0.000123), fmt_number(12345.6), fmt_number(float("inf")), fmt_number(2.5e7)]
