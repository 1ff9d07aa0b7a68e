"""The Practice page through Streamlit's AppTest: an exercise from its link, answers typed and checked, the table's
test hooks, the graph's marks, hints, the whole backward, the random re-check, the attempt in the URL, and bad
programs and answers said in words."""

from __future__ import annotations

import re

import pytest

from explorer.practice import keys
from explorer.practice.exercises import EXERCISES
from tests.support.apptest import no_exception, open_page, view_data

PAGE = "pages/practice.py"
LINEAR = EXERCISES["linear + ReLU"].program
ROW = re.compile(r'data-testid="practice-row" data-name="([^"]+)" data-verdict="([a-z]+)" data-maxdiff="([^"]*)"')
SUMMARY = re.compile(r'data-testid="practice-summary" data-solved="(\d+)" data-total="(\d+)"')


def table(at) -> dict:
    (body,) = [h.proto.body for h in at.get("html") if 'data-testid="practice"' in h.proto.body]
    return {name: verdict for name, verdict, _ in ROW.findall(body)}


def summary(at) -> tuple[int, int]:
    (body,) = [h.proto.body for h in at.get("html") if 'data-testid="practice"' in h.proto.body]
    solved, total = SUMMARY.search(body).groups()
    return int(solved), int(total)


def editor(at):
    return at.text_area(key=keys.EDITOR)


def test_a_link_opens_its_exercise_with_the_output_s_line_given():
    at = open_page(PAGE, {"program": LINEAR})
    assert editor(at).value == "dloss = ones(loss.shape)"
    assert table(at) == dict.fromkeys(("h", "z", "b", "W", "x"), "pending")
    assert summary(at) == (0, 5)
    assert at.query_params["answers"] == "dloss = ones(loss.shape)"
    marks = view_data(at)  # the graph: the boxes' grad rows hold verdicts, never the grads themselves
    assert "pending" in marks["dot"] and "grad" in marks["dot"]


def test_answers_typed_are_checked_and_the_url_keeps_the_attempt():
    at = open_page(PAGE, {"program": LINEAR})
    editor(at).input("dloss = ones(loss.shape)\ndh = 2 * (h - 1.0) / 20 * dloss\ndz = dh * (z > 0)\ndb = dz\n"
                     "dW = x.T @ dz\ndx = dz @ W.T").run()
    no_exception(at)
    assert table(at) == {"h": "close", "z": "close", "b": "shape", "W": "close", "x": "close"}
    assert summary(at) == (4, 5)
    assert "dW = x.T @ dz" in at.query_params["answers"]
    again = open_page(PAGE, {"program": LINEAR, "answers": at.query_params["answers"]})
    assert table(again) == table(at)


def test_hints_then_the_answer_shown_and_the_whole_backward():
    at = open_page(PAGE, {"program": LINEAR})
    at.selectbox(key=keys.HINT_FOR).select("b").run()
    hint = next(b for b in at.button if b.label.startswith("Hint"))
    hint.click().run()
    assert any("dB = G" in c.value for c in at.code)
    next(b for b in at.button if b.label.startswith("Hint")).click().run()
    next(b for b in at.button if b.label.startswith("Hint")).click().run()
    no_exception(at)
    assert "# shown" in editor(at).value and "db = " in editor(at).value
    assert table(at)["b"] == "error"  # the answer shown reads dz, not answered yet: the row says so
    next(b for b in at.button if b.label.startswith("Show the whole backward")).click().run()
    no_exception(at)
    assert set(table(at).values()) <= {"exact", "close"}
    assert summary(at) == (0, 5)  # every answer shown, none solved


def test_twenty_random_draws_say_which_answer_held():
    at = open_page(PAGE, {"program": LINEAR})
    next(b for b in at.button if b.label.startswith("Show the whole backward")).click().run()
    next(b for b in at.button if b.label.startswith("Check on 20")).click().run()
    no_exception(at)
    assert any("held on 20 random draws" in s.value for s in at.success)


def test_every_exercise_opens_from_the_box():
    at = open_page(PAGE, {"program": LINEAR})
    for key in EXERCISES:
        at.selectbox(key=keys.EXERCISE).select(key).run()
        no_exception(at)
        assert at.query_params["program"] == EXERCISES[key].program
        verdicts = table(at)
        output = editor(at).value.split(" = ")[0][1:]  # the output's line is given: its row is already right
        assert {v for n, v in verdicts.items() if n != output} == {"pending"}, key


@pytest.mark.parametrize(("program", "answers"), [
    ("x = randn(3\n", None),
    ("x = 1.0\ny = x * 2\n", "dy = " + "(" * 300),
    (LINEAR, "dW = __import__('os')\ndx = " + "1 +" * 4000 + "1"),
    (LINEAR, "x" * 20_000),
])
def test_bad_programs_and_answers_are_said_in_words(program, answers):
    query = {"program": program} | ({"answers": answers} if answers is not None else {})
    at = open_page(PAGE, query)
    no_exception(at)
    said = [e.value for e in at.error] + [w.value for w in at.warning]
    if program == LINEAR or "y = x" in program:
        body = [h.proto.body for h in at.get("html") if 'data-testid="practice"' in h.proto.body]
        assert body or said
    else:
        assert said and all("Traceback" not in s for s in said)
