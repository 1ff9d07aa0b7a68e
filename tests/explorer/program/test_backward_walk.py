"""explorer.program.backward_walk: the Stepper's walk of a grad's backward (issue 32) visits every node that second
backward visits, in the engine's order, and ends in the engine's second-order grads (autograd.grad twice, and central
differences of the first-order grads in float64); the backward graph's boxes inspected and exported."""

import numpy as np
import pytest

from autograd import grad
from autograd.graph import grads_at
from autograd.tensor import toposort
from explorer.program import backward_view, backward_walk, view_data
from explorer.program.presets import PRESETS
from language import compile_program

TANH = "x = [0.3, -1.2, 0.8]\nw = [1.5, 0.5, -2.0]\ny = ((x * w).tanh() * x).sum()"
PRESET_TEXTS = {name: text for name, (_, text) in PRESETS.items()}


def _again_choices(text):
    bg = backward_view.layers(text)[0]
    return backward_view.choices(bg)


def _cases():
    for name, text in PRESET_TEXTS.items():
        choices = _again_choices(text)
        for again in dict.fromkeys([choices[0], choices[-1]]):
            yield pytest.param(text, again, id=f"{name}-{again}")


def _new_output(text, again):
    """The walk's root rebuilt independently of backward_walk: Σ grad ``again`` by autograd.grad(create_graph=True)."""
    result = compile_program(text).run()
    leaves = [t for t in result.inputs.values() if t.requires_grad]
    firsts = grad(result.output, leaves, create_graph=True, allow_unused=True)
    picked = [g for t, g in zip(leaves, firsts) if g is not None and (again == backward_view.ALL or t.name == again)]
    total = picked[0].sum()
    for g in picked[1:]:
        total = total + g.sum()
    return result, leaves, total


@pytest.mark.parametrize(("text", "again"), list(_cases()))
def test_the_walk_steps_through_every_node_the_second_backward_visits_and_ends_in_its_grads(text, again):
    w = backward_walk.walk(text, (), again)
    if w.constant:
        assert w.steps == () and "constant" in backward_walk.sentence(w)
        return
    result, leaves, total = _new_output(text, again)
    visited = [t for t in toposort(total) if t._prim is not None and t.requires_grad]
    assert len(w.steps) == len(visited)
    assert sorted(s.node for s in w.steps) == sorted(set(s.node for s in w.steps))  # each node once
    timeline = view_data.program_stepper.step_timeline(w.graph, w.steps)
    for step in w.steps:
        assert timeline.active_at[step.node] == step.index + 1
    assert w.graph.nodes[w.graph.output].name == w.output
    # the grads at the end of the walk are the second backward's (autograd.grad of Σ grad, create_graph's graph)
    seconds = grad(total, leaves, allow_unused=True)
    at_end = grads_at(w.graph, w.steps, len(w.steps))
    ids = {n.name: n.id for n in w.graph.nodes if n.kind in ("input", "param")}
    for t, ref in zip(leaves, seconds):
        want = np.zeros(t.shape) if ref is None else ref.data
        np.testing.assert_allclose(w.grads[t.name], want, rtol=1e-9, atol=1e-12)
        if t.name in ids and ref is not None:
            np.testing.assert_allclose(at_end[ids[t.name]], want, rtol=1e-9, atol=1e-12)
    # two layers: the forward's nodes (1) and those the first backward made (2), the grads among them
    assert set(w.orders.values()) == {1, 2}
    assert {n.kind for n in w.graph.nodes if w.orders[n.id] == 2} >= {"grad"}


def _first_order_sum(text, again, values):
    result = compile_program(text).run(inputs=values)
    result.output.backward()
    names = [n for n, t in result.inputs.items() if t.requires_grad] if again == backward_view.ALL else [again]
    return sum(float(np.sum(result.inputs[n].grad)) for n in names)


@pytest.mark.parametrize("again", ["x", "w", backward_view.ALL])
def test_the_walk_s_grads_equal_central_differences_of_the_first_derivative(again):
    w = backward_walk.walk(TANH, (), again)
    own = {n: np.array(t.data, dtype=np.float64) for n, t in compile_program(TANH).run().inputs.items()}
    eps = 1e-6
    for name, got in w.grads.items():
        fd = np.zeros_like(own[name])
        for i in range(own[name].size):
            hi, lo = dict(own), dict(own)
            hi[name], lo[name] = own[name].copy(), own[name].copy()
            hi[name].reshape(-1)[i] += eps
            lo[name].reshape(-1)[i] -= eps
            fd.reshape(-1)[i] = (_first_order_sum(TANH, again, hi) - _first_order_sum(TANH, again, lo)) / (2 * eps)
        np.testing.assert_allclose(got, fd, rtol=1e-6, atol=1e-8)


