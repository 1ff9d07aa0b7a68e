"""The Training Playground page under Streamlit's AppTest: play, step, reset, config, no exceptions.

`st.fragment(run_every=...)` timers never fire in AppTest; each `at.run()` runs the live
fragment once, so a run while playing is one deterministic redraw.
"""

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")
PAGE = "pages/playground.py"


@pytest.fixture
def at():
    app = AppTest.from_file(APP, default_timeout=60)
    app.run()
    app.switch_page(PAGE).run()
    assert not app.exception, app.exception
    return app


def _metric(at, label):
    return next(m.value for m in at.metric if m.label == label)


def _button(at, label):
    return next(b for b in at.button if b.label == label)


def _live_figure(at, name="boundary"):
    for element in at.get("bidi_component"):
        proto = element.proto
        kind = proto.WhichOneof("data")
        payload = json.loads(proto.mixed.json if kind == "mixed" else proto.json)
        if payload.get("name") == name:
            return json.loads(payload["figure"])
    raise AssertionError(f"no live chart named {name}")


def test_first_render_shows_an_untrained_boundary(at):
    assert at.title[0].value == "Training Playground"
    assert _metric(at, "Step") == "0"
    fig = _live_figure(at)
    assert fig["data"][0]["type"] == "heatmap"
    assert fig["data"][0]["z"]["shape"] == "100, 100"
    assert fig["layout"]["meta"]["caption"].startswith("Decision boundary · step 0")
    assert [b.label for b in at.button] == ["Play", "Step", "Reset", "Show this step's graph"]
    assert at.session_state.pg_state.step == 0


def test_step_trains_speed_steps(at):
    at.select_slider(key="pg_speed").set_value(20).run()
    _button(at, "Step").click().run()
    assert _metric(at, "Step") == "20"
    assert _live_figure(at)["layout"]["meta"]["step"] == 20
    assert not at.exception


def test_play_runs_the_fragment_then_pause_and_reset(at):
    _button(at, "Play").click().run()
    assert at.session_state.pg_playing is True
    assert [b.label for b in at.button][0] == "Pause"
    first = at.session_state.pg_state.step
    assert first > 0  # the fragment trained during this run
    at.run()
    assert at.session_state.pg_state.step > first
    _button(at, "Pause").click().run()
    assert at.session_state.pg_playing is False
    paused = at.session_state.pg_state.step
    at.run()
    assert at.session_state.pg_state.step == paused  # paused: no training
    _button(at, "Reset").click().run()
    assert at.session_state.pg_state.step == 0
    assert _metric(at, "Step") == "0"
    assert not at.exception


def test_config_change_starts_a_new_run_and_updates_url(at):
    _button(at, "Step").click().run()
    assert at.session_state.pg_state.step > 0
    at.selectbox(key="pg_dataset").set_value("three blobs").run()
    state = at.session_state.pg_state
    assert state.step == 0 and state.n_classes == 3
    assert at.query_params["dataset"] in ("three blobs", ["three blobs"])
    at.text_input(key="pg_hidden").set_value("16, 16, 16").run()
    assert at.session_state.pg_state.model.sizes == [2, 16, 16, 16, 3]
    assert at.query_params["hidden"] in ("16,16,16", ["16,16,16"])
    assert not at.exception


def test_learning_rate_change_keeps_the_run(at):
    _button(at, "Step").click().run()
    state = at.session_state.pg_state
    at.select_slider(key="pg_lr").set_value(0.3).run()
    assert at.session_state.pg_state is state and state.step > 0
    assert state.optimizer.lr == 0.3
    at.select_slider(key="pg_l2").set_value(0.01).run()
    assert at.session_state.pg_state is state and state.optimizer.weight_decay == 0.01


def test_regression_data_set_draws_a_curve(at):
    at.selectbox(key="pg_dataset").set_value("sine").run()
    _button(at, "Step").click().run()
    fig = _live_figure(at)
    assert fig["data"][-1]["name"] == "model" and fig["data"][-1]["mode"] == "lines"
    assert not any(m.label == "Test accuracy" for m in at.metric)
    assert [m.label for m in at.metric] == ["Step", "Steps/s", "Train loss", "Test loss"]
    assert not at.exception


def test_bad_hidden_layers_shows_an_error_not_a_traceback(at):
    at.text_input(key="pg_hidden").set_value("8, lots").run()
    assert not at.exception
    assert "not one" in at.error[0].value


def test_diverging_run_is_explained(at):
    at.selectbox(key="pg_dataset").set_value("sine").run()
    at.selectbox(key="pg_optimizer").set_value("SGD").run()
    at.select_slider(key="pg_batch").set_value(0).run()
    at.select_slider(key="pg_lr").set_value(10.0).run()
    at.select_slider(key="pg_speed").set_value(100).run()
    for _ in range(5):
        _button(at, "Step").click().run()
        if at.session_state.pg_state.diverged:
            break
    assert not at.exception
    warning = at.warning[0].value
    assert "Training stopped" in warning and "lower the learning rate (now 10)" in warning
    assert _button(at, "Play").disabled


