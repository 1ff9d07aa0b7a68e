"""explorer.program.jacobian_view: what the Jacobian view is sent for a node of a program (its J, g, gᵀJ, the VJP's
result, the checks and the cost), the one-line reading of J's structure, and the Jacobians sent with the
Backward Stepper's steps (a budget, then asked for one by one)."""

import json
import re

import numpy as np
import pytest

from autograd.expr import evaluate
from autograd.graph import trace
from explorer.graph import names
from explorer.program import (
    jacobian_view,
    page_data,
    poke,
    presets,
    run,
)

SOFTMAX = "x = [0.5, -1.0, 2.0, 0.0, 1.5]\nw = [1.0, -2.0, 0.5, 3.0, -1.0]\ny = (softmax(x) * w).sum()\n"
BROADCAST = presets.program("broadcasting bias")
MATMUL = "A = [[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]]\nW = [[0.5, -1.0], [2.0, 1.0], [0.0, 3.0]]\nY = (A @ W).sum()\n"


def node_id(text, op):
    return next(n.id for n in trace(evaluate(text).output).nodes if n.op == op)


def matrix(section):
    return np.array(section["matrix"], dtype=float).reshape(section["shown_rows"], section["shown_cols"])


def test_softmax_is_a_dense_block_with_its_cost():
    data = jacobian_view.node_jacobian(SOFTMAX, (), node_id(SOFTMAX, "softmax"))
    json.dumps(data, allow_nan=False)
    (x,) = data["inputs"]
    assert data["op"] == "softmax" and data["out_shape"] == [5] and (x["rows"], x["cols"]) == (5, 5)
    s = evaluate(SOFTMAX).variables["y"].parents[0].parents[0].data
    np.testing.assert_allclose(matrix(x), np.diag(s) - np.outer(s, s), atol=1e-6)
    assert x["structure"].startswith("Dense")
    np.testing.assert_allclose(data["g"], [1.0, -2.0, 0.5, 3.0, -1.0])  # the grad of softmax(x) is w
    np.testing.assert_allclose(x["gtj"], x["vjp"], atol=1e-15)
    assert data["max_error"] < 1e-15 and x["numeric_ok"] and x["numeric_error"] < 1e-8
    assert data["entries"] == 25 and data["operations"] == 4 * 5 - 1  # g·s, Σ, g − Σ, s ⊙ (…)
    assert data["title"] == "softmax #1" and x["label"] == "x" and x["slot_name"] == ""


def test_broadcast_add_shows_the_summing_pattern():
    data = jacobian_view.node_jacobian(BROADCAST, (), node_id(BROADCAST, "add"))
    X, bias = data["inputs"]
    assert (X["rows"], X["cols"], bias["rows"], bias["cols"]) == (12, 12, 12, 4)
    np.testing.assert_array_equal(matrix(X), np.eye(12))
    np.testing.assert_array_equal(matrix(bias), np.tile(np.eye(4), (3, 1)))
    assert X["structure"].startswith("Diagonal")
    assert bias["structure"].startswith("One entry per row") and "3 outputs" in bias["structure"]
    assert (X["slot_name"], bias["slot_name"]) == ("A", "B") and bias["label"] == "bias"
    assert data["operations"] == 12 - 4


def test_matmul_shows_kronecker_blocks():
    data = jacobian_view.node_jacobian(MATMUL, (), node_id(MATMUL, "matmul"))
    A, W = data["inputs"]
    a = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
    w = np.array([[0.5, -1.0], [2.0, 1.0], [0.0, 3.0]])
    np.testing.assert_allclose(matrix(A), np.kron(np.eye(2), w.T))
    np.testing.assert_allclose(matrix(W), np.kron(a, np.eye(2)))
    assert A["structure"].startswith("Block-diagonal: 2 blocks of 2 × 3")
    assert W["structure"].startswith("Blocks of scaled identities: J = A ⊗ I₂. Output element (i, j) sees W[k, j]")
    assert data["operations"] == 2 * 2 * 3 + 3 * 2 * 2


