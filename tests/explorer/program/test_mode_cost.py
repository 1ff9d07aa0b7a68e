"""What a full Jacobian costs each way (explorer/program/mode_cost.py) and how the Forward vs reverse tab shows it
(cost_report.py): the counted crossover curve against built Jacobians, the winner flipping at n = m, too-big
programs counted only, and the table's hooks and the plot as the browser gets them."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from explorer.program import cost_report, presets
from explorer.program.mode_cost import jacobian_cost, lab_cost, lab_counts, lab_program, operation_counts, program_cost
from language import compile_program
from tests.support.clock import ticking
from tests.support.cost_markup import TOO_BIG, hooks

# ----------------------------------------------------------------------------- the lab's curve, by counting


@pytest.mark.parametrize("m", [1, 3, 16])
def test_the_count_only_curve_equals_the_counts_of_the_built_jacobians(m):
    ns = (1, 2, 5, 16, 17, 40)
    curve = lab_counts(ns, m)
    assert curve.m == m and curve.ns == ns
    for n, forward, reverse in zip(ns, curve.forward, curve.reverse):
        cost = lab_cost(n, m, clock=ticking())
        assert cost.built, (n, m)
        assert (forward, reverse) == (cost.forward.operations, cost.reverse.operations), (n, m)
        # NOTE: what one pass through y = tanh(W @ x) does each way: W @ v (m·n multiply-adds) and tanh's 3 per output
        assert (forward, reverse) == (n * (m * n + 3 * m), m * (m * n + 3 * m)), (n, m)


def test_the_lab_s_winner_flips_at_n_equal_to_m():
    for m in (1, 4, 9):
        curve = lab_counts(range(1, 21), m)
        assert curve.crossover == m
        for n, forward, reverse in zip(curve.ns, curve.forward, curve.reverse):
            expected = "forward" if n < m else "tie" if n == m else "reverse"
            assert lab_cost(n, m, clock=ticking()).winner == expected, (n, m)
            assert (forward < reverse, forward == reverse) == (n < m, n == m), (n, m)
    assert lab_counts(range(1, 5), 9).crossover is None, "no crossover within the ns counted"


def test_counting_alone_matches_jacobian_cost_on_every_preset():
    for name in presets.names():
        result = compile_program(presets.program(name)).run()
        inputs = list(result.inputs.values())
        counted = operation_counts(result.output, inputs)
        cost = jacobian_cost(result.output, inputs, clock=ticking())
        assert counted == (cost.forward.operations, cost.reverse.operations), name
        assert cost.inputs == tuple((k, v.data.size) for k, v in result.inputs.items()), name


def test_the_lab_program_is_the_one_shown():
    y, x = lab_program(5, 3, seed=2)
    w = y._parents[0]._parents[0].data
    assert w.shape == (3, 5) and x.data.shape == (5,) and x.requires_grad
    np.testing.assert_allclose(y.data, np.tanh(w @ x.data), rtol=1e-15)
    with pytest.raises(ValueError, match="the lab takes n, m ≥ 1"):
        lab_program(3, 0)


# ----------------------------------------------------------------------------- too big: the counts only


def test_a_too_big_program_shows_the_counts_only():
    cost = program_cost(TOO_BIG, clock=ticking())
    n, m = 600 + 500 * 600, 500
    assert (cost.n, cost.m, cost.forward.passes, cost.reverse.passes) == (n, m, n, m)
    assert not cost.built and cost.max_difference is None
    assert cost.forward.seconds is None and cost.reverse.seconds is None
    assert cost.note.startswith("Not built: J has 150,300,000 entries (m × n = 500 × 300,600)")
    # one reverse pass: tanh's 3 per output, then W @ x's grads: dx = Wᵀg (500·600) and dW = g xᵀ (500·600)
    assert cost.reverse.operations == m * (3 * m + 2 * m * 600)
    assert cost.winner == "reverse"
    markup = cost_report.cost_html(cost, "ad-cost", "the program")
    assert hooks(markup, "ad-cost") == {
        "testid": "ad-cost", "n": str(n), "m": str(m), "forward-passes": str(n), "reverse-passes": str(m),
        "forward-operations": str(cost.forward.operations), "reverse-operations": str(cost.reverse.operations),
        "winner": "reverse", "built": "false",
    }
    assert markup.count("<td>not built</td>") == 2
    assert cost_report.difference_text(cost) == cost.note


# ----------------------------------------------------------------------------- the words, table and plot


def test_the_program_s_panel_says_who_wins_and_why():
    cost = program_cost(presets.LINEAR_RELU, clock=ticking())
    assert cost.verdict == ("Reverse mode wins: f maps 22 input numbers to 1 output number: forward mode needs a "
                            "pass per input number (22), reverse mode one per output number (1), so 1 VJP does the "
                            f"work ({cost.reverse.operations:,} operations against {cost.forward.operations:,}).")
    assert cost_report.shape_text(cost) == "n = 22 input numbers (x 6, W 12, b 4), m = 1 output number: J is 1 × 22"
    assert cost_report.difference_text(cost).startswith("J built both ways: the largest |J by forward − J by reverse| "
                                                      "is ")
    markup = cost_report.cost_html(cost, "ad-cost", "the program")
    assert hooks(markup, "ad-cost")["built"] == "true"
    assert re.search(r'<tr data-mode="reverse" data-wins="true"[^>]*><td>reverse \(VJP\)</td><td>1 \(m\)</td>'
                     rf'<td>{cost.reverse.operations}</td><td>{cost.reverse.operations:,}</td><td>1e\+03 ms</td></tr>',
                     markup), markup
    per_pass = cost.forward.operations / 22  # forward mode's mean over its passes: x's, W's and b's differ
    assert f"<td>22 (n)</td><td>{per_pass:.4g}</td>" in markup and per_pass != round(per_pass)
    assert '<tr data-mode="forward" data-wins="false">' in markup
    tie = lab_cost(3, 3, clock=ticking())
    assert '<tr data-mode="forward" data-wins="false">' in cost_report.cost_html(tie, "ad-cost-lab", "a tie")
    assert '<tr data-mode="reverse" data-wins="false">' in cost_report.cost_html(tie, "ad-cost-lab", "a tie")
    assert cost_report.shape_text(tie) == "n = 3 input numbers (in x), m = 3 output numbers: J is 3 × 3"


def test_the_crossover_plot_draws_the_counted_curves_the_chosen_n_and_n_equal_m():
    curve = lab_counts(range(1, 65), 12)
    fig = cost_report.crossover_figure(curve, 30)
    forward, reverse, chosen, crossover = fig.data
    assert list(forward.x) == list(range(1, 65)) and list(forward.y) == list(curve.forward)
    assert list(reverse.y) == list(curve.reverse)
    assert list(chosen.x) == [30, 30] and list(chosen.y) == [curve.forward[29], curve.reverse[29]]
    assert list(crossover.x) == [12, 12] and crossover.name == "n = m = 12"
    assert fig.layout.xaxis.type == fig.layout.yaxis.type == "log"
    assert "m = 12, n = 30" in fig.layout.title.text
    sides = [a.text for a in fig.layout.annotations]
    assert sides == ["← forward cheaper", "reverse cheaper →"]
    moved = cost_report.crossover_figure(curve, 3)
    assert list(moved.data[2].x) == [3, 3] and list(moved.data[0].y) == list(curve.forward)
    at_the_end = cost_report.crossover_figure(lab_counts(range(1, 9), 8), 8)
    assert [a.text for a in at_the_end.layout.annotations] == ["← forward cheaper"], "no room right of n = m"


def test_nan_entries_of_j_are_counted_not_compared():
    # found by the sweep: the std of one number is nan (ddof = 1), so J is [[nan]] both ways; |nan − nan| is no
    # difference to report, and the words say what J holds
    cost = program_cost("s = 1.5\nt0 = s.std()\nout = t0.sum()\n", clock=ticking())
    assert cost.built and cost.nonfinite == 1 and cost.max_difference == 0.0
    assert cost_report.difference_text(cost) == "J built both ways: every entry is nan or inf, the same both ways."
    cost = program_cost("a = 2.0\nb = 3.0\ny = a / 0.0 + b", clock=ticking())  # J = [inf, 1] both ways
    assert cost.nonfinite == 1 and cost.max_difference == 0.0 and cost.max_entry == 1.0
    assert cost_report.difference_text(cost) == ("J built both ways: the largest |J by forward − J by reverse| is 0, "
                                               "its largest entry 1 (the same Jacobian to rounding); 1 of its 2 "
                                               "entries is nan or inf both ways.")
    # d sqrt(x) at 0 is inf, and a one-hot seed's 0 × inf is nan: forward mode fills J's middle row with it (each
    # column's pass), reverse mode its middle column (each row's pass); not one Jacobian, and the words say so
    cost = program_cost("x = [1.0, 0.0, 4.0]\ny = x.sqrt()", clock=ticking())
    assert cost.nonfinite == 5 and cost.max_difference == math.inf and cost.max_entry == 0.5
    assert cost_report.difference_text(cost).startswith("J built both ways: 5 of its 9 entries are nan or inf, and the "
                                                      "two ways disagree on which")


def test_programs_with_nothing_to_differentiate_say_so():
    cost = program_cost("x = tensor([1.0, 2.0], requires_grad=False)\ny = x * 2", clock=ticking())
    assert (cost.n, cost.m, cost.forward.passes, cost.reverse.passes) == (0, 2, 0, 0)
    assert cost.verdict == ("A tie at 0 operations: f maps 0 input numbers to 2 output numbers, with nothing between "
                            "them to differentiate.")
    assert cost_report.difference_text(cost) == "J is empty (2 × 0): nothing to compare."
    cost = program_cost("x = randn(3)\ny = zeros(2) * 1.0", clock=ticking())  # y is a leaf of its own: J = [0 | I]
    assert cost.verdict.startswith("A tie at 0 operations: f maps 5 input numbers to 2 output numbers")
    assert cost.max_entry == 1.0 and cost.max_difference == 0.0


# ----------------------------------------------------------------------------- the caps count work (issue 28)


def _chain(n: int, links: int) -> str:
    """n inputs summed, then a chain of ``links`` scalar steps: few entries and operations, many node visits."""
    steps = ["s = tanh(s)" if i % 2 else "s = s * 2" for i in range(links)]
    return "\n".join([f"x = randn({n})", "s = x.sum()", *steps, "s"])


def test_a_jacobian_inside_every_other_cap_but_with_millions_of_node_visits_is_counted_not_built():
    calls = []

    def clock():  # a build reads the clock: this one must not
        calls.append(1)
        return 0.0

    cost = program_cost(_chain(4096, 300), clock=clock)
    assert not cost.built and calls == []
    assert (cost.n, cost.m) == (4096, 1) and cost.forward.passes == 4096
    assert re.fullmatch(r"Not built: J would take about [\d,]+ s to build: 4,096 forward passes over [\d,]+ nodes "
                        r"are [\d,]+ node visits, more than the 200,000 allowed here; the counts only\.", cost.note)
    seconds = int(re.search(r"about ([\d,]+) s", cost.note).group(1).replace(",", ""))
    assert seconds >= 10  # the sandbox's whole CPU time, which the tab used to spend


def test_a_short_chain_is_still_built():
    cost = program_cost(_chain(64, 100), clock=ticking())
    assert cost.built and cost.note == ""