def test_url_restores_the_config():
    app = AppTest.from_file(APP, default_timeout=60)
    app.run()  # st.navigation registers the pages on the first run
    app.query_params.clear()
    app.query_params.update({"dataset": "spiral", "hidden": "12,12", "lr": "0.1", "activation": "relu", "n": "oops"})
    app.switch_page(PAGE).run()
    config = app.session_state.pg_state.config
    assert (config.dataset, config.hidden, config.lr, config.activation) == ("spiral", (12, 12), 0.1, "relu")
    assert config.n == 200  # the bad value fell back to the default ...
    assert any("n='oops'" in w.value for w in app.warning)  # ... and the page says so
    assert not app.exception


def test_show_step_graph_puts_the_program_in_session_state(at):
    _button(at, "Step").click().run()
    _button(at, "Show this step's graph").click().run()
    program = at.session_state["program"]
    assert program.startswith("# One training step")
    assert "loss = binary_cross_entropy_with_logits(out, y)" in program
    assert not at.exception


def _open_tab(at, label: str) -> list[dict]:
    """Select a tab below the chart (what a click does in the browser); the Plotly specs then shown."""
    at.session_state["pg_tab"] = label
    at.run()
    assert not at.exception, label
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def test_tabs_render_replay_network_neurons_curves_and_download(at):
    for _ in range(3):
        _button(at, "Step").click().run()
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert len(specs) == 1 and specs[0].get("frames"), "only the open tab (the replay) runs"
    assert not at.get("download_button")
    assert any("Network" in s["layout"]["title"]["text"] for s in _open_tab(at, "Network"))
    assert any(s["data"] and s["data"][0]["type"] == "heatmap" for s in _open_tab(at, "Neurons"))
    titles = [s["layout"]["title"]["text"] for s in _open_tab(at, "Accuracy & gradients")]
    assert titles == ["Accuracy", "Gradient norm per layer"]
    assert not _open_tab(at, "Data") and at.get("download_button"), "no CSV download"


def test_the_open_tab_stays_open_across_play_and_pause(at):
    _open_tab(at, "Network")
    _button(at, "Play").click().run()
    assert not at.get("plotly_chart"), "the tabs are hidden while playing"
    _button(at, "Pause").click().run()
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert [s["layout"]["title"]["text"] for s in specs] == [specs[0]["layout"]["title"]["text"]]
    assert "Network" in specs[0]["layout"]["title"]["text"] and not at.exception


def test_leaving_and_coming_back_keeps_the_settings_and_the_run(at):
    # Streamlit drops the sidebar widgets' state while another page runs; the page restores it.
    at.select_slider(key="pg_lr").set_value(0.3).run()
    at.selectbox(key="pg_activation").set_value("relu").run()
    _button(at, "Step").click().run()
    steps = at.session_state.pg_state.step
    for page in ("pages/explorer.py", "pages/stepper.py"):
        at.switch_page(page).run()
        assert not at.exception, at.exception
        at.switch_page(PAGE).run()
        assert not at.exception, at.exception
        assert at.select_slider(key="pg_lr").value == 0.3
        assert at.selectbox(key="pg_activation").value == "relu"
        assert at.session_state.pg_state.step == steps, "the run goes on where it was"
        assert _metric(at, "Step") == f"{steps:,}"


def test_a_typo_in_a_setting_keeps_the_page_and_the_run(at):
    _button(at, "Step").click().run()
    steps = at.session_state.pg_state.step
    at.text_input(key="pg_hidden").input("8, x").run()
    assert not at.exception, at.exception
    assert any("Settings problem" in e.value and "'x'" in e.value for e in at.error)
    assert [b.label for b in at.button] == ["Play", "Step", "Reset", "Show this step's graph"]
    _button(at, "Step").click().run()
    assert at.session_state.pg_state.step == steps + at.session_state.pg_speed, "training goes on"
    at.text_input(key="pg_hidden").input("8, 4").run()
    assert not at.error and at.session_state.pg_state.config.hidden == (8, 4)


def test_a_setting_that_restarts_the_run_says_so(at):
    _button(at, "Step").click().run()
    at.select_slider(key="pg_lr").set_value(0.1).run()
    assert not at.toast, "the learning rate changes without a restart"
    assert at.session_state.pg_state.step > 0
    at.selectbox(key="pg_activation").set_value("relu").run()
    assert at.session_state.pg_state.step == 0
    assert [t.value for t in at.toast] == [
        "Training restarted at step 0: activation changed. Learning rate and L2 change without a restart."
    ]
    _button(at, "Step").click().run()
    _button(at, "Reset").click().run()
    assert at.session_state.pg_state.step == 0
    assert not at.toast, "Reset restarts on purpose: nothing to explain"
