"""The pages' helpers: program/URL sync, error carets, the finite-difference check, stepper words."""

import numpy as np
import pytest

from autograd import Tensor
from autograd.expr import ExpressionError, evaluate
from autograd.graph import backward_steps
from explorer import numbers
from explorer.graph import names
from explorer.program import check, errors, inspector, link, presets, rules, stepper
from explorer.program import run as program_run


def test_sync_program_default_then_url_then_session():
    state, query = {}, {}
    assert link.sync_program(state, query, "a = 1.0") == "a = 1.0"
    assert query["program"] == "a = 1.0"
    # the session edits its program: the URL follows
    state["program"] = "b = 2.0"
    assert link.sync_program(state, query, "a = 1.0") == "b = 2.0"
    assert query["program"] == "b = 2.0"
    # navigation cleared the URL: the session's program is written back
    query.clear()
    assert link.sync_program(state, query, "a = 1.0") == "b = 2.0"
    assert query["program"] == "b = 2.0"
    # a link with another program wins
    query["program"] = "c = 3.0"
    assert link.sync_program(state, query, "a = 1.0") == "c = 3.0"
    assert state["program"] == "c = 3.0"


def test_a_program_too_long_for_a_link_stays_out_of_the_address_and_says_so():
    state, query = {}, {}
    link.sync_program(state, query, "a = 1.0")
    # 10,000 characters of emoji comments: ~120 KB once encoded, more than the server accepts.
    state["program"] = "a = 2.0\n#" + "😀" * 9_990
    assert link.sync_program(state, query, "a = 1.0") == state["program"]
    assert query["program"] == "a = 1.0", "the address keeps the last program that fitted"
    note = link.link_note(state["program"])
    assert "too long for a link" in note and "64 KB" in note and "at most 10,000 characters" in note
    # the stale address is not taken for a link on the next run
    assert link.sync_program(state, query, "a = 1.0") == state["program"]
    state["program"] = "b = 3.0"
    assert link.sync_program(state, query, "a = 1.0") == "b = 3.0" and query["program"] == "b = 3.0"
    assert link.link_note("b = 3.0") == ""


def test_a_long_line_is_shown_around_its_error_not_whole():
    line = "y = x" + ".T" * 2_500 + " +* 1"
    block = errors.caret_block("x = 1.0\n" + line, 2, len(line) - 2)
    source, caret = block.splitlines()
    assert len(source) < 120 and source.startswith("2 | …") and source.endswith("+* 1")
    assert source[caret.index("^")] == "*"
    middle = errors.caret_block("x = 1.0\n" + line, 2, 2_000)
    assert middle.splitlines()[0].endswith("…") and len(middle.splitlines()[0]) < 120


def test_error_report_names_line_and_column_and_points_at_them():
    text = "a = 1.0\nb = a +* 2"
    with pytest.raises(ExpressionError) as info:
        evaluate(text)
    message, caret = errors.error_report(text, info.value)
    assert message.startswith("Line 2, column 8: ") and caret == errors.caret_block(text, 2, 8) != ""
    assert errors.error_report(text, ValueError("no place")) == ("no place", "")


def test_caret_block_points_at_the_column():
    text = "a = 1.0\nb = a +* 2\n"
    block = errors.caret_block(text, 2, 8)  # 1-based: the "*"
    source, caret = block.splitlines()
    assert source == "2 | b = a +* 2"
    assert caret.index("^") == source.index("*")
    assert errors.caret_block(text, None, None) == ""
    assert errors.caret_block(text, 9, 1) == ""


def quadratic(values):
    x, w = values["x"], values["w"]
    return (x * w) ** 2 + np.sin(x)


def test_finite_difference_check_agrees_with_exact_grads():
    x = np.array([0.5, -1.0, 2.0])
    w = np.array([1.5, 0.25, -0.75])
    exact = {"x": 2 * x * w * w + np.cos(x), "w": 2 * x * x * w}
    rows = check.finite_difference_check(quadratic, {"x": x, "w": w}, exact)
    assert [r.name for r in rows] == ["x", "w"]
    assert all(r.ok for r in rows)
    assert all(r.max_abs_error < 1e-6 for r in rows)
    np.testing.assert_allclose(rows[0].numeric, exact["x"], atol=1e-6)


