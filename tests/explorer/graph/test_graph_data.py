"""What the graph view is sent: one DOT per program, and what it changes in place (tooltips, and for the
stepper every step's states, grads and panel) — checked against the engine's backward pass."""

import json
import re

import numpy as np
import pytest

from autograd.expr import evaluate
from autograd.graph import backward_steps, grads_at, trace
from explorer import numbers
from explorer.graph import dot as dotmod
from explorer.graph import names
from explorer.program import forward_mode, presets, stepper
from explorer.program import run as program_run
from explorer.program import view_data as graph_data

CELL = re.compile(r'<td id="n(\d+)\.g" tooltip="[^"]*" align="left">(.*?)</td>')
TAGS = re.compile(r"<[^>]+>")


def stepped(name: str):
    return backward_steps(evaluate(presets.program(name)).output)


def grad_cells(dot: str) -> dict[int, list[str]]:
    """Box id -> the lines its grad cell holds in the DOT text."""
    cells = {}
    for box, body in CELL.findall(dot):
        lines = [TAGS.sub("", part) for part in re.split(r'<br align="left"/>', body)]
        cells[int(box)] = [
            line.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&") for line in lines if line != ""
        ]
    return cells


@pytest.mark.parametrize("name", presets.names())
def test_the_explorer_is_sent_the_dot_it_would_download(name):
    graph, steps = stepped(name)
    data = graph_data.view_data(graph, steps)
    assert data["dot"] == graph_data.download_dot(graph, steps, {"show": list(dotmod.PARTS), "rankdir": "TB"})
    assert data["key"] == graph_data.view_data(graph, steps)["key"], "the same program is the same layout"
    assert set(data["boxes"]) == {str(n.id) for n in graph.nodes}
    assert data["output"] == graph.output and "steps" not in data
    json.dumps(data)  # what Streamlit sends
    out = data["boxes"][str(graph.output)]
    assert out["title"] == names.node_heading(graph.nodes[graph.output])
    assert out["grad"] == numbers.compact(graph.nodes[graph.output].grad)
    kinds = {entry["key"] for entry in data["legend"]}
    assert kinds == {n.kind for n in graph.nodes} | ({"cut"} if any(n.op == "detach" for n in graph.nodes) else set())


def drawn_at(s: dict, k: int, known: dict, compact: bool, name: str) -> dict:
    """Each box's cell as the stepper draws it at step ``k`` (its latest version from ``s["grads"]``), checked against
    ``known`` (node -> its grad, or tangent, at step k): nothing where none is known yet, the known value's lines
    where one is. Returns {node: that version}."""
    drawn = {}
    for box, versions in s["grads"].items():
        shown = [v for v in versions if v[0] <= k]
        node = int(box)
        if node not in known:
            assert not shown, (name, k, node)
            continue
        assert shown[-1][1] == numbers.value_lines(known[node], compact), (name, k, node)
        drawn[node] = shown[-1]
    return drawn


@pytest.mark.parametrize("name", ["micrograd", "broadcasting bias", "layer norm", "softmax cross-entropy"])
def test_each_grad_version_is_what_the_engine_had_at_that_step(name):
    graph, steps = stepped(name)
    data = graph_data.view_data(graph, steps, stepper=True)
    s = data["steps"]
    assert s["count"] == len(steps) and len(s["panels"]) == len(steps) + 1
    compact = dotmod.plan(graph).compact
    for k in range(len(steps) + 1):
        known = grads_at(graph, steps, k)
        for node, (_, lines, *tip) in drawn_at(s, k, known, compact, name).items():
            assert (tip[0] if tip else " ".join(lines)) == numbers.compact(known[node])
    # after the last step every box shows backward()'s grad
    for box, versions in s["grads"].items():
        final = graph.nodes[int(box)].grad
        np.testing.assert_equal(versions[-1][1], numbers.value_lines(final, compact))


@pytest.mark.parametrize(("name", "direction"), [("micrograd", "input:a"), ("broadcasting bias", "ones"),
                                                 ("layer norm", "element:x:3")])
def test_each_tangent_version_is_what_the_forward_walk_had_at_that_step(name, direction):
    # the forward stepper's mirror of the test above: forward_mode.tangents_at is the oracle, as grads_at is there
    run = forward_mode.forward_program(presets.program(name), direction=direction)
    s = graph_data.view_data(run.graph, stepper=True, forward=run)["steps"]
    assert s["mode"] == "forward" and s["count"] == len(run.steps) and len(s["panels"]) == len(run.steps) + 1
    compact = dotmod.plan(run.graph).compact
    for k in range(len(run.steps) + 1):
        drawn_at(s, k, forward_mode.tangents_at(run, k), compact, name)
    assert {int(box) for box in s["grads"]} == set(run.tangents), "every tangent is drawn"


def test_stepper_boxes_are_sized_for_their_widest_grad():
    graph, steps = stepped("micrograd")
    data = graph_data.view_data(graph, steps, stepper=True)
    cells = grad_cells(data["dot"])
    for box, versions in data["steps"]["grads"].items():
        widest = max(len(line) for v in versions for line in v[1])
        assert max(len(line) for line in cells[int(box)]) == widest, box
    # the Explorer's boxes show the final grads instead
    explorer = grad_cells(graph_data.view_data(graph, steps)["dot"])
    for box, lines in explorer.items():
        assert lines == numbers.value_lines(graph.nodes[box].grad)