def test_poked_values_change_the_jacobian():
    text = "a = 2.0\nb = 3.0\nc = a * b\n"
    mul = node_id(text, "mul")
    assert [jacobian_view.node_jacobian(text, (), mul)["inputs"][k]["matrix"] for k in (0, 1)] == [[3.0], [2.0]]
    poked = jacobian_view.node_jacobian(text, (("b", -1.5),), mul)
    assert [poked["inputs"][k]["matrix"] for k in (0, 1)] == [[-1.5], [2.0]]
    assert poked["inputs"][0]["structure"].startswith("One number")


def test_leaves_and_constants():
    text = "x = [1.0, -2.0]\ny = (x * 2.0).sum()\n"
    graph = trace(evaluate(text).output)
    leaf = next(n.id for n in graph.nodes if n.name == "x")
    assert jacobian_view.node_jacobian(text, (), leaf) is None
    assert jacobian_view.node_jacobian(text, (), 99) is None
    data = jacobian_view.node_jacobian(text, (), node_id(text, "mul"))
    assert data["constants"] == ["const #1"] and len(data["inputs"]) == 1


def test_a_big_jacobian_is_a_block_and_says_so():
    text = "x = randn(300)\ny = softmax(x).max()\n"
    data = jacobian_view.node_jacobian(text, (), node_id(text, "softmax"))
    (x,) = data["inputs"]
    assert (x["rows"], x["cols"], x["shown_rows"], x["shown_cols"]) == (300, 300, 64, 64)
    assert x["gtj"] is None and x["max_error"] is None and data["max_error"] is None
    assert len(x["matrix"]) == 64 * 64 and x["numeric"] is None and len(x["vjp"]) == 64
    assert "(in the block shown)" in x["structure"]


@pytest.mark.parametrize(("m", "starts"), [
    (np.diag([1.0, 2.0, 3.0]), "Diagonal"),
    (np.array([[0.0, 1.0], [1.0, 0.0]]), "A permutation: 0/1 with one 1 in every row and column"),
    (np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]), "0/1, at most one 1 per row and column"),
    (np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]]), "One entry per row"),
    (np.array([[2.0, 0.0], [0.0, 5.0], [3.0, 0.0]]), "One entry per row"),
    (np.array([[0.25, 0.25, 0.25, 0.25]]), "One row, every entry 0.25"),
    (np.array([[1.0, -2.0, 0.5]]), "One row:"),
    (np.kron(np.eye(3), np.ones((2, 2))), "Block-diagonal: 3 dense blocks of 2 × 2"),
    (np.kron(np.array([[1.0, 2.0], [3.0, 4.0]]), np.eye(3)), "Blocks of scaled identities: J = [1 2 ; 3 4] ⊗ I₃"),
    (np.ones((3, 4)), "Dense"),
    (np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 3.0], [4.0, 5.0, 0.0]]), "Sparse: 5 of 9"),
    (np.zeros((2, 2)), "All zero"),
    (np.array([[7.0]]), "One number"),
])
def test_structure_reads_the_pattern(m, starts):
    assert jacobian_view.structure(m, True).startswith(starts), jacobian_view.structure(m, True)


def test_the_jacobian_of_x_at_w_names_the_program_s_operands():
    """Issue 17 item 7: the text beside J of ``x @ W`` with respect to W uses the program's names throughout
    (J = x ⊗ I₂, W[k, j], x[i, k]), never a mix of X, B and the program's own."""
    text = "x = randn(3, 4)\nW = randn(4, 2)\ny = (x @ W).sum()"
    graph, _ = run.step_program(text)
    matmul = next(n for n in graph.nodes if n.op == "matmul")
    view = jacobian_view.node_jacobian(text, (), matmul.id)
    by_label = {s["label"]: s["structure"] for s in view["inputs"]}
    assert by_label["W"] == ("Blocks of scaled identities: J = x ⊗ I₂. Output element (i, j) sees W[k, j] only, "
                             "weighted by x[i, k].")
    assert not re.search(r"\b[BX]\b", by_label["W"]), "no name the program does not have"
    assert by_label["x"].startswith("Block-diagonal: 3 dense blocks of 2 × 4")


