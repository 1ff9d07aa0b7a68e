"""The Explorer's interventions through AppTest: under the inspector, a value override shows the gradient's
prediction and the actual change (the hook's numbers are the engine's), a grad intervention changes the inputs'
grads, and the URL keeps them: a link reproduces them, and its bad parts are said."""

import re

from explorer.program import intervene as iv
from explorer.program import keys, presets
from tests.support.apptest import EXPLORER, button, no_exception, open_page, open_tab

STE = presets.PRESETS["straight-through estimator"][1]


def _hooks(at) -> list[str]:
    return [h.proto.body for h in at.get("html") if 'data-testid="intervention"' in h.proto.body]


def _pick(at, name):
    from autograd.graph import trace
    from language import compile_program

    out = compile_program(STE).run().output
    out.backward()
    node = [n for n in trace(out).nodes if n.name == name][-1]
    at.selectbox(key=keys.NODE).select(node.id).run()


def test_an_override_shows_prediction_and_actual_and_the_link_keeps_it():
    at = open_page(EXPLORER, {"program": STE})
    open_tab(at, "Inspect a node")
    no_exception(at)
    _pick(at, "y")
    at.selectbox(key=keys.INTERVENE_KIND).select("scale").run()
    no_exception(at)
    expected = iv.predict(STE, iv.Intervention("y", "scale", 1.5))
    (hook,) = _hooks(at)
    assert float(re.search(r'data-predicted="([^"]+)"', hook).group(1)) == expected.predicted
    assert float(re.search(r'data-actual="([^"]+)"', hook).group(1)) == expected.actual
    assert at.get("plotly_chart"), "predicted against actual along the override's path"
    button(at, "Apply to y").click().run()
    no_exception(at)
    assert at.query_params["intervene"] in ("y:scale:1.5", ["y:scale:1.5"])
    assert at.session_state[keys.INTERVENTIONS] == (iv.Intervention("y", "scale", 1.5),)
    # a link with the interventions reproduces them, and says what it could not read
    again = open_page(EXPLORER, {"program": STE, "intervene": "q:detach,y:explode"})
    open_tab(again, "Inspect a node")
    no_exception(again)
    assert again.session_state[keys.INTERVENTIONS] == (iv.Intervention("q", "detach"),)
    assert any("explode" in w.value for w in again.warning)
    rows = again.table[-1].value
    w = rows[rows["tensor"] == "w"]
    assert w["with the interventions"].iloc[0] == "[0, 0, 0]", "detaching q stops w's grad"


def test_a_grad_hook_changes_the_inputs_grads_and_clearing_undoes_it():
    at = open_page(EXPLORER, {"program": STE})
    open_tab(at, "Inspect a node")
    _pick(at, "y")
    at.selectbox(key=keys.INTERVENE_KIND).select("scale_grad").run()
    button(at, "Apply to y").click().run()
    no_exception(at)
    rows = at.table[-1].value
    plain = iv.run(STE)
    scaled = iv.run(STE, [iv.Intervention("y", "scale_grad", 2.0)])
    from explorer.numbers import compact

    x = rows[rows["tensor"] == "x"]
    assert x["grad"].iloc[0] == compact(plain.variables["x"].grad)
    assert x["with the interventions"].iloc[0] == compact(scaled.variables["x"].grad)
    button(at, "Clear the interventions").click().run()
    no_exception(at)
    assert "intervene" not in at.query_params
    assert not at.session_state[keys.INTERVENTIONS]


def test_an_unnamed_node_says_what_to_do():
    from autograd.expr import evaluate
    from autograd.graph import trace
    from components.program.intervene import NEEDS_A_NAME

    text = presets.PRESETS["seed example"][1]
    at = open_page(EXPLORER, {"program": text})
    open_tab(at, "Inspect a node")
    unnamed = [n for n in trace(evaluate(text).output).nodes if not n.name][0]
    at.selectbox(key=keys.NODE).select(unnamed.id).run()
    no_exception(at)
    assert [c for c in at.caption if c.value == NEEDS_A_NAME]
    assert not [s for s in at.selectbox if s.key == keys.INTERVENE_KIND]


def _ids(text):
    from autograd.graph import order
    from language import compile_program

    result = compile_program(text).run()
    ids = {t: i for i, t in enumerate(order(result.output, result.uses))}
    return {name: ids[t] for name, t in result.variables.items() if t in ids}


