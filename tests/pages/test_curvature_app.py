"""The Explorer's Curvature tab through Streamlit AppTest: every preset's hooks equal the panel's data, the direction
chosen (and kept while the tab is closed), the Hessian's heatmap and eigenvalues, a kink named, a non-scalar
output's note and a program over 64 input numbers without a heatmap."""

from __future__ import annotations

import json

import numpy as np
import pytest

from explorer.program import curvature as curv
from explorer.program import presets
from tests.support.apptest import app, no_exception, open_tab
from tests.support.cost_markup import hooks

TAB = "Curvature"


def tab_html(at) -> str:
    return "".join(h.proto.body for h in at.get("html"))


def hessian_charts(at) -> list[dict]:
    """The tab's heatmaps (other panels of the page, the saturation panel's, draw Plotly charts too)."""
    specs = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    return [s for s in specs if s["layout"].get("title", {}).get("text", "").startswith("The Hessian")]


def opened(program: str | None = None):
    at = app()
    if program is not None:
        at.query_params["program"] = program
    at.run()
    open_tab(at, TAB)
    no_exception(at)
    assert not at.error, [e.value for e in at.error]
    return at


@pytest.mark.parametrize("name", presets.names())
def test_every_preset_s_tab_shows_the_three_hvps(name):
    at = app().run()
    at.selectbox(key="explorer_preset").select(name).run()
    assert 'data-testid="curvature"' not in tab_html(at), "the tab runs only when it is open"
    open_tab(at, TAB)
    no_exception(at)
    assert not at.error, [e.value for e in at.error]
    c = curv.curvature(presets.program(name))
    found = hooks(tab_html(at), "curvature")
    for hook, way in (("hvp-reverse", curv.REVERSE), ("hvp-forward", curv.FORWARD), ("hvp-fd", curv.FD)):
        np.testing.assert_allclose(json.loads(found[hook]), c.way(way).value, rtol=1e-12, atol=1e-12)
    assert found["n"] == str(c.n) and found["direction"] == "random"
    charts = hessian_charts(at)
    if c.hessian is not None:
        assert len(charts) == 1 and json.loads(found["eigenvalues"]) == pytest.approx(list(c.eigenvalues))
        assert any(m.value.startswith("**Eigenvalues** from ") for m in at.markdown)
        assert any(cap.value.startswith("H is symmetric") for cap in at.caption)
    else:
        assert not charts and "eigenvalues" not in found
        assert any(i.value.startswith("The Hessian is not drawn") for i in at.info)
    if c.kinks:  # the kink preset's relu, or the straight-through estimator's detach
        heading = "**Not twice differentiable here.**" if c.kinks[0].jumps else "**The gradient is not the output's"
        assert any(w.value.startswith(heading) and c.kinks[0].op in w.value for w in at.warning)
    else:
        assert found["agree"] == "true" and any(s.value.startswith("Reverse over reverse and forward") for s in
                                                at.success)


def test_the_direction_is_chosen_and_kept_while_the_tab_is_closed():
    at = opened()
    at.selectbox(key="explorer_curvature_direction").select(curv.BASIS).run()
    no_exception(at)
    at.selectbox(key="explorer_curvature_element").select(1).run()
    c = curv.curvature(presets.program(presets.DEFAULT), direction=curv.BASIS, element=1)
    found = hooks(tab_html(at), "curvature")
    assert found["direction"] == "basis"
    np.testing.assert_allclose(json.loads(found["hvp-reverse"]), c.hessian[:, 1], rtol=1e-12)
    open_tab(at, "Export")
    open_tab(at, TAB)
    assert hooks(tab_html(at), "curvature")["direction"] == "basis"
    assert at.selectbox(key="explorer_curvature_element").value == 1
    at.selectbox(key="explorer_curvature_direction").select(curv.ONES).run()
    assert hooks(tab_html(at), "curvature")["direction"] == "ones"


def test_a_non_scalar_output_says_a_scalar_is_needed():
    at = opened("x = [1.0, 2.0]\ny = x * x")
    assert 'data-testid="curvature"' not in tab_html(at)
    assert any(i.value.startswith("The output has shape (2,)") for i in at.info)


def test_a_saddle_is_drawn_and_said():
    at = opened("x = [0.0, 0.0]\nf = x[0] ** 2 - x[1] ** 2")
    assert hooks(tab_html(at), "curvature")["kind"] == curv.SADDLE
    (chart,) = hessian_charts(at)
    assert chart["data"][0]["z"] == [[2.0, 0.0], [0.0, -2.0]]
    assert any("(a saddle)" in m.value and "The gradient is 0 here" in m.value for m in at.markdown)


def test_a_program_over_64_input_numbers_draws_no_heatmap():
    at = opened("x = randn(65)\nf = (x * x * x).sum()")
    found = hooks(tab_html(at), "curvature")
    assert found["n"] == "65" and "eigenvalues" not in found and not hessian_charts(at)
    assert any(i.value.startswith("The Hessian is not drawn: the inputs hold 65 numbers") for i in at.info)


def test_a_64_number_hessian_says_where_its_numbers_are():
    at = opened("W = randn(6, 8)\nx = randn(16)\nf = (W @ x[:8]).tanh().sum() + (x * x * x).sum()")
    (chart,) = hessian_charts(at)
    assert chart["data"][0]["colorbar"]["title"]["text"] == "H entry (log scale)"
    assert "texttemplate" not in chart["data"][0] and chart["data"][0]["text"][0][0]
    assert any(cap.value.startswith("64 × 64: too many cells for their numbers. Hover a cell") for cap in at.caption)
    assert any(cap.value.startswith("H is symmetric") for cap in at.caption)