def test_finite_difference_check_catches_a_wrong_grad():
    x = np.array([0.5, -1.0, 2.0])
    w = np.array([1.5, 0.25, -0.75])
    wrong = {"x": 2 * x * w * w, "w": 2 * x * x * w}  # forgot cos(x)
    rows = check.finite_difference_check(quadratic, {"x": x, "w": w}, wrong)
    assert rows[0].ok is False and rows[0].max_abs_error == pytest.approx(np.abs(np.cos(x)).max(), rel=1e-5)
    assert rows[1].ok is True
    table = check.check_table(rows)
    assert table[0]["check"] == "FAIL" and table[1]["check"] == "pass"


def test_finite_difference_check_samples_big_inputs():
    x = np.linspace(-1, 1, 500)
    rows = check.finite_difference_check(lambda v: v["x"] ** 3, {"x": x}, {"x": 3 * x**2}, max_elements=20)
    assert rows[0].checked == 20 and rows[0].total == 500 and rows[0].ok
    assert np.isnan(rows[0].numeric).sum() == 480
    assert check.check_table(rows)[0]["numerical grad"] == "20 of 500 elements checked"


def fan_out_broadcast():
    x = Tensor(np.arange(12.0).reshape(3, 4), requires_grad=True, name="X")
    b = Tensor([0.1, 0.2, 0.3, 0.4], requires_grad=True, name="b")
    y = (x + b) * b
    y.name = "y"
    return y.sum()


def states_at(graph, steps, position):
    timeline = stepper.step_timeline(graph, steps)
    return {node.id: s for node in graph.nodes if (s := timeline.state(node.id, position)) is not None}


def test_the_timeline_walks_from_waiting_to_done():
    graph, steps = backward_steps(fan_out_broadcast())
    n = len(steps)
    start = states_at(graph, steps, 0)
    assert set(start.values()) == {"waiting"}
    assert graph.output not in start, "at the seed the output has its grad: drawn as the output"
    assert set(start) == {node.id for node in graph.nodes if node.requires_grad} - {graph.output}
    mid = states_at(graph, steps, 1)
    assert mid[steps[0].node] == "active" and list(mid.values()).count("active") == 1
    end = states_at(graph, steps, n)
    assert end[steps[-1].node] == "active"
    assert all(s in ("done", "active") for s in end.values())


@pytest.mark.parametrize("name", ["micrograd", "broadcasting bias", "layer norm", "attention scores"])
def test_the_timeline_says_what_the_steps_say(name):
    # Written out from the steps themselves, position by position: the node of step k is active at
    # k and done after it; a leaf is done once its last contribution has arrived; constants take no part.
    graph, steps = backward_steps(evaluate(presets.program(name)).output)
    processed = {step.node for step in steps}
    for k in range(len(steps) + 1):
        states = states_at(graph, steps, k)
        received = {}
        for step in steps[:k]:
            for c in step.contributions:
                received[c.parent] = received.get(c.parent, 0) + 1
        totals = {c.parent: c.fan_out_total for step in steps for c in step.contributions}
        for node in graph.nodes:
            if not node.requires_grad:
                expected = None
            elif k > 0 and steps[k - 1].node == node.id:
                expected = "active"
            elif node.id in processed:
                expected = "done" if any(s.node == node.id for s in steps[: max(k - 1, 0)]) else "waiting"
            else:
                expected = "done" if received.get(node.id, 0) >= totals.get(node.id, 1) else "waiting"
            if k == 0 and node.id == graph.output:
                expected = None
            assert states.get(node.id) == expected, (name, k, node.id, states.get(node.id), expected)


def test_contribution_slots_and_broadcast_edges():
    x = Tensor(3.0, requires_grad=True, name="x")
    graph, steps = backward_steps(x * x)
    assert stepper.contribution_slots(graph.nodes[steps[0].node], steps[0]) == [0, 1]
    graph, steps = backward_steps(fan_out_broadcast())
    marks = stepper.broadcast_edges(graph, steps)
    b = [n for n in graph.nodes if n.name == "b"][0]
    edges = {(child, slot) for child, slot in marks}
    # b is broadcast twice: into x + b (slot 1) and into (x + b) * b (slot 1)
    assert all(graph.nodes[child].parents[slot] == b.id for child, slot in edges) and len(edges) == 2
    assert set(marks.values()) == {"Σ axis 0"}
    assert stepper.broadcast_axes_text((0, 2)) == "Σ axes 0, 2"


