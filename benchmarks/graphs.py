"""Graphs for benchmarks and tests of the drawing: a synthetic Graph of n nodes, and DOT's timings on it."""

from __future__ import annotations

import time

import numpy as np

from explorer.graph.dot import to_dot


def synthetic_graph(n: int = 2000, seed: int = 0):
    """A Graph of ``n`` nodes built by hand (no engine): chains, fan-out, a few matrices."""
    from autograd.graph import Graph, Node

    rng = np.random.default_rng(seed)
    nodes: list = []

    def add(name, op, kind, data, parents):
        data = np.asarray(data, dtype=np.float64)
        nodes.append(
            Node(
                id=len(nodes),
                name=name,
                op=op,
                kind=kind,
                shape=data.shape,
                dtype=str(data.dtype),
                data=data,
                grad=np.ones_like(data) if kind != "const" else None,
                parents=tuple(parents),
                formula="" if not op else "dx = G",
                requires_grad=kind != "const",
            )
        )
        return len(nodes) - 1

    x = add("x", "", "input", rng.normal(size=(4,)), ())
    w = add("W", "", "param", rng.normal(size=(64, 4)), ())
    c = add("", "", "const", 2.0, ())
    last = x
    while len(nodes) < n - 1:
        r = rng.random()
        if r < 0.6:
            last = add("", "tanh", "op", np.tanh(nodes[last].data), (last,))
        elif r < 0.8:
            last = add("", "mul", "op", nodes[last].data * 2.0, (last, c))
        elif r < 0.95:
            last = add("", "add", "op", nodes[last].data + nodes[x].data, (last, x))
        else:
            h = add("", "matmul", "op", nodes[w].data @ nodes[last].data, (w, last))
            last = add("", "matmul", "op", nodes[h].data @ nodes[w].data, (h, w))
    out = add("out", "sum", "output", nodes[last].data.sum(), (last,))
    edges = tuple((p, nd.id) for nd in nodes for p in nd.parents)
    return Graph(nodes=tuple(nodes), edges=edges, output=out)


def bench_dot(n: int = 2000, repeat: int = 10) -> dict[str, float]:
    """Best-of-``repeat`` milliseconds for to_dot on an ``n``-node graph, summarised and in full."""
    graph = synthetic_graph(n)
    result = {}
    for label, limit in (("summarised_ms", 200), ("full_ms", None)):
        best = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            to_dot(graph, max_nodes=limit)
            best = min(best, time.perf_counter() - t0)
        result[label] = best * 1000.0
    result["nodes"] = float(n)
    return result
