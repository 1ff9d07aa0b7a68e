"""The Training Playground page under Streamlit's AppTest: play, step, reset, settings, links, the live data.

`st.fragment(run_every=...)` timers never fire in AppTest; each `at.run()` runs the live fragment
once. The controller's clock is replaced by one the test moves, so Play trains a known number of steps.
"""

import base64
import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from explorer.playground import step_graph as playground_graph
from explorer.playground.controller import GLYPHS, STAND_INS, Playground
from tests.support import apptest
from tests.support.clock import Clock

PAGE = "pages/playground.py"
BUTTONS = ["Play", "Step", "Reset", "Show this step's graph"]




def open_page(query: dict | None = None, learner: str | None = None) -> AppTest:
    return apptest.open_page(PAGE, query, learner)


@pytest.fixture
def at():
    return open_page()


def pg(at) -> Playground:
    return at.session_state["pg"]


def button(at, label):
    return next(b for b in at.button if b.label == label)


def main_buttons(at):
    return [b.label for b in at.button if b.label in (*BUTTONS, "Pause")]


def component(at, name: str) -> dict:
    """The data of the page's `st.components.v2` component `name` in the last run."""
    [element] = [e for e in at.get("bidi_component") if e.proto.component_name == name]
    proto = element.proto
    kind = proto.WhichOneof("data")
    return json.loads(proto.bytes if kind == "bytes" else proto.mixed.json if kind == "mixed" else proto.json)


def view(at) -> dict:
    """The live view's data in the last run."""
    return component(at, "components.live_view")


def test_first_render_sends_the_layout_and_an_untrained_frame(at):
    assert at.title[0].value == "Training Playground"
    assert main_buttons(at) == BUTTONS
    data = view(at)
    assert data["model"]["sizes"] == [2, 8, 8, 1] and data["model"]["task"] == "classification"
    assert [f["step"] for f in data["frames"]] == [0]
    assert not at.get("plotly_chart"), "the live view draws everything itself, in the theme's colours"


def test_step_trains_one_step(at):
    button(at, "Step").click().run()
    assert pg(at).state.step == 1 and view(at)["frames"][-1]["step"] == 1


def test_play_trains_by_the_clock_then_pause_and_reset(at):
    clock = pg(at).clock = Clock()
    button(at, "Play").click().run()
    assert pg(at).playing and main_buttons(at)[0] == "Pause"
    for _ in range(3):
        clock.now += 0.2
        at.run()
    assert pg(at).state.step == 15  # 25 steps/s for 0.6 s
    data = view(at)
    assert data["playing"] and [f["step"] for f in data["frames"]] == [11, 12, 13, 14, 15]
    button(at, "Pause").click().run()
    clock.now += 1.0
    at.run()
    assert pg(at).state.step == 15 and not view(at)["playing"]
    button(at, "Reset").click().run()
    assert pg(at).state.step == 0 and not at.toast


def test_pause_goes_back_to_the_step_the_view_says_it_shows(at):
    """The view reports the step on screen after Pause (trigger "painted", PROTOCOL.md); the run goes back to it,
    the page reruns whole and shows it, and Step goes on from it."""
    clock = pg(at).clock = Clock()
    button(at, "Play").click().run()
    clock.now += 0.5
    at.run()
    assert pg(at).state.step == 12
    button(at, "Pause").click().run()
    assert pg(at).settle_told({"run": view(at)["run"], "step": 9})  # what the page's on_painted callback calls
    at.run()
    assert not pg(at).settled and pg(at).state.step == 9 and view(at)["frames"][-1]["step"] == 9
    assert "model" in view(at), "the page ran whole (its files' names, its step graph)"
    button(at, "Step").click().run()
    assert pg(at).state.step == 10


def test_a_setting_that_restarts_the_run_says_so_and_updates_the_url(at):
    button(at, "Step").click().run()
    at.selectbox(key="pg_activation").set_value("relu").run()
    assert pg(at).state.step == 0
    assert [t.value for t in at.toast] == [
        "Training restarted at step 0: activation changed. Learning rate, L2 and speed change without a restart."
    ]
    assert at.query_params["activation"] in ("relu", ["relu"])
    at.selectbox(key="pg_dataset").set_value("three blobs").run()
    assert pg(at).state.n_classes == 3 and view(at)["model"]["outputs"] == ["class 0", "class 1", "class 2"]
    at.text_input(key="pg_hidden").set_value("16, 16, 16").run()
    assert pg(at).state.model.sizes == [2, 16, 16, 16, 3]
    assert at.query_params["hidden"] in ("16,16,16", ["16,16,16"])


