"""Figure builders: the expected traces, valid Plotly figures, small payloads."""

import base64
import json

import numpy as np
import plotly.graph_objects as go
import pytest

from explorer import figures

XS = np.linspace(-2, 2, 100)
YS = np.linspace(-1.5, 1.5, 100)
RNG = np.random.default_rng(0)
X = RNG.normal(size=(200, 2))
Y2 = (X[:, 0] > 0).astype(int)
Y3 = RNG.integers(0, 3, 200)


def _probs(classes):
    gx, gy = np.meshgrid(XS, YS)
    if classes == 2:
        return 1 / (1 + np.exp(-3 * gx))
    logits = np.stack([gx, gy, -gx - gy], axis=-1)
    e = np.exp(logits)
    return e / e.sum(-1, keepdims=True)


def test_decision_boundary_traces_and_levels():
    spec = figures.decision_boundary(XS, YS, _probs(2), X[:150], Y2[:150], X[150:], Y2[150:], caption="step 3")
    fig = go.Figure(spec)  # Plotly accepts it
    types = [t.type for t in fig.data]
    assert types[0] == "heatmap" and types.count("scatter") == 4  # 2 classes × (train, test)
    z = spec["data"][0]["z"]
    assert z.shape == (100, 100) and z.dtype == np.uint8 and z.min() >= 0 and z.max() <= 100
    assert z[50, 0] < 10 and z[50, -1] > 90  # left is class 0, right class 1
    assert [t.marker.symbol for t in fig.data[3:]] == ["diamond-open", "diamond-open"]
    assert spec["layout"]["meta"]["caption"] == "step 3"


def test_boundary_carries_earlier_frames_for_the_live_chart():
    frames = [{"probs": _probs(2) * 0.5, "caption": "step 1", "step": 1}]
    spec = figures.decision_boundary(XS, YS, _probs(2), X, Y2, frames=frames)
    meta = json.loads(figures.to_json(spec))["layout"]["meta"]
    assert [f["step"] for f in meta["frames"]] == [1]
    z = np.frombuffer(base64.b64decode(meta["frames"][0]["z"]["bdata"]), np.uint8)
    assert z.max() <= 50  # the earlier, halved probabilities
    go.Figure(spec)


def test_three_class_boundary_bands():
    spec = figures.decision_boundary(XS, YS, _probs(3), X, Y3, n_classes=3)
    z = spec["data"][0]["z"]
    assert z.dtype == np.uint16 and z.max() <= 3 * figures.LEVELS - 1
    winners = z // figures.LEVELS
    np.testing.assert_array_equal(winners, _probs(3).argmax(-1))
    assert len(spec["data"]) == 4  # heatmap + one scatter per class
    go.Figure(spec)


def test_payload_is_small_and_typed():
    spec = figures.decision_boundary(XS, YS, _probs(2), X, Y2)
    text = figures.to_json(spec)
    assert len(text) < 40_000, len(text)
    z = json.loads(text)["data"][0]["z"]
    assert z["dtype"] == "u1" and z["shape"] == "100, 100"
    decoded = np.frombuffer(base64.b64decode(z["bdata"]), np.uint8).reshape(100, 100)
    np.testing.assert_array_equal(decoded, spec["data"][0]["z"])


def test_regression_fit_has_points_and_model_line():
    xs = np.linspace(-3, 3, 100)
    spec = figures.regression_fit(xs, np.sin(xs), X[:, :1], np.sin(X[:, 0]), X[:20, :1], np.sin(X[:20, 0]))
    fig = go.Figure(spec)
    assert [t.mode for t in fig.data] == ["markers", "markers", "lines"]
    assert fig.data[-1].name == "model" and len(fig.data[-1].y) == 100


def test_loss_and_accuracy_curves():
    steps = [0, 10, 20]
    spec = figures.loss_curves(steps, [1.0, 0.5, float("nan")], [1.1, 0.6, 0.4])
    fig = go.Figure(spec)
    assert [t.name for t in fig.data] == ["train loss", "test loss"]
    assert fig.data[0].y[-1] is None  # NaN becomes a gap, not invalid JSON
    assert fig.layout.yaxis.type == "log"
    json.loads(figures.to_json(spec))
    acc = go.Figure(figures.accuracy_curves(steps, [0.5, 0.8, 0.9], [0.4, 0.7, 0.85]))
    assert list(acc.data[0].y) == [50.0, 80.0, 90.0]


def test_log_axis_ticks_stay_few_when_a_run_diverges():
    # A diverged run's loss spans hundreds of decades; minor "D2" ticks over that range make the
    # browser lay out thousands of labels and freeze the page.
    calm = figures.loss_curves([0, 10, 20], [1.0, 0.3, 0.05])
    assert calm["layout"]["yaxis"]["dtick"] == "D2"
    wild = figures.loss_curves([0, 20, 40, 60], [1.1, 1e91, 1e184, float("inf")], [1.2, 1e90, 1e185, 1e278])
    assert "dtick" not in wild["layout"]["yaxis"] and wild["layout"]["yaxis"]["type"] == "log"
    norms = figures.gradient_norms([0, 1], np.array([[1.0, 2.0], [1e150, 1e200]]), ["W1", "W2"])
    assert "dtick" not in norms["layout"]["yaxis"]