def test_the_seed_is_described_for_scalars_and_arrays():
    graph, steps = backward_steps(evaluate(presets.program("micrograd")).output)
    seed = stepper.describe_seed(graph, steps)
    assert seed.title == "Step 0 of 25: the seed, g.grad = 1" and seed.seed == "1" and "dg/dg = 1" in seed.text
    assert "`g`'s VJP" in seed.text
    graph, steps = backward_steps(evaluate("x = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]\nout = x * 2.0\n").output)
    seed = stepper.describe_seed(graph, steps)
    assert seed.title == "Step 0 of 1: the seed, out.grad = ones(2, 3)"
    assert "dout/dout" not in seed.text and "`out.sum()`" in seed.text
    assert seed.seed.count("1") == 6


def test_describe_step_tells_broadcast_and_fan_out():
    graph, steps = backward_steps(fan_out_broadcast())
    views = [stepper.describe_step(graph, s, len(steps)) for s in steps]
    broadcast = [c for v in views for c in v.contributions if c.broadcast]
    assert any(c.broadcast == "summed over axis 0 to undo broadcasting (3, 4) → (4,)" for c in broadcast)
    fan = [c for v in views for c in v.contributions if c.fan_out]
    assert {c.fan_out for c in fan} == {"contribution 1 of 2 to b", "contribution 2 of 2 to b"}
    mul = [v for v in views if v.op == "mul"][0]
    assert mul.formula.startswith("dA = G")
    assert [c.slot for c in mul.contributions] == ["A", "B"]
    assert views[0].title.startswith(f"Step 1 of {len(steps)}")


def test_repeated_parent_slots():
    x = Tensor(3.0, requires_grad=True, name="x")
    graph, steps = backward_steps(x * x)
    view = stepper.describe_step(graph, steps[0], 1)
    assert [c.slot for c in view.contributions] == ["A", "B"]
    assert [c.fan_out for c in view.contributions] == ["contribution 1 of 2 to x", "contribution 2 of 2 to x"]
    assert view.contributions[1].accumulated == "6"


def test_array_text_and_compact():
    assert numbers.array_text(None) == "—"
    assert numbers.array_text(np.array(2.0)) == "2"
    assert "mean" in numbers.array_text(np.ones(1000))
    assert numbers.compact(np.arange(4.0).reshape(2, 2)) == "[[0, 1], [2, 3]]"
    assert inspector.as_table(np.ones((2, 3, 4))).shape == (6, 4)


def test_presets_are_described():
    assert presets.DEFAULT in presets.PRESETS
    for name in presets.names():
        description, text = presets.PRESETS[name]
        assert description and "\n" not in description
        assert text.strip()


@pytest.mark.parametrize("name", presets.names())
def test_each_preset_evaluates_and_its_grads_check_out(name):
    analysis = check.analyse_program(presets.program(name))
    inputs = [r for r in analysis.checks if r.ok is not None]
    assert inputs, "every preset has inputs to check"
    if name in presets.CHECK_DIFFERS:
        # NOTE: a * b + b ** 3 is exactly 0 there, relu's kink: backward() takes relu'(0) = 0,
        # central differences see the average slope 1/2; the straight-through estimator's backward is the
        # identity's where round's slope is 0. The check must say so.
        assert not all(r.ok for r in inputs)
    else:
        assert all(r.ok for r in inputs), [(r.name, r.max_abs_error) for r in inputs]
    assert "import" in analysis.python and not analysis.note


def test_micrograd_preset_gives_micrograd_numbers():
    analysis = check.analyse_program(presets.program("micrograd"))
    graph = analysis.graph
    out = graph.nodes[graph.output]
    grads = {n.name: float(n.grad) for n in graph.nodes if n.kind == "input"}
    assert float(out.data) == pytest.approx(24.7041, abs=1e-4)
    assert grads["a"] == pytest.approx(138.8338, abs=1e-4)
    assert grads["b"] == pytest.approx(645.5773, abs=1e-4)