def test_learning_rate_l2_and_speed_keep_the_run(at):
    button(at, "Step").click().run()
    state = pg(at).state
    at.select_slider(key="pg_lr").set_value(0.3).run()
    at.select_slider(key="pg_l2").set_value(0.01).run()
    at.select_slider(key="pg_speed").set_value(2).run()
    assert pg(at).state is state and state.step == 1 and not at.toast
    assert (state.optimizer.lr, state.optimizer.weight_decay, pg(at).interval) == (0.3, 0.01, 0.5)


def test_regression_data_draws_a_curve(at):
    at.selectbox(key="pg_dataset").set_value("sine").run()
    assert at.selectbox(key="pg_loss").options == ["MSE"]
    button(at, "Step").click().run()
    model = view(at)["model"]
    assert model["task"] == "regression" and model["outputs"] == ["ŷ"] and model["loss"] == "mean squared error"
    at.selectbox(key="pg_dataset").set_value("two moons").run()
    assert at.selectbox(key="pg_loss").value == "cross-entropy", "back to the task's default loss"


def test_the_loss_can_be_chosen(at):
    assert at.selectbox(key="pg_loss").options == ["cross-entropy", "MSE"]
    at.selectbox(key="pg_loss").set_value("MSE").run()
    assert pg(at).state.loss_name == "mean squared error between probabilities and one-hot labels"
    assert view(at)["model"]["loss"] == pg(at).state.loss_name


def test_regenerate_draws_new_points_from_the_next_seed(at):
    before = pg(at).state.X_train.copy()
    button(at, "Regenerate").click().run()
    assert pg(at).config.seed == 3 and at.number_input(key="pg_seed").value == 3
    assert not (pg(at).state.X_train == before).all()


def test_bad_hidden_layers_shows_an_error_and_keeps_the_run(at):
    button(at, "Step").click().run()
    at.text_input(key="pg_hidden").input("8, x").run()
    assert not at.exception
    assert any("Settings problem" in e.value and "'x'" in e.value for e in at.error)
    assert main_buttons(at) == BUTTONS
    button(at, "Step").click().run()
    assert pg(at).state.step == 2, "training goes on"
    at.text_input(key="pg_hidden").input("8, 4").run()
    assert not at.error and pg(at).config.hidden == (8, 4)


def test_a_diverging_run_is_explained(at):
    at.selectbox(key="pg_dataset").set_value("sine").run()
    at.selectbox(key="pg_optimizer").set_value("SGD").run()
    at.select_slider(key="pg_batch_size").set_value(0).run()
    at.text_input(key="pg_hidden").set_value("16, 16").run()
    at.select_slider(key="pg_lr").set_value(10.0).run()
    at.select_slider(key="pg_speed").set_value(1000).run()
    clock = pg(at).clock = Clock()
    button(at, "Play").click().run()
    for _ in range(10):
        clock.now += 0.5
        at.run()
        if pg(at).state.diverged:
            break
    at.run()
    assert not at.exception and not pg(at).playing
    warning = at.warning[0].value
    assert "Training stopped" in warning and "lower the learning rate (now 10)" in warning
    assert button(at, "Play").disabled and button(at, "Step").disabled


@pytest.mark.parametrize(
    ("query", "field", "value"),
    [({"n": "5000"}, "n", 1000), ({"n": "4"}, "n", 20), ({"noise": "2.0"}, "noise", 1.0),
     ({"test_fraction": "0.9"}, "test_fraction", 0.8)],
)
def test_links_outside_the_widgets_ranges_are_clamped_not_a_traceback(query, field, value):
    app = open_page(query)
    assert getattr(pg(app).config, field) == value
    assert any("Ignored part of the link" in w.value and "using" in w.value for w in app.warning)
    assert main_buttons(app) == BUTTONS


