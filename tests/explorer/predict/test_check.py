"""Predict's checker (explorer/predict/check.py): a step's prediction per parent, with Practice's verdicts."""

import numpy as np
import pytest

from explorer.practice.written import spell
from explorer.predict import check
from explorer.program import presets

GOOD = ("exact", "close")


@pytest.mark.parametrize("name", presets.names())
def test_the_true_prediction_of_every_step_of_every_preset_is_right(name):
    program = presets.program(name)
    setup, steps = check.walk(program)
    for k, step in enumerate(steps, start=1):
        lines = check.written(setup, step)
        result = check.check_step(program, (), k, tuple(lines))
        assert result["right"] and result["verdict"] in GOOD, (k, lines, result)
        literal = tuple(spell(c.grad, {}) for c in step.contributions)  # the engine's own numbers, written out
        result = check.check_step(program, (), k, literal)
        assert result["verdict"] == "exact" and all(r["verdict"] == "exact" for r in result["rows"]), (k, result)
        shapes = tuple(str(tuple(np.shape(c.grad))) for c in step.contributions)
        result = check.check_step(program, (), k, shapes)
        assert result["verdict"] == "right-shape" and result["right"], (k, shapes, result)


def _step(program, op):
    setup, steps = check.walk(program)
    return next(k for k, s in enumerate(steps, start=1) if s.op == op)


def test_a_broadcast_parent_that_is_not_summed_back_is_a_shape_with_why():
    program = presets.program("broadcasting bias")
    k = _step(program, "add")
    result = check.check_step(program, (), k, ("G", "G"))
    x, bias = result["rows"]
    assert x["verdict"] == "exact" and bias["verdict"] == "shape"
    assert "sums dt2 (3, 4) over the batch axis, where the add broadcast it" in bias["message"]
    assert result["verdict"] == "shape" and not result["right"]
    right = check.check_step(program, (), k, ("G", "G.sum(axis=0)"))
    assert right["verdict"] == "exact" and right["right"]
    shape_only = check.check_step(program, (), k, ("(3, 4)", "(3, 4)"))
    assert [r["verdict"] for r in shape_only["rows"]] == ["right-shape", "shape"]


def test_a_wrong_value_says_how_far_off_and_a_blank_parent_is_pending():
    program = presets.program("broadcasting bias")
    k = _step(program, "pow")
    result = check.check_step(program, (), k, ("t2 * G",))  # the 2 of d(t2²) forgotten
    row = result["rows"][0]
    assert row["verdict"] == "wrong" and row["maxdiff"] > 0 and "12 of 12 elements are off" in row["message"]
    k = _step(program, "add")
    half = check.check_step(program, (), k, ("G", ""))
    assert [r["verdict"] for r in half["rows"]] == ["exact", "pending"]
    assert half["verdict"] == "exact" and not half["right"], "a step is right only with every parent predicted"
    assert check.check_step(program, (), k, ("", ""))["verdict"] == "pending"


@pytest.mark.parametrize("text, words", [
    ("G *", "syntax"),
    ("__import__('os')", ""),
    ("open('x')", ""),
    ("x" * 3_000, "at most"),
    ("G.sum(axis=5)", "axis"),
    ("nothing_here + 1", "nothing_here"),
])
def test_a_bad_prediction_is_an_error_with_words_never_a_traceback(text, words):
    program = presets.program("broadcasting bias")
    result = check.check_step(program, (), 1, (text,))
    row = result["rows"][0]
    assert row["verdict"] == "error" and row["message"]
    assert words.lower() in row["message"].lower()


def test_an_error_s_column_is_the_prediction_s_own():
    result = check.check_step(presets.program("broadcasting bias"), (), 1, ("G + nothing_here",))
    assert result["rows"][0]["col"] == 5


def test_g_is_the_upstream_grad_and_so_is_d_node():
    program = presets.program("broadcasting bias")
    k = _step(program, "pow")
    a = check.check_step(program, (), k, ("2 * t2 * G",))
    b = check.check_step(program, (), k, ("2 * t2 * dy",))
    assert a["verdict"] == b["verdict"] == "exact"


def test_a_step_out_of_range_and_the_score():
    program = presets.program("broadcasting bias")
    assert check.check_step(program, (), 99, ())["verdict"] == "error"
    verdicts = {"1": {"verdict": "exact", "right": True}, "2": {"verdict": "wrong", "right": False},
                "3": {"verdict": "pending", "right": False}, "4": {"verdict": "error", "right": False}}
    assert check.score(verdicts) == (1, 2)


def test_poked_values_are_the_ones_checked_and_x_times_x_has_two_slots():
    program = "a = 2.0\nb = a * a\n"
    poked = (("a", 3.0),)
    result = check.check_step(program, poked, 1, ("G * a", "a * G"))
    assert [r["parent"] for r in result["rows"]] == ["a", "a"], "one row per argument slot"
    assert result["verdict"] == "exact"
    assert check.check_step(program, poked, 1, ("3.0", "3.0"))["verdict"] == "exact"
    assert check.check_step(program, (), 1, ("3.0", "3.0"))["verdict"] == "wrong", "unpoked, a is 2"
