"""The Explorer's "Show the backward as a graph" through AppTest (issue 32): the switch draws the backward's graph in
the graph view (every box a layer, the grads the engine's), the URL keeps it and a link reproduces it, and
"differentiate again" shows second-order grads equal to autograd.grad(create_graph=True) twice and central
differences."""

import re

import numpy as np

from autograd import grad
from explorer.program import backward_view, keys, presets
from language import evaluate
from tests.support.apptest import EXPLORER, no_exception, open_page, view_data

MICROGRAD = presets.PRESETS["micrograd"][1]
ORDER = re.compile(r'^\s*n(\d+) \[.*?class="kind-[a-z]+ order-(\d)"', re.M)


def _switch_on(at):
    at.toggle(key=keys.BACKWARD).set_value(True).run()
    no_exception(at)
    return at


def test_the_switch_draws_the_backward_s_graph_with_each_box_s_layer_and_the_engine_s_grads():
    at = open_page(EXPLORER, {"program": MICROGRAD})
    assert "order-2" not in view_data(at)["dot"]
    _switch_on(at)
    data = view_data(at)
    own = backward_view.backward_view(MICROGRAD, (), "")
    assert data["dot"] == own["dot"] and data["orders"] == own["orders"]
    orders = {int(b): int(o) for b, o in ORDER.findall(data["dot"])}
    assert set(orders.values()) == {1, 2} and len(orders) == len(data["boxes"])
    result = evaluate(MICROGRAD)
    graph = backward_view.backward_graph(result.output, uses=result.uses)
    assert sum(o == 2 for o in orders.values()) == len(graph.backward())
    result.output.backward()
    for leaf, g in data["grads"]:
        name = graph.nodes[leaf].name
        shown = data["boxes"][str(g)]
        assert shown["kind"] == "grad" and shown["order"] == 2
        assert shown["data"] == backward_view.numbers.compact(result.inputs[name].grad)
    assert at.query_params["backward"] == "1"
    assert any("nodes of the backward pass" in c.value for c in at.caption)


def test_a_link_reproduces_the_switch_and_the_grad_differentiated_again():
    at = open_page(EXPLORER, {"program": MICROGRAD, "backward": "1", "again": "a"})
    assert at.toggle(key=keys.BACKWARD).value is True
    assert at.selectbox(key=keys.BACKWARD_AGAIN).value == "a"
    counts = view_data(at)["counts"]
    assert set(counts) == {"1", "2", "3"} and counts == backward_view.backward_view(MICROGRAD, (), "a")["counts"]
    assert at.query_params["again"] == "a"


def test_a_link_s_bad_switch_is_said_and_the_rest_kept():
    at = open_page(EXPLORER, {"program": MICROGRAD, "backward": "yes"})
    no_exception(at)
    assert any("backward" in w.value and "Ignored" in w.value for w in at.warning)
    assert at.toggle(key=keys.BACKWARD).value is False
    assert view_data(at)["dot"].count("n0 [") == 1


def test_differentiating_again_shows_second_order_grads_equal_to_grad_twice_and_central_differences():
    text = "x = [0.3, -1.2, 0.8]\nw = [1.5, 0.5, -2.0]\ny = ((x * w).tanh() * x).sum()"
    at = _switch_on(open_page(EXPLORER, {"program": text}))
    at.selectbox(key=keys.BACKWARD_AGAIN).set_value("x").run()
    no_exception(at)
    assert at.query_params["again"] == "x"
    (table,) = at.dataframe
    assert list(table.value["leaf"]) == ["x", "w"]
    result = evaluate(text)
    x, w = result.inputs["x"], result.inputs["w"]
    gx, _ = grad(result.output, [x, w], create_graph=True)
    hx, hw = grad(gx.sum(), [x, w])
    got = backward_view.second_order(text, (), "x")
    np.testing.assert_allclose(got.rows[0][1], hx.data, rtol=1e-12)
    np.testing.assert_allclose(got.rows[1][1], hw.data, rtol=1e-12)
    np.testing.assert_allclose(got.rows[0][3], hx.data, rtol=1e-6, atol=1e-8)
    assert list(table.value["grad of the grad"]) == [backward_view.numbers.compact(hx.data),
                                                     backward_view.numbers.compact(hw.data)]
    assert backward_view.backward_view(text, (), "x")["counts"]["3"] > 0


def test_forward_mode_leaves_the_switch_off():
    at = open_page(EXPLORER, {"program": MICROGRAD, "mode": "forward", "backward": "1"})
    no_exception(at)
    assert at.toggle(key=keys.BACKWARD).disabled
    assert "order-2" not in view_data(at)["dot"]


def test_poked_values_retext_the_backward_s_drawing_with_the_engine_s_grads_there():
    at = open_page(EXPLORER, {"program": MICROGRAD, "backward": "1", "poke": "a=-2.5"})
    data = view_data(at)
    assert data["dot"] == backward_view.backward_view(MICROGRAD)["dot"]  # laid out once, at the program's numbers
    result = evaluate(MICROGRAD.replace("a = -4.0", "a = -2.5"))
    result.output.backward()
    graph = backward_view.backward_graph(evaluate(MICROGRAD).output)
    for leaf, g in graph.grads:
        want = backward_view.numbers.compact(result.inputs[graph.nodes[leaf].name].grad)
        assert data["values"][str(g)]["tip"][0] == want


def test_a_link_s_again_that_is_no_leaf_is_said_and_the_backward_kept():
    at = open_page(EXPLORER, {"program": MICROGRAD, "backward": "1", "again": "<script>"})
    no_exception(at)
    assert any("again=" in w.value and "not a leaf" in w.value for w in at.warning)
    assert at.selectbox(key=keys.BACKWARD_AGAIN).value == ""
    assert "order-2" in view_data(at)["dot"] and "order-3" not in view_data(at)["dot"]


def test_a_backward_graph_too_big_to_read_is_cut_and_says_so_over_the_graph():
    lines = ["x = [0.5, -1.0, 2.0]", "w = [1.5, 0.3, -0.7]", "y0 = (x * w).tanh()"]
    lines += [f"y{i} = (y{i - 1} * w + x).tanh()" for i in range(1, 40)] + ["out = y39.sum()"]
    text = "\n".join(lines)
    at = _switch_on(open_page(EXPLORER, {"program": text}))
    data = view_data(at)
    total = sum(data["counts"].values())
    assert len(data["boxes"]) <= backward_view.MAX_DRAWN < total
    assert data["caption"] == data["cut"] == backward_view.cut_words(len(data["boxes"]), total)
    assert any("Too big to read whole" in c.value for c in at.caption)
