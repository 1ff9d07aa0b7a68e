"""DOT drawing of traced graphs: counts, labels, step states, determinism, summaries, validity."""

import os
import re
import shutil
import time

import numpy as np
import pytest

from autograd import Tensor
from autograd.graph import backward_steps, grads_at, trace
from explorer import dot as dotmod
from explorer.dot import LEGEND, STATE_LEGEND, format_array, synthetic_graph, to_dot, to_svg
from tests.helpers import micrograd_tensors

NODE_LINE = re.compile(r"^\s*(n\d+|notice) \[label=", re.M)
EDGE_LINE = re.compile(r"^\s*(n\d+|notice) -> (n\d+)", re.M)


def node_lines(dot: str) -> dict[str, str]:
    """DOT node id -> its whole line."""
    return {m.group(1): dot[m.start() : dot.index("\n", m.start())] for m in NODE_LINE.finditer(dot)}


def seed_graph():
    a = Tensor(-4.0, requires_grad=True, name="a")
    b = Tensor(2.0, requires_grad=True, name="b")
    g = ((a + b) ** 2 + (a * b + b**3).relu()).sum()
    g.name = "g"
    return g


def broadcast_graph():
    x = Tensor(np.arange(12.0).reshape(3, 4), requires_grad=True, name="X")
    bias = Tensor([0.1, 0.2, 0.3, 0.4], requires_grad=True, name="bias")
    y = ((x + bias) ** 2).mean()
    y.name = "loss"
    return y


def chain(n: int):
    x = Tensor(np.linspace(-1, 1, 4), requires_grad=True, name="x")
    y = x
    for _ in range(n):
        y = y.tanh()
    out = y.sum()
    out.name = "out"
    return out


def test_one_dot_node_per_tensor_and_one_edge_per_argument_slot():
    g = seed_graph()
    g.backward()
    graph = trace(g)
    dot = to_dot(graph)
    assert len(node_lines(dot)) == len(graph.nodes) == 12
    edges = EDGE_LINE.findall(dot)
    assert len(edges) == len(graph.edges)
    # argument order: edges are listed child by child, parents in slot order
    expected = [(f"n{p}", f"n{n.id}") for n in graph.nodes for p in n.parents]
    assert edges == expected


def test_repeated_parent_gets_two_edges():
    x = Tensor(3.0, requires_grad=True, name="x")
    y = x * x
    y.backward()
    dot = to_dot(trace(y))
    assert EDGE_LINE.findall(dot) == [("n0", "n1"), ("n0", "n1")]


def test_labels_hold_data_and_grads():
    a, b, g = micrograd_tensors()
    g.backward()
    graph = trace(g)
    dot = to_dot(graph)
    lines = node_lines(dot)
    a_line = lines[f"n{[n.id for n in graph.nodes if n.name == 'a'][0]}"]
    b_line = lines[f"n{[n.id for n in graph.nodes if n.name == 'b'][0]}"]
    g_line = lines[f"n{graph.output}"]
    assert "<b>a</b>" in a_line and "data</font> -4<" in a_line and "grad</font> 138.8<" in a_line
    assert "645.6" in b_line
    assert "24.7" in g_line and "<b>g</b> = add" in g_line
    assert "scalar" not in g_line  # a scalar's shape row is left out


def test_toggles_hide_data_grad_and_shape():
    g = broadcast_graph()
    g.backward()
    graph = trace(g)
    assert "(3, 4)" in to_dot(graph)
    dot = to_dot(graph, show_data=False, show_grad=False, show_shape=False)
    assert ">data<" not in dot and ">grad<" not in dot and "(3, 4)" not in dot
    assert len(node_lines(dot)) == len(graph.nodes)
    assert "rankdir=LR" in to_dot(graph, rankdir="LR")
    with pytest.raises(ValueError):
        to_dot(graph, rankdir="sideways")


def test_kinds_have_their_legend_colours():
    g = seed_graph()
    g.backward()
    graph = trace(g)
    lines = node_lines(to_dot(graph))
    fill = {e.key: e.fill for e in LEGEND}
    for node in graph.nodes:
        assert f'fillcolor="{fill[node.kind]}"' in lines[f"n{node.id}"], node
    assert {e.key for e in LEGEND} >= {"input", "param", "const", "op", "output"}
    assert {e.key for e in STATE_LEGEND} == {"active", "done", "waiting"}


def test_large_arrays_are_summarised_small_ones_in_full():
    x = Tensor(np.arange(100.0).reshape(10, 10), requires_grad=True, name="big")
    w = Tensor([[1.0, -2.0], [0.5, 0.25]], requires_grad=True, name="w")
    out = x.sum() + w.sum()
    out.backward()
    lines = node_lines(to_dot(trace(out)))
    big = lines["n0"]
    assert "mean 49.5" in big and "min 0" in big and "max 99" in big and "‖·‖ 573 " in big.replace("<", " ")
    assert "(10, 10)" in big
    small = [line for line in lines.values() if "<b>w</b>" in line][0]
    assert "[[1, -2],<br" in small and " [0.5, 0.25]]" in small


