"""The Playground's Landscape tab under AppTest: closed it costs nothing; open it shows the slice, λmax against
2/lr with its verdict and the per-example gradients, follows Step and Play, and the directions switch."""

import re

import numpy as np
import pytest

from explorer.numbers import fmt_number
from explorer.playground import training
from explorer.playground.landscape import curvature
from explorer.playground.landscape import keys as ls_keys
from explorer.playground.landscape import net as nets
from tests.support import apptest
from tests.support.clock import Clock

PAGE = "pages/playground.py"
TAB = "Landscape"


def _hook(at, testid: str) -> dict[str, str] | None:
    """The data-* attributes of the element with data-testid `testid` in the page's HTML, or None."""
    for element in at.get("html"):
        body = element.proto.body
        found = re.search(rf'<div[^>]*data-testid="{testid}"[^>]*>', body)
        if found:
            return dict(re.findall(r'(data-[a-z-]+)="([^"]*)"', found.group(0)))
    return None


def _open(query=None):
    at = apptest.open_page(PAGE, query)
    at.session_state[ls_keys.TABS] = TAB
    at.run()
    assert not at.exception, at.exception
    return at


def test_closed_tab_computes_nothing():
    at = apptest.open_page(PAGE)
    assert [t.label for t in at.tabs][:2] == ["Live view", "Landscape"]
    assert _hook(at, "landscape") is None and ls_keys.KEPT not in at.session_state


def test_open_tab_shows_the_slice_curvature_and_per_example_gradients():
    at = _open()
    hook = _hook(at, "landscape")
    state = at.session_state["pg"].state
    net, w = nets.net_of(state), training.flat_params(state)
    lam = curvature.lambda_max(net, w).lambda_max
    assert hook["data-directions"] == "random" and hook["data-explained"] == ""
    assert float(hook["data-lambda-max"]) == pytest.approx(lam, rel=1e-9)
    assert float(hook["data-lr"]) == state.config.lr
    assert hook["data-verdict"] == ("stable" if state.config.lr < 2 / lam else "oscillating")
    assert _hook(at, "per-example")["data-count"] == str(len(state.y_train))
    charts = at.get("plotly_chart")
    assert len(charts) == 5
    assert any("exact autograd.func.hvp" in e.proto.body for e in at.get("html"))
    assert not at.exception


def test_the_tab_follows_step_and_a_high_learning_rate_is_flagged():
    at = _open()
    before = _hook(at, "landscape")
    next(b for b in at.button if b.label == "Step").click().run()
    after = _hook(at, "landscape")
    assert after["data-step"] == "1" and after["data-lambda-max"] != before["data-lambda-max"]
    at.select_slider(key="pg_lr").set_value(10.0).run()
    flagged = _hook(at, "landscape")
    assert flagged["data-lr"] == "10.0" and flagged["data-verdict"] == "oscillating"
    assert any("is above 2/λmax" in e.proto.body for e in at.get("html"))
    assert flagged["data-lambda-max"] == after["data-lambda-max"]  # the same weights: not recomputed


def test_play_updates_the_panel_and_lambda_max_over_the_steps():
    at = _open()
    pg = at.session_state["pg"]
    clock = pg.clock = Clock()
    next(b for b in at.button if b.label == "Play").click().run()
    steps = []
    for _ in range(3):
        clock.now += 1.0
        at.run()
        steps.append(int(_hook(at, "landscape")["data-step"]))
    assert steps == sorted(steps) and steps[-1] > 0
    kept = at.session_state[ls_keys.KEPT]
    assert kept.sharpness.steps[-1] == steps[-1] and len(kept.sharpness.steps) >= 2


def test_pca_directions_say_what_they_explain():
    at = _open()
    for _ in range(4):
        next(b for b in at.button if b.label == "Step").click().run()
    at.session_state[ls_keys.DIRECTIONS] = "pca"
    at.run()
    hook = _hook(at, "landscape")
    assert hook["data-directions"] == "pca"
    assert 0 < float(hook["data-explained"]) <= 1
    assert any("of its variance" in c.value for c in at.caption)


def test_pca_before_three_steps_falls_back_to_random_and_says_so():
    at = _open()
    at.session_state[ls_keys.DIRECTIONS] = "pca"
    at.run()
    assert _hook(at, "landscape")["data-directions"] == "random"
    assert any("at least three recorded steps" in i.value for i in at.info)


@pytest.mark.parametrize("query", [
    {"dataset": "sine", "hidden": "-"},
    {"dataset": "three blobs", "hidden": "4", "loss": "MSE", "activation": "relu"},
    {"dataset": "spiral", "hidden": "16,16", "features": "x1²,sin x2", "optimizer": "Adam"},
])
def test_every_task_and_layout_draws(query):
    at = _open(query)
    hook = _hook(at, "landscape")
    assert hook["data-verdict"] in ("stable", "oscillating")
    assert np.isfinite(float(hook["data-lambda-max"]))
    assert not at.exception


def test_a_clicked_point_shows_its_pull_on_each_layer():
    at = _open()
    [first] = [m.value for m in at.markdown if m.value.startswith("**Point ")]
    assert "the point with the largest gradient" in first
    # what the browser sends when a point is clicked (Streamlit's Plotly selection state)
    at.session_state[ls_keys.POINTS] = {"selection": {"points": [{"point_index": 5, "curve_number": 0}],
                                                      "box": [], "lasso": []}}
    at.run()
    assert not at.exception, at.exception
    [said] = [m.value for m in at.markdown if m.value.startswith("**Point ")]
    state = at.session_state["pg"].state
    each = nets.per_example(nets.net_of(state), training.flat_params(state))
    assert said.startswith("**Point 5** (the point you clicked)")
    assert said.count("- layer ") == len(state.model.sizes) - 1
    assert f"its loss {fmt_number(float(each.losses[5]))}" in said