def test_the_stepper_gets_the_jacobian_of_every_step_s_node():
    text = presets.program("micrograd")
    graph, steps = run.step_program(text)
    views = jacobian_view.step_jacobians(text, ())
    assert set(views) == {str(s.node) for s in steps}
    json.dumps(views, allow_nan=False)
    first = views[str(steps[0].node)]
    assert first["title"] == names.node_heading(graph.nodes[steps[0].node])
    poked = jacobian_view.step_jacobians(text, (("a", -3.0),))
    assert poked != views


def test_past_the_budget_a_step_s_jacobian_is_sent_when_asked():
    text = "x = randn(64)\ny = softmax(x)\nz = softmax(y)\nw = (z * z).sum()\n"
    graph, steps = run.step_program(text)
    views = jacobian_view.step_jacobians(text, (), budget=5000)
    order = [str(s.node) for s in steps]
    # sum: 1 × 64 fits; z * z: 2 × 64 × 64 does not; softmax: 64 × 64 still fits; the last softmax does not
    assert [views[k].get("later", False) for k in order] == [False, True, False, True]
    asked = (int(order[1]), int(order[3]))
    more = jacobian_view.step_jacobians(text, (), asked, 5000)
    assert set(more) == {order[1], order[3]} and all("inputs" in v for v in more.values())


def test_slider_names_and_labels_are_consistent_with_the_graph():
    text = presets.program("attention scores")
    sm = node_id(text, "softmax")
    data = jacobian_view.node_jacobian(text, (("Q", 0.5),), sm)
    assert data["out"] == "scores" and data["inputs"][0]["label"] == "div #5"
    assert poke.sliders(text)[0].name == "Q"


def test_the_stepper_s_one_evaluation_gives_the_same_graph_steps_and_jacobians():
    text = presets.program("attention scores")
    poked = (("V", 0.5),)
    page_run = page_data.stepper_drag_run(text, poked)
    graph, steps, views = page_run.graph, page_run.steps, page_run.jacobians
    alone_graph, alone_steps = run.step_program(text, poked)
    assert len(steps) == len(alone_steps) and [s.node for s in steps] == [s.node for s in alone_steps]
    for a, b in zip(graph.nodes, alone_graph.nodes):
        np.testing.assert_array_equal(a.data, b.data)
    assert views == jacobian_view.step_jacobians(text, poked)
    constant = page_data.stepper_drag_run("y = eye(2).sum()\n", ())
    assert (constant.steps, constant.jacobians) == ((), {})


def test_a_long_vectors_step_views_are_blocks_its_memory_affords():
    """Issue 22 item 5: the Stepper of a 1,000,000-element vector built 64-row blocks of J (64 × 1,000,000
    numbers, and as many again by central differences: 1,054 MB traced, past one evaluation's 640 MB); each view's
    block is now what view_limit predicts from the shapes, and the program is stepped."""
    import tracemalloc

    tracemalloc.start()
    try:
        page_run = page_data.stepper_drag_run("x = randn(1000000)\ny = x.relu().sum()", ())
        steps, views = page_run.steps, page_run.jacobians
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(steps) == 2 and peak < 320 * 2**20, f"{peak / 2**20:.0f} MB"
    relu = next(v for v in views.values() if v and v.get("op") == "relu")
    (section,) = relu["inputs"]
    assert (section["rows"], section["cols"]) == (1_000_000, 1_000_000)
    assert section["shown_rows"] * section["cols"] <= jacobian_view.VIEW_ENTRIES and section["numeric_ok"]
