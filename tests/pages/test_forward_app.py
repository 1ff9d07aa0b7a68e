"""Forward mode on the Explorer and the Stepper through Streamlit's AppTest: the switch and the direction v (from a
link, from the widgets, shared by the two pages and kept in the URL), the tangents the graph view is sent, the
forward walk the Stepper is sent, the meeting line, and a link's bad mode or v said in words."""

from __future__ import annotations

import re

import numpy as np
import pytest

from autograd import Tensor
from autograd.func import jvp
from explorer.program import forward_mode, presets
from tests.support.apptest import STEPPER, app, labels, no_exception, report, view_data

PROGRAM = "x = [1.0, -2.0, 3.0]\nw = [0.5, 4.0, -1.5]\nh = (x * w).tanh()\ny = (h * h).sum()\n"


def f(x, w):
    h = (x * w).tanh()
    return (h * h).sum()


def opened(page: str = "explorer", **query):
    at = app()
    at.query_params.update({"program": PROGRAM, **query})
    if page == "stepper":
        at.switch_page(STEPPER)
    at.run()
    no_exception(at)
    return at


def meeting(at) -> dict[str, str]:
    """The meeting line's data-* attributes (its HTML block)."""
    found = [h.proto.body for h in at.get("html") if 'data-testid="ad-meeting"' in h.proto.body]
    assert len(found) == 1, "one meeting line"
    return dict(re.findall(r'data-([a-z]+)="([^"]*)"', found[0]))


def jvp_of(v_x, v_w) -> float:
    x, w = Tensor(np.array([1.0, -2.0, 3.0])), Tensor(np.array([0.5, 4.0, -1.5]))
    _, tangent = jvp(f, (x, w), (Tensor(np.asarray(v_x, float)), Tensor(np.asarray(v_w, float))))
    return float(tangent.data)


def cell(dot: str, node: str) -> str:
    """The grad cell's text (forward mode: the tangent) of the box drawn for ``node``."""
    label = labels(dot)[node]
    return re.search(r'id="n\d+\.g"[^>]*>(.*?)</td>', label).group(1)


def test_reverse_mode_is_the_default_and_writes_nothing_to_the_url():
    at = opened()
    assert view_data(at)["mode"] == "reverse"
    assert at.segmented_control(key="explorer_ad_mode").value == "reverse"
    assert "mode" not in at.query_params and "v" not in at.query_params
    assert not [h for h in at.get("html") if "ad-meeting" in h.proto.body]


def test_a_forward_link_draws_tangents_and_the_two_modes_meet():
    at = opened(mode="forward", v="input:x")
    data = view_data(at)
    assert data["mode"] == "forward" and ">tangent<" in data["dot"] and ">grad<" not in data["dot"]
    nodes = {b: info["title"] for b, info in data["boxes"].items()}
    y = next(b for b, title in nodes.items() if title.startswith("y"))
    want = jvp_of([1, 1, 1], [0, 0, 0])  # ones in x, zeros in w: autograd.func.jvp's J·v
    assert float(cell(data["dot"], f"n{y}")) == pytest.approx(want, rel=1e-3)
    line = meeting(at)
    assert line["agree"] == "1" and line["v"] == "input:x"
    assert float(line["forward"]) == pytest.approx(want, rel=1e-12)
    assert float(line["reverse"]) == pytest.approx(want, rel=1e-12)
    assert at.selectbox(key="explorer_ad_v").value == "input:x"


def test_the_switch_and_the_direction_picker_write_the_url():
    at = opened()
    at.segmented_control(key="explorer_ad_mode").set_value("forward").run()
    no_exception(at)
    assert view_data(at)["mode"] == "forward"
    assert at.query_params["mode"] in ("forward", ["forward"]) and at.query_params["v"] in ("ones", ["ones"])
    at.selectbox(key="explorer_ad_v").set_value("element:w").run()
    no_exception(at)
    assert at.query_params["v"] in ("element:w:0", ["element:w:0"])
    at.selectbox(key="explorer_ad_element").set_value(2).run()
    no_exception(at)
    assert at.query_params["v"] in ("element:w:2", ["element:w:2"])
    line = meeting(at)
    assert float(line["forward"]) == pytest.approx(jvp_of([0, 0, 0], [0, 0, 1]), rel=1e-12)
    at.segmented_control(key="explorer_ad_mode").set_value("reverse").run()
    no_exception(at)
    assert view_data(at)["mode"] == "reverse" and "mode" not in at.query_params


