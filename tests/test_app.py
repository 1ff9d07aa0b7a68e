"""The app through Streamlit's AppTest: routing, the Expression Explorer and the Backward Stepper."""

import re
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from autograd.expr import ExpressionError, evaluate
from autograd.graph import backward_steps
from explorer import presets
from tests.helpers import traced

TIMEOUT = 60
ROOT = Path(__file__).resolve().parent.parent
EXPLORER = "pages/explorer.py"
STEPPER = "pages/stepper.py"
NODE = re.compile(r"^\s*(n\d+|notice) \[label=(.*)>, fillcolor", re.M)


def app() -> AppTest:
    return AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)


def graph_dot(at: AppTest) -> str:
    charts = at.get("graphviz_chart")
    assert len(charts) == 1, "exactly one graph on the page"
    return charts[0].proto.spec


def labels(dot: str) -> dict[str, str]:
    """DOT node id -> its label (without the colours)."""
    return {m.group(1): m.group(2) for m in NODE.finditer(dot)}


def button(at: AppTest, label: str):
    found = [b for b in at.button if b.label == label]
    assert found, f"no button {label!r} among {[b.label for b in at.button]}"
    return found[0]


def step_slider(at: AppTest):
    sliders = [s for s in at.slider if s.label.startswith("Step (of ")]
    assert len(sliders) == 1
    return sliders[0]


def no_exception(at: AppTest) -> None:
    assert not at.exception, [e.message for e in at.exception]


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
    [(EXPLORER, "Expression Explorer"), (STEPPER, "Backward Stepper"), ("pages/playground.py", None)],
)
def test_each_page_runs_without_exception(page, title):
    at = app().run()
    at.switch_page(page).run()
    no_exception(at)
    if title:
        assert at.title[0].value == title
        assert at.caption[0].value, "each page says what it is for"


# ----------------------------------------------------------------------------- explorer


@pytest.mark.parametrize("name", presets.names())
def test_each_preset_renders_its_graph_and_checks_its_grads(name):
    at = app().run()
    at.selectbox(key="explorer_preset").select(name).run()
    no_exception(at)
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
    if name != "seed example":  # NOTE: its relu sits exactly on the kink at 0, where the check must differ
        assert (inputs["check"] == "pass").all(), table
    else:
        assert (inputs["check"] == "FAIL").any() and at.warning, "a kink is reported, not hidden"


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
    assert any("last program that ran" in c.value for c in at.caption)
    assert at.text_area(key="explorer_editor").value == program, "the editor keeps the text"
    # fixing the program brings the graph back
    at.text_area(key="explorer_editor").input("x = 3.0\ny = x * x\n").run()
    assert not at.error and len(labels(graph_dot(at))) == 2  # x and x * x


def test_toggles_and_layout_change_the_drawing():
    at = app().run()
    assert ">data<" in graph_dot(at) and "rankdir=TB" in graph_dot(at)
    at.segmented_control(key="explorer_show").set_value(["grad"]).run()
    dot = graph_dot(at)
    assert ">data<" not in dot and ">grad<" in dot
    at.segmented_control(key="explorer_rankdir").set_value("LR").run()
    assert "rankdir=LR" in graph_dot(at)


def open_tab(at, label: str) -> None:
    """Select a tab of the explorer (what a click on it does in the browser) and rerun."""
    at.session_state["explorer_tab"] = label
    at.run()


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
    frames = [d.value for d in at.dataframe]
    assert any(f.shape == (3, 4) for f in frames)
    assert at.get("plotly_chart"), "a heatmap of data and grad"
    at.selectbox(key="explorer_node").select(bias.id).run()
    frames = [d.value for d in at.dataframe]
    assert any(f.shape == (1, 4) and abs(f.to_numpy() - bias.grad).max() < 1e-12 for f in frames)
    open_tab(at, "Gradients and check")
    assert not at.get("selectbox") or all(b.key != "explorer_node" for b in at.selectbox)
    open_tab(at, "Inspect a node")
    assert at.selectbox(key="explorer_node").value == bias.id, "the pick survives closing the tab"


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


