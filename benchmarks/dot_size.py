"""DOT and its SVG for big graphs: how long to_dot takes on 2,000 nodes, and what the SVG export costs.

Run: python benchmarks/dot_size.py [--quick] [--export]

Prints, for benchmarks.graphs.synthetic_graph(2000), the min and median of to_dot drawn in full and summarised to
200 boxes, each against the 50 ms budget and against formatting the same values alone (explorer.numbers'
value_lines for every box's data and grad: the floor any drawing pays, so the ratio is what writing DOT adds).
``--export`` also times the SVG export of a small drawing (40 boxes) and a mid-size one (a 1,000-node graph
summarised to 60 boxes, as tests/explorer/graph/test_dot.py draws it) three ways, interleaved:
explorer.graph.svg.to_svg (dot in our own subprocess, under its CPU and memory limits), the graphviz package's pipe
in this process (no limits), and that pipe inside a Python child started under the same limits (which dot would
inherit), each with its CPU (this process's and its children's). Figures depend on the machine's load: record them
with the command that made them.
"""

from __future__ import annotations

import argparse
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import graphviz  # noqa: E402

from benchmarks.graphs import synthetic_graph  # noqa: E402
from explorer.graph import svg  # noqa: E402
from explorer.graph.dot import plan, to_dot  # noqa: E402
from explorer.numbers import value_lines  # noqa: E402

BUDGET_MS = 50.0

#: Option (b) for the export: the graphviz package's pipe in a Python child that already has the limits.
PIPE_IN_A_CHILD = "import sys, graphviz; sys.stdout.buffer.write(graphviz.pipe('dot', 'svg', sys.stdin.buffer.read()))"


def _timed(fn) -> tuple[float, float]:
    """Milliseconds of wall clock and of CPU (this process's and its children's: a busy machine stretches the
    first, hardly the second) that one call of ``fn`` takes."""
    cpu = _cpu_seconds()
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000.0, (_cpu_seconds() - cpu) * 1000.0


def _cpu_seconds() -> float:
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def _said(wall: list[float], cpu: list[float]) -> str:
    return (f"min {min(wall):.1f} ms, median {statistics.median(wall):.1f} ms "
            f"(CPU median {statistics.median(cpu):.1f} ms)")


def _formatting_alone(graph, max_nodes):
    """What formatting the drawn boxes' values costs by itself (the numbers to_dot writes)."""
    drawing = plan(graph, max_nodes=max_nodes)

    def run():
        for b in drawing.boxes:
            node = graph.nodes[b]
            value_lines(node.data, drawing.compact)
            if node.requires_grad:
                value_lines(node.grad, drawing.compact)

    return run


def dot_lines(n: int, repeat: int) -> list[str]:
    graph = synthetic_graph(n)
    lines = []
    for label, limit in (("in full", None), ("summarised to 200", 200)):
        wall, cpu, floor = [], [], []
        for _ in range(repeat):  # interleaved, so a busy moment costs both alike
            w, c = _timed(lambda limit=limit: to_dot(graph, max_nodes=limit))
            wall.append(w)
            cpu.append(c)
            floor.append(_timed(_formatting_alone(graph, limit))[1])
        median = statistics.median(cpu)
        lines.append(
            f"DOT for a {n:,}-node graph, {label}: {_said(wall, cpu)}: {median / BUDGET_MS:.2f}x the "
            f"{BUDGET_MS:g} ms budget, {median / statistics.median(floor):.2f}x formatting its values alone "
            f"({statistics.median(floor):.1f} ms)"
        )
    return lines


def export_lines(repeat: int) -> list[str]:
    lines = []
    for n, max_nodes in ((40, 200), (1000, 60)):
        lines += _export_lines(to_dot(synthetic_graph(n), max_nodes=max_nodes), repeat)
    return lines


def _export_lines(dot: str, repeat: int) -> list[str]:
    data = dot.encode("utf-8")
    limit = svg._limited(10, 640 * 1024 * 1024)
    reference = "graphviz.pipe in this process (no limits)"
    ways = {
        "to_svg (own subprocess, limited)": lambda: svg.to_svg(dot).encode("utf-8"),
        reference: lambda: graphviz.pipe("dot", "svg", data),
        "graphviz.pipe in a limited Python child": lambda: subprocess.run(
            [sys.executable, "-c", PIPE_IN_A_CHILD], input=data, capture_output=True, timeout=20, preexec_fn=limit,
            check=True).stdout,
    }
    outputs = {name: way() for name, way in ways.items()}
    wall: dict[str, list[float]] = {name: [] for name in ways}
    cpu: dict[str, list[float]] = {name: [] for name in ways}
    for _ in range(repeat):
        for name, way in ways.items():
            w, c = _timed(way)
            wall[name].append(w)
            cpu[name].append(c)
    boxes = len(re.findall(r"^  n\d+ \[label=", dot, re.M))
    lines = [f"SVG of a {boxes}-box drawing ({len(data):,} bytes of DOT), {repeat} rounds:"]
    for name in ways:
        same = "same bytes" if outputs[name] == outputs[reference] else "DIFFERENT"
        lines.append(f"  {name}: {_said(wall[name], cpu[name])}: CPU "
                     f"{statistics.median(cpu[name]) / statistics.median(cpu[reference]):.2f}x the pipe in this "
                     f"process; {same} as it")
    return lines


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    parser.add_argument("--export", action="store_true", help="time the SVG export too (needs Graphviz's dot)")
    args = parser.parse_args(argv)
    for line in dot_lines(2000, 5 if args.quick else 30):
        print(line)
    if args.export:
        for line in export_lines(3 if args.quick else 10):
            print(line)


if __name__ == "__main__":
    main()
