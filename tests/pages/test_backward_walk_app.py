"""The Stepper on a grad's backward, and the backward graph's boxes inspected and exported, through AppTest (issue 32):
the Explorer's "differentiate again" links to the Stepper, whose link (program, poke, again) walks that second backward
step by step, its boxes in their layers, ending in autograd.grad twice's grads; a click on a box of the backward graph
opens its inspector; Export downloads the graph shown."""

from urllib.parse import parse_qs

import numpy as np

from explorer.program import backward_view, backward_walk, keys
from tests.support.apptest import EXPLORER, STEPPER, no_exception, open_page, open_tab, report, view_data

TANH = "x = [0.3, -1.2, 0.8]\nw = [1.5, 0.5, -2.0]\ny = ((x * w).tanh() * x).sum()"


def _stepper(query):
    at = open_page(STEPPER, query)
    no_exception(at)
    return at


def test_a_link_s_again_walks_that_grad_s_backward_step_by_step():
    at = _stepper({"program": TANH, "again": "x"})
    assert at.selectbox(key=keys.STEPPER_AGAIN).value == "x"
    data = view_data(at)
    want = backward_walk.walk_view(TANH, (), "x")
    assert data["dot"] == want["dot"] and data["steps"]["count"] == want["steps"]["count"] > 0
    assert set(data["orders"].values()) == {1, 2} and "sentence" not in data
    assert any("`Σ grad x`" in i.value for i in at.info)  # what is walked, said at the top
    assert at.query_params["again"] == "x"
    # the browser reaches the end: the URL's step follows, the leaves' grads are the second backward's
    at = report(at, step=data["steps"]["count"], selected=None, options={})
    no_exception(at)
    assert at.query_params["step"] == str(data["steps"]["count"])
    w = backward_walk.walk(TANH, (), "x")
    second = backward_view.second_order(TANH, (), "x", fd=False)
    for name, _, twice, _ in second.rows:
        np.testing.assert_allclose(w.grads[name], twice, rtol=1e-12)
        leaf = next(n.id for n in w.graph.nodes if n.name == name and n.kind == "input")
        last = data["steps"]["grads"][str(leaf)][-1]
        assert last[0] <= data["steps"]["count"]


def test_choosing_no_grad_walks_the_program_s_own_backward_again():
    at = _stepper({"program": TANH, "again": "x"})
    at.selectbox(key=keys.STEPPER_AGAIN).set_value("").run()
    no_exception(at)
    assert "again" not in at.query_params
    assert "order-2" not in view_data(at)["dot"]


def test_a_link_s_again_that_names_no_leaf_is_said_and_the_program_s_backward_walked():
    at = _stepper({"program": TANH, "again": "nope"})
    assert any("again=nope" in w.value and "Ignored" in w.value for w in at.warning)
    assert at.selectbox(key=keys.STEPPER_AGAIN).value == ""
    assert "order-2" not in view_data(at)["dot"]


def test_forward_mode_walks_no_second_backward():
    at = _stepper({"program": TANH, "again": "x", "mode": "forward"})
    assert at.selectbox(key=keys.STEPPER_AGAIN).disabled
    assert view_data(at)["mode"] == "forward"


def test_a_constant_grad_says_there_is_nothing_to_walk():
    at = _stepper({"program": "x = [1.0, 2.0]\ny = (x * 3.0).sum()", "again": "x"})
    assert any("nothing to step through" in i.value for i in at.info)
    assert view_data(at)["steps"]["count"] == 0


def test_poked_values_retext_the_walk_in_place():
    at = _stepper({"program": TANH, "again": "x", "poke": "x*=0.5"})
    data = view_data(at)
    assert data["dot"] == backward_walk.walk_view(TANH, (), "x")["dot"]  # laid out at the program's own numbers
    assert data["values"] == backward_walk.walk_view(TANH, (("x", 0.5),), "x")["values"]


def _explorer_again():
    at = open_page(EXPLORER, {"program": TANH, "backward": "1", "again": "x"})
    no_exception(at)
    return at


def test_the_explorer_links_the_second_backward_to_the_stepper():
    at = _explorer_again()
    (link,) = [p for p in at.get("page_link") if p.proto.label == "Step through this backward"]
    assert link.proto.page.endswith("stepper")
    query = parse_qs(link.proto.query_string)
    assert query.get("again") == ["x"] and query.get("program") == [TANH]


def test_a_click_on_a_box_of_the_backward_graph_inspects_it():
    at = _explorer_again()
    drawn, orders, _, _ = backward_view.layers(TANH, (), "x")
    made = next(n.id for n in drawn.nodes if orders[n.id] == 2 and n.op == "mul")
    at = report(at, selected=made, options={})
    no_exception(at)
    assert at.session_state[keys.TAB] == "Inspect a node"
    assert at.session_state[keys.BACKWARD_PICKED] == (TANH, "x", made)
    assert at.selectbox(key=keys.BACKWARD_NODE).value == made
    box = backward_walk.inspect_box(TANH, (), "x", made)
    codes = [c.value for c in at.code]
    assert box["formula"] in codes and box["value"] in codes and box["grad"] in codes
    assert any("the backward pass made it" in m.value for m in at.markdown)
    # another grad differentiated again draws other boxes under those ids: the pick is not carried over
    at.selectbox(key=keys.BACKWARD_AGAIN).set_value("w").run()
    no_exception(at)
    assert view_data(at)["selected"] is None
    assert at.selectbox(key=keys.BACKWARD_NODE).value == backward_walk.inspect_box(TANH, (), "w", None)["box"]


def test_export_downloads_the_backward_graph_shown():
    at = _explorer_again()
    open_tab(at, "Export")
    no_exception(at)
    dot = backward_walk.download_dot(TANH, (), "x")
    assert "order-3" in dot
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels.count("DOT (Graphviz)") == 2  # the backward graph's, and the forward graph's in the expander
