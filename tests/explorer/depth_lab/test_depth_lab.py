"""The initialisation and depth lab's computation, words, limits, URL and table (no Streamlit)."""

import math
import re
from dataclasses import replace
from html.parser import HTMLParser

import numpy as np
import pytest

from autograd import Tensor, nn
from explorer.depth_lab import figures as depth_figures
from explorer.depth_lab import lab as depth_lab
from explorer.depth_lab.lab import MAX_NUMBERS, LabConfig, analyse, findings
from explorer.numbers import plain_number, power_of_ten
from explorer.playground import catalogue


@pytest.fixture(scope="module")
def tanh_normal():
    return analyse(LabConfig(init="N(0, 1)", activation="tanh", width=64, depth=50))


@pytest.fixture(scope="module")
def relu_he():
    return analyse(LabConfig(init="He normal", activation="relu", width=64, depth=50))


# ------------------------------------------------------------------------------------- the physics


def test_tanh_with_unit_normal_weights_saturates_at_depth_50(tanh_normal):
    """N(0, 1) weights give pre-activations of std ~√64 = 8: tanh sits on ±1 in every deep layer."""
    deep = tanh_normal.layers[10:]
    assert all(s.saturated > 0.6 for s in deep), [round(s.saturated, 2) for s in deep]
    assert np.mean([s.saturated for s in deep]) > 0.7
    assert tanh_normal.layers[-1].act_std > 0.9  # bunched at -1 and +1
    # the histograms agree: the two end bins (|a| > 0.95) hold most of every deep layer's values
    assert all(h[0] + h[-1] > 0.6 for h in tanh_normal.hist[10:])
    words = " ".join(findings(tanh_normal))
    assert "flat tails" in words and "layers 2–50" in words


def test_relu_with_he_keeps_the_spread_at_depth_50(relu_he):
    stds = [s.act_std for s in relu_he.layers]
    assert max(stds) / min(stds) < 4, f"spread varies {max(stds) / min(stds):.1f}x across layers"
    grads = [s.grad_norm for s in relu_he.layers]
    assert max(grads) / min(grads) < 100
    words = " ".join(findings(relu_he))
    assert "spread (std) stays between" in words and "keeps its size" in words


def test_relu_with_pytorchs_default_shrinks_the_gradient_at_layer_1():
    """PyTorch's Linear default (std 1/√(3·fan_in)) halves a ReLU layer's variance six times over:
    the signal and the gradient fade with depth."""
    result = analyse(LabConfig(init="PyTorch default", activation="relu", width=64, depth=50))
    first, last = result.layers[0], result.layers[-1]
    ratio = first.grad_norm / last.grad_norm
    assert ratio < 1e-10
    assert f"The gradient at layer 1 is {power_of_ten(ratio)} of the last layer's (layer 50)" in findings(result)[0]
    assert "vanishing gradients" in findings(result)[0]


def test_small_normal_weights_make_the_signal_and_gradients_vanish():
    result = analyse(LabConfig(init="N(0, 0.01²)", activation="tanh", width=64, depth=50))
    assert result.layers[-1].act_std < 1e-40 < result.layers[0].act_std
    assert max(s.grad_norm for s in result.layers) < 1e-40
    words = " ".join(findings(result))
    assert "signal fades away" in words and "gradient is tiny" in words


def test_unit_normal_relu_explodes_and_says_so():
    result = analyse(LabConfig(init="N(0, 1)", activation="relu", width=64, depth=50))
    assert result.layers[-1].act_std > 1e25 and result.overflow is None
    words = " ".join(findings(result))
    assert "The signal explodes" in words and "gradient is huge" in words


def test_overflow_is_said_where_it_starts():
    """Within the limits nothing overflows (16× a layer at most: 10⁶⁰ at depth 50); past them, the words say where."""
    result = analyse(LabConfig(init="N(0, 1)", activation="linear", width=256, depth=50, batch=310))
    assert result.overflow is None and result.layers[-1].act_std > 1e40
    inf = float("inf")
    layers = tuple(replace(s, act_std=inf if s.layer >= 30 else s.act_std, grad_norm=float("nan"))
                   for s in result.layers)
    said = findings(replace(result, layers=layers, overflow=1))
    assert said[0].startswith("The activations overflow (become inf or nan) from layer 30")
    said = findings(replace(result, layers=tuple(replace(s, grad_norm=inf) for s in result.layers), overflow=1))
    assert said[0].startswith("The gradients overflow (become inf or nan) on the way back")