def test_stepping_next_to_the_end_gives_the_grads_backward_gives():
    at = app().run()
    explorer_labels = labels(graph_dot(at))  # drawn after backward()
    at.switch_page(STEPPER).run()
    no_exception(at)
    program = presets.program(presets.DEFAULT)
    graph, steps = backward_steps(evaluate(program).output)
    assert at.subheader[0].value.startswith("Seed:")
    assert button(at, "Prev").disabled
    first = labels(graph_dot(at))
    assert sum("grad</font> —" in label for label in first.values()) == sum(
        n.requires_grad for n in graph.nodes
    ) - 1, "only the output has a grad (the seed) before the first step"
    for k in range(1, len(steps) + 1):
        button(at, "Next").click().run()
        assert at.subheader[0].value.startswith(f"Step {k} of {len(steps)}:")
        assert step_slider(at).value == k
    no_exception(at)
    assert button(at, "Next").disabled
    assert any("every grad now equals what backward() gives" in s.value for s in at.success)
    final = labels(graph_dot(at))
    assert final == explorer_labels
    a = [n for n in graph.nodes if n.name == "a"][0]
    assert "138.8" in final[f"n{a.id}"]
    button(at, "Prev").click().run()
    assert step_slider(at).value == len(steps) - 1
    button(at, "Reset").click().run()
    assert step_slider(at).value == 0


def test_stepper_panel_explains_fan_out_and_broadcasting():
    at = app().run()
    at.selectbox(key="explorer_preset").select("broadcasting bias").run()
    at.switch_page(STEPPER).run()
    graph, steps = backward_steps(evaluate(presets.program("broadcasting bias")).output)
    add_step = [s.index for s in steps if s.op == "add"][0] + 1
    step_slider(at).set_value(add_step).run()
    no_exception(at)
    assert at.subheader[0].value.startswith(f"Step {add_step} of {len(steps)}")
    notes = [i.value for i in at.info]
    assert "summed over axis 0 to undo broadcasting (3, 4) → (4,)" in notes
    rule = [c for c in at.code if c.value == "dA = G,  dB = G"]
    assert rule and rule[0].proto.wrap_lines, "the rule wraps in the narrow panel instead of scrolling"


def test_play_steps_at_the_chosen_speed_and_stops_at_the_end():
    program = "x = 2.0\ny = x * 3.0\nz = (y.relu() + y).tanh()\n"
    n = len(backward_steps(evaluate(program).output)[1])
    at = app().run()
    at.text_area(key="explorer_editor").input(program).run()
    at.switch_page(STEPPER).run()
    at.select_slider(key="stepper_speed_widget").set_value(8.0).run()
    button(at, "Play").click().run()
    assert step_slider(at).value == 1, "the first step runs at once"
    assert at.session_state["stepper_playing"] and button(at, "Pause")
    seen = [1]
    deadline = time.monotonic() + 10
    while at.session_state["stepper_playing"] and time.monotonic() < deadline:
        time.sleep(0.05)
        at.run()  # NOTE: AppTest never fires the fragment's timer: each run stands for one tick
        seen.append(step_slider(at).value)
    assert seen[-1] == n and not at.session_state["stepper_playing"]
    assert seen == sorted(seen), "play only moves forward"
    assert button(at, "Play")
    # Pause stops where it is
    button(at, "Reset").click().run()
    button(at, "Play").click().run()
    button(at, "Pause").click().run()
    time.sleep(0.3)
    at.run()
    assert step_slider(at).value == 1 and not at.session_state["stepper_playing"]


def test_stepper_shows_an_error_for_a_bad_program():
    at = app().run()
    at.text_area(key="explorer_editor").input("a = 1.0\nb = a +* 2\n").run()
    at.switch_page(STEPPER).run()
    no_exception(at)
    assert at.error[0].value.startswith("Line 2, column 8: ")
    assert not at.get("graphviz_chart")


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
    assert len(labels(dot)) <= 200
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