def test_evaluate_with_inputs_replaces_only_the_named_inputs():
    from autograd.expr import evaluate

    text = "Q = randn(2, 3)\nK = randn(2, 3)\ns = (Q @ K.T * randn(2, 2)).sum()\n"
    result = evaluate(text)
    values = {"Q": result.variables["Q"].data, "K": result.variables["K"].data}
    assert evaluate(text, inputs=values).output.data == result.output.data  # same random draws
    nudged = dict(values, Q=values["Q"] + 1.0)
    again = evaluate(text, inputs=nudged)
    assert again.output.data != result.output.data
    assert np.array_equal(again.variables["Q"].data, values["Q"] + 1.0)
    assert np.array_equal(again.variables["K"].data, values["K"])


def test_the_check_handles_inline_randomness_reassignment_and_big_inputs():
    inline = check.analyse_program("x = randn(3)\ny = (x * randn(3)).sum()\n")
    assert inline.checks[0].name == "x" and inline.checks[0].ok is True
    reassigned = check.analyse_program("x = [1.0, 2.0]\nx = x * 2\ny = (x * x).sum()\n")
    assert reassigned.checks[0].name == "x" and reassigned.checks[0].ok is True
    big = check.analyse_program("x = randn(2000)\ny = (x * x).sum()\n", max_elements=16)
    assert big.checks[0].ok is True and big.checks[0].checked == 16 and big.checks[0].total == 2000
    shadowed = check.analyse_program("x = 1.0\nx = 2.0\ny = x * 3\n")
    assert shadowed.checks[0].ok is None and "more than once" in shadowed.checks[0].note
    constant = check.analyse_program("y = eye(3).sum()\n")
    assert "Nothing here requires grad" in constant.note
    graph, steps = program_run.step_program("y = eye(3).sum()\n")
    assert steps == () and len(graph.nodes) == 1


class SlowProgram:
    """A program of scalar inputs whose evaluation takes `seconds` on a fake clock (the check's time.monotonic)."""

    def __init__(self, monkeypatch, seconds: float):
        self.now = 0.0
        self.runs = 0
        self.seconds = seconds
        monkeypatch.setattr(check.time, "monotonic", lambda: self.now)

    def __call__(self, values):
        self.runs += 1
        self.now += self.seconds
        return np.array([v**2 for v in values.values()])


def test_the_check_keeps_its_time_budget_and_says_how_far_it_got(monkeypatch):
    # The program: 1,100 scalar inputs, each evaluation ~0.1 s, so checking all would take 220 s.
    slow = SlowProgram(monkeypatch, 0.125)
    inputs = {f"a{i}": np.array(1.0 + i) for i in range(1100)}
    timing = []
    rows = check.finite_difference_check(
        slow, inputs, {k: 2 * v for k, v in inputs.items()}, time_budget=3.0, eval_seconds=0.125, timing=timing
    )
    assert slow.now <= 3.0 + 1e-9, "no pair of evaluations starts that would end past the budget"
    assert slow.runs == 24
    checked = [r for r in rows if r.ok is not None]
    assert [r.name for r in checked] == [f"a{i}" for i in range(12)], "inputs are checked in turn, first to last"
    assert all(r.ok for r in checked)
    assert all(r.ok is None and "budget ran out" in r.note for r in rows[12:])
    (spent,) = timing
    assert (spent.inputs_checked, spent.inputs, spent.partial) == (12, 1100, True)
    assert check.check_note(spent, rows).startswith("Checked 12 of 1,100 inputs in 3.0 s, the check's time budget")


def test_the_check_spreads_its_budget_over_inputs_before_elements(monkeypatch):
    slow = SlowProgram(monkeypatch, 0.125)
    inputs = {"x": np.linspace(0, 1, 50), "y": np.linspace(0, 1, 50)}

    def run(values):
        slow(values)
        return values["x"] ** 2 + values["y"]

    rows = check.finite_difference_check(run, inputs, {"x": 2 * inputs["x"], "y": np.ones(50)}, time_budget=1.25)
    assert [r.checked for r in rows] == [3, 2] and all(r.ok for r in rows)