def test_the_url_restores_the_config():
    app = open_page({"dataset": "spiral", "hidden": "12,12", "lr": "0.1", "activation": "relu", "n": "oops"})
    config = pg(app).config
    got = (config.dataset, config.hidden, config.lr, config.activation, config.n)
    assert got == ("spiral", (12, 12), 0.1, "relu", 200)
    assert any("n='oops'" in w.value for w in app.warning)


def test_reloading_an_untouched_page_says_nothing(at):
    url = {k: (v[0] if isinstance(v, list) else v) for k, v in at.query_params.items()}
    again = open_page(url)
    assert not again.warning and pg(again).state.step == 0


def test_a_new_session_with_the_run_in_its_url_continues_the_run():
    at = open_page(learner="ann")
    for _ in range(3):
        button(at, "Step").click().run()
    url = {k: (v[0] if isinstance(v, list) else v) for k, v in at.query_params.items()}
    again = open_page(url, learner="ann")  # a reload: the same browser
    assert pg(again).state.step == 3 and not again.warning
    assert pg(again).run_id == url["run"]  # one run id per run: a reload continues it
    other = open_page(url, learner="bob")  # another browser: a copy of it, under an id of its own
    assert pg(other).state.step == 3 and pg(other).run_id != url["run"]


def test_show_step_graph_puts_the_program_in_session_state(at):
    button(at, "Step").click().run()
    button(at, "Show this step's graph").click().run()
    program = at.session_state["program"]
    assert program.startswith("# One training step") and "at step 1," in program
    assert "X = tensor([[" in program and "], requires_grad=False)" in program
    assert "loss = binary_cross_entropy_with_logits(out, y)" in program
    assert "W1_new = W1 - 0.1 * W1_grad" in program and program.endswith("\nloss\n")


# ----------------------------------------------------------------------------- the step graph


def step_graph(at) -> dict:
    """The step-graph panel's data in the last run (components/graph_view)."""
    return component(at, "components.graph_view")


def test_the_step_graph_is_laid_out_once_and_retexted_by_the_frames(at):
    first = step_graph(at)
    assert first["caption"] == "Step 0" and first["options"]["rankdir"] == "TB"
    nodes = {node.name: node for node in playground_graph.step_graph(pg(at).state).nodes if node.name}
    x, loss = str(nodes["X"].id), str(nodes["loss"].id)
    assert 'class="kind-const"' in first["dot"] and 'class="kind-param"' in first["dot"]
    assert set(first["values"]) == {str(node.id) for node in playground_graph.step_graph(pg(at).state).nodes}
    assert "g" not in first["values"][x] and first["values"][x]["tip"][1] == ""  # data: no grad row
    assert view(at)["model"]["graph"]["key"] == first["key"]  # the live view pushes into this layout
    assert view(at)["frames"][0]["g"][loss]["d"] == first["values"][loss]["d"]

    clock = pg(at).clock = Clock()
    button(at, "Play").click().run()
    clock.now += 0.2
    at.run()
    frames = view(at)["frames"]
    assert [f["step"] for f in frames] == [1, 2, 3, 4, 5]
    for f in frames:
        assert x not in f["g"] and "tip" not in f["g"][loss]  # the data and the tooltips stay
    assert len({f["g"][loss]["d"][0] for f in frames}) == 5, "every frame carries its own step's numbers"
    # The last frame is the run as it is now: the engine's numbers at that step (glyphs put back as the
    # browser does).
    glyphs = str.maketrans(STAND_INS, GLYPHS)
    shown = {box: {part: [line.translate(glyphs) for line in lines] for part, lines in cells.items()}
             for box, cells in frames[-1]["g"].items()}
    assert shown == playground_graph.frame_values(playground_graph.step_graph(pg(at).state))
    assert all(ord(c) < 128 for c in json.dumps(frames[-1]["g"], ensure_ascii=False))
    button(at, "Pause").click().run()
    paused = step_graph(at)
    assert paused["key"] == first["key"] and paused["dot"] == first["dot"], "laid out once"
    assert paused["caption"] == "Step 5" and paused["values"][loss] != first["values"][loss]


