"""Predict on the Stepper through AppTest: the switch and its link, each step's question sent once with the steps,
a prediction the browser sends checked with Practice's rule and kept for the walk (its score)."""

from streamlit.testing.v1 import AppTest

from explorer.predict import check
from explorer.program import presets
from tests.support.apptest import STEPPER, app, no_exception, report, view_data

PROGRAM = presets.program("broadcasting bias")


def opened(**params) -> AppTest:
    at = app()
    at.query_params["program"] = PROGRAM
    for k, v in params.items():
        at.query_params[k] = v
    at.switch_page(STEPPER).run()
    no_exception(at)
    return at


def test_a_link_turns_predict_on_and_the_view_gets_each_step_s_question():
    at = opened(predict="on")
    assert at.toggle(key="predict_on").value is True
    predict = view_data(at)["predict"]
    assert predict["on"] and predict["verdicts"] == {} and predict["score"] == [0, 0]
    assert predict["asks"]["3"]["rows"] == [{"parent": "X", "shape_text": "(3, 4)", "slot": "A"},
                                            {"parent": "bias", "shape_text": "(4,)", "slot": "B"}]
    assert at.query_params["predict"] in ("on", ["on"])


def test_without_the_switch_nothing_is_asked():
    at = opened()
    assert at.toggle(key="predict_on").value is False
    assert view_data(at)["predict"] is None
    assert "predict" not in at.query_params


def test_a_prediction_is_checked_and_scored_for_the_walk():
    at = opened(predict="on")
    report(at, predict={"step": 1, "texts": ["ones(y.shape) / 12"], "seq": 1})
    no_exception(at)
    verdicts = view_data(at)["predict"]["verdicts"]
    assert verdicts["1"]["verdict"] == "exact" and verdicts["1"]["seq"] == 1
    report(at, predict={"step": 3, "texts": ["G", "G"], "seq": 2})
    predict = view_data(at)["predict"]
    assert predict["verdicts"]["3"]["verdict"] == "shape"
    assert "over the batch axis" in predict["verdicts"]["3"]["rows"][1]["message"]
    assert predict["score"] == [1, 2]
    report(at, predict={"step": "x", "texts": None, "seq": 3})  # whatever a browser sends: words, no traceback
    no_exception(at)
    assert view_data(at)["predict"]["score"] == [1, 2]


def test_the_switch_off_leaves_the_url_and_a_bad_link_value_is_said():
    at = opened(predict="on")
    at.toggle(key="predict_on").set_value(False).run()
    no_exception(at)
    assert "predict" not in at.query_params and view_data(at)["predict"] is None
    bad = opened(predict="maybe")
    assert bad.toggle(key="predict_on").value is False
    assert any("predict='maybe'" in w.value for w in bad.warning), [w.value for w in bad.warning]


def test_forward_mode_offers_no_predict():
    at = opened(predict="on", mode="forward", v="ones")
    assert view_data(at)["predict"] is None
    assert at.toggle(key="predict_on").disabled


def test_a_new_program_starts_a_new_score():
    at = opened(predict="on")
    report(at, predict={"step": 1, "texts": ["ones(y.shape) / 12"], "seq": 1})
    at.query_params["program"] = "a = 2.0\nb = a * a\n"
    at.run()
    no_exception(at)
    predict = view_data(at)["predict"]
    assert predict["verdicts"] == {} and predict["score"] == [0, 0]
    assert check.score({}) == (0, 0)