def test_zeros_shows_identical_neurons():
    for activation in ("tanh", "relu", "sigmoid"):
        result = analyse(LabConfig(init="zeros", activation=activation, width=16, depth=10))
        assert all(s.identical for s in result.layers)
        assert all(s.grad_norm == 0 for s in result.layers)
        said = findings(result)
        assert any("Every neuron of a layer computes the same value" in s for s in said), said
        assert any("No gradient reaches" in s for s in said), said
    other = analyse(LabConfig(init="Xavier normal", activation="tanh", width=16, depth=10))
    assert not any(s.identical for s in other.layers)
    assert not any("same value" in s for s in findings(other))


def test_the_numbers_are_the_engines_own_forward_and_backward():
    """Layer 3's std and gradient norm equal a hand-built network of the same draws, run through the engine."""
    config = LabConfig(init="Xavier uniform", activation="tanh", width=8, depth=4, batch=30, seed=3)
    result = analyse(config)
    X, y = depth_lab.batch(config)
    assert np.allclose(X.mean(axis=0), 0) and np.allclose(X.std(axis=0), 1)
    g = np.random.default_rng(3)
    layers = [nn.Linear(a, b) for a, b in [(2, 8), (8, 8), (8, 8), (8, 8), (8, 1)]]
    for layer in layers:
        bound = math.sqrt(6 / (layer.in_features + layer.out_features))
        layer.weight.data[...] = g.uniform(-bound, bound, layer.weight.data.shape)
        layer.bias.data[...] = 0
    x, acts = Tensor(X), []
    for layer in layers[:-1]:
        x = layer(x).tanh()
        acts.append(x)
    out = layers[-1](x)
    loss = out.sigmoid().log() * Tensor(y[:, None]) + (1 - out.sigmoid()).log() * Tensor(1 - y[:, None])
    (-loss.mean()).backward()
    for i in range(4):
        assert result.layers[i].act_std == pytest.approx(acts[i].data.std(), rel=1e-12)
        assert result.layers[i].grad_norm == pytest.approx(np.linalg.norm(layers[i].weight.grad), rel=1e-6)
    assert result.loss == pytest.approx(float(-loss.mean().data), rel=1e-9)


def test_same_seed_same_result_and_another_seed_another():
    a = analyse(LabConfig(depth=5, width=8, seed=1))
    b = analyse(LabConfig(depth=5, width=8, seed=1))
    c = analyse(LabConfig(depth=5, width=8, seed=2))
    assert a.layers == b.layers and a.layers != c.layers


def test_histograms_share_bins_and_hold_every_value():
    result = analyse(LabConfig(init="PyTorch default", activation="relu", width=32, depth=12, batch=100))
    assert result.hist.shape == (12, depth_lab.BINS) and len(result.edges) == depth_lab.BINS + 1
    assert result.edges[0] == 0  # ReLU: nothing below 0
    np.testing.assert_allclose(result.hist.sum(axis=1), 1.0)  # outliers go to the end bins
    # in units of each layer's std: the first bin holds ReLU's zeros (and values under 0.12 std), whatever the
    # layer's scale (layer 1's std is 10x layer 12's)
    zeros = np.array([s.zero for s in result.layers])
    assert np.all(result.hist[:, 0] >= zeros) and np.all(result.hist[:, 0] < zeros + 0.1)
    tanh = analyse(LabConfig(activation="tanh", width=8, depth=3))
    assert (tanh.edges[0], tanh.edges[-1]) == (-1, 1)


def test_every_data_set_and_activation_runs():
    for dataset in ("two moons", "spiral", "three blobs", "sine"):
        for activation in catalogue.ACTIVATIONS:
            result = analyse(LabConfig(dataset=dataset, activation=activation, width=4, depth=3, batch=20))
            assert len(result.layers) == 3 and findings(result)
    one = analyse(LabConfig(depth=1, width=4))
    assert "one hidden layer" in findings(one)[0]


# --------------------------------------------------------------------------------- settings and URL


def test_the_limits_come_from_the_settings_table():
    assert LabConfig(width=256, depth=50, batch=310).numbers <= MAX_NUMBERS
    with pytest.raises(ValueError, match="more than the 4,000,000"):
        LabConfig(width=256, depth=50, batch=400)
    with pytest.raises(ValueError, match="depth"):
        LabConfig(depth=51)
    config, why = depth_lab.fitted({"width": 256, "depth": 50, "batch": 1000})
    assert config.batch == 310 and "using a batch of 310" in why
    assert depth_lab.fitted({"width": 64})[1] == ""