def test_format_array():
    assert format_array(np.array(2.5)) == ["2.5"]
    assert format_array(np.array([-0.0, 1 / 3, np.nan])) == ["[0, 0.3333, nan]"]
    assert format_array(np.arange(4.0).reshape(2, 2)) == ["[[0, 1],", " [2, 3]]"]
    assert len(format_array(np.arange(12.0))) == 2  # wraps after six numbers


def test_stepper_state_and_partial_grads():
    graph, steps = backward_steps(seed_graph())
    k = 3
    active = steps[k - 1].node
    state = {n.id: "waiting" for n in graph.nodes}
    for s in steps[: k - 1]:
        state[s.node] = "done"
    state[active] = "active"
    dot = to_dot(graph, grads=grads_at(graph, steps, k), state=state)
    lines = node_lines(dot)
    assert 'penwidth=3' in lines[f"n{active}"] and "#fde047" in lines[f"n{active}"]
    assert "dashed" in lines["n0"]  # input a has not been reached
    assert "grad</font> —" in lines["n0"]  # no grad yet
    done = steps[0].node
    assert "dashed" not in lines[f"n{done}"] and "penwidth=1" in lines[f"n{done}"]
    # edges into the active node (to its parents' boxes) are drawn red
    hot = [e for e in dot.splitlines() if f"-> n{active}" in e]
    assert hot and all("#dc2626" in e for e in hot)
    # at the end, the stepper's grads are backward()'s
    final = to_dot(graph, grads=grads_at(graph, steps, len(steps)))
    assert final == to_dot(graph)


def test_same_program_same_text():
    first, second = seed_graph(), seed_graph()
    first.backward()
    second.backward()
    assert to_dot(trace(first)) == to_dot(trace(second))
    big1, big2 = synthetic_graph(600, seed=3), synthetic_graph(600, seed=3)
    assert to_dot(big1, max_nodes=100) == to_dot(big2, max_nodes=100)


def test_long_chains_collapse():
    out = chain(1000)
    out.backward()
    graph = trace(out)
    dot = to_dot(graph, max_nodes=200)
    lines = node_lines(dot)
    assert len(graph.nodes) == 1002
    assert len(lines) <= 4  # x, the collapsed chain, (the last tanh), out
    assert "… 999 ops …" in dot or "… 1,000 ops …" in dot
    assert "showing" not in dot  # collapsing was enough
    # under the limit nothing is collapsed
    assert len(node_lines(to_dot(trace(chain(20)), max_nodes=200))) == 22


def test_graphs_too_big_show_the_output_neighbourhood_with_a_notice():
    graph = synthetic_graph(2431)
    dot = to_dot(graph, max_nodes=200)
    lines = node_lines(dot)
    assert len(lines) <= 200
    assert "notice" in lines and "of 2,431 nodes" in lines["notice"]
    assert f"n{graph.output}" in lines  # the output is always kept
    unlimited = to_dot(graph, max_nodes=None)
    assert len(node_lines(unlimited)) == 2431


def test_huge_graph_never_hangs():
    graph = synthetic_graph(20000)
    t0 = time.perf_counter()
    dot = to_dot(graph)
    assert time.perf_counter() - t0 < 5.0
    assert len(node_lines(dot)) <= 200


def test_bench_dot_reports_timings():
    result = dotmod.bench_dot(n=300, repeat=1)
    assert result["nodes"] == 300 and result["summarised_ms"] > 0 and result["full_ms"] > 0


def test_to_svg_without_the_binary_returns_none(monkeypatch):
    import graphviz

    def missing(*args, **kwargs):
        raise graphviz.ExecutableNotFound(("dot",))

    monkeypatch.setattr(graphviz.Source, "pipe", missing)
    assert to_svg("digraph { a -> b }") is None


DOT_BINARY = shutil.which("dot")


@pytest.mark.skipif(DOT_BINARY is None and not os.environ.get("CI"), reason="Graphviz 'dot' is not installed")
@pytest.mark.parametrize(
    "make, max_nodes",
    [(seed_graph, 200), (micrograd_tensors, 200), (broadcast_graph, 200), (lambda: chain(500), 200)],
    ids=["seed", "micrograd", "broadcast", "chain"],
)
def test_dot_parses_with_graphviz(make, max_nodes):
    out = make()
    out = out[-1] if isinstance(out, tuple) else out
    out.backward()
    dot = to_dot(trace(out), max_nodes=max_nodes)
    svg = to_svg(dot)
    assert svg is not None, "dot binary missing"
    assert svg.count('class="node"') == len(node_lines(dot))
    assert svg.count('class="edge"') == len(EDGE_LINE.findall(dot))


@pytest.mark.skipif(DOT_BINARY is None and not os.environ.get("CI"), reason="Graphviz 'dot' is not installed")
def test_summarised_and_stepper_dot_parse_with_graphviz():
    graph = synthetic_graph(1000)
    dot = to_dot(graph, max_nodes=60)
    svg = to_svg(dot)
    assert svg.count('class="node"') == len(node_lines(dot)) <= 60
    sgraph, steps = backward_steps(broadcast_graph())
    state = {n.id: ("active" if n.id == steps[1].node else "waiting") for n in sgraph.nodes}
    dot = to_dot(sgraph, grads=grads_at(sgraph, steps, 2), state=state, rankdir="LR")
    assert to_svg(dot).count('class="node"') == len(sgraph.nodes)