def test_the_step_graph_can_be_turned_off_and_costs_nothing_then(at):
    at.toggle(key="pg_graph").set_value(False).run()
    assert not [e for e in at.get("bidi_component") if e.proto.component_name == "components.graph_view"]
    data = view(at)
    assert "graph" not in data["model"] and all("g" not in f for f in data["frames"])
    button(at, "Step").click().run()
    assert all("g" not in f for f in view(at)["frames"])
    at.toggle(key="pg_graph").set_value(True).run()
    assert step_graph(at)["caption"] == "Step 1" and "g" in view(at)["frames"][-1]


def test_a_new_network_shape_gets_a_new_layout(at):
    key = step_graph(at)["key"]
    at.selectbox(key="pg_dataset").set_value("circles").run()
    assert step_graph(at)["key"] == key, "other points, the same shapes: the same layout"
    at.text_input(key="pg_hidden").set_value("4").run()
    assert step_graph(at)["key"] != key and view(at)["model"]["graph"]["key"] == step_graph(at)["key"]


def test_leaving_and_coming_back_keeps_the_settings_and_the_run(at):
    at.select_slider(key="pg_lr").set_value(0.3).run()
    at.selectbox(key="pg_activation").set_value("relu").run()
    button(at, "Step").click().run()
    for page in ("pages/explorer.py", "pages/stepper.py"):
        at.switch_page(page).run()
        assert not at.exception, at.exception
        at.switch_page(PAGE).run()
        assert not at.exception, at.exception
        assert at.select_slider(key="pg_lr").value == 0.3
        assert at.selectbox(key="pg_activation").value == "relu"
        assert pg(at).state.step == 1, "the run goes on where it was"
        assert view(at)["model"]["sizes"] == [2, 8, 8, 1], "a full run sends the layout again"


def test_the_replay_toggle_sends_the_recorded_frames(at):
    for _ in range(12):
        button(at, "Step").click().run()
    assert "replay" not in view(at)
    at.toggle(key="pg_replay").set_value(True).run()
    steps = [f["step"] for f in view(at)["replay"]]
    # every step of a short run, ending on the step it is paused at (it ended on 10: the last recorded frame)
    assert steps == list(range(13))



def test_the_initialisation_setting_sends_the_browser_identical_neurons_for_zeros(at):
    """The sidebar's Initialisation: zeros restarts the run, goes into the URL, and every frame the live view gets
    has each hidden layer's neurons (rows of W and their biases) identical, so their pictures are the same."""
    assert at.selectbox(key="pg_init").value == "PyTorch default"
    at.selectbox(key="pg_init").set_value("zeros")
    at.selectbox(key="pg_activation").set_value("sigmoid").run()
    assert not at.exception and at.query_params["init"] in ("zeros", ["zeros"])
    for _ in range(3):
        button(at, "Step").click().run()
    data = view(at)
    sizes = pg(at).state.model.sizes
    for frame in data["frames"]:
        params = np.frombuffer(base64.b64decode(frame["p"]), dtype="<f8")
        at_ = 0
        for n_in, n_out in list(zip(sizes[:-1], sizes[1:]))[:-1]:  # the hidden layers
            W = params[at_ : at_ + n_in * n_out].reshape(n_out, n_in)
            b = params[at_ + n_in * n_out : at_ + n_in * n_out + n_out]
            assert np.all(W[:1] == W) and np.all(b[0] == b), f"step {frame['step']}: neurons differ"
            at_ += n_in * n_out + n_out
    assert data["frames"][-1]["step"] == 3
    at.selectbox(key="pg_init").set_value("He normal").run()
    W = pg(at).state.linears()[0].weight.data
    assert not np.all(W[:1] == W)


def test_the_upload_says_how_labels_become_classes(at):
    """Issue 17 item 7: CSV labels 0/5/10 became classes 0/1/2 without a word; a note beside the upload says so
    (for classification files, where labels exist)."""
    from components.playground.files import LABELS_NOTE

    assert LABELS_NOTE in [c.value for c in at.caption]
    assert "labels 0, 5, 10 are shown as classes 0, 1, 2" in LABELS_NOTE
    at.radio(key="pg_upload_task").set_value("regression").run()
    assert LABELS_NOTE not in [c.value for c in at.caption]