def test_the_stepper_walks_the_jvps_parents_first():
    at = opened("stepper", mode="forward", v="ones", step="2")
    steps = view_data(at)["steps"]
    run = forward_mode.forward_program(PROGRAM, direction="ones")
    assert steps["mode"] == "forward" and steps["count"] == len(run.steps)
    assert at.session_state["stepper_pos"] == 2, "the link's step"
    panels = steps["panels"]
    assert panels[0]["title"] == "Seed: v = ones in every input" and "dx = [1, 1, 1]" in panels[0]["seed"]
    for k, (panel, step) in enumerate(zip(panels[1:], run.steps), start=1):
        assert panel["title"].startswith(f"Step {k} of {len(run.steps)}") and panel["formula"].startswith("dOut")
        assert steps["active_at"][step.node] == k
    assert forward_mode.forward_done(run) == steps["done"] and "reverse" in steps["done"]
    report(at, step=len(run.steps))
    no_exception(at)
    assert at.query_params["step"] in (str(len(run.steps)), [str(len(run.steps))])
    assert at.query_params["mode"] in ("forward", ["forward"])
    assert [t.value for t in at.title] == ["Forward Stepper"], "the title says which walk this is"
    # switching the mode starts the other walk at its seed
    at.segmented_control(key="stepper_ad_mode").set_value("reverse").run()
    no_exception(at)
    assert view_data(at)["steps"]["mode"] == "reverse" and at.session_state["stepper_pos"] == 0
    assert [t.value for t in at.title] == ["Backward Stepper"]


def test_the_mode_and_v_are_shared_by_the_two_pages():
    at = opened()
    at.segmented_control(key="explorer_ad_mode").set_value("forward").run()
    at.selectbox(key="explorer_ad_v").set_value("input:w").run()
    at.switch_page(STEPPER).run()
    no_exception(at)
    assert view_data(at)["steps"]["mode"] == "forward"
    assert at.selectbox(key="stepper_ad_v").value == "input:w"
    assert view_data(at)["steps"]["panels"][0]["title"] == "Seed: v = ones in w, zeros elsewhere"


@pytest.mark.parametrize(("query", "said"), [
    ({"mode": "sideways"}, "is not `reverse` or `forward`"),
    ({"mode": "forward", "v": "diagonal"}, "a direction is 'ones'"),
    ({"mode": "forward", "v": "input:z"}, "not an input of this program"),
    ({"mode": "forward", "v": "element:x:3"}, "`x` has 3 elements (0 to 2)"),
])
def test_a_link_s_bad_mode_or_v_is_said_and_the_page_draws(query, said):
    at = opened(**query)
    words = " ".join(e.value for e in (*at.warning, *at.info))
    assert said in words, words
    assert view_data(at)["mode"] == ("reverse" if query["mode"] == "sideways" else "forward")
    if query["mode"] == "forward":
        assert meeting(at)["v"] == "ones"


@pytest.mark.parametrize("name", presets.names())
def test_forward_mode_on_every_preset(name):
    """Both pages in forward mode on each preset: tangents drawn, the walk sent, the two modes equal."""
    at = app()
    at.query_params.update({"program": presets.program(name), "mode": "forward", "v": "ones"})
    at.run()
    no_exception(at)
    assert view_data(at)["mode"] == "forward" and meeting(at)["agree"] == "1"
    at.switch_page(STEPPER).run()
    no_exception(at)
    steps = view_data(at)["steps"]
    assert steps["mode"] == "forward" and len(steps["panels"]) == steps["count"] + 1



def test_the_export_in_forward_mode_is_the_picture_of_tangents(monkeypatch):
    from explorer.program import view_data as graph_data
    from tests.support.apptest import open_tab

    made = []

    def recorded(graph, steps, view, forward=None):
        made.append(download_dot(graph, steps, view, forward))
        return made[-1]

    download_dot = graph_data.download_dot
    monkeypatch.setattr(graph_data, "download_dot", recorded)
    at = opened(mode="forward", v="input:x")
    open_tab(at, "Export")
    no_exception(at)
    assert made and ">tangent<" in made[-1] and ">grad<" not in made[-1]
    run = forward_mode.forward_program(PROGRAM, direction="input:x")
    y = next(n.id for n in run.graph.nodes if n.name == "y")
    assert float(cell(made[-1], f"n{y}")) == pytest.approx(jvp_of([1, 1, 1], [0, 0, 0]), rel=1e-3)
