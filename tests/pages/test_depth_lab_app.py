"""The Initialisation & depth page through Streamlit's AppTest: settings, the URL, the words, charts and table."""

import json
import re

from streamlit.testing.v1 import AppTest

from explorer.depth_lab import lab as depth_lab
from explorer.depth_lab.lab import LabConfig
from tests.support.helpers import ROOT

PAGE = "pages/depth_lab.py"


def lab(query: dict | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    for name, value in (query or {}).items():
        at.query_params[name] = value
    return at.switch_page(PAGE).run()


def texts(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def rows(at: AppTest) -> list[tuple[int, float, float]]:
    table = "".join(h.proto.body for h in at.get("html"))
    assert 'data-testid="depth-lab"' in table
    return [(int(a), float(b), float(c)) for a, b, c in
            re.findall(r'data-layer="(\d+)" data-act-std="([^"]+)" data-grad-norm="([^"]+)"', table)]


def test_the_page_opens_at_its_defaults_and_writes_them_into_the_url():
    at = lab()
    assert not at.exception
    assert at.title[0].value == "Initialisation & depth" and at.caption[0].value
    default = LabConfig()
    assert {k: at.query_params[k] for k in default.to_query()} == default.to_query()
    assert len(rows(at)) == default.depth
    assert "flat tails" in texts(at)  # tanh with N(0, 1), the default: saturated
    charts = at.get("plotly_chart")
    assert len(charts) == 4  # spread, gradient, every layer's histogram, one layer's
    for chart in charts[:2]:
        assert len(json.loads(chart.proto.spec)["data"][0]["y"]) == default.depth


def test_changing_a_setting_changes_the_numbers_and_the_url():
    at = lab()
    at.selectbox(key="lab_init").set_value("He normal")
    at.selectbox(key="lab_activation").set_value("relu")
    at.slider(key="lab_depth").set_value(30)
    at.run()
    assert not at.exception
    got = rows(at)
    assert [r[0] for r in got] == list(range(1, 31))
    expected = depth_lab.analyse(LabConfig(init="He normal", activation="relu", depth=30))
    assert [r[1] for r in got] == [s.act_std for s in expected.layers]
    assert [r[2] for r in got] == [s.grad_norm for s in expected.layers]
    assert at.query_params["init"] in ("He normal", ["He normal"])
    assert "spread (std) stays between" in texts(at)


def test_a_link_sets_the_lab_and_bad_values_get_a_message():
    at = lab({"init": "zeros", "activation": "sigmoid", "depth": "12", "width": "abc", "batch": "40"})
    assert not at.exception
    assert at.selectbox(key="lab_init").value == "zeros" and at.slider(key="lab_depth").value == 12
    assert len(rows(at)) == 12
    warnings = " ".join(w.value for w in at.warning)
    assert "width='abc' is not valid (not a number)" in warnings
    assert "same value for every point" in texts(at)  # zeros: identical neurons


def test_too_much_work_is_cut_to_the_limit_with_a_message():
    at = lab({"width": "256", "depth": "50", "batch": "1000"})  # from a link
    assert not at.exception
    assert "using a batch of 310" in " ".join(w.value for w in at.warning)
    assert len(rows(at)) == 50 and at.query_params["batch"] in ("310", ["310"])
    at = lab({"width": "256", "depth": "50"})
    at.slider(key="lab_batch").set_value(1000).run()  # from the widgets
    assert not at.exception
    assert "using a batch of 310" in " ".join(i.value for i in at.info)
    assert at.query_params["batch"] in ("310", ["310"]) and at.slider(key="lab_batch").value == 310
    at.slider(key="lab_width").set_value(128).run()  # the message goes; the batch stays as the widget says
    assert not at.info and at.slider(key="lab_batch").value == 310 and len(rows(at)) == 50


def test_the_layer_slider_picks_the_histogram_shown():
    at = lab({"depth": "8"})
    assert at.slider(key="lab_layer").value == 8
    at.slider(key="lab_layer").set_value(3).run()
    spec = json.loads(at.get("plotly_chart")[3].proto.spec)
    assert spec["layout"]["title"]["text"].startswith("Layer 3:")
    at.slider(key="lab_depth").set_value(2).run()  # a shallower network: the slider follows
    assert not at.exception and at.slider(key="lab_layer").value == 2
    at.slider(key="lab_depth").set_value(1).run()
    assert not at.exception and len(rows(at)) == 1