def test_the_main_graph_draws_the_intervened_run_on_its_boxes():
    from explorer import numbers
    from explorer.graph import dot
    from explorer.program import memory, page_data
    from tests.support.apptest import view_data

    item = iv.Intervention("y", "set", 0.5)
    at = open_page(EXPLORER, {"program": STE, "intervene": item.text()})
    no_exception(at)
    data, y = view_data(at), str(_ids(STE)["y"])
    assert data["interventions"] == {y: {"kind": "set", "badge": "set 0.5", "name": "y"}}
    graph = page_data.explorer_run(STE).graph
    compact = dot.plan(graph, max_nodes=400).compact
    want = iv.run(STE, [item]).variables
    assert data["values"][y]["d"] == numbers.value_lines(want["y"].data, compact)
    loss = str(graph.output)
    assert data["values"][loss]["d"] == numbers.value_lines(want["loss"].data, compact), "the output moved with it"
    assert data["values"][y]["d"] != numbers.value_lines(graph.nodes[int(y)].data, compact)
    assert [c for c in at.caption if c.value.startswith("The graph shows the run with 1 intervention (y set 0.5")]
    assert data["saves"] == memory.program_memory(STE).saves, "every box's saved bytes, the Memory tab closed"
    # cleared from the panel: the program as written again
    open_tab(at, "Inspect a node")
    button(at, "Clear the interventions").click().run()
    no_exception(at)
    data = view_data(at)
    assert "interventions" not in data and data["values"] is None
    assert not [c for c in at.caption if c.value.startswith("The graph shows the run with")]


def test_applied_from_the_panel_two_are_marked_and_one_removed():
    from tests.support.apptest import view_data

    at = open_page(EXPLORER, {"program": STE})
    open_tab(at, "Inspect a node")
    _pick(at, "q")
    at.selectbox(key=keys.INTERVENE_KIND).select("detach").run()
    button(at, "Apply to q").click().run()
    _pick(at, "y")
    at.selectbox(key=keys.INTERVENE_KIND).select("scale_grad").run()
    button(at, "Apply to y").click().run()
    no_exception(at)
    ids = _ids(STE)
    marks = view_data(at)["interventions"]
    assert {k: m["kind"] for k, m in marks.items()} == {str(ids["q"]): "detach", str(ids["y"]): "scale_grad"}
    assert [c for c in at.caption if "2 interventions" in c.value]
    button(at, "Remove q: detached").click().run()
    no_exception(at)
    assert {k: m["kind"] for k, m in view_data(at)["interventions"].items()} == {str(ids["y"]): "scale_grad"}
    assert at.query_params["intervene"] in ("y:scale_grad:2.0", ["y:scale_grad:2.0"])


def test_a_poked_input_moves_the_intervened_boxes():
    from explorer import numbers
    from explorer.graph import dot
    from explorer.program import page_data
    from tests.support.apptest import poke_to, view_data

    text = "a = 2.0\nb = -1.0\nc = a * b\nd = (c + a).tanh()\n"
    item = iv.Intervention("c", "scale", 2.0)
    at = open_page(EXPLORER, {"program": text, "intervene": item.text()})
    ids = _ids(text)
    compact = dot.plan(page_data.explorer_run(text).graph, max_nodes=400).compact
    for final in (False, True):  # a drag's move (the fragment alone), then the values settled (the whole page)
        poke_to(at, {"a": 1.0}, final=final, seq=1 + final)
        no_exception(at)
        data = view_data(at)
        want = iv.run(text, [item], (("a", 1.0),)).variables
        assert data["values"][str(ids["d"])]["d"] == numbers.value_lines(want["d"].data, compact), final
        assert data["values"][str(ids["c"])]["d"] == numbers.value_lines(want["c"].data, compact)
        assert data["interventions"][str(ids["c"])]["kind"] == "scale"


def test_forward_mode_draws_the_program_as_written_and_says_so():
    from tests.support.apptest import view_data

    at = open_page(EXPLORER, {"program": STE, "intervene": "y:set:0.5", "mode": "forward"})
    no_exception(at)
    assert view_data(at)["mode"] == "forward" and "interventions" not in view_data(at)
    assert [c for c in at.caption if c.value.startswith("Forward mode draws the program as written")]