def test_the_url_round_trips_and_bad_values_get_a_message():
    config = LabConfig(dataset="spiral", init="He uniform", activation="relu", width=32, depth=12, batch=100, seed=5)
    again, problems = LabConfig.from_query(config.to_query())
    assert again == config and problems == []
    bad, problems = LabConfig.from_query({"width": "9999", "depth": "x", "init": "ones", "activation": "relu"})
    assert bad.width == 256 and bad.depth == LabConfig.depth and bad.init == LabConfig.init
    assert bad.activation == "relu"
    text = " | ".join(problems)
    assert "width='9999' is above the largest 256: using 256" in text
    assert "depth='x' is not valid (not a number)" in text
    assert "init='ones' is not valid" in text
    kept, _ = LabConfig.from_query({"depth": "x"}, base=config)
    assert kept == config  # what the URL does not say (or says wrongly) comes from the last settings


def test_plain_numbers():
    assert power_of_ten(3e-12) == "10⁻¹²" and power_of_ten(2e8) == "10⁸"
    assert [plain_number(v) for v in (0.52, 1234, 3.21e-20, 0)] == ["0.52", "1,200", "3.2×10⁻²⁰", "0"]


# ------------------------------------------------------------------------------------ the pictures


class _Rows(HTMLParser):
    def __init__(self):
        super().__init__()
        self.root, self.rows = None, []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("data-testid") == "depth-lab":
            self.root = attrs
        if "data-layer" in attrs:
            self.rows.append(attrs)


def test_the_table_has_one_hooked_row_per_layer(tanh_normal):
    parser = _Rows()
    parser.feed(depth_figures.layer_table_html(tanh_normal))
    assert parser.root is not None and parser.root["data-depth"] == "50"
    assert [int(r["data-layer"]) for r in parser.rows] == list(range(1, 51))
    for row, stats in zip(parser.rows, tanh_normal.layers):
        assert float(row["data-act-std"]) == stats.act_std
        assert float(row["data-grad-norm"]) == stats.grad_norm
    assert parser.rows[0]["data-trouble"] == "true"  # 10¹⁶ times the last layer's gradient


def test_the_figures_put_each_layer_on_a_log_scale(relu_he):
    spread = depth_figures.layer_bars(relu_he, "spread")
    gradient = depth_figures.layer_bars(relu_he, "gradient")
    assert list(spread.data[0].y) == pytest.approx([s.act_std for s in relu_he.layers])
    assert list(gradient.data[0].y) == pytest.approx([s.grad_norm for s in relu_he.layers])
    assert spread.layout.yaxis.type == "log" and gradient.layout.yaxis.type == "log"
    zeros = depth_figures.layer_bars(analyse(LabConfig(init="zeros", width=4, depth=3)), "gradient")
    assert "nothing to draw on a log scale" in zeros.layout.annotations[-1].text
    heat = depth_figures.histogram_figure(relu_he)
    assert np.asarray(heat.data[0].z).shape == (depth_lab.BINS, 50)
    assert heat.layout.yaxis.title.text == "activation ÷ its layer's std"
    one = depth_figures.layer_histogram(relu_he, 7)
    assert re.match(r"Layer 7: mean .*, std", one.layout.title.text)


def test_log_ticks_are_decades_or_one_two_five_within_the_range():
    ticks, texts = depth_figures.log_ticks([1e-20, 1e-4])
    assert texts == ["10⁻²⁰", "10⁻¹⁷", "10⁻¹⁴", "10⁻¹¹", "10⁻⁸", "10⁻⁵"]
    lo, hi = depth_figures.log_range([1e-20, 1e-4])
    assert lo < -20 and hi > -4
    assert depth_figures.log_ticks([0.03, None, 0.44]) == ([0.02, 0.05, 0.1, 0.2, 0.5], ["0.02", "0.05", "0.1", "0.2",
                                                                                          "0.5"])
    ticks, texts = depth_figures.log_ticks([0.69, 0.95])  # within a factor 1.4: 1-2-5 gives only two ticks
    assert texts == ["0.5", "0.6", "0.7", "0.8", "0.9", "1"]
    assert depth_figures.log_ticks([0.37, 0.86])[1] == ["0.3", "0.5", "1"]
    assert depth_figures.log_ticks([None]) == ([], []) and depth_figures.log_range([None]) is None
