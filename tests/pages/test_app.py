"""The app through Streamlit's AppTest: routing, the Expression Explorer and the Backward Stepper.

AppTest runs no JavaScript, so the graph view is checked through the data each page sends it
(explorer.program.view_data.view_data), and the browser's reports (a step, a click, a toggle) are sent
back the way the browser sends them: as the component's state, by `report`.
"""

import ast

import pytest
from streamlit.testing.v1 import AppTest

from autograd.expr import ExpressionError, evaluate
from autograd.graph import backward_steps
from explorer import numbers
from explorer.program import link, presets, rules, run
from explorer.program import view_data as graph_data
from tests.support.apptest import (
    EXPLORER,
    ROOT,
    STEPPER,
    app,
    component,
    graph_dot,
    graph_element,
    labels,
    no_exception,
    open_tab,
    poke_to,
    report,
    sent,
    trigger,
    view_data,
)
from tests.support.helpers import traced

# ----------------------------------------------------------------------------- routing


def test_app_opens_on_the_explorer_with_the_default_program():
    at = app().run()
    no_exception(at)
    assert at.title[0].value == "Expression Explorer"
    assert at.text_area(key="explorer_editor").value == presets.program(presets.DEFAULT)
    dot = graph_dot(at)
    graph = traced(presets.program(presets.DEFAULT))
    assert len(labels(dot)) == len(graph.nodes)
    assert any("match central differences" in s.value for s in at.success)


@pytest.mark.parametrize(
    "page, title",
    [(EXPLORER, "Expression Explorer"), (STEPPER, "Backward Stepper"), ("pages/playground.py", None),
     ("pages/depth_lab.py", "Initialisation & depth")],
)
def test_each_page_runs_without_exception(page, title):
    at = app().run()
    at.switch_page(page).run()
    no_exception(at)
    if title:
        assert at.title[0].value == title
        assert at.caption[0].value, "each page says what it is for"


def test_pages_are_thin_views():
    # a page reads widgets, calls explorer/ and components/ and shows what comes back: no math of its own
    pages = sorted((ROOT / "pages").glob("*.py"))
    assert {p.name for p in pages} >= {
        "explorer.py", "stepper.py", "playground.py", "depth_lab.py", "optimiser_race.py"}
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert len(text.splitlines()) <= 150, f"{page.name}: {len(text.splitlines())} lines; move logic out of it"
        assert "import numpy" not in text and "np." not in text, f"{page.name} does arithmetic"


