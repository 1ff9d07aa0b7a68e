"""explorer.program.backward_graph: the backward pass as a graph of its own, on every preset and on a generated
program of every primitive: its grads are the engine's, its nodes are topologically ordered, the forward's are
the traced graph's, and differentiating one grad again gives the Hessian-vector product."""

import numpy as np
import pytest

from autograd import func
from autograd.graph import trace
from autograd.ops import PRIMITIVES
from explorer.program.backward_graph import BACKWARD, FORWARD, backward_graph
from explorer.program.presets import PRESETS
from language import evaluate
from tests.support.program_gen import programs_of

PROGRAMS = [(name, text) for name, (_, text) in PRESETS.items()]
PROGRAMS += [(f"generated {prim}", next(programs_of(prim, limit=1), None)) for prim in sorted(PRIMITIVES)]
PROGRAMS = [(name, text) for name, text in PROGRAMS if text is not None]


@pytest.mark.parametrize(("label", "text"), PROGRAMS, ids=[label for label, _ in PROGRAMS])
def test_the_backward_graph_s_grads_are_the_engine_s_and_its_nodes_are_in_order(label, text):
    result = evaluate(text)
    if not result.output.requires_grad:
        with pytest.raises(ValueError, match="no backward pass"):
            backward_graph(result.output)
        return
    graph = backward_graph(result.output, uses=result.uses)
    assert all(t.grad is None for t in graph.tensors), f"{label}: building the graph wrote a .grad"
    traced = trace(result.output, uses=result.uses)
    assert [n.op for n in graph.forward()] == [n.op for n in traced.nodes]
    for node in graph.nodes:
        assert all(p < node.id for p in node.parents), f"{label}: node {node.id} before its parents"
        assert node.order == (FORWARD if node.id < len(traced.nodes) else BACKWARD)
    assert graph.grads and {graph.nodes[leaf].kind for leaf, _ in graph.grads} <= {"input", "param"}
    result.output.backward()
    for leaf_id, grad_id in graph.grads:
        leaf = graph.tensors[leaf_id]
        if grad_id is None:  # the output does not depend on this leaf
            assert leaf.grad is None or not np.any(leaf.grad), f"{label}: {leaf.name} has a grad but no grad node"
            continue
        got = graph.nodes[grad_id]
        assert got.kind == "grad" and f"grad {leaf.name}" in got.name.split(", ")
        np.testing.assert_allclose(got.value, leaf.grad, rtol=1e-12, atol=1e-14, equal_nan=True,
                                   err_msg=f"{label}: grad {leaf.name}")


def test_the_backward_s_nodes_are_its_own_and_say_which_op_made_them():
    result = evaluate("x = [1.0, -2.0]\nw = [0.5, 3.0]\ny = ((x * w).tanh()).sum()")
    graph = backward_graph(result.output)
    ops = [n.op for n in graph.backward() if n.op]
    assert "mul" in ops and "sub" in ops  # G ⊙ w, and tanh's 1 − y·y
    assert all(n.order == FORWARD for n in graph.nodes[: len(trace(result.output).nodes)])
    assert graph.nodes[graph.output].kind == "output"


def test_a_grad_two_leaves_share_is_named_after_both():
    result = evaluate("a = [1.0, 2.0]\nb = [3.0, 4.0]\ny = a + b")
    graph = backward_graph(result.output)
    (_, ga), (_, gb) = graph.grads
    assert ga == gb and graph.nodes[ga].name == "grad a, grad b" and graph.nodes[ga].kind == "grad"


def test_differentiating_a_grad_again_runs_through_both_layers_and_gives_h_times_u():
    text = "x = [0.3, -1.2, 0.8]\ny = (x.tanh() * x).sum() + (x ** 3).mean()"
    result = evaluate(text)
    graph = backward_graph(result.output)
    (leaf_id, grad_id), = graph.grads
    u = np.array([1.0, -0.5, 2.0])
    again = backward_graph((graph.tensors[grad_id] * u).sum(), inputs=[graph.tensors[leaf_id]])
    (_, second_id), = again.grads
    x = result.inputs["x"]
    _, (hv,) = func.hvp(lambda t: (t.tanh() * t).sum() + (t**3).mean(), (x,), (u,))
    np.testing.assert_allclose(again.nodes[second_id].value, hv.data, rtol=1e-12)
    assert len(again.backward()) > 0 and len(again.forward()) > len(graph.forward())
