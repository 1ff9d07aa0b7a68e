"""The hostile-input corpus (tests/support/hostile_corpus.py) against the real app through AppTest: every bad link and
model file gets a message saying what is wrong and what is allowed, never a traceback, and the page stays
usable; a worker that dies is its message alone. What each case must say comes from the same tables the app
checks with (poke.POKE_LIMIT, the language, explorer.links, the Playground's settings table)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from explorer.links import step_from_link
from explorer.playground import datasets, model_files, training
from explorer.playground.settings import SETTINGS, TrainConfig
from explorer.program import forward_mode, poke, presets
from language import ExpressionError, compile_program
from server.sandbox import Sandbox, SandboxError
from tests.support import hostile_corpus as corpus
from tests.support.helpers import ROOT

PAGES = {"explorer": "pages/explorer.py", "stepper": "pages/stepper.py", "playground": "pages/playground.py",
         "optimiser_race": "pages/optimiser_race.py", "depth_lab": "pages/depth_lab.py"}
TRACEBACK = ("Traceback", 'File "/')


def opened(page: str, params: dict) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    return at.switch_page(PAGES[page]).run()


def messages(at: AppTest) -> list[str]:
    return [w.value for w in at.warning] + [e.value for e in at.error]


def no_traceback(at: AppTest) -> None:
    assert not at.exception, [e.message for e in at.exception]
    for text in messages(at):
        assert not any(mark in text for mark in TRACEBACK), text


def _poke_refused(value: str) -> bool:
    number = value.partition("=")[2]
    try:
        return not (math.isfinite(float(number)) and abs(float(number)) <= poke.POKE_LIMIT)
    except ValueError:
        return True


def _program_refused(text: str) -> bool:
    try:
        compile_program(text)
    except ExpressionError:
        return True
    return False


def expects_message(page: str, name: str, params: dict) -> bool:
    """Whether the link must be answered with a message, decided by the tables the app checks with."""
    if any(isinstance(v, list) for v in params.values()) or "twice" in name:
        return True
    if "poke" in params:
        value = params["poke"]
        return (name.startswith(("the issue's", "poke unknown", "poke no value", "poke 1000"))
                or "wrong kind" in name or _poke_refused(value))
    if "step" in params:
        return step_from_link(params["step"], 4)[1] is not None
    if "mode" in params:  # a mode or v the link gets wrong, or a v that names no input or element of the program
        mode, direction, problems = forward_mode.mode_from_link(params["mode"], params.get("v"))
        shapes = dict(compile_program(params["program"]).inputs)
        return bool(problems) or mode == "forward" and forward_mode.direction_problem(direction, shapes) is not None
    if page == "playground":
        return any(corpus.setting_is_refused_or_moved(k, v) for k, v in params.items() if k != "run") or "run" in params
    if page == "optimiser_race":
        return corpus.race_link_is_refused_or_moved(params)
    if page == "depth_lab":
        return corpus.lab_link_is_refused_or_moved(params)
    return _program_refused(params["program"])


# NOTE: the Stepper shares the poke and program code with the Explorer (explorer.program.poke.sync, shared_program): it
# gets the issue's links, its own `step` and the repeated keys, not the whole poke grammar a second time.
CASES = [("explorer", name, params) for name, params in corpus.links("explorer")]
CASES += [("stepper", name, params) for name, params in corpus.links("stepper")
          if name.startswith(("the issue's", "step", "program twice", "poke twice", "program=long", "v names",
                              "v past", "mode twice", "v twice", "mode=word", "v=word"))]
CASES += [("playground", name, params) for name, params in corpus.links("playground")]
CASES += [(page, name, params) for page in ("optimiser_race", "depth_lab") for name, params in corpus.links(page)]


@pytest.mark.parametrize(("page", "name", "params"), CASES, ids=[f"{p}: {n}" for p, n, _ in CASES])
def test_a_hostile_link_gets_a_message_and_no_traceback(page, name, params):
    at = opened(page, params)
    no_traceback(at)
    said = messages(at)
    if expects_message(page, name, params):
        assert said, f"{name}: nothing said about {params}"
    assert at.title[0].value != "", "the page is drawn"
    if page == "playground" and name.startswith("every setting"):
        refused = [s.name for s in SETTINGS if corpus.setting_is_refused_or_moved(s.name, params[s.name])]
        for setting in refused:
            assert any(f"{setting}=" in text.replace("\\_", "_") for text in said), f"{setting} not named: {said}"


def test_the_issues_poke_links_say_what_is_allowed_and_keep_the_program():
    for page in ("explorer", "stepper"):
        at = opened(page, {"program": corpus.MICROGRAD, "poke": "a=-1e308,b=1e308"})
        no_traceback(at)
        said = " ".join(messages(at))
        assert "`a=-1e308`" in said and "`b=1e308`" in said and "from -1,000,000 to 1,000,000" in said, said
        assert at.session_state["program"] == corpus.MICROGRAD and at.session_state["poked"] == ()


def test_a_links_stepper_step_is_said_and_clamped():
    at = opened("stepper", {"program": corpus.MICROGRAD, "step": "1e308"})
    no_traceback(at)
    assert any("`step=1e308` is not a whole number from 0 to" in text for text in messages(at))
    at = opened("stepper", {"program": corpus.MICROGRAD, "step": ["1", "2"]})
    assert any("`step` is given 2 times" in text for text in messages(at))
    assert at.query_params["step"] in ("2", ["2"]), "the URL keeps the last, once"


def test_a_run_id_not_of_the_servers_form_never_reaches_the_store(monkeypatch):
    from server import run_store

    asked = []
    monkeypatch.setattr(run_store.RunStore, "get", lambda self, key: asked.append(key))
    at = opened("playground", {"run": "../../etc/passwd\x00", "n": "100"})
    no_traceback(at)
    assert any("is not a run id this server makes" in text for text in messages(at)), messages(at)
    assert asked == [] and "run" in at.query_params and at.query_params["run"] != "../../etc/passwd\x00"


def test_the_issues_long_vector_is_stepped_not_refused_after_seconds():
    """Issue 22 item 5: the language accepts `x = randn(1000000)`, `y = x.relu().sum()`; the Stepper's own cost
    (its steps' Jacobian blocks, jacobian_view.view_limit) is predicted from the shapes, so it steps it."""
    at = opened("stepper", {"program": "x = randn(1000000)\ny = x.relu().sum()"})
    no_traceback(at)
    assert not at.error, [e.value for e in at.error]
    assert any(e.proto.component_name == "components.graph_view" for e in at.get("bidi_component"))


# ----------------------------------------------------------------------------- model files


@pytest.fixture(scope="module")
def playground() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    return at.switch_page(PAGES["playground"]).run()


FILES = corpus.files()


@pytest.mark.parametrize(("name", "data", "says"), FILES, ids=[f[0] for f in FILES])
def test_a_hostile_model_file_is_refused_with_its_reason(playground, name, data, says):
    at = playground
    before = at.session_state["pg"].state
    at.file_uploader(key="pg_model_file").set_value((name, data, "application/octet-stream")).run()
    no_traceback(at)
    errors = [e.value for e in at.error]
    assert any(name.replace("_", "\\_") in text or name in text for text in errors), errors
    assert any(says in text.replace("\\", "") for text in errors), (says, errors)
    assert at.session_state["pg"].state is before, "the run goes on as it was"
    at.file_uploader(key="pg_model_file").set_value(None).run()


def test_the_largest_model_the_playground_makes_loads_within_the_limits():
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(datasets.MAX_CSV_ROWS, 2)) * 1e3, np.arange(datasets.MAX_CSV_ROWS) % datasets.MAX_CLASSES
    config = TrainConfig(dataset=datasets.UPLOADED, task="classification", hidden=(64,) * 8, optimizer="Adam",
                         features=("x1²", "x2²", "x1·x2", "sin x1", "sin x2"), batch_size=4)
    state = training.new_state(config, data=(X, y))
    training.step(state, 2)
    for made in (model_files.to_json(state).encode(), model_files.to_npz(state)):
        assert len(made) < model_files.MAX_FILE_BYTES / 3
        back = model_files.load("largest", made)
        assert back.step == 2 and back.model.sizes == state.model.sizes