def test_the_timeline_and_panels_are_explain_s():
    graph, steps = stepped("broadcasting bias")
    s = graph_data.view_data(graph, steps, stepper=True)["steps"]
    timeline = stepper.step_timeline(graph, steps)
    assert s["active_at"] == list(timeline.active_at) and s["done_at"] == list(timeline.done_at)
    assert s["takes_part"] == [int(t) for t in timeline.takes_part] and s["output"] == graph.output
    assert s["panels"][0]["title"].startswith(f"Step 0 of {len(steps)}: the seed,")
    add = [k for k, step in enumerate(steps, start=1) if step.op == "add"][0]
    panel = s["panels"][add]
    assert panel["title"].startswith(f"Step {add} of {len(steps)}")
    notes = [c["broadcast"] for c in panel["contributions"]]
    assert "summed over axis 0 to undo broadcasting (3, 4) → (4,)" in notes
    assert s["done"] == graph_data.DONE
    legend = [entry["key"] for entry in graph_data.view_data(graph, steps, stepper=True)["legend"]]
    assert legend[-3:] == ["active", "done", "waiting"]


def test_a_big_graph_is_summarised_with_its_chains_listed():
    program = "x = randn(4)\n" + "".join(f"x{i} = {'x' if i == 0 else f'x{i - 1}'}.tanh()\n" for i in range(450))
    program += "y = x449.sum()\n"
    graph, steps = backward_steps(evaluate(program).output)
    data = graph_data.view_data(graph, steps, stepper=True)
    chains = {box: info for box, info in data["boxes"].items() if info["kind"] == "chain"}
    assert len(chains) == 1
    (box, info), = chains.items()
    assert len(info["members"]) >= 440 and int(box) == info["members"][-1]
    assert len(data["boxes"]) <= graph_data.MAX_DRAWN
    assert " ops …" in data["dot"]


def test_the_download_follows_the_view():
    graph, steps = stepped("layer norm")
    dot = graph_data.download_dot(graph, steps, {"show": ["grad"], "rankdir": "LR"})
    assert "rankdir=LR" in dot and '.d"' not in dot and '.g"' in dot and '.s"' not in dot


def test_value_texts_retext_every_drawn_box_with_its_own_numbers():
    first = evaluate("a = 1.0\nb = [1.0, -2.0, 0.5]\ny = (a * b).tanh().sum()\n")
    first.output.backward()
    graph = trace(first.output)
    texts = graph_data.value_texts(graph)
    assert set(texts) == {str(n.id) for n in graph.nodes}
    for node in graph.nodes:
        entry = texts[str(node.id)]
        assert entry["d"] == numbers.value_lines(node.data)
        assert ("g" in entry) == node.requires_grad
        if node.requires_grad:
            assert entry["g"] == numbers.value_lines(node.grad) and entry["tip"][1] == numbers.compact(node.grad)
    # the cells of the view's DOT hold exactly these lines: a retext swaps like for like
    cells = grad_cells(graph_data.view_data(graph)["dot"])
    assert {box: lines for box, lines in cells.items()} == {int(b): e["g"] for b, e in texts.items() if "g" in e}


def test_poked_numbers_are_drawn_over_the_program_s_own_layout():
    from explorer.program import jacobian_view

    text = presets.program("micrograd")
    graph, steps = program_run.step_program(text)
    poked_graph, poked_steps = program_run.step_program(text, (("a", -3.0),))
    layout = graph_data.view_data(graph, steps, stepper=True)
    poked = graph_data.view_data(poked_graph, poked_steps, stepper=True)
    assert poked["dot"] != layout["dot"], "the numbers are in the DOT"
    drawn = graph_data.over_layout(poked, layout)
    assert (drawn["dot"], drawn["key"]) == (layout["dot"], layout["key"]), "the browser keeps its drawing"
    assert drawn["steps"]["grads"] == poked["steps"]["grads"] and drawn["steps"]["panels"] == poked["steps"]["panels"]
    # the steps' version says when their numbers changed, and only then
    assert poked["steps"]["version"] != layout["steps"]["version"]
    assert graph_data.view_data(graph, steps, stepper=True)["steps"]["version"] == layout["steps"]["version"]
    with_j = graph_data.with_jacobians(layout, jacobian_view.step_jacobians(text, ()))
    assert set(with_j["steps"]["jacobians"]) == {str(s.node) for s in steps}
    assert with_j["steps"]["version"] != layout["steps"]["version"]
    again = graph_data.with_jacobians(layout, jacobian_view.step_jacobians(text, ()))
    assert again["steps"]["version"] == with_j["steps"]["version"]
    assert "jacobians" not in layout["steps"], "the cached view is not changed"
    json.dumps(with_j, allow_nan=False)


def test_the_legend_explains_tags_only_where_a_drawing_has_them():
    from tests.support.helpers import fan_out_program

    fan_out, steps = backward_steps(evaluate(fan_out_program(4, 90)).output)
    for data in (graph_data.view_data(fan_out), graph_data.view_data(fan_out, steps, stepper=True)):
        entry = next(e for e in data["legend"] if e["key"] == "ref")
        assert entry["short"] == "a use of x" and "tag" in entry["meaning"]
    graph, steps = stepped("micrograd")
    assert "ref" not in {e["key"] for e in graph_data.view_data(graph, steps, stepper=True)["legend"]}
