"""The landscape's network function: its batched losses are the engine's, its gradient and HVPs are right, and its
per-example gradients come from one backward and sum to the batch gradient."""

import numpy as np
import pytest

from autograd import Tensor
from explorer.playground import training
from explorer.playground.landscape import net as nets
from explorer.playground.settings import TrainConfig

# (data set, loss, hidden, activation, features): every task, loss and output width, every activation
CASES = [
    ("two moons", "cross-entropy", (16, 16), "tanh", ()),
    ("two moons", "MSE", (8,), "relu", ("x1·x2",)),
    ("three blobs", "cross-entropy", (8,), "gelu", ()),
    ("three blobs", "MSE", (4, 4), "silu", ()),
    ("spiral", "cross-entropy", (), "sigmoid", ()),
    ("sine", "MSE", (8,), "linear", ("x²",)),
]
IDS = [f"{c[0]}-{c[1]}-{c[3]}" for c in CASES]


def _state(dataset, loss, hidden, activation, features, steps=5, n=60):
    state = training.new_state(TrainConfig(dataset=dataset, loss=loss, hidden=hidden, activation=activation,
                                           features=features, n=n, lr=0.03))
    training.step(state, steps)
    return state


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_batched_losses_are_the_engines(case):
    state = _state(*case)
    net, w = nets.net_of(state), training.flat_params(state)
    rng = np.random.default_rng(1)
    stacked = np.stack([w, w + 0.3 * rng.standard_normal(len(w)), w - 0.2 * rng.standard_normal(len(w))])
    ours = nets.losses(net, stacked)
    for k, params in enumerate(stacked):
        engine = nets.loss_tensor(net, Tensor(params)).item()
        assert ours[k] == pytest.approx(engine, rel=1e-12, abs=1e-14), (case, k)
    assert ours[0] == pytest.approx(training.evaluate(state, state.X_train, state.y_train)[0], rel=1e-12)


def test_chunks_give_the_same_losses(monkeypatch):
    state = _state(*CASES[0])
    net, w = nets.net_of(state), training.flat_params(state)
    stacked = w + 0.1 * np.random.default_rng(2).standard_normal((7, len(w)))
    whole = nets.losses(net, stacked)
    monkeypatch.setattr(nets, "CHUNK_ELEMENTS", 1)  # one weight set a pass
    np.testing.assert_allclose(nets.losses(net, stacked), whole, rtol=1e-14)


@pytest.mark.parametrize("case", CASES[:4], ids=IDS[:4])
def test_gradient_matches_central_differences(case):
    state = _state(*case)
    net, w = nets.net_of(state), training.flat_params(state)
    _, g = nets.gradient(net, w)
    eps = 1e-6
    for i in np.random.default_rng(3).choice(len(w), 12, replace=False):
        e = np.zeros_like(w)
        e[i] = eps
        numeric = (nets.losses(net, w + e)[0] - nets.losses(net, w - e)[0]) / (2 * eps)
        assert g[i] == pytest.approx(numeric, rel=1e-5, abs=1e-8), (case, i)


@pytest.mark.parametrize("case", CASES[:3])
def test_the_exact_hvp_matches_central_differences_of_the_gradient(case):
    state = _state(*case)
    net, w = nets.net_of(state), training.flat_params(state)
    v = np.random.default_rng(5).standard_normal(len(w))
    exact, differences = nets.hvp(net, w, v), nets.hvp_by_differences(net, w, v)
    assert exact.method == nets.EXACT and differences.method == nets.FINITE_DIFFERENCES
    np.testing.assert_allclose(exact.value, differences.value, rtol=1e-5, atol=1e-7 * np.abs(exact.value).max())


def test_hvp_says_how_and_matches_differences_of_the_loss():
    state = _state(*CASES[0])
    net, w = nets.net_of(state), training.flat_params(state)
    rng = np.random.default_rng(4)
    u, v = rng.standard_normal(len(w)), rng.standard_normal(len(w))
    h = nets.hvp(net, w, v)
    assert h.method == nets.EXACT
    # uᵀHv from second differences of the loss itself (an independent route: no gradient involved)
    eps = 1e-4

    def f(a, b):
        return nets.losses(net, w + a * u + b * v)[0]

    mixed = (f(eps, eps) - f(eps, -eps) - f(-eps, eps) + f(-eps, -eps)) / (4 * eps * eps)
    assert u @ h.value == pytest.approx(mixed, rel=1e-4)
    assert np.all(nets.hvp(net, w, np.zeros_like(w)).value == 0)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_per_example_gradients_sum_to_the_batch_gradient(case):
    state = _state(*case)
    net, w = nets.net_of(state), training.flat_params(state)
    each = nets.per_example(net, w)
    n = len(net.inputs)
    assert each.grads.shape == (n, net.n_params)
    np.testing.assert_allclose(each.grads.sum(axis=0) / n, each.batch_grad, rtol=0, atol=1e-12)
    np.testing.assert_allclose(each.batch_grad, nets.gradient(net, w)[1], rtol=0, atol=1e-15)
    assert each.losses.mean() == pytest.approx(nets.losses(net, w)[0], rel=1e-12)


@pytest.mark.parametrize("case", CASES[:3], ids=IDS[:3])
def test_each_points_gradient_is_its_own_loss_gradient(case):
    state = _state(*case)
    net, w = nets.net_of(state), training.flat_params(state)
    each = nets.per_example(net, w)
    for i in (0, 7, len(net.inputs) - 1):
        alone = nets.Net(net.sizes, net.activation, net.task, net.loss, net.inputs[i:i + 1], net.labels[i:i + 1])
        np.testing.assert_allclose(each.grads[i], nets.gradient(alone, w)[1], rtol=1e-10, atol=1e-13)
        assert each.losses[i] == pytest.approx(nets.losses(alone, w)[0], rel=1e-12)


def test_unflatten_reads_a_frames_layout():
    state = _state(*CASES[0])
    net, w = nets.net_of(state), training.flat_params(state)
    for (W, b), layer in zip(nets.unflatten(net, w), state.linears()):
        np.testing.assert_array_equal(W, layer.weight.data)
        np.testing.assert_array_equal(b, layer.bias.data)
    assert net.n_params == len(w)