def test_the_walk_at_poked_numbers_is_the_backward_there():
    poked = backward_walk.walk(TANH, (("x", 0.5),), "x")  # a vector's slider scales it
    moved = TANH.replace("x = [0.3, -1.2, 0.8]", "x = [0.15, -0.6, 0.4]")
    want = backward_walk.walk(moved, (), "x")
    for name in want.grads:
        np.testing.assert_allclose(poked.grads[name], want.grads[name], rtol=1e-12)


def test_the_view_s_boxes_say_their_layer_and_the_steps_say_the_seed_and_each_vjp():
    data = backward_walk.walk_view(TANH, (), "x")
    w = backward_walk.walk(TANH, (), "x")
    for box, order in data["orders"].items():
        line = data["dot"].split(f"  n{box} [", 1)[1].split("\n")[0]
        assert f'order-{order}"' in line
        assert data["boxes"][box]["order"] == order
    assert {"backward", "grad"} <= {e["key"] for e in data["legend"]}
    steps = data["steps"]
    assert steps["count"] == len(w.steps) == len(steps["panels"]) - 1
    assert "Σ grad x" in steps["panels"][0]["title"]
    fan = [c for p in steps["panels"][1:] for c in p["contributions"] if c["fan_out"]]
    assert fan, "x feeds several nodes of both layers: its grad is summed"
    assert set(steps["jacobians"]) <= {str(s.node) for s in w.steps}
    assert "`Σ grad x`" in data["sentence"] and "second derivative" in data["sentence"]


def test_a_constant_grad_walks_nothing_and_says_so():
    w = backward_walk.walk("x = [1.0, 2.0]\ny = (x * 3.0).sum()", (), "x")
    assert w.constant and w.steps == ()
    data = backward_walk.walk_view("x = [1.0, 2.0]\ny = (x * 3.0).sum()", (), "x")
    assert data["steps"]["count"] == 0 and "nothing to step through" in data["sentence"]


def test_again_of_a_name_with_no_grad_raises_words():
    with pytest.raises(ValueError, match="choose one of"):
        backward_walk.walk(TANH, (), "nope")


def test_a_box_of_the_backward_graph_inspected_says_its_op_rule_inputs_value_and_second_grad():
    again = backward_walk.inspect_box(TANH, (), "x", None)
    drawn, orders, _, _ = backward_view.layers(TANH, (), "x")
    w = backward_walk.walk(TANH, (), "x")
    leaf = next(n.id for n in drawn.nodes if n.name == "x")
    x = backward_walk.inspect_box(TANH, (), "x", leaf)
    assert x["kind"] == "input" and x["op"] == "" and x["order"] == 1
    assert x["grad"] == backward_view.numbers.array_text(w.grads["x"])
    made = next(n.id for n in drawn.nodes if orders[n.id] == 2 and n.op == "mul")
    box = backward_walk.inspect_box(TANH, (), "x", made)
    assert box["order"] == 2 and box["layer"] == "the backward pass" and box["formula"]
    assert len(box["inputs"]) == 2 and box["grad"] is not None
    third = next(n.id for n in drawn.nodes if orders[n.id] == 3)
    assert backward_walk.inspect_box(TANH, (), "x", third)["grad"] is None
    assert again["box"] == backward_view.as_drawn(drawn, orders)[0].output
    first = backward_walk.inspect_box(TANH, (), "", made)
    assert first["grad"] is None and first["grad_note"] == ""


def test_the_export_is_the_backward_graph_with_every_box_and_its_layer():
    dot = backward_walk.download_dot(TANH, (), "x", ("data", "shape"), "LR")
    drawn, orders, _, _ = backward_view.layers(TANH, (), "x")
    for n in drawn.nodes:
        assert f'  n{n.id} [' in dot
    assert "order-3" in dot and "rankdir=LR" in dot.replace(" ", "").replace('"', "")


def test_a_step_s_jacobian_asked_for_later_is_the_one_sent_within_the_budget():
    data = backward_walk.walk_view(TANH, (), "x")
    sent = {k: v for k, v in data["steps"]["jacobians"].items() if v and not v.get("later")}
    assert sent
    node = next(iter(sent))
    assert backward_walk.walk_jacobians(TANH, (), "x", (int(node),)) == {node: sent[node]}
