"""explorer/program/forward_mode.py: the forward stepper's data (a JVP step per node in order, the tangents each
received, the rule with its numbers), the direction v, the meeting line of the two modes on every preset, and
the cost of the full Jacobian both ways (passes and counted operations against hand counts, times from an
injected clock, the Jacobians built each way equal)."""


import numpy as np
import pytest

from autograd import Tensor
from autograd.ops import PRIMITIVES
from explorer.numbers import plugged_text
from explorer.program import presets
from explorer.program.forward_mode import (
    ONES,
    Direction,
    describe_forward_seed,
    describe_forward_step,
    direction_seeds,
    forward_program,
    meeting_line,
    parse_direction,
    tangents_at,
)
from explorer.program.mode_cost import cost_rows, jacobian_cost, lab_cost, program_cost
from language import compile_program
from tests.support.clock import ticking


# ---- the direction ---------------------------------------------------------------------------------------
def test_directions_read_and_write_their_url_form():
    for text in ("ones", "input:x", "element:W:5"):
        assert parse_direction(text).text == text
    assert parse_direction(None) is ONES and parse_direction("") is ONES
    assert parse_direction("element:a:b:2") == Direction("element", "a:b", 2)
    for bad in ("input:", "element:x", "element:x:-1", "sideways"):
        with pytest.raises(ValueError, match="a direction is 'ones'"):
            parse_direction(bad)


def test_direction_seeds_give_every_input_its_share_of_v():
    x, w = Tensor(np.zeros(3), requires_grad=True), Tensor(np.zeros((2, 3)), requires_grad=True)
    inputs = {"x": x, "W": w}
    seeds = direction_seeds(ONES, inputs)
    assert all(np.array_equal(v, np.ones(t.shape)) for t, v in seeds.items())
    seeds = direction_seeds(Direction("input", "W"), inputs)
    assert np.array_equal(seeds[x], np.zeros(3)) and np.array_equal(seeds[w], np.ones((2, 3)))
    seeds = direction_seeds(Direction("element", "W", 4), inputs)
    assert np.argwhere(seeds[w]).tolist() == [[1, 1]] and not seeds[x].any()
    shapes = {name: t.shape for name, t in inputs.items()}
    assert Direction("element", "W", 4).describe(shapes) == "v = 1 at W[1, 1], zeros elsewhere"
    with pytest.raises(ValueError, match=r"`y`, which is not an input of this program \(inputs: x, W\)"):
        direction_seeds(Direction("input", "y"), inputs)
    with pytest.raises(ValueError, match="`W` has 6 elements .0 to 5.; element 6 is not one of them"):
        direction_seeds(Direction("element", "W", 6), inputs)


# ---- the forward steps -----------------------------------------------------------------------------------
def test_micrograd_forward_steps_mirror_the_backward_walk():
    run = forward_program(presets.MICROGRAD, direction="input:a")
    graph, steps = run.graph, run.steps
    ids = [s.node for s in steps]
    assert ids == sorted(ids)  # topological order: the graph's ids are parents first
    done = {n.id for n in graph.nodes if n.kind == "input"}
    for step in steps:
        node = graph.nodes[step.node]
        assert step.formula == PRIMITIVES[step.op].jvp_formula
        assert [p for p, _ in step.received] == list(node.parents)
        for parent, t in step.received:
            # a parent's tangent is known before the step (an input's from v, an op's from its own step)
            assert (t is None) == (parent not in run.tangents), (step.op, parent)
            if t is not None:
                assert parent in done
                np.testing.assert_array_equal(t, run.tangents[parent])
        done.add(step.node)
        assert step.plugged.startswith("dOut = ") and step.plugged.endswith(plugged_text(step.tangent, operand=False))
    # The output's tangent is what autograd.func.jvp gives: dg/da (micrograd's 138.8338).
    out = graph.nodes[graph.output]
    assert run.tangents[graph.output].item() == pytest.approx(138.8338, abs=5e-4)
    assert run.meeting.forward == pytest.approx(138.8338, abs=5e-4) and run.meeting.agree
    assert run.meeting.text == "forward: ∂g/∂v = 138.8  ·  reverse: ∇g · v = 138.8"
    assert out.name == "g"