def test_a_program_slower_than_the_budget_is_not_checked_and_says_why(monkeypatch):
    slow = SlowProgram(monkeypatch, 4.0)
    rows = check.finite_difference_check(
        slow, {"x": np.array(2.0)}, {"x": np.array(4.0)}, time_budget=3.0, eval_seconds=4.0
    )
    assert slow.runs == 0
    assert rows[0].ok is None and "one evaluation takes 4.0 s" in rows[0].note and "3.0 s budget" in rows[0].note
    timing = []
    check.finite_difference_check(slow, {"x": np.array(2.0)}, {"x": np.array(4.0)}, time_budget=3.0,
                                    eval_seconds=4.0, timing=timing)
    assert check.check_note(timing[0], rows).startswith("No input was checked: one evaluation of the program")


def test_a_check_with_room_checks_everything_and_says_nothing():
    timing = []
    rows = check.finite_difference_check(quadratic, {"x": np.ones(3), "w": np.ones(3)},
                                           {"x": 2 + np.cos(np.ones(3)), "w": 2 * np.ones(3)},
                                           time_budget=30.0, timing=timing)
    assert all(r.ok and r.checked == 3 for r in rows)
    assert not timing[0].partial and check.check_note(timing[0], rows) == ""


def test_rounding_noise_is_not_taken_for_a_kink():
    # 1e9 + 3x rounds to a multiple of 1.2e-7, so central differences of step 1e-6 see 3 ± 0.06:
    # the program's own float error, which the check must allow for (and say so), not call a kink.
    text = "x = [0.5, -1.0, 2.0]\ny = ((x * 3 + 1e9) - 1e9).sum()\n"
    analysis = check.analyse_program(text)
    (row,) = [r for r in analysis.checks if r.name == "x"]
    assert row.ok and row.max_abs_error > 1e-5
    assert row.float_error == pytest.approx(check.rounding_noise(analysis.graph))
    assert check.check_table([row])[0]["check"].startswith("pass (within float error ±")
    assert "x matches within float error" in analysis.check_note
    strict = check.finite_difference_check(
        lambda v: (v["x"] * 3 + 1e9) - 1e9, {"x": np.array([0.5, -1.0, 2.0])}, {"x": np.full(3, 3.0)}
    )
    assert strict[0].ok is False, "without the allowance the same check fails"
    kink = check.analyse_program("x = [0.0, 1.0]\ny = x.relu().sum()\n")
    assert kink.checks[0].ok is False and kink.checks[0].float_error == 0.0, "relu at 0 is still a kink"


def test_a_long_chain_over_many_numbers_is_within_float_error_not_a_kink():
    # Differences of a large output are taken before it is summed, so an elementwise chain's
    # rounding cancels exactly; the noise allowance stays small next to a real error.
    text = "x = randn(100000)\ny = x.gelu().tanh().exp().log().gelu().tanh().exp().log()\n"
    analysis = check.analyse_program(text, time_budget=60.0, max_elements=8)
    row = analysis.checks[0]
    assert row.ok and row.max_abs_error < 1e-8
    assert check.rounding_noise(analysis.graph) < 1e-3


@pytest.mark.parametrize("shape", [(), (1,), (2,), (1, 2), (2, 1), (3, 4), (40, 25)])
def test_heatmap_ticks_sit_on_whole_indices(shape):
    """Issue 17 item 7: a tiny tensor's heatmap had ticks at -0.5 ... 1.5; every tick is an index of a cell."""
    from explorer.program.inspector import heatmap_figure

    data = np.arange(float(np.prod(shape))).reshape(shape)
    fig = heatmap_figure(data, np.ones(shape), "x")
    rows, cols = inspector.as_table(data).shape
    for axis, n in (("xaxis", cols), ("yaxis", rows), ("xaxis2", cols), ("yaxis2", rows)):
        a = fig.layout[axis]
        assert a.tickmode == "linear" and a.tick0 == 0 and float(a.dtick).is_integer(), axis
        ticks = np.arange(a.tick0, n, a.dtick)
        assert ticks[0] == 0 and len(ticks) <= 10 and ticks[-1] <= n - 1, (axis, ticks)


def test_heatmap():
    from explorer.program.inspector import heatmap_figure

    fig = heatmap_figure(np.arange(12.0).reshape(3, 4), np.ones((3, 4)), "X")
    assert len(fig.data) == 2 and fig.data[0].z.shape == (3, 4)
    assert fig.data[0].colorbar.x < fig.layout.xaxis2.domain[0], "the first colour bar sits between the panels"
    assert len(heatmap_figure(np.ones(5), None).data) == 1


