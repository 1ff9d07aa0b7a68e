"""The transformer presets (issue 35): the causal attention head's Backward Stepper steps and softmax's Jacobian,
and the one-block transformer's loss and grads against the same model written with autograd.functional."""

import numpy as np

import autograd.functional as F
from autograd import Tensor
from autograd.expr import evaluate
from explorer.program import jacobian_view, presets, run

HEAD = presets.program("causal attention head")
BLOCK = presets.program("transformer training step")


def test_the_stepper_walks_every_part_of_the_causal_head():
    graph, steps = run.step_program(HEAD)
    ops = [graph.nodes[s.node].op for s in steps]
    # backward order: loss, out² , out = p @ v, softmax, masked_fill, / √d, q @ kᵀ (with kᵀ), the projections
    for op in ("sum", "pow", "matmul", "softmax", "masked_fill", "div", "transpose"):
        assert op in ops, (op, ops)
    assert ops.index("softmax") < ops.index("masked_fill") < ops.index("div")
    r = evaluate(HEAD)
    r.output.backward()
    p, mask = r.variables["p"].data, r.variables["mask"].data
    assert np.array_equal(mask, np.triu(np.ones((4, 4), dtype=bool), 1))
    assert np.all(p[mask] == 0) and np.allclose(p.sum(axis=1), 1.0, rtol=1e-14)
    assert np.all(r.variables["scores"].grad[mask] == 0), "a masked score gets no grad"
    assert np.all(r.variables["masked"].grad[mask] == 0), "p = 0 there, so softmax sends nothing back"


def test_softmax_s_jacobian_in_the_stepper_is_diag_p_minus_p_p_transposed():
    graph, steps = run.step_program(HEAD)
    softmax = next(n for n in graph.nodes if n.op == "softmax")
    views = jacobian_view.step_jacobians(HEAD, ())
    view = views[str(softmax.id)]
    assert "inputs" in view, "softmax's Jacobian is sent with the steps, not asked for later"
    (section,) = view["inputs"]
    jac = np.array(section["matrix"], dtype=float).reshape(16, 16)
    p = evaluate(HEAD).variables["p"].data
    expected = np.zeros((16, 16))
    for i, row in enumerate(p):  # one block per row of scores: diag(p) − p pᵀ
        expected[4 * i:4 * i + 4, 4 * i:4 * i + 4] = np.diag(row) - np.outer(row, row)
    np.testing.assert_allclose(jac, expected, rtol=1e-5, atol=1e-12)  # sent at display precision
    assert "block" in section["structure"], section["structure"]
    assert section["numeric_ok"] and view["max_error"] < 1e-12


def test_the_transformer_step_matches_the_same_model_written_with_the_functions():
    r = evaluate(BLOCK)
    r.output.backward()
    v = r.variables
    weights = ["E", "P", "Wq", "Wk", "Wv", "W1", "b1", "W2", "b2"]

    mine = {name: Tensor(v[name].data.copy(), requires_grad=True) for name in weights}
    x = F.embedding(mine["E"], [0, 3, 1, 4]) + mine["P"]
    q, k, vv = x @ mine["Wq"], x @ mine["Wk"], x @ mine["Wv"]
    h = x + F.scaled_dot_product_attention(q, k, vv, is_causal=True)
    y = h + F.linear(F.relu(F.linear(h, mine["W1"], mine["b1"])), mine["W2"], mine["b2"])
    loss = F.cross_entropy(y @ mine["E"].T, [3, 1, 4, 2])
    loss.backward()
    np.testing.assert_allclose(r.output.data, loss.data, rtol=1e-12)
    for name in weights:
        assert v[name].grad is not None and np.any(v[name].grad != 0), name
        np.testing.assert_allclose(v[name].grad, mine[name].grad, rtol=1e-9, atol=1e-12, err_msg=name)