def test_the_program_s_tangent_is_the_directional_derivative():
    # Along v = ones in Q: (f(Q + εv) − f(Q − εv)) / 2ε, the program run again with its input replaced.
    program = compile_program(presets.ATTENTION)
    run = forward_program(presets.ATTENTION, direction="input:Q")
    q = program.run().inputs["Q"].data
    eps = 1e-6
    plus = program.run(inputs={"Q": q + eps}).output.data
    minus = program.run(inputs={"Q": q - eps}).output.data
    np.testing.assert_allclose(run.tangents[run.graph.output], (plus - minus) / (2 * eps), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name", presets.names())
def test_forward_and_reverse_meet_on_every_preset(name):
    text = presets.program(name)
    inputs = compile_program(text).inputs
    directions = ["ones"] + [f"input:{n}" for n in list(inputs)[:2]] + [f"element:{n}:0" for n in list(inputs)[:1]]
    for direction in directions:
        run = forward_program(text, direction=direction)
        m = run.meeting
        assert m.agree, f"{name} along {direction}: {m.text}"
        assert m.forward == pytest.approx(m.reverse, rel=1e-9, abs=1e-12), (name, direction)
        forward_digits, reverse_digits = (part.rsplit("= ", 1)[1] for part in m.text.split("  ·  "))
        assert forward_digits == reverse_digits, m.text


def test_the_meeting_line_says_when_the_two_modes_disagree():
    x = Tensor(np.array([0.5, 2.0]), requires_grad=True, name="x")
    y = (x * x).sum()
    y.name = "y"
    right = meeting_line(y, np.array(5.0), {x: np.ones(2)})  # ∂y/∂v = 2·0.5 + 2·2
    assert right.agree and right.text == "forward: ∂y/∂v = 5  ·  reverse: ∇y · v = 5"
    wrong = meeting_line(y, np.array(5.001), {x: np.ones(2)})
    assert not wrong.agree and wrong.text == "forward: ∂y/∂v = 5.001  ·  reverse: ∇y · v = 5"


def test_tangents_at_each_position():
    run = forward_program(presets.MICROGRAD)
    inputs = {n.id for n in run.graph.nodes if n.kind == "input"}
    assert set(tangents_at(run, 0)) == inputs
    assert set(tangents_at(run, 1)) == inputs | {run.steps[0].node}
    assert tangents_at(run, len(run.steps)) == run.tangents
    with pytest.raises(IndexError):
        tangents_at(run, len(run.steps) + 1)


def test_step_and_seed_descriptions():
    run = forward_program("a = 2.0\nb = 3.0\nc = a * b\nd = c * 4.0")
    first = describe_forward_step(run.graph, run.steps[0], len(run.steps))
    assert first.title == "Step 1 of 2: c = mul" and first.formula == "dOut = dA ⊙ B + A ⊙ dB"
    assert first.plugged == "dOut = 1 ⊙ 3 + 2 ⊙ 1 = 5"
    assert [(r.parent, r.slot, r.tangent) for r in first.received] == [("a", "A", "1"), ("b", "B", "1")]
    second = describe_forward_step(run.graph, run.steps[1], len(run.steps))
    assert second.plugged == "dOut = 5 ⊙ 4 = 20"  # the constant 4 carries no tangent: its term is left out
    assert second.received[1].tangent.startswith("none") and second.tangent == "20"
    seed = describe_forward_seed(run)
    assert seed.title == "Seed: v = ones in every input" and "`c`'s JVP" in seed.text
    assert seed.seed == "da = 1\ndb = 1"
    element = describe_forward_seed(forward_program("a = 2.0\nb = 3.0\nc = a * b", direction="input:b"))
    assert element.title == "Seed: v = ones in b, zeros elsewhere" and element.seed == "da = 0\ndb = 1"


def test_big_operands_get_a_sentence_instead_of_numbers():
    # the same limit as the VJP's rule with numbers (rules.PLUG_LIMIT, 64): 6 elements are written out, 100 are not
    assert not forward_program("x = randn(6)\ny = (x * x).sum()").steps[0].plugged.startswith("Written with numbers")
    run = forward_program("x = randn(100)\ny = (x * x).sum()")
    assert run.steps[0].plugged.startswith("Written with numbers for operands of up to 64 elements")


# ---- what each mode costs --------------------------------------------------------------------------------
def test_lab_counts_match_hand_counts_and_the_winner_follows_n_against_m():
    # One pass through y = tanh(W @ x): W @ e (m·n multiply-adds) and tanh's 1 − y·y, then ⊙ (3 per output),
    # both ways; forward mode takes n passes, reverse mode m.
    for n, m in ((7, 2), (2, 7)):
        cost = lab_cost(n, m, clock=ticking())
        per_pass = m * n + 3 * m
        assert (cost.n, cost.m, cost.forward.passes, cost.reverse.passes) == (n, m, n, m)
        assert (cost.forward.operations, cost.reverse.operations) == (n * per_pass, m * per_pass)
        assert cost.built and cost.forward.seconds == cost.reverse.seconds == 1.0
        assert cost.max_difference <= 1e-15
    assert lab_cost(7, 2).winner == "reverse" and lab_cost(2, 7).winner == "forward"
    assert lab_cost(3, 3).winner == "tie"
    assert lab_cost(2, 7).verdict.startswith("Forward mode wins: f maps 2 input numbers to 7 output numbers")


def test_too_big_jacobians_show_the_counts_only():
    cost = lab_cost(600, 500)
    assert not cost.built and cost.forward.seconds is None and cost.max_difference is None
    assert cost.note.startswith("Not built: J has 300,000 entries (m × n = 500 × 600)")
    assert cost.forward.operations == 600 * (500 * 600 + 3 * 500)
    rows = cost_rows(cost)
    assert [r["time"] for r in rows] == ["not built", "not built"]
    assert rows[0]["passes"] == "600 (n)" and rows[1]["passes"] == "500 (m)"
    with pytest.raises(ValueError, match="the lab takes n, m ≥ 1"):
        lab_cost(0, 3)


def test_program_cost_builds_the_same_jacobian_both_ways():
    cost = program_cost(presets.LINEAR_RELU, clock=ticking())
    program = compile_program(presets.LINEAR_RELU)
    result = program.run()
    assert cost.n == sum(t.data.size for t in result.inputs.values()) and cost.m == result.output.data.size
    assert cost.built and cost.max_difference <= 1e-12
    assert cost.forward.passes == cost.n and cost.reverse.passes == cost.m


def test_jacobian_cost_of_a_constant_output():
    x = Tensor(np.ones(3), requires_grad=True)
    cost = jacobian_cost(Tensor(np.ones(2)), [x], clock=ticking())
    assert cost.reverse.passes == 0 and cost.reverse.operations == 0 and cost.forward.operations == 0


def test_a_zero_derivative_meets_at_zero_whatever_the_rounding():
    # Σ softmax(v) is 1 for every v: forward mode's sum of tangents rounds to -2.8e-17, backward's grads are exact
    # zeros; both are 0 to the rounding of the numbers summed on the way (the sweep found the line said they differ)
    run = forward_program("v = tensor([0.3, -1.2, 0.8])\nt0 = softmax(v)\nout = t0.sum()\n", direction="element:v:2")
    assert run.meeting.forward != 0.0 and run.meeting.reverse == 0.0
    assert run.meeting.agree and run.meeting.text == "forward: ∂out/∂v = 0  ·  reverse: ∇out · v = 0"
    # one rounding (issue 29): the output's box and its step print the line's 0, not forward's -2.8e-17
    out = run.graph.output
    assert run.meeting.zero and run.tangents[out] == 0.0 and run.graph.nodes[out].grad == 0.0
    assert [float(s.tangent) for s in run.steps if s.node == out] == [0.0]
    other = forward_program("v = tensor([0.3, -1.2, 0.8])\nout = (v * v).sum()\n", direction="element:v:2")
    assert not other.meeting.zero and other.tangents[other.graph.output] == pytest.approx(1.6)