@pytest.mark.parametrize(
    "message, shown",
    [
        ("attribute '__class__' is not allowed", r"attribute '\_\_class\_\_' is not allowed"),
        ("points_2.csv: line 3 has 2 columns", r"points\_2.csv: line 3 has 2 columns"),
        ("write `name = expression`, not *x* or $y$", r"write `name = expression`, not \*x\* or \$y\$"),
        ("one ` backtick and _x_", r"one \` backtick and \_x\_"),
    ],
)
def test_markdown_safe_escapes_user_text_but_keeps_code_spans(message, shown):
    from explorer.words import markdown_safe

    assert markdown_safe(message) == shown


def test_counted_agrees_in_number():
    from explorer.words import counted

    assert [counted(n, "tensor") for n in (0, 1, 2, 1234)] == ["0 tensors", "1 tensor", "2 tensors", "1,234 tensors"]


def test_a_non_finite_check_row_is_told_apart_from_a_kink():
    (log_row,) = check.finite_difference_check(
        lambda v: np.log(v["a"]) * 0.0, {"a": np.array(0.0)}, {"a": np.array(np.nan)}
    )
    (kink_row,) = check.finite_difference_check(
        lambda v: np.maximum(v["b"], 0.0), {"b": np.array(0.0)}, {"b": np.array(0.0)}
    )
    assert not log_row.ok and not log_row.finite
    assert not kink_row.ok and kink_row.finite  # relu at 0: backward() says 0, the two sides average 0.5


def test_a_reused_name_is_shown_with_its_op_in_the_stepper():
    # micrograd's `g = f / 2.0` then `g += 10.0 / f`: two nodes named g.
    graph, steps = backward_steps(evaluate(presets.program("micrograd")).output)
    first = stepper.describe_step(graph, steps[0], len(steps))
    assert first.title == "Step 1 of 25: g = add"
    assert first.contributions[0].parent == "g = div" and first.contributions[1].parent.startswith("div #")
    unique = stepper.describe_step(graph, steps[3], len(steps))
    assert unique.title == "Step 4 of 25: f = pow" and unique.contributions[0].parent == "e"


def test_node_choices_tell_reassigned_scalars_apart():
    graph, _ = backward_steps(evaluate(presets.program("micrograd")).output)
    cs = [names.node_choice(n) for n in graph.nodes if n.name == "c"]
    assert len(cs) == 3 and len(set(cs)) == 3, cs
    assert cs[0] == "c = add  ·  op, scalar = -2"


# ----------------------------------------------------------------------------- the rule with the numbers


def test_the_rule_with_the_step_s_numbers_put_in():
    _, steps = program_run.step_program("a = 49.0\nb = 2.0\nc = a / b\n")
    assert steps[0].plugged == "dA = 1 / 2 = 0.5\ndB = −1 ⊙ 49 / 2² = -12.25"
    _, steps = program_run.step_program("a = -3.0\nb = a * a\n")
    assert steps[0].plugged == "dA = 1 ⊙ (-3) = -3\ndB = 1 ⊙ (-3) = -3", "a negative operand in parentheses"
    _, steps = program_run.step_program("w = [1.0, 2.0, 3.0, 4.0, 5.0]\ny = w.sum()\n")
    assert steps[0].plugged == "dA = 1 broadcast to (5,) = [1, 1, 1, 1, 1]", "5 elements: written whole (issue 17)"
    _, steps = program_run.step_program("w = randn(65)\ny = (w * w).sum()\n")
    assert steps[0].plugged.startswith("(operands of 65 elements: written whole up to 64;")
    graph, steps = program_run.step_program("x = [[1.0, 2.0], [3.0, 4.0]]\nb = [0.5, -0.5]\ny = (x + b).sum()\n")
    add = [s for s in steps if s.op == "add"][0]
    assert add.plugged == "dA = [[1, 1], [1, 1]]\ndB = [[1, 1], [1, 1]]", "the VJP's own value, before Σ axis 0"
    assert rules.plugged_of(steps, add.node) == add.plugged and rules.plugged_of(steps, 0) == ""


