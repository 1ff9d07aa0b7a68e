"""The backward-twice scene on the Stepper through AppTest: the engine's grads after backward() twice are 2× one
backward()'s on every box (leaves and intermediates), zero_grad() clears them, backward() again gives 1×."""

import json
from dataclasses import replace

import numpy as np
from streamlit.testing.v1 import AppTest

from autograd.expr import evaluate
from explorer.program import presets
from explorer.program import view_data as graph_data
from explorer.twice import scene as twice
from tests.support.apptest import STEPPER, app, button, no_exception
from tests.support.helpers import traced

PROGRAM = presets.program(presets.DEFAULT)


def views(at: AppTest) -> list[dict]:
    return [json.loads(e.proto.json) for e in at.get("bidi_component")
            if e.proto.component_name == "components.graph_view"]


def scaled(program: str, factor) -> dict:
    """Each box's texts for the program's graph with every grad times ``factor`` (None: cleared)."""
    graph = traced(program)
    nodes = tuple(replace(n, grad=None if n.grad is None or factor is None else n.grad * factor) for n in graph.nodes)
    return graph_data.value_texts(replace(graph, nodes=nodes))


def opened() -> AppTest:
    at = app().run()
    at.switch_page(STEPPER).run()
    assert len(views(at)) == 1, "off: the scene draws nothing and runs nothing"
    at.toggle(key="twice_on").set_value(True).run()
    no_exception(at)
    return at


def test_backward_twice_doubles_every_grad_and_zero_grad_clears_them():
    at = opened()
    scene = views(at)[1]
    assert scene["values"] == scaled(PROGRAM, 1), "it starts after one backward(), as the Stepper ends"
    button(at, "backward() again").click().run()
    no_exception(at)
    scene = views(at)[1]
    assert scene["values"] == scaled(PROGRAM, 2)
    assert scene["caption"] == "After backward() → backward()"
    a = [n for n in traced(PROGRAM).nodes if n.name == "a"][0]
    assert scene["values"][str(a.id)]["g"] == ["277.7"], "a.grad: 2 × 138.8338"
    assert any("2× one backward()'s" in m.value for m in at.markdown)
    assert any("retain_graph=True" in i.value and "retain_grad()" in i.value for i in at.info)
    button(at, "zero_grad()").click().run()
    assert views(at)[1]["values"] == scaled(PROGRAM, None)
    button(at, "backward() again").click().run()
    assert views(at)[1]["values"] == scaled(PROGRAM, 1)
    button(at, "Start over").click().run()
    assert views(at)[1]["caption"] == "After backward()"


def test_the_scene_s_numbers_are_the_engine_s_own_calls():
    # the engine itself, called twice on one graph: every grad (intermediates too) is twice the first call's
    result = evaluate(PROGRAM)
    result.output.backward()
    first = {name: np.array(t.grad) for name, t in result.variables.items() if t.grad is not None}
    result.output.backward()
    for name, t in result.variables.items():
        if name in first:
            np.testing.assert_array_equal(t.grad, 2 * first[name], err_msg=name)
    scene = twice.replay(PROGRAM, (), ("backward", "backward", "zero_grad", "backward", "backward", "backward"))
    assert scene.since_clear == 3
    for node in scene.graph.nodes:
        if node.grad is not None:
            np.testing.assert_allclose(node.grad, 3 * scene.once[node.id], rtol=1e-15)
    assert twice.normal(("nonsense",) + ("backward",) * 40) == ("backward",) * twice.MAX_CALLS


def test_forward_mode_has_no_scene():
    at = app()
    at.query_params["mode"] = "forward"
    at.switch_page(STEPPER).run()
    no_exception(at)
    assert all(t.key != "twice_on" for t in at.toggle)