def test_a_jsons_depth_is_counted_outside_strings():
    assert model_files.nesting_depth('{"a": [[1, 2], [3]], "b": "[[[[[[[["}') == 3
    assert model_files.nesting_depth("[" * 50 + "]" * 50) == 50
    assert model_files.nesting_depth('"\\"[[[["') == 0, "an escaped quote does not end the string"
    assert model_files.nesting_depth('["\\\\", [[1]]]') == 3, "an escaped backslash does not escape the quote"


# ----------------------------------------------------------------------------- dying workers

#: The evaluations each program page asks the sandbox for, and whether their failure is said (a picture that
#: did not finish is left out, the graph and the rest drawn).
ASKED = {
    "explorer": {"explorer_run": True, "curve": False, "surface": False},
    "stepper": {"stepper_run": True, "curve": False, "surface": False},
}
DEATH = ("The evaluation stopped unexpectedly (signal 9), perhaps for lack of memory (one evaluation may use "
         "640 MB); make the program smaller.")


@pytest.mark.parametrize(("page", "dies"), [(p, f) for p, asked in ASKED.items() for f in asked])
def test_a_worker_that_dies_is_its_message_alone(monkeypatch, page, dies):
    """An evaluation a page asks for ends as a killed worker's does (kill -9: SandboxError 'crash', as
    server.sandbox reports it): the page shows that message, no traceback, and the program's text stays."""
    real = Sandbox.run

    def run(self, fn, *args, cancelled=None):
        if fn.__name__ == dies:
            raise SandboxError("crash", DEATH)
        return real(self, fn, *args, cancelled=cancelled)

    monkeypatch.setattr(Sandbox, "run", run)
    program = presets.program(presets.DEFAULT)
    at = opened(page, {"program": program})
    no_traceback(at)
    said = [e.value.replace("\\", "") for e in at.error]
    if ASKED[page][dies]:
        assert any("stopped unexpectedly (signal 9)" in text for text in said), said
    else:
        assert not said and at.get("bidi_component"), "the picture is left out, the rest drawn"
    assert at.session_state["program"] == program
    if page == "explorer":
        assert at.text_area(key="explorer_editor").value == program, "the program's text stays"
