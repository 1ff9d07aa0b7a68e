"""The Optimiser race page through Streamlit's AppTest: presets, the URL (kept and validated), the learner's
program, the start point sent by the view, divergence said in words."""

import json

import pytest
from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit.testing.v1 import AppTest

from explorer.race import course as race
from tests.support.helpers import ROOT

PAGE = "pages/optimiser_race.py"
VIEW = "components.race"


def race_page(**query) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    return at.switch_page(PAGE).run()


def no_exception(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def view(at: AppTest) -> dict:
    [element] = [e for e in at.get("bidi_component") if e.proto.component_name == VIEW]
    return json.loads(element.proto.json)


def texts(elements) -> list[str]:
    return [e.value for e in elements]


def test_the_page_opens_on_rosenbrock_with_sgd_momentum_and_adam():
    at = race_page()
    no_exception(at)
    assert at.title[0].value == "Optimiser race" and at.caption[0].value
    data = view(at)
    assert [p["id"] for p in data["paths"]] == ["sgd", "momentum", "adam"]
    assert data["start"] == [-1.5, 2.0] and data["grid"]["x"] == "x" and data["grid"]["log"] is True
    assert all(len(p["x"]) == 301 and p["stopped"] is None for p in data["paths"])
    assert not at.warning and not at.error
    assert at.query_params["surface"] == "rosenbrock" and at.query_params["start"] == "-1.5,2"
    assert at.query_params["opt"] == "sgd(lr=0.001);momentum(lr=0.001);adam(lr=0.1)"
    assert "program" not in at.query_params, "a preset's race does not carry the Explorer's program"


@pytest.mark.parametrize("name", list(race.SURFACES))
def test_each_preset_races_from_a_link(name):
    at = race_page(surface=name)
    no_exception(at)
    data = view(at)
    surface = race.SURFACES[name]
    assert data["start"] == list(surface.start)
    assert [p["settings"]["lr"] for p in data["paths"]] == [r.lr for r in surface.runners()]
    assert not at.warning, texts(at.warning)
    assert at.selectbox(key="race_surface_1").value == name


def test_a_link_keeps_the_whole_race():
    opt = "nesterov(lr=0.002,momentum=0.8);adamw(lr=0.05,beta1=0.85,weight_decay=0.1)"
    at = race_page(surface="quadratic", start="-3,2", opt=opt, steps="40")
    data = view(at)
    assert data["start"] == [-3.0, 2.0]
    assert [p["title"] for p in data["paths"]] == ["Nesterov (lr 0.002, μ 0.8)", "AdamW (lr 0.05, β₁ 0.85, wd 0.1)"]
    assert all(len(p["x"]) == 41 for p in data["paths"])
    assert at.query_params["opt"] == opt and at.query_params["steps"] == "40"
    assert at.number_input(key="race_lr_0_1").value == 0.002


def test_bad_values_in_a_link_are_said_and_the_rest_kept():
    at = race_page(surface="nowhere", start="a,b", opt="rmsprop(lr=1);adam(lr=-2);sgd(lr=0.003)", steps="99999")
    no_exception(at)
    said = " ".join(texts(at.warning))
    for words in ("surface='nowhere' is not valid", "start='a,b' is not valid", "no optimiser called `rmsprop`",
                  "learning rate must be above 0", "steps='99999' is above the largest 1000: using 1000"):
        assert words in said, words
    data = view(at)
    assert data["start"] == [-1.5, 2.0] and [p["id"] for p in data["paths"]] == ["sgd"]
    assert at.query_params["opt"] == "sgd(lr=0.003)", "the URL now says the race that runs"


def test_divergence_stops_a_path_with_a_message():
    at = race_page(opt="sgd(lr=0.01);adam(lr=0.1)")
    no_exception(at)
    [warning] = texts(at.warning)
    assert warning.startswith("SGD (lr 0.01) diverged at step ") and "smaller learning rate" in warning
    sgd, adam = view(at)["paths"]
    assert sgd["stopped"] and len(sgd["x"]) < 301 and None not in sgd["loss"]
    assert adam["stopped"] is None


def test_runners_that_diverge_alike_are_one_warning():
    at = race_page(opt=";".join(["sgd(lr=0.01)"] * 6))
    no_exception(at)
    [warning] = texts(at.warning)
    assert warning.startswith("SGD (lr 0.01) diverged at step ") and warning.endswith("(6 times).")
    assert all(path["stopped"] for path in view(at)["paths"])


def send_start(at: AppTest, x: float, y: float) -> AppTest:
    """The view's trigger: the learner clicked or dragged the start point to (x, y)."""
    from streamlit.components.v2.bidi_component.main import _make_trigger_id

    [element] = [e for e in at.get("bidi_component") if e.proto.component_name == VIEW]
    states = at._tree.get_widget_states()
    events = _make_trigger_id(element.proto.id, "events")
    states.widgets.append(WidgetState(id=events, json_trigger_value=json.dumps(
        [{"event": "start", "value": {"x": x, "y": y}}])))
    return at._run(states)


def test_a_click_on_the_contour_moves_the_start_point():
    at = send_start(race_page(), 0.5, -0.25)
    no_exception(at)
    assert view(at)["start"] == [0.5, -0.25]
    assert at.query_params["start"] == "0.5,-0.25"
    assert [n.value for n in at.number_input if n.label.startswith("Start")] == [0.5, -0.25]


def test_settings_change_the_race_and_the_url():
    at = race_page()
    at.number_input(key="race_lr_0_0").set_value(0.002).run()
    assert view(at)["paths"][0]["title"] == "SGD (lr 0.002)"
    assert at.query_params["opt"].startswith("sgd(lr=0.002);")
    next(b for b in at.button if b.label == "Add an optimiser").click().run()
    assert [p["id"] for p in view(at)["paths"]] == ["sgd", "momentum", "adam", "nesterov"]
    at.selectbox(key=f"race_surface_{at.session_state['race_version']}").set_value("saddle").run()
    assert view(at)["start"] == list(race.SURFACES["saddle"].start)
    assert at.query_params["surface"] == "saddle"


def test_the_race_runs_on_the_learners_program():
    program = "a = 2.0\nw = [1.0, 2.0]\nb = -1.0\nout = (a * w + b) ** 2\n"
    at = race_page(surface="program", program=program)
    no_exception(at)
    data = view(at)
    assert (data["grid"]["x"], data["grid"]["y"]) == ("a", "b") and data["start"] == [2.0, -1.0]
    assert at.query_params["plane"] == "a,b" and at.query_params["program"] == program
    assert at.text_area(key="race_program").value == program


def test_a_links_plane_the_program_lacks_is_said():
    at = race_page(surface="program", program="p = 1.0\nq = 2.0\nloss = p * q ** 2\n", plane="a,b")
    no_exception(at)
    assert any("no plane `a,b`" in w.value and "runs on p, q" in w.value for w in at.warning)
    assert (view(at)["grid"]["x"], view(at)["grid"]["y"]) == ("p", "q")
    assert at.query_params["plane"] == "p,q"


def test_a_program_without_two_number_inputs_is_told_what_the_race_needs():
    at = race_page(surface="program", program="x = [1.0, 2.0]\ny = (x ** 2).sum()\n")
    no_exception(at)
    assert any("at least two inputs that hold one number" in i.value for i in at.info)
    assert not [e for e in at.get("bidi_component") if e.proto.component_name == VIEW]


def test_a_program_that_does_not_run_shows_its_error():
    at = race_page(surface="program", program="x = 1.0\ny = 2.0\nz = x +* y\n")
    no_exception(at)
    assert any("Line 3" in e.value for e in at.error)


def test_the_hessian_at_the_start_and_each_learning_rate_against_2_over_lambda_max():
    at = race_page(surface="quadratic", opt="sgd(lr=0.09);sgd(lr=0.12)")
    no_exception(at)
    [said] = [e.proto.body for e in at.get("html") if 'data-testid="race-hessian"' in e.proto.body]
    assert 'data-lambda-max="20.0' in said or 'data-lambda-max="19.99' in said
    assert said.count('data-verdict="stable"') == 1 and said.count('data-verdict="oscillating"') == 1
    assert "2/λmax = 0.1" in said
    axes = view(at)["axes"]  # the eigen-directions the view draws through the start
    assert [a["lambda"] for a in axes] == pytest.approx([20, 1]) and abs(axes[0]["dir"][1]) == pytest.approx(1)
