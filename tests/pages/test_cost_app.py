"""The Explorer's Forward vs reverse tab through Streamlit AppTest: every preset's verdict and hooks, the lab's
sliders (a move reruns the lab, the values survive closing the tab), a too-big program's counts only."""

from __future__ import annotations

import json
import re

import pytest

from explorer.program import presets
from explorer.program.mode_cost import lab_cost, program_cost
from tests.support.apptest import app, no_exception, open_tab
from tests.support.cost_markup import TOO_BIG, hooks

TAB = "Forward vs reverse"


def tab_html(at) -> str:
    return "".join(h.proto.body for h in at.get("html"))


def lab_title(at) -> str:
    charts = at.get("plotly_chart")
    assert len(charts) == 1, "the lab's crossover plot"
    return json.loads(charts[0].proto.spec)["layout"]["title"]["text"]


@pytest.mark.parametrize("name", presets.names())
def test_every_preset_s_tab_shows_its_verdict_and_hooks(name):
    at = app().run()
    at.selectbox(key="explorer_preset").select(name).run()
    assert not [h for h in at.get("html") if "ad-cost" in h.proto.body], "the tab runs only when it is open"
    open_tab(at, TAB)
    no_exception(at)
    assert not at.error, [e.value for e in at.error]
    cost = program_cost(presets.program(name))
    assert cost.verdict in [s.value for s in at.success]
    found = hooks(tab_html(at), "ad-cost")
    assert (found["n"], found["m"]) == (str(cost.n), str(cost.m))
    assert (found["forward-passes"], found["reverse-passes"]) == (str(cost.n), str(cost.m))
    assert found["built"] == "true" and found["winner"] == cost.winner
    assert any(c.value.startswith("J built both ways") for c in at.caption)
    assert hooks(tab_html(at), "ad-cost-lab")["n"] == "16", "the lab beside it"


def test_the_lab_s_sliders_rerun_it_and_survive_closing_the_tab():
    at = app().run()
    open_tab(at, TAB)
    assert lab_title(at).endswith("m = 64, n = 16")
    at.slider(key="cost_lab_n").set_value(100).run()
    no_exception(at)
    lab = hooks(tab_html(at), "ad-cost-lab")
    assert (lab["n"], lab["m"], lab["forward-passes"], lab["reverse-passes"]) == ("100", "64", "100", "64")
    assert lab["winner"] == "reverse" and lab["built"] == "true"
    assert lab_cost(100, 64).verdict in [s.value for s in at.success]
    assert lab_title(at).endswith("m = 64, n = 100")
    at.slider(key="cost_lab_m").set_value(100).run()
    assert hooks(tab_html(at), "ad-cost-lab")["winner"] == "tie"
    assert any(s.value.startswith("A tie: f maps 100 input numbers to 100 output numbers") for s in at.success)
    open_tab(at, "Export")
    open_tab(at, TAB)
    assert (at.slider(key="cost_lab_n").value, at.slider(key="cost_lab_m").value) == (100, 100)
    assert hooks(tab_html(at), "ad-cost")["n"] == "2", "the program's panel is micrograd's still"


def test_a_too_big_program_shows_the_counts_only():
    at = app()
    at.query_params["program"] = TOO_BIG
    at.run()
    open_tab(at, TAB)
    no_exception(at)
    found = hooks(tab_html(at), "ad-cost")
    assert (found["n"], found["m"], found["built"]) == ("300600", "500", "false")
    assert re.search(r"<td>not built</td>.*<td>not built</td>", tab_html(at))
    assert any(i.value.startswith("Not built: J has 150,300,000 entries") for i in at.info)


def test_the_program_s_jacobian_is_built_at_the_poked_values():
    from explorer.program import cost_report

    at = app()
    at.query_params["program"] = presets.program(presets.DEFAULT)
    at.query_params["poke"] = "a=-2.5,b=7"
    at.run()
    open_tab(at, TAB)
    no_exception(at)
    poked = program_cost(presets.program(presets.DEFAULT), (("a", -2.5), ("b", 7.0)))
    own = program_cost(presets.program(presets.DEFAULT))
    assert poked.max_entry != own.max_entry, "a poke that changes J"
    captions = [c.value for c in at.caption]
    assert cost_report.difference_text(poked).split(" (")[0] in " ".join(captions).replace("\\", ""), captions