def test_gradient_norms_one_line_per_layer():
    spec = figures.gradient_norms([0, 1, 2], np.array([[1, 2, 3], [1, 2, 3], [0.5, 1, 1]]), ["W1", "W2", "W3"])
    assert [t["name"] for t in spec["data"]] == ["W1", "W2", "W3"]
    go.Figure(spec)


def test_neuron_heatmaps_one_per_neuron():
    acts = [RNG.normal(size=(40, 40, 3)), RNG.normal(size=(40, 40, 2))]
    spec = figures.neuron_heatmaps(XS[:40], YS[:40], acts)
    assert len(spec["data"]) == 5 and all(t["type"] == "heatmap" for t in spec["data"])
    assert [a["text"] for a in spec["layout"]["annotations"]] == ["L1 n1", "L1 n2", "L1 n3", "L2 n1", "L2 n2"]
    go.Figure(spec)
    # A row's labels sit in the gap above it, clear of the pictures of the row before (>= 16 px).
    layout = spec["layout"]
    plot_px = layout["height"] - layout["margin"]["t"] - layout["margin"]["b"]
    assert (layout["yaxis"]["domain"][0] - layout["yaxis4"]["domain"][1]) * plot_px >= 16


@pytest.mark.parametrize("layers", range(1, 9))
def test_neuron_heatmaps_for_any_depth_are_valid_figures(layers):
    go.Figure(figures.neuron_heatmaps(XS[:10], YS[:10], [np.zeros((10, 10, 8))] * layers))


def test_network_diagram_edges_by_sign_and_width():
    w1 = np.array([[1.0, -2.0], [0.1, 0.0], [-0.5, 3.0]])
    w2 = np.array([[2.0, -1.0, 0.2]])
    spec = figures.network_diagram([w1, w2], ["x1", "x2"], ["ŷ"])
    fig = go.Figure(spec)
    edge_traces = [t for t in fig.data if t.mode == "lines"]
    colours = {t.line.color for t in edge_traces}
    assert colours == {figures.POSITIVE, figures.NEGATIVE}
    segments = sum(sum(1 for v in t.x if v is None) for t in edge_traces)
    assert segments == 9 - 1  # the zero weight has no sign, so it is not drawn
    widest = max(edge_traces, key=lambda t: t.line.width)
    assert widest.line.color == figures.POSITIVE  # |3.0| is the largest weight
    nodes = next(t for t in fig.data if t.mode == "markers")
    assert len(nodes.x) == 2 + 3 + 1


def test_network_diagram_limits_edges():
    ws = [RNG.normal(size=(64, 2))] + [RNG.normal(size=(64, 64)) for _ in range(7)] + [RNG.normal(size=(1, 64))]
    spec = figures.network_diagram(ws, ["x1", "x2"], ["ŷ"], max_edges=500)
    segments = sum(sum(1 for v in t["x"] if v is None) for t in spec["data"] if t["mode"] == "lines")
    assert segments == 500
    assert "largest 500" in spec["layout"]["title"]["text"]


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_replay_frames_and_slider(task):
    if task == "classification":
        frames = [{"step": s, "loss": 1.0 / (s + 1), "grid": _probs(2) ** (s + 1)} for s in (0, 10, 20)]
        spec = figures.replay(frames, XS, YS, X, Y2, task=task)
    else:
        frames = [{"step": s, "loss": 0.5, "grid": np.sin(XS) * s} for s in (0, 10, 20)]
        spec = figures.replay(frames, XS, YS, X[:, :1], X[:, 1], task=task)
    fig = go.Figure(spec)
    assert [f.name for f in fig.frames] == ["0", "10", "20"]
    assert [s.label for s in fig.layout.sliders[0].steps] == ["0", "10", "20"]
    assert fig.layout.updatemenus[0].buttons[0].label == "▶ Play"
    with pytest.raises(ValueError, match="no frames"):
        figures.replay([], XS, YS, X, Y2, task=task)


@pytest.mark.parametrize(("dataset", "first_type"), [("two moons", "heatmap"), ("sine", "scatter")])
def test_state_view_draws_the_boundary_or_the_fitted_curve(dataset, first_type):
    from explorer import training

    state = training.new_state(training.TrainConfig(dataset=dataset, n=60))
    grid = training.prediction_grid(state)
    spec = figures.state_view(state, grid, caption="step 0")
    assert spec["data"][0]["type"] == first_type
    assert spec["layout"]["meta"]["caption"] == "step 0" and spec["layout"]["meta"]["step"] == state.step


def test_an_untrained_loss_chart_says_how_to_start():
    empty = figures.loss_curves([0], [0.7], [0.72])
    assert [a["text"] for a in empty["layout"]["annotations"]] == ["Press Play or Step to train"]
    trained = figures.loss_curves([0, 20], [0.7, 0.4], [0.72, 0.5])
    assert "annotations" not in trained["layout"]
