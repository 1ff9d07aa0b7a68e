"""The class benchmark's lost answer, reproduced through AppTest (issue 31): a learner's right answer never showed
checked and the store kept their wrong one.

A run's link is the URL as the browser had it when it asked for the run; the URL a run writes reaches the browser with
that run's messages. A run the browser asks for meanwhile (the editor's resend every 3 s, or the next text typed)
brings the URL of before: the wrong answer this session wrote and has since replaced. It was taken for a link, undid
the right answer, grew the editor's version (so the browser's editor took the wrong text back and stopped resending)
and handed the wrong one in again, after the right one."""

import json

from streamlit.proto.WidgetStates_pb2 import WidgetState

from explorer.classes import room
from explorer.practice import keys as practice_keys
from server.run_store import runs
from tests.support.apptest import component, no_exception, open_page

PROGRAM = "b = tensor([1.0, 2.0])\nloss = (b * b).sum()"
EDITOR = "components.practice_editor"
FIRST = "dloss = ones(loss.shape)\ndt1 = dloss * ones(t1.shape)"
WRONG = FIRST + "\ndb = 3 * dt1 * b"
RIGHT = FIRST + "\ndb = 2 * dt1 * b"


def send(app, **state):
    """The browser's editor sends its state (text, its time ``at``, a resend's ``tries``), as report_to does."""
    states = app._tree.get_widget_states()
    states.widgets.append(WidgetState(id=component(app, EDITOR).proto.id, json_value=json.dumps(state)))
    return app._run(states)


def editor(at) -> dict:
    return json.loads(component(at, EDITOR).proto.json)


def test_a_run_with_the_url_of_before_does_not_undo_the_answer_typed_since_nor_hand_the_old_one_in_again():
    store = runs()
    made = room.open_class(store, "Lost answer")
    info = room.find(store, made.code, who="t")
    room.post(store, info, room.Post("practice", "The square", program=PROGRAM))
    room.join(store, info, "lost-answer-browser", "Ann")
    at = open_page("pages/practice.py", {"program": PROGRAM, "class": made.code, "answers": FIRST},
                   learner="lost-answer-browser")
    send(at, text=WRONG, at=1_000.0)  # the burst: the wrong answer, handed in
    assert at.query_params["answers"] == WRONG
    stale = dict(at.query_params)  # the URL the browser has until the next run's messages reach it
    send(at, text=RIGHT, at=2_000.0)  # the right answer: the page writes it into the URL
    no_exception(at)
    assert at.query_params["answers"] == RIGHT and at.session_state[practice_keys.ANSWERS] == RIGHT
    version = editor(at)["version"]
    at.query_params = stale  # the editor's resend (3 s) asked for before the browser applied that URL
    send(at, text=RIGHT, at=2_000.0, tries=1)
    no_exception(at)
    assert at.session_state[practice_keys.ANSWERS] == RIGHT, "a run with the URL of before undid the right answer"
    assert editor(at)["text"] == RIGHT and editor(at)["version"] == version, "the editor was given the old text"
    assert at.query_params["answers"] == RIGHT
    work = room.work_of(store, info)["lost-answer-browser"]
    assert "db = 2 * dt1 * b" in work["rows"]["b"]["answer"] and work["rows"]["b"]["verdict"] in ("exact", "close")