def test_no_page_has_a_bare_value_for_streamlit_s_magic_to_write():
    # Streamlit's magic writes the value of any expression statement that is not a call: `drawn() or draw()` on
    # its own line put a "None" at the foot of the Explorer
    for script in [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]:
        for node in ast.walk(ast.parse(script.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Expr):
                assert isinstance(node.value, (ast.Call, ast.Constant)), (script.name, node.lineno)


# ----------------------------------------------------------------------------- explorer


@pytest.mark.parametrize("name", presets.names())
def test_each_preset_renders_its_graph_and_checks_its_grads(name):
    at = app().run()
    at.selectbox(key="explorer_preset").select(name).run()
    no_exception(at)
    assert at.success or at.warning, "the check's verdict under the editor"
    open_tab(at, "Gradients and check")  # the dock opens on the program's tab; its table is in this one
    program = presets.program(name)
    assert at.text_area(key="explorer_editor").value == program
    assert at.session_state["program"] == program
    graph = traced(program)
    dot = graph_dot(at)
    assert len(labels(dot)) == len(graph.nodes)
    assert dot.count("->") == len(graph.edges)
    table = at.table[0].value
    inputs = table[table["check"].isin(["pass", "FAIL"])]
    expected_inputs = [n.name for n in graph.nodes if n.kind == "input" and n.name]
    assert sorted(inputs["variable"]) == sorted(expected_inputs)
    if name not in presets.CHECK_DIFFERS:  # NOTE: a relu exactly on its kink, a straight-through round: they differ
        assert (inputs["check"] == "pass").all(), table
    else:
        assert (inputs["check"] == "FAIL").any() and at.warning, "a kink is reported, not hidden"


def test_the_preset_box_names_the_preset_in_the_editor_and_only_then():
    at = app().run()
    assert at.selectbox(key="explorer_preset").value == presets.DEFAULT, "the default program is a preset"
    at.selectbox(key="explorer_preset").select("broadcasting bias").run()
    assert at.selectbox(key="explorer_preset").value == "broadcasting bias"
    at.text_area(key="explorer_editor").input("x = 3.0\ny = x * x\n").run()
    assert at.selectbox(key="explorer_preset").value is None, "the user's own program: the placeholder"
    at.text_area(key="explorer_editor").input(presets.program("attention scores")).run()
    assert at.selectbox(key="explorer_preset").value == "attention scores", "a preset's text typed back is that preset"
    linked = app()
    linked.query_params["program"] = presets.program("softmax cross-entropy")
    linked.run()
    no_exception(linked)
    assert linked.selectbox(key="explorer_preset").value == "softmax cross-entropy", "a link to a preset's text"


@pytest.mark.parametrize(
    "program, line",
    [
        ("a = 1.0\nb = a +* 2\n", 2),
        ("a = 1.0\nb = __import__('os').system('echo pwned')\n", 2),
        ("x = [1.0, 2.0]\ny = x.__class__\n", 2),
        ("a = [1.0, 2.0]\nb = [1.0, 2.0, 3.0]\nc = a + b\n", 3),
        ("x = randn(5000, 5000)\n", 1),
        ("a = 1.0\nb = a @ a\n", 2),
    ],
)
def test_a_hostile_program_shows_an_error_and_keeps_the_last_graph(program, line):
    with pytest.raises(ExpressionError) as raised:
        evaluate(program)
    assert raised.value.line == line
    col = raised.value.col
    at = app().run()
    good = graph_dot(at)
    at.text_area(key="explorer_editor").input(program).run()
    no_exception(at)
    assert at.error, "an error message is shown"
    assert at.error[0].value.startswith(f"Line {line}, column {col}: ")
    assert "__" not in at.error[0].value, "dunder names are escaped, or Markdown makes them bold"
    caret = [c.value for c in at.code if c.value.startswith(f"{line} | ")]
    assert caret and caret[0].splitlines()[1].index("^") == len(f"{line} | ") + col - 1
    assert graph_dot(at) == good, "the last good graph stays"
    assert at.text_area(key="explorer_editor").value == program, "the editor keeps the text"
    stale_marks(at, stale=True)
    # fixing the program brings the graph back
    at.text_area(key="explorer_editor").input("x = 3.0\ny = x * x\n").run()
    assert not at.error and len(labels(graph_dot(at))) == 2  # x and x * x
    stale_marks(at, stale=False)


def stale_marks(at: AppTest, stale: bool) -> None:
    """What is left from the last program that ran says so above the graph and in the open tab, and is dimmed."""
    notes = [c for c in at.caption if c.value == link.STALE_NOTE]
    dimmed = [h for h in at.get("html") if "st-key-explorer_results" in h.proto.body and "opacity" in h.proto.body]
    if not stale:
        assert not notes and not dimmed
        return
    assert len(notes) == 1, "one note under the editor"
    open_tab(at, "Gradients and check")
    notes = [c for c in at.caption if c.value == link.STALE_NOTE]
    assert len(notes) == 2, "one note under the editor, one in the open results tab"
    assert "last program that ran" in link.STALE_NOTE
    assert dimmed, "the graph and the results are dimmed"
    assert at.success, "the last good program's check is still there to read, dimmed under its note"


def test_integer_labels_stay_integer_and_say_so():
    at = app().run()
    program = (
        "logits = [[2.0, 1.0, 0.1], [0.5, 2.5, -1.0]]\ny = tensor([0, 2], requires_grad=False)\n"
        "k = tensor(3, requires_grad=False)\n"
        "loss = cross_entropy(logits, y) * k\n"
    )
    at.text_area(key="explorer_editor").input(program).run()
    no_exception(at)
    open_tab(at, "Gradients and check")
    table = at.table[0].value
    assert table.loc[table["variable"] == "y", "shape"].tolist() == ["(2,) int64"]
    assert table.loc[table["variable"] == "logits", "shape"].tolist() == ["(2, 3)"], "float64 goes unsaid"
    boxes = view_data(at)["boxes"]
    assert [b["shape"] for b in boxes.values() if b["title"] == "k"] == ["scalar int64"]
    assert "scalar int64" in graph_dot(at)


def test_the_graph_view_s_toggles_and_direction_reach_the_download_and_the_stepper():
    at = app().run()
    data = view_data(at)
    assert data["options"]["show"] == ["data", "grad", "shape"] and data["options"]["rankdir"] == "TB"
    # (micrograd's scalars are one-row boxes: a data cell, no word "data")
    assert 'id="n0.d"' in data["dot"] and "rankdir=TB" in data["dot"]
    # the browser lays out the toggled picture itself; the server hears of it afterwards
    options = {"show": ["grad"], "rankdir": "LR", "speed": 8}
    report(at, options=options)
    no_exception(at)
    assert graph_dot(at) == data["dot"], "the picture sent does not change: the browser cuts the rows"
    assert at.session_state["graph_options"] == options, "the Export tab draws its DOT with these options"
    open_tab(at, "Export")
    assert any("parts and direction chosen above" in c.value for c in at.caption)
    at.switch_page(STEPPER).run()
    assert view_data(at)["options"] == options, "the same options on both pages"


def test_inspect_a_node_shows_its_rule_with_its_numbers():
    at = app().run()
    open_tab(at, "Inspect a node")
    _, steps = run.step_program(presets.program(presets.DEFAULT))
    output = steps[0].node  # micrograd's g = g + 10.0 / f, scalars: chosen at first
    assert at.selectbox(key="explorer_node").value == output
    assert rules.plugged_of(steps, output) == "dA = 1\ndB = 1"
    assert [c.value for c in at.code if c.value == "dA = 1\ndB = 1"]
    f = [s for s in steps if s.op == "pow"][0]
    at.selectbox(key="explorer_node").select(f.node).run()
    assert [c.value for c in at.code if c.value == rules.plugged_of(steps, f.node)]
    assert rules.plugged_of(steps, f.node) == "dA = 0.4958 ⊙ 2·(-7)^(2 − 1) = -6.942", "the constant 2 gets no grad"




def test_inspect_a_node_shows_its_data_grad_and_rule():
    at = app().run()
    at.selectbox(key="explorer_preset").select("broadcasting bias").run()
    graph = traced(presets.program("broadcasting bias"))
    bias = [n for n in graph.nodes if n.name == "bias"][0]
    add = [n for n in graph.nodes if n.op == "add"][0]
    assert not at.get("plotly_chart"), "the node inspector runs only when its tab is open"
    open_tab(at, "Inspect a node")
    at.selectbox(key="explorer_node").select(add.id).run()
    no_exception(at)
    rule = [c for c in at.code if c.value == add.formula]
    assert rule and rule[0].proto.wrap_lines, "the rule wraps in the narrow column instead of scrolling"
    grads = "[[0.1833, 0.3667, 0.55, 0.7333], [0.1, -0.1333, 0.3833, 0.06667], [-0.3167, 0.2, 0.05, 0.5667]]"
    assert any(c.value == f"dA = {grads}\ndB = {grads}" for c in at.code), "(3, 4): written whole (issue 17)"
    frames = [d.value for d in at.dataframe]
    assert any(f.shape == (3, 4) for f in frames)
    assert at.get("plotly_chart"), "a heatmap of data and grad"
    at.selectbox(key="explorer_node").select(bias.id).run()
    frames = [d.value for d in at.dataframe]
    assert any(f.shape == (1, 4) and abs(f.to_numpy() - bias.grad).max() < 1e-12 for f in frames)
    assert view_data(at)["selected"] == bias.id, "the graph highlights what the select box picked"
    open_tab(at, "Gradients and check")
    assert not at.get("selectbox") or all(b.key != "explorer_node" for b in at.selectbox)
    open_tab(at, "Inspect a node")
    assert at.selectbox(key="explorer_node").value == bias.id, "the pick survives closing the tab"


def test_the_inspector_on_a_long_vector_sends_a_bounded_preview():
    """Issue 23 item 2: Inspect -> relu of a 1,000,000-number vector was a 1 x 1,000,000 table and heatmap (139.6 s
    of server CPU, +4.4 GB, a 216.8 MB message). Now a column of the first 100 numbers and at most 48 x 120 cells."""
    program = "x = randn(1000000)\ny = x.relu().sum()\n"
    at = app()
    at.query_params["program"] = program
    at.run()
    relu = next(n for n in traced(program).nodes if n.op == "relu")
    report(at, selected=relu.id)
    no_exception(at)
    frames = [d.value for d in at.dataframe]
    assert [f.shape for f in frames] == [(100, 1), (100, 1)], "data and grad: the first 100 numbers each"
    assert any("1,000,000 numbers" in c.value and "first 100 of 1,000,000" in c.value for c in at.caption)
    (chart,) = at.get("plotly_chart")
    assert len(chart.proto.spec) < 150_000


def test_a_click_on_a_box_opens_it_in_the_inspector():
    at = app().run()
    graph = traced(presets.program(presets.DEFAULT))
    b = [n for n in graph.nodes if n.name == "b" and not n.op][0]
    seq = view_data(at)["select_seq"]
    report(at, selected=b.id)  # what a click on b's box sends
    no_exception(at)
    assert at.session_state["explorer_tab"] == "Inspect a node", "the inspector opens"
    assert at.selectbox(key="explorer_node").value == b.id
    assert any(d.value.to_numpy().ravel()[0] == pytest.approx(645.5773, abs=1e-4) for d in at.dataframe)
    data = view_data(at)
    assert data["selected"] == b.id and data["select_seq"] == seq, "a click is not sent back as a new request"
    # the select box moves the graph's selection: a new request
    a = [n for n in graph.nodes if n.name == "a" and not n.op][0]
    at.selectbox(key="explorer_node").select(a.id).run()
    data = view_data(at)
    assert data["selected"] == a.id and data["select_seq"] == seq + 1


def test_downloads_offer_dot_svg_and_python():
    at = app().run()
    assert not at.get("download_button"), "the export runs only when its tab is open"
    open_tab(at, "Export")
    labels_ = [b.proto.label for b in at.get("download_button")]
    assert "DOT (Graphviz)" in labels_ and "As Python" in labels_
    assert "SVG picture" in labels_ or any("needs Graphviz" in c.value for c in at.caption)


# ----------------------------------------------------------------------------- the URL


def test_query_param_round_trip():
    at = app()
    seed = presets.program("seed example")
    at.query_params["program"] = seed
    at.run()
    no_exception(at)
    assert at.text_area(key="explorer_editor").value == seed
    assert len(labels(graph_dot(at))) == len(traced(seed).nodes)
    edited = "x = 2.0\ny = (x * x).relu()\n"
    at.text_area(key="explorer_editor").input(edited).run()
    assert at.query_params["program"] in (edited, [edited])
    assert at.session_state["program"] == edited


# ----------------------------------------------------------------------------- stepper


def test_the_stepper_sends_every_step_once():
    at = app().run()
    explorer = view_data(at)
    at.switch_page(STEPPER).run()
    no_exception(at)
    graph, steps = backward_steps(evaluate(presets.program(presets.DEFAULT)).output)
    data = view_data(at)
    s = data["steps"]
    assert s["count"] == len(steps) == 25 and len(s["panels"]) == 26
    assert data["start"] == 0 and at.query_params["step"] in ("0", ["0"])
    assert s["panels"][0]["title"] == "Step 0 of 25: the seed, g.grad = 1"
    assert [p["title"].split(":")[0] for p in s["panels"][1:]] == [f"Step {k} of 25" for k in range(1, 26)]
    # the same boxes as the Explorer's picture, each sized for the longest grad it will show
    assert labels(data["dot"]).keys() == labels(explorer["dot"]).keys()
    a = [n for n in graph.nodes if n.name == "a"][0]
    assert s["grads"][str(a.id)][-1][1] == ["138.8"], "after the last step, backward()'s grad"
    assert s["done"].startswith("Done: every grad now equals")
    # each step's rule with its numbers put in: g = f / 2.0 (micrograd's scalars), G = 1
    div = [step for step in steps if step.op == "div" and graph.nodes[step.node].name == "g"][0]
    panel = s["panels"][div.index + 1]
    assert panel["formula"] == "dA = G / B,  dB = −G ⊙ A / B²"
    assert panel["plugged"] == "dA = 1 / 2 = 0.5", "f needs a grad, the constant 2.0 does not"


def test_the_server_hears_the_step_without_sending_the_steps_again():
    at = app().run()
    at.switch_page(STEPPER).run()
    sent = graph_element(at).proto.json
    report(at, step=7)  # the browser stepped to 7 on its own and says so
    no_exception(at)
    assert at.query_params["step"] in ("7", ["7"]), "the URL says where the stepper is"
    assert graph_element(at).proto.json == sent, "a run caused by the report sends the same data"
    # a later run (here: arriving from another page) hands the position to a view that mounts afresh
    at.switch_page(EXPLORER).run()
    assert "step" not in at.query_params
    at.switch_page(STEPPER).run()
    assert view_data(at)["start"] == 7


def test_a_link_opens_the_stepper_at_its_step():
    program = presets.program("broadcasting bias")
    n = len(backward_steps(evaluate(program).output)[1])
    for asked, opened in (("2", 2), ("99", n), ("-3", 0), ("two", 0)):
        at = app()
        at.query_params["program"] = program
        at.query_params["step"] = asked
        at.switch_page(STEPPER).run()
        no_exception(at)
        assert view_data(at)["start"] == opened, asked
        assert view_data(at)["steps"]["count"] == n


def test_stepper_panel_explains_fan_out_and_broadcasting():
    at = app().run()
    at.selectbox(key="explorer_preset").select("broadcasting bias").run()
    at.switch_page(STEPPER).run()
    graph, steps = backward_steps(evaluate(presets.program("broadcasting bias")).output)
    add_step = [s.index for s in steps if s.op == "add"][0] + 1
    panel = view_data(at)["steps"]["panels"][add_step]
    assert panel["title"].startswith(f"Step {add_step} of {len(steps)}")
    assert panel["formula"] == "dA = G,  dB = G"
    assert panel["plugged"].startswith("dA = [[0.1833, 0.3667, 0.55, 0.7333],"), "(3, 4): written whole (issue 17)"
    notes = [c["broadcast"] for c in panel["contributions"]]
    assert "summed over axis 0 to undo broadcasting (3, 4) → (4,)" in notes
    assert 'class="broadcast"' in view_data(at)["dot"], "the edge is marked in the graph too"


def test_stepper_shows_an_error_for_a_bad_program():
    at = app().run()
    at.text_area(key="explorer_editor").input("a = 1.0\nb = a +* 2\n").run()
    at.switch_page(STEPPER).run()
    no_exception(at)
    assert at.error[0].value.startswith("Line 2, column 8: ")
    assert not [e for e in at.get("bidi_component") if e.proto.component_name == "components.graph_view"]


def test_stepper_explains_backward():
    at = app().run()
    at.switch_page(STEPPER).run()
    assert len(at.get("latex")) >= 3 or len(at.latex) >= 3
    assert "topologically" in " ".join(m.value for m in at.markdown)


def test_a_big_program_is_summarised_not_hung():
    program = "x = randn(4)\n" + "".join(f"x{i} = {'x' if i == 0 else f'x{i - 1}'}.tanh()\n" for i in range(400))
    program += "y = x399.sum()\n"
    at = app().run()
    at.text_area(key="explorer_editor").input(program).run()
    no_exception(at)
    dot = graph_dot(at)
    assert len(labels(dot)) <= graph_data.MAX_DRAWN
    assert " ops …" in dot, "the tanh chain is collapsed"
    assert any("Too many to read at once" in c.value for c in at.caption)


def test_a_program_without_grads_says_so():
    at = app().run()
    at.text_area(key="explorer_editor").input("y = eye(3).sum()\n").run()
    no_exception(at)
    assert any("Nothing here requires grad" in i.value for i in at.info)
    assert len(labels(graph_dot(at))) == 1
    at.switch_page(STEPPER).run()
    no_exception(at)
    assert any("Nothing to step through" in i.value for i in at.info)
    assert view_data(at)["steps"]["count"] == 0 and "step" not in at.query_params


def test_a_non_finite_gradient_is_not_blamed_on_a_kink():
    at = app().run()
    at.text_area(key="explorer_editor").input("a = 0.0\nb = log(a)\nc = b * 0\n").run()
    no_exception(at)
    warnings = [w.value for w in at.warning]
    assert any(w.startswith("Not a finite number (nan or inf) for: a.") for w in warnings), warnings
    assert not any("kink" in w for w in warnings), warnings
    at.text_area(key="explorer_editor").input("x = 3.0\ny = exp(x)\n").run()
    assert at.success[0].value.startswith("The input matches central differences"), "one input, singular"
    assert any(c.value.startswith("2 tensors, 1 edge.") for c in at.caption)


def test_a_check_that_fails_after_the_graph_is_drawn_is_a_message(monkeypatch):
    from components.common import session
    from explorer.program import page_data

    sandboxed = session.sandboxed

    def failing(fn, *args):  # the evaluation runs in a worker process: it is failed on its way there
        if fn is page_data.explorer_run and args[1]:  # at the poked values: the program's own graph is drawn
            raise RuntimeError("the check ran out of time")
        return sandboxed(fn, *args)

    monkeypatch.setattr(session, "sandboxed", failing)
    at = app()
    at.query_params["program"] = presets.program(presets.DEFAULT)
    at.query_params["poke"] = "a=-2.5"
    at.run()
    no_exception(at)
    assert graph_element(at), "the graph is drawn first"
    assert any("ran out of time" in e.value for e in at.error)




def test_every_input_gets_a_slider_and_the_pictures_of_its_grad():
    at = app().run()
    data = sent(at, "components.poke")
    assert [(k["name"], k["kind"], k["value"], k["lo"], k["hi"]) for k in data["sliders"]] == [
        ("a", "value", -4.0, -8.0, 0.0), ("b", "value", 2.0, 0.0, 4.0)]
    assert [k["slope"] for k in data["sliders"]] == [
        pytest.approx(138.8338, abs=1e-4), pytest.approx(645.5773, abs=1e-4)]
    assert data["output"] == pytest.approx(24.7041, abs=1e-4) and data["out"] == "g"
    assert data["pictures_wanted"] and "curve" not in data, "the pictures are made once the view asks"
    trigger(at, "components.poke", "pictures")
    no_exception(at)
    data = sent(at, "components.poke")
    assert data["curve"]["name"] == "a" and data["surface"]["x"] == "a" and data["surface"]["y"] == "b"
    assert not data["pictures_wanted"]
    assert not data["poked"] and view_data(at)["values"] is None, "the program's own numbers: nothing to retext"
    assert "poke" not in at.query_params


def test_a_poked_value_reaches_the_graph_in_place_the_url_and_the_check():
    from explorer.program import run

    at = app().run()
    layout = view_data(at)
    poke_to(at, {"a": -3.0, "b": 2.0}, final=False)  # a value while dragging
    no_exception(at)
    poked_graph, _ = run.step_program(presets.program(presets.DEFAULT), (("a", -3.0),))
    data = view_data(at)
    assert data["values"] == graph_data.value_texts(poked_graph), "the poked numbers, every box"
    assert (data["dot"], data["key"]) == (layout["dot"], layout["key"]), "over the same drawing: no new layout"
    poke_data = sent(at, "components.poke")
    assert poke_data["answered"] == 1 and poke_data["sliders"][0]["value"] == -3.0
    a_grad = next(n.grad for n in poked_graph.nodes if n.name == "a" and n.kind == "input")
    assert poke_data["sliders"][0]["slope"] == pytest.approx(float(a_grad))
    poke_to(at, {"a": -3.0, "b": 2.0}, final=True, seq=2)  # the drag ended: the page runs whole
    no_exception(at)
    assert at.query_params["poke"] in ("a=-3", ["a=-3"]), "a link keeps the poked value"
    open_tab(at, "Gradients and check")
    table = at.table[0].value
    a_row = table[table["variable"] == "a"].iloc[0]
    assert a_row["check"] == "pass" and a_row["grad"] == numbers.compact(a_grad), "the check is of the poked program"
    assert any("Checked at the poked values (a = -3)" in c.value for c in at.caption), "and says so"


def test_a_link_with_poked_values_reproduces_them_and_reset_returns_to_the_program():
    at = app()
    at.query_params["program"] = presets.program(presets.DEFAULT)
    at.query_params["poke"] = "a=-2.5,b=7,zz=1"
    at.run()
    no_exception(at)
    data = sent(at, "components.poke")
    assert [k["value"] for k in data["sliders"]] == [-2.5, 7.0]
    assert data["sliders"][1]["hi"] >= 7.0, "the slider's range stretches to hold the link's value"
    assert any("zz" in w.value for w in at.warning), "what a link gets wrong is said, not hidden"
    assert view_data(at)["values"] is not None
    version = data["version"]
    trigger(at, "components.poke", "reset")
    no_exception(at)
    data = sent(at, "components.poke")
    assert [k["value"] for k in data["sliders"]] == [-4.0, 2.0] and data["version"] > version
    assert "poke" not in at.query_params and view_data(at)["values"] is None


def test_a_new_program_starts_from_its_own_values():
    at = app().run()
    poke_to(at, {"a": -1.0, "b": 2.0})
    at.selectbox(key="explorer_preset").select("broadcasting bias").run()
    no_exception(at)
    data = sent(at, "components.poke")
    assert [(k["name"], k["kind"], k["value"]) for k in data["sliders"]] == [
        ("X", "scale", 1.0), ("bias", "scale", 1.0)]
    assert "poke" not in at.query_params


def test_the_inspector_shows_the_node_s_jacobian():
    program = "x = [0.5, -1.0, 2.0]\ny = (softmax(x) * [1.0, 2.0, 3.0]).sum()\n"
    at = app()
    at.query_params["program"] = program
    at.run()
    graph = traced(program)
    softmax = next(n for n in graph.nodes if n.op == "softmax")
    report(at, selected=softmax.id)
    no_exception(at)
    jac = sent(at, "components.jacobian_view")
    assert jac["op"] == "softmax" and jac["inputs"][0]["rows"] == jac["inputs"][0]["cols"] == 3
    assert jac["max_error"] < 1e-15
    leaf = next(n for n in graph.nodes if n.name == "x")
    at.selectbox(key="explorer_node").select(leaf.id).run()
    assert not [e for e in at.get("bidi_component") if e.proto.component_name == "components.jacobian_view"]


def test_the_stepper_is_poked_in_place_and_sends_each_step_s_jacobian():
    at = app().run()
    at.switch_page(STEPPER).run()
    no_exception(at)
    layout = view_data(at)
    steps = layout["steps"]
    graph, recorded = backward_steps(evaluate(presets.program(presets.DEFAULT)).output)
    assert set(steps["jacobians"]) == {str(s.node) for s in recorded}
    poke_to(at, {"a": -3.0, "b": 2.0}, final=False)
    no_exception(at)
    data = view_data(at)
    assert (data["dot"], data["key"]) == (layout["dot"], layout["key"])
    assert data["steps"]["version"] != steps["version"] and data["steps"]["grads"] != steps["grads"]
    assert data["values"] is not None and data["steps"]["jacobians"] != steps["jacobians"]
    assert component(at, "components.poke"), "the sliders are beside the graph (in the sidebar)"


def test_the_stepper_sends_a_jacobian_past_its_budget_when_the_browser_asks():
    chain = "".join(f"{b} = softmax({a})\n" for a, b in zip("xyzwv", "yzwvu"))  # five 64-element softmaxes
    program = "x = randn(64)\n" + chain + "t = (u * u).sum()\n"
    at = app()
    at.query_params["program"] = program
    at.switch_page(STEPPER).run()
    no_exception(at)
    jacobians = view_data(at)["steps"]["jacobians"]
    later = [k for k, v in jacobians.items() if v.get("later")]
    assert later, "five 64 × 64 softmax Jacobians are over the budget sent with the steps"
    report(at, jacobian=int(later[0]))
    no_exception(at)
    jacobians = view_data(at)["steps"]["jacobians"]
    assert jacobians[later[0]]["op"] in ("softmax", "mul") and "inputs" in jacobians[later[0]]


@pytest.mark.parametrize("path", ["pages/explorer.py", "pages/stepper.py"])
def test_a_session_keeps_no_graph_of_its_program_between_runs(path):
    # Issue 8: a closed tab's session lives on for a while (Streamlit's reconnect time), and the pages'
    # callbacks and fragments keep the page's namespace and a fragment's arguments with it. So a page's
    # graph, steps and check must not outlive its run there: only the sandbox's byte-bounded cache keeps
    # them (cleared here). Before: the Explorer's namespace and both fragments' arguments held the Graph.
    import gc

    import streamlit as st

    from autograd.graph import Graph
    from components.common.session import sandbox

    program = "x = randn(37, 41)\ny = (x * x).sum()"
    at = app()
    at.query_params["program"] = program
    at.switch_page(path).run()
    assert not at.exception
    sandbox().cache.clear()
    st.cache_data.clear()
    gc.collect()
    held = [g for g in gc.get_objects() if isinstance(g, Graph) and any(n.shape == (37, 41) for n in g.nodes)]
    assert not held, f"{len(held)} graph(s) of the program outlive the run"
    assert at.session_state["program"] == program  # the session itself is alive


def test_a_link_with_a_broken_program_says_what_to_do_where_the_graph_would_be():
    """Issue 17 item 7: an error link's first load showed the error under the editor and left two thirds of the
    page empty."""
    from components.program.panels import NOTHING_DRAWN

    at = app()
    at.query_params["program"] = "a = tensor([1.0, 2.0])\nb = a @ tensor([[1.0]])\nout = b.sum()"
    at.run()
    no_exception(at)
    assert at.error[0].value.startswith("Line 2, column 5: ")
    assert [i.value for i in at.info] == [NOTHING_DRAWN]
    assert not [e for e in at.get("bidi_component") if e.proto.component_name == "components.graph_view"]
    at.button[0].click().run()  # the example program
    no_exception(at)
    assert not at.error and at.session_state["program"] == presets.program(presets.DEFAULT)
    assert [e for e in at.get("bidi_component") if e.proto.component_name == "components.graph_view"]
