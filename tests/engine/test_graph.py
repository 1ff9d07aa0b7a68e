"""graph.py: the traced graph as plain data and the backward pass observed step by step."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autograd import Parameter, Tensor
from autograd.graph import Graph, Node, backward_steps, grads_at, trace


def small_program():
    a = Tensor(2.0, requires_grad=True, name="a")
    b = Tensor([1.0, 2.0, 3.0], requires_grad=True, name="b")
    c = Tensor(3.0, name="c")  # a constant
    d = a * b
    e = d + c
    f = e.sum()
    return (a, b, c, d, e, f), f


def test_trace_nodes_edges_and_kinds():
    (a, b, c, d, e, f), out = small_program()
    graph = trace(out)
    assert isinstance(graph, Graph) and all(isinstance(n, Node) for n in graph.nodes)
    assert len(graph.nodes) == 6 and len(graph) == 6
    assert len(graph.edges) == 5
    by_name = {n.name: n for n in graph.nodes if n.name}
    assert by_name["a"].kind == "input" and by_name["b"].kind == "input" and by_name["c"].kind == "const"
    kinds = sorted(n.kind for n in graph.nodes)
    assert kinds == ["const", "input", "input", "op", "op", "output"]
    ops = [n.op for n in graph.nodes]
    assert ops.count("mul") == 1 and ops.count("add") == 1 and ops.count("sum") == 1 and ops.count("") == 3
    assert graph.output == len(graph.nodes) - 1 and graph.nodes[graph.output].op == "sum"
    mul = next(n for n in graph.nodes if n.op == "mul")
    assert mul.parents == (by_name["a"].id, by_name["b"].id)  # argument order
    assert mul.shape == (3,) and mul.dtype == "float64" and np.array_equal(mul.data, d.data)
    assert mul.formula and mul.requires_grad
    assert by_name["c"].formula == "" and not by_name["c"].requires_grad
    assert all(n.grad is None for n in graph.nodes)  # no backward yet


def test_trace_ids_are_a_topological_order():
    _, out = small_program()
    graph = trace(out)
    assert [n.id for n in graph.nodes] == list(range(len(graph.nodes)))
    for parent, child in graph.edges:
        assert parent < child
    assert set(graph.edges) == {(p, n.id) for n in graph.nodes for p in n.parents}
    # Deterministic: tracing the same program again gives the same structure.
    again = trace(small_program()[1])
    assert [(n.op, n.kind, n.parents) for n in graph.nodes] == [(n.op, n.kind, n.parents) for n in again.nodes]


def test_trace_repeated_parent_and_params():
    w = Parameter(np.array([1.0, 2.0]))
    x = Tensor(np.array([3.0, 4.0]))
    y = (w * w + x).sum()
    graph = trace(y)
    square = next(n for n in graph.nodes if n.op == "mul")
    assert square.parents[0] == square.parents[1]
    assert sum(1 for edge in graph.edges if edge[1] == square.id) == 2
    kinds = {n.id: n.kind for n in graph.nodes}
    assert kinds[square.parents[0]] == "param"
    y.backward()
    graph = trace(y)
    assert np.array_equal(graph.nodes[square.parents[0]].grad, [2.0, 4.0])
    with pytest.raises(TypeError):
        trace(np.ones(2))


def test_trace_leaf_output():
    x = Tensor(1.0, requires_grad=True)
    graph = trace(x)
    assert len(graph.nodes) == 1 and graph.edges == () and graph.nodes[0].kind == "output"


def _all_grads(tensors):
    return [None if t.grad is None else np.array(t.grad) for t in tensors]


def test_backward_steps_end_in_the_grads_backward_gives():
    tensors, out = small_program()
    fresh, fresh_out = small_program()
    fresh_out.backward()
    graph, steps = backward_steps(out)
    for t, u in zip(tensors, fresh):
        if u.grad is None:
            assert t.grad is None
        else:
            assert np.array_equal(t.grad, u.grad)
    final = grads_at(graph, steps, len(steps))
    ids = {n.name: n.id for n in graph.nodes if n.name}
    assert np.array_equal(final[ids["a"]], fresh[0].grad)
    assert np.array_equal(final[ids["b"]], fresh[1].grad)
    assert ids["c"] not in final
    for node in graph.nodes:
        if node.requires_grad:
            assert np.array_equal(node.grad, final[node.id])


def test_number_of_steps_equals_op_nodes_requiring_grad():
    _, out = small_program()
    graph, steps = backward_steps(out)
    op_nodes = [n for n in graph.nodes if n.op and n.requires_grad]
    assert len(steps) == len(op_nodes) == 3
    assert [s.index for s in steps] == [0, 1, 2]
    assert [s.op for s in steps] == ["sum", "add", "mul"]  # reverse topological order
    assert steps[0].node == graph.output
    for step in steps:
        assert step.formula == graph.nodes[step.node].formula and step.formula
    # Constants receive nothing: add's step has one contribution (to d), not two.
    add_step = steps[1]
    assert len(add_step.contributions) == 1
    assert graph.nodes[add_step.contributions[0].parent].op == "mul"


def test_summed_axes_for_a_broadcast_add():
    a = Tensor(np.arange(3.0).reshape(3, 1), requires_grad=True)
    b = Tensor(np.arange(4.0), requires_grad=True)
    out = (a + b).sum()
    graph, steps = backward_steps(out)
    add = next(s for s in steps if s.op == "add")
    assert add.upstream.shape == (3, 4)
    ca, cb = add.contributions
    assert graph.nodes[ca.parent].shape == (3, 1) and graph.nodes[cb.parent].shape == (4,)
    assert ca.raw.shape == (3, 4) and cb.raw.shape == (3, 4)
    assert ca.summed_axes == (1,) and cb.summed_axes == (0,)
    assert np.array_equal(ca.grad, np.full((3, 1), 4.0)) and np.array_equal(cb.grad, np.full(4, 3.0))
    total = next(s for s in steps if s.op == "sum")
    assert total.contributions[0].summed_axes == ()


def test_fan_out_index_and_total():
    x = Tensor(np.array([1.0, 2.0]), requires_grad=True, name="x")
    y = (x * 2.0 + x * 3.0 + x.exp()).sum()  # x used three times
    graph, steps = backward_steps(y)
    x_id = next(n.id for n in graph.nodes if n.name == "x")
    to_x = [c for s in steps for c in s.contributions if c.parent == x_id]
    assert [c.fan_out_index for c in to_x] == [1, 2, 3]
    assert all(c.fan_out_total == 3 for c in to_x)
    running = np.zeros(2)
    for c in to_x:
        running = running + c.grad
        assert np.allclose(c.accumulated, running)
    assert np.array_equal(to_x[-1].accumulated, x.grad)
    assert np.allclose(x.grad, 5.0 + np.exp([1.0, 2.0]))
    # Every other node receives exactly one contribution.
    others = [c for s in steps for c in s.contributions if c.parent != x_id]
    assert all(c.fan_out_index == 1 and c.fan_out_total == 1 for c in others)


def test_grads_at_is_monotone_and_consistent():
    x = Tensor(np.array([0.5, -1.0]), requires_grad=True, name="x")
    w = Tensor(np.array([2.0, 3.0]), requires_grad=True, name="w")
    h = (x * w).tanh()
    out = (h * x + w).sum()
    graph, steps = backward_steps(out, seed=np.array(2.0))
    assert set(grads_at(graph, steps, 0)) == {graph.output}
    assert np.array_equal(grads_at(graph, steps, 0)[graph.output], np.array(2.0))
    previous = {}
    for k in range(len(steps) + 1):
        now = grads_at(graph, steps, k)
        assert set(previous) <= set(now)
        if k < len(steps):
            step = steps[k]
            # When a node is processed its gradient is complete: it equals the node's final grad.
            assert np.array_equal(now[step.node], step.upstream)
            assert np.array_equal(step.upstream, graph.nodes[step.node].grad)
        previous = now
    final = grads_at(graph, steps, len(steps))
    assert set(final) == {n.id for n in graph.nodes if n.requires_grad}
    assert np.array_equal(final[next(n.id for n in graph.nodes if n.name == "x")], x.grad)
    with pytest.raises(IndexError):
        grads_at(graph, steps, len(steps) + 1)
    with pytest.raises(IndexError):
        grads_at(graph, steps, -1)


def test_backward_steps_seed_and_accumulation_match_backward():
    x = Tensor(np.array([1.0, 2.0, 3.0]), requires_grad=True)
    out = x * x
    seed = np.array([1.0, -1.0, 0.5])
    graph, steps = backward_steps(out, seed)
    assert np.array_equal(x.grad, 2 * x.data * seed)
    assert np.array_equal(steps[0].upstream, seed)


# ---- random programs: stepwise grads equal backward()'s -----------------------------------------
UNARY = {
    "tanh": lambda t: t.tanh(),
    "sigmoid": lambda t: t.sigmoid(),
    "relu": lambda t: t.relu(),
    "neg": lambda t: -t,
    "scale": lambda t: t * 0.7,
    "exp": lambda t: (t * 0.1).exp(),
    "sum_keep": lambda t: t.sum(axis=-1, keepdims=True) if t.ndim else t.sum(),
    "mean": lambda t: t.mean(axis=0) if t.ndim else t.mean(),
    "softmax": lambda t: t.softmax() if t.ndim else t.sigmoid(),
    "gelu": lambda t: t.gelu(),
}
BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
}
LEAF_SHAPES = [(), (3,), (2, 3), (1, 3), (2, 1)]


@st.composite
def programs(draw):
    n_leaves = draw(st.integers(2, 3))
    shapes = [draw(st.sampled_from(LEAF_SHAPES)) for _ in range(n_leaves)]
    seed = draw(st.integers(0, 2**32 - 1))
    n_ops = draw(st.integers(1, 8))
    instructions = []
    for k in range(n_ops):
        pool = n_leaves + k
        if draw(st.booleans()):
            instructions.append((draw(st.sampled_from(sorted(UNARY))), draw(st.integers(0, pool - 1))))
        else:
            instructions.append(
                (draw(st.sampled_from(sorted(BINARY))), draw(st.integers(0, pool - 1)), draw(st.integers(0, pool - 1)))
            )
    return shapes, seed, instructions


def run_program(shapes, seed, instructions):
    rng = np.random.default_rng(seed)
    leaves = [Tensor(rng.standard_normal(s), requires_grad=True) for s in shapes]
    pool = list(leaves)
    for name, *args in instructions:
        fn = UNARY.get(name) or BINARY[name]
        pool.append(fn(*[pool[i] for i in args]))
    return pool, pool[-1].sum()


@settings(max_examples=50, deadline=None)
@given(program=programs())
def test_random_programs_stepwise_grads_equal_backward(program):
    pool, out = run_program(*program)
    fresh_pool, fresh_out = run_program(*program)
    fresh_out.backward()
    graph, steps = backward_steps(out)
    final = grads_at(graph, steps, len(steps))
    assert len(steps) == sum(1 for n in graph.nodes if n.op and n.requires_grad)
    ids = {id(n.data): n.id for n in graph.nodes}  # nodes keep the tensors' data arrays
    for t, fresh in zip(pool + [out], fresh_pool + [fresh_out]):
        if id(t.data) not in ids:
            assert fresh.grad is None or not t.requires_grad  # not reachable from the output
            continue
        node = graph.nodes[ids[id(t.data)]]
        if fresh.grad is None:
            assert node.grad is None
            continue
        assert np.array_equal(t.grad, fresh.grad)
        assert np.array_equal(node.grad, fresh.grad)
        assert np.array_equal(final[node.id], fresh.grad)
