"""The SVG export (explorer/graph/svg.py) runs dot itself, not through graphviz.pipe, to keep its limits: the same
bytes as the package's pipe, dot's own process under the CPU and memory limits to_svg names, and past each limit
(CPU, memory, the clock) the message, never a traceback."""

import inspect
import os
import random
import resource
import shutil
import stat
import sys
import time

import graphviz
import pytest

from autograd import Tensor
from autograd.graph import backward_steps, trace
from benchmarks.graphs import synthetic_graph
from explorer.graph import svg
from explorer.graph.dot import to_dot
from explorer.program import stepper
from tests.support.helpers import micrograd_tensors

needs_dot = pytest.mark.skipif(shutil.which("dot") is None and not os.environ.get("CI"),
                               reason="Graphviz 'dot' is not installed")


def drawings() -> dict[str, str]:
    _, _, g = micrograd_tensors()
    g.backward()
    named = Tensor([1.0, 2.0], requires_grad=True, name='a\\N"q" <b>\nz\\')
    hostile = (named * 2.0).sum()
    hostile.backward()
    graph, steps = backward_steps(micrograd_tensors()[-1])
    return {
        "micrograd": to_dot(trace(g)),
        "stepper, left to right, broadcast marks": to_dot(graph, rankdir="LR",
                                                          broadcast=stepper.broadcast_edges(graph, steps)),
        "40 boxes": to_dot(synthetic_graph(40)),
        "a name with backslashes, quotes, <b> and a newline": to_dot(trace(hostile)),
    }


@needs_dot
@pytest.mark.parametrize("name", drawings().keys())
def test_to_svg_draws_what_graphviz_pipe_draws_byte_for_byte(name):
    dot = drawings()[name]
    assert svg.to_svg(dot).encode("utf-8") == graphviz.pipe("dot", "svg", dot.encode("utf-8"), quiet=True)


def test_graphviz_pipe_takes_no_timeout_nor_preexec_fn():
    """Why to_svg runs dot itself (README, svg.py): the package's pipe passes only the DOT to its subprocess. A
    release whose pipe takes them makes the question worth asking again."""
    params = inspect.signature(graphviz.pipe).parameters
    assert not {"timeout", "preexec_fn"} & set(params), params
    assert not [p for p in params.values() if p.kind is inspect.Parameter.VAR_KEYWORD], params


def fake_dot(tmp_path, monkeypatch, body: str) -> None:
    """A Python script that to_svg runs as Graphviz's dot."""
    script = tmp_path / "dot"
    script.write_text(f"#!{sys.executable}\n{body}")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setattr(svg, "_dot_binary", lambda: str(script))


def test_dot_runs_under_the_cpu_and_memory_limits_to_svg_names(tmp_path, monkeypatch):
    fake_dot(tmp_path, monkeypatch, "import resource, sys\nsys.stdin.read()\n"
             "print(resource.getrlimit(resource.RLIMIT_CPU)[0], resource.getrlimit(resource.RLIMIT_AS)[0])\n")
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]  # to_svg gives dot less if this process may have only less
    within = (lambda mb: mb << 20) if hard == resource.RLIM_INFINITY else (lambda mb: min(mb << 20, hard))
    assert svg.to_svg("digraph { a -> b }", cpu_seconds=3, memory_mb=500) == f"3 {within(500)}\n"
    assert svg.to_svg("digraph { a -> b }", cpu_seconds=2.5) == f"3 {within(640)}\n", "whole seconds, rounded up"


def test_a_dot_that_outlasts_the_clock_is_stopped_with_the_message(tmp_path, monkeypatch):
    """A dot that spends no CPU (blocked, or waiting for a busy machine) meets the clock: twice its CPU time."""
    fake_dot(tmp_path, monkeypatch, "import time\ntime.sleep(60)\n")
    start = time.monotonic()
    with pytest.raises(svg.DrawingError) as caught:
        svg.to_svg("digraph { a -> b }", cpu_seconds=0.5)
    assert time.monotonic() - start < 10
    assert caught.value.message.startswith("Graphviz took more than 0.5 s to draw this graph for the SVG picture")


@needs_dot
def test_graphviz_past_its_memory_limit_is_stopped_with_the_message():
    random.seed(0)
    text = "digraph G {" + " ".join(f"n{random.randrange(3000)} -> n{random.randrange(3000)};"
                                    for _ in range(3000)) + "}"
    with pytest.raises(svg.DrawingError) as caught:
        svg.to_svg(text, memory_mb=40)
    assert caught.value.message == ("Graphviz needed more than 40 MB to draw this graph for the SVG picture; "
                                    "download the DOT file and draw it on your own machine")