@pytest.mark.parametrize("name", presets.names())
def test_every_plugged_in_line_ends_in_the_number_the_engine_sent(name):
    graph, steps = program_run.step_program(presets.program(name))
    for step in steps:
        if "written whole up to 64" in step.plugged:
            continue
        lines = step.plugged.splitlines()
        assert len(lines) == len(step.contributions), step.plugged
        for line, c in zip(lines, step.contributions):
            assert line.rsplit(" = ", 1)[-1] == numbers.plugged_text(c.raw, operand=False), (step.op, line)


def test_a_check_stopped_by_its_budget_never_says_all_inputs_match():
    def row(name, ok, note=""):
        return check.GradCheckRow(name=name, shape=(), grad=np.zeros(()), numeric=None, max_abs_error=0.0,
                                    checked=int(ok is not None), total=1, ok=ok, note=note)

    out_of_time = "not checked: the check's time budget ran out"
    rows = [row("a", True), row("b", True), row("c", None, out_of_time), row("W", None, "not an input")]
    (kind, message), = check.check_verdicts(rows)
    assert kind == "success" and message.startswith("The 2 inputs checked match (of 3) central differences")
    assert "All" not in message
    (_, one), = check.check_verdicts(rows[:1] + rows[2:])
    assert one.startswith("The 1 input checked matches (of 2)")
    (_, whole), = check.check_verdicts(rows[:2] + rows[3:])
    assert whole.startswith("All 2 inputs match")


def test_a_float_tensor_read_as_labels_is_drawn_but_not_nudged():
    """Labels written as floats (y = [2.0, 0.0, 1.0]) require grad, yet cross_entropy only reads them: the check
    nudges the logits alone (a nudged label is no class number), and the Stepper never waits for y's grad."""
    text = "logits = randn(3, 4)\ny = [2.0, 0.0, 1.0]\nloss = cross_entropy(logits, y)"
    analysis = check.analyse_program(text)
    rows = {r.name: r for r in analysis.checks}
    assert rows["logits"].ok is True
    assert rows["y"].ok is None and rows["y"].note.startswith("not checked: read as labels or an index")
    graph, steps = program_run.step_program(text)
    y = next(n for n in graph.nodes if n.name == "y")
    assert program_run.data_only(graph) == {y.id}
    timeline = stepper.step_timeline(graph, steps)
    assert timeline.state(y.id, len(steps)) is None, "drawn as data, not 'waiting' for a grad that never comes"
    from explorer.program import poke

    assert [k.name for k in poke.sliders(text)] == ["logits"], "no slider to make the labels fractional"


@pytest.mark.parametrize(("value", "seconds"), [(None, 3.0), ("0.5", 0.5), ("20", 20.0), ("0", 0.0), ("-1", 3.0),
                                                ("30", 3.0), ("soon", 3.0), ("nan", 3.0), ("inf", 3.0)])
def test_a_server_sets_the_check_s_time_budget(monkeypatch, value, seconds):
    if value is None:
        monkeypatch.delenv("AUTOGRAD_CHECK_SECONDS", raising=False)
    else:
        monkeypatch.setenv("AUTOGRAD_CHECK_SECONDS", value)
    assert check.check_seconds() == seconds


def test_a_broadcast_parent_s_plugged_line_is_the_sum_back():
    """Issue 29: "With this step's numbers" printed `dB = G` as the unsummed (4, 3) matrix; it is `dB = Σ₀ G`,
    the (3,) grad the parent gets."""
    program = ("X = tensor([[0.5, -1.0, 2.0], [1.5, 0.5, -0.5], [1.0, 1.0, 1.0], [0.0, 2.0, 1.0]])\n"
               "b1 = tensor([0.1, 0.2, 0.3])\nh = X * b1\nz = h + b1\nout = z.sum()")
    graph, steps = program_run.recorded_backward(evaluate(program).output)  # the rules with their numbers recorded
    views = {v.op: v for v in (stepper.describe_step(graph, s, len(steps)) for s in steps)}
    add, mul = views["add"].plugged.splitlines(), views["mul"].plugged.splitlines()
    assert add[1] == "dB = Σ₀ G = [4, 4, 4]", add  # four rows of ones, summed over axis 0
    assert add[0].startswith("dA = ") and "Σ" not in add[0], "the (4, 3) parent is not summed"
    assert mul[1] == "dB = Σ₀ (G ⊙ A) = [3, 2.5, 3.5]", mul  # the columns of X summed
