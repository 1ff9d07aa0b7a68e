"""The Practice checker: every exercise's reference answers are exact or close on every tensor; seeded mistakes are
flagged on the right tensor first; errors stay on their line; hostile answers get a message, never a traceback."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from explorer.practice import draws, hints
from explorer.practice.check import check
from explorer.practice.exercises import EXERCISES, NINJA_ANSWERS
from explorer.practice.export import script
from explorer.practice.setup import prepare
from explorer.practice.written import whole_backward, written_answers
from tests.support.helpers import ROOT


def _setup(key):
    return prepare(EXERCISES[key].program)


def _replaced(answers: str, name: str, line: str) -> str:
    rows = answers.splitlines()
    (at,) = [i for i, row in enumerate(rows) if row.startswith(f"d{name} = ")]
    rows[at] = line
    return "\n".join(rows)


@pytest.mark.parametrize("key", list(EXERCISES))
def test_every_exercise_s_reference_answers_are_right_on_every_tensor(key):
    setup = _setup(key)
    for answers in filter(None, (whole_backward(setup), EXERCISES[key].reference)):
        report = check(setup, answers)
        assert report.total == len(setup.asked) > 0
        assert [(r.name, r.verdict, r.message) for r in report.rows if not r.good] == []
        assert report.solved == report.total and not report.problems


def test_the_ninja_net_has_about_25_intermediates_and_is_checked_whole():
    setup = _setup("backprop ninja")
    assert len(setup.asked) >= 25
    assert {"bnvar", "bndiff", "emb", "C", "logprobs"} <= set(setup.asked)
    assert check(setup, NINJA_ANSWERS).good == len(setup.asked)


def _first_bad(setup, answers):
    report = check(setup, answers)
    bad = report.first_bad()
    assert bad is not None, "the mistake was not caught"
    return bad, report


def test_a_bias_without_its_batch_sum_is_a_shape_on_the_bias_saying_why():
    setup = _setup("linear + ReLU")
    bad, _ = _first_bad(setup, _replaced(whole_backward(setup), "b", "db = dz"))
    assert (bad.name, bad.verdict) == ("b", "shape")
    assert bad.has == (4, 5) and bad.needs == (5,)
    assert "b is (5,); its grad sums dz (4, 5) over the batch axis" in bad.message


def test_a_missing_transpose_is_flagged_on_the_weight():
    setup = _setup("linear + ReLU")
    bad, _ = _first_bad(setup, _replaced(whole_backward(setup), "W", "dW = x @ dt2"))
    assert (bad.name, bad.verdict) == ("W", "error")
    assert "do not fit" in bad.message and bad.line and bad.col
    square = prepare("x = randn(3, 3)\nW = randn(3, 3)\ny = (x @ W).sum()\n")
    bad, _ = _first_bad(square, _replaced(whole_backward(square), "W", "dW = x @ dt2"))
    assert (bad.name, bad.verdict) == ("W", "wrong") and bad.maxdiff > 0


def test_n_instead_of_n_minus_1_in_the_variance_is_wrong_on_bndiff2():
    setup = _setup("backprop ninja")
    answers = _replaced(NINJA_ANSWERS, "bndiff2", "dbndiff2 = dbnvar * ones(bndiff2.shape) / 8")
    bad, report = _first_bad(setup, answers)
    assert (bad.name, bad.verdict) == ("bndiff2", "wrong")
    later = {r.name: r for r in report.rows}
    assert "bndiff2" in later["bndiff"].depends_on  # computed from the wrong answer, and said so


def test_a_missing_fan_out_term_is_wrong_on_the_tensor_used_twice():
    setup = _setup("backprop ninja")
    bad, _ = _first_bad(setup, _replaced(NINJA_ANSWERS, "bndiff", "dbndiff = dbnraw * bnvar_inv"))
    assert (bad.name, bad.verdict) == ("bndiff", "wrong")
    micro = _setup("micrograd")
    written = written_answers(micro)
    answers = "\n".join(written.values()).replace(written["a"], "da = dc_1 + -dt8 + dt11 * b + dt17")
    bad, _ = _first_bad(micro, answers)
    assert (bad.name, bad.verdict) == ("a", "wrong")


def test_a_hard_coded_number_passes_today_and_breaks_on_a_random_draw():
    setup = _setup("linear + ReLU")
    today = np.array2string(setup.grads["W"], separator=", ", precision=17, floatmode="unique", threshold=10**6)
    answers = _replaced(whole_backward(setup), "W", f"dW = tensor({today})")
    assert {r.name: r.verdict for r in check(setup, answers).rows}["W"] in ("exact", "close")
    result = draws.redraw(setup, answers)
    assert result.draws == draws.DRAWS
    assert [b.name for b in result.broken] == ["W"] and result.broken[0].draw == 1
    assert set(result.held) == {"h", "z", "b", "x"}
    assert set(draws.redraw(setup, whole_backward(setup)).held) == set(setup.asked)


def test_an_error_stays_on_its_line_and_what_uses_it_says_so():
    setup = _setup("linear + ReLU")
    answers = ("dloss = ones(loss.shape)\ndh = 2 * (h - 1.0) / 20 * dloss\ndz = dh * (z >\ndb = dz.sum(axis=0)\n"
               "dx = dz @ W.T")
    rows = {r.name: r for r in check(setup, answers).rows}
    assert rows["h"].verdict == "close"
    assert rows["z"].verdict == "error" and rows["z"].line == 3 and rows["z"].col
    assert rows["b"].verdict == "error" and "dz" in rows["b"].message
    assert rows["W"].verdict == "pending"


@pytest.mark.parametrize("answers", [
    "dW = " + "(" * 500 + "1" + ")" * 500,
    "dW = __import__('os').system('true')",
    "dW = randn(100000, 100000)",
    "dW = x.data",
    "dW = lambda: 1",
    "dW = ones(10 ** 12)",
    "x" * 2_000_000,
    "\0",
    "dW = [" * 100,
    "\n".join(f"dq{i} = ones(1000, 1000)" for i in range(20)),
])
def test_hostile_answers_get_a_message_not_a_traceback(answers):
    setup = _setup("linear + ReLU")
    report = check(setup, answers)
    said = [r.message for r in report.rows if r.verdict == "error"] + list(report.problems)
    assert said, "nothing said"
    assert all("Traceback" not in s for s in said)


def test_ask_narrows_the_table_and_names_what_it_does_not_know():
    setup = prepare("# ask: dW, dnothing\nx = randn(2, 3)\nW = randn(3, 2)\ny = (x @ W).sum()\n")
    assert setup.asked == ("W",)
    assert setup.problems and "dnothing" in setup.problems[0]


def test_hints_come_in_three_steps_and_the_third_is_shown_not_solved():
    setup = _setup("linear + ReLU")
    assert "dB = G" in hints.hint(setup, "b", 1) and "z = add" in hints.hint(setup, "b", 1)
    assert "=" in hints.hint(setup, "b", 2)
    third = hints.hint(setup, "b", 3)
    assert third.startswith("db = ") and third.endswith("# shown")
    answers = _replaced(whole_backward(setup), "b", third)
    report = check(setup, answers)
    row = {r.name: r for r in report.rows}["b"]
    assert row.good and row.shown and report.solved == report.total - 1


def test_the_exported_script_prints_the_same_table_with_the_engine(tmp_path):
    setup = _setup("linear + ReLU")
    answers = _replaced(whole_backward(setup), "b", "db = dz")
    path = tmp_path / "attempt.py"
    path.write_text(script(setup, answers))
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "dW               | exact: True" in out
    assert "db               | shape (4, 5), needs (5,)" in out
