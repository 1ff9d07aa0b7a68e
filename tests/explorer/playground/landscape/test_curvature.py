"""λmax by power iteration on HVPs against the full Hessian's eigenvalues, and what it says of the learning rate."""

import numpy as np
import pytest

from autograd import Tensor
from explorer.playground import training
from explorer.playground.landscape import curvature as curv
from explorer.playground.landscape import net as nets
from explorer.playground.settings import TrainConfig

# networks of at most 400 parameters: (data set, hidden, activation, loss, steps trained first)
NETS = [
    ("two moons", (16, 16), "tanh", "cross-entropy", 0),  # 337 parameters
    ("two moons", (16, 16), "tanh", "cross-entropy", 60),
    ("circles", (12,), "relu", "MSE", 30),
    ("three blobs", (10, 6), "silu", "cross-entropy", 20),
    ("sine", (16,), "gelu", "MSE", 40),
]


def _run(dataset, hidden, activation, loss, steps, n=80, batch=0):
    state = training.new_state(TrainConfig(dataset=dataset, hidden=hidden, activation=activation, loss=loss, n=n,
                                           batch_size=batch, lr=0.1))
    training.step(state, steps)
    return state


def _hessian(net, w):
    """The full Hessian from central differences of the engine's gradient, column by column, symmetrised."""
    H = np.stack([nets.hvp_by_differences(net, w, e).value for e in np.eye(len(w))])
    return (H + H.T) / 2


@pytest.mark.parametrize("case", NETS, ids=[f"{c[0]}-{c[2]}-{c[4]}" for c in NETS])
def test_lambda_max_is_the_full_hessians_top_eigenvalue(case):
    state = _run(*case)
    net, w = nets.net_of(state), training.flat_params(state)
    assert len(w) <= 400
    found = curv.lambda_max(net, w)
    top = np.linalg.eigvalsh(_hessian(net, w))[-1]
    assert found.lambda_max == pytest.approx(top, rel=0.01)
    assert found.method == nets.EXACT and found.iterations <= 2 * curv.ITERATIONS
    H_v = nets.hvp(net, w, found.vector).value  # the vector is the sharpest direction
    assert found.vector @ H_v == pytest.approx(top, rel=0.01)


def test_lambda_max_matches_the_closed_form_of_logistic_regression():
    state = _run("two moons", (), "tanh", "cross-entropy", 25)  # no hidden layer: H = Xᵀ diag(p(1 − p)) X / N
    net, w = nets.net_of(state), training.flat_params(state)
    X = np.column_stack([net.inputs, np.ones(len(net.inputs))])  # W's row, then b
    p = 1 / (1 + np.exp(-X @ w))
    H = X.T @ (X * (p * (1 - p))[:, None]) / len(X)
    assert curv.lambda_max(net, w).lambda_max == pytest.approx(np.linalg.eigvalsh(H)[-1], rel=1e-4)


def test_lambda_max_matches_torchs_hessian():
    torch = pytest.importorskip("torch")
    tfunc = pytest.importorskip("torch.func")
    state = _run("two moons", (10, 10), "tanh", "cross-entropy", 30)
    net, w = nets.net_of(state), training.flat_params(state)
    X, y = torch.tensor(net.inputs), torch.tensor(net.labels, dtype=torch.float64)

    def loss(flat):
        a = X
        for k, (start, n_out, n_in) in enumerate(net.layers()):
            end = start + n_out * n_in
            a = a @ flat[start:end].reshape(n_out, n_in).T + flat[end:end + n_out]
            a = torch.tanh(a) if k < len(net.layers()) - 1 else a
        return torch.nn.functional.binary_cross_entropy_with_logits(a[:, 0], y)

    assert loss(torch.tensor(w)).item() == pytest.approx(nets.loss_tensor(net, Tensor(w)).item(), rel=1e-12)
    H = tfunc.hessian(loss)(torch.tensor(w)).numpy()
    assert curv.lambda_max(net, w).lambda_max == pytest.approx(np.linalg.eigvalsh(H)[-1], rel=0.01)
    np.testing.assert_allclose(_hessian(net, w), H, atol=1e-6)


def test_power_iteration_finds_the_top_when_a_negative_eigenvalue_dominates():
    rng = np.random.default_rng(5)
    Q, _ = np.linalg.qr(rng.standard_normal((30, 30)))
    eig = np.linspace(-1, 1, 30)
    eig[0], eig[-1] = -9.0, 2.0  # the eigenvalue of largest magnitude is negative
    H = Q @ np.diag(eig) @ Q.T

    net = nets.Net((1, 1), "linear", "regression", "MSE", np.zeros((1, 1)), np.zeros(1))
    orig = nets.hvp
    try:
        nets.hvp = lambda _n, _w, v: nets.Hvp(H @ v, "test")
        found = curv.lambda_max(net, np.zeros(30))
    finally:
        nets.hvp = orig
    assert found.lambda_max == pytest.approx(2.0, rel=1e-3) and found.method == "test"


@pytest.mark.parametrize(("factor", "kind"), [(1.2, curv.OSCILLATING), (0.5, curv.STABLE)])
def test_a_run_above_two_over_lambda_max_is_flagged_and_does_oscillate(factor, kind):
    # linear regression with MSE is an exact quadratic: the edge is exactly 2/λmax
    state = _run("sine", (), "tanh", "MSE", 0, n=60)
    net, w = nets.net_of(state), training.flat_params(state)
    lam = curv.lambda_max(net, w).lambda_max
    lr = factor * 2 / lam
    said = curv.verdict(lr, lam)
    assert said.kind == kind and said.limit == pytest.approx(2 / lam)
    assert ("is above 2/λmax" if kind == curv.OSCILLATING else "is below 2/λmax") in said.sentence
    state.optimizer.lr = lr
    losses = [training.step(state, 1).train_loss for _ in range(40)]
    falls = np.diff(losses) < 0
    if kind == curv.OSCILLATING:
        assert losses[-1] > losses[0]  # along the sharpest direction each step overshoots by 1.4×
    else:
        assert falls.all()


def test_the_sentence_reads_as_the_issue_says():
    said = curv.verdict(0.8, 2 / 0.53)
    assert said.kind == curv.OSCILLATING
    assert said.sentence == ("lr = 0.8 is above 2/λmax = 0.53: along the sharpest direction each step overshoots; "
                             "expect the loss to oscillate or diverge.")
    assert curv.verdict(0.3, 2 / 0.53).kind == curv.STABLE
    assert "2(1+β)/λmax = 1.007" in curv.verdict(0.8, 2 / 0.53, "momentum").sentence
    assert curv.verdict(0.8, 2 / 0.53, "momentum").kind == curv.STABLE
    assert "Adam rescales" in curv.verdict(0.8, 2 / 0.53, "Adam").sentence
    assert "λmax + L2" in curv.verdict(0.1, 1.0, "SGD", l2=0.1).sentence
    assert curv.verdict(1.0, -0.2).kind == curv.STABLE


def test_sharpness_keeps_one_run_in_order_and_thins():
    track = curv.Sharpness()
    track.add("a", 0, 1.0)
    track.add("a", 5, 2.0)
    track.add("b", 0, 3.0)  # another run starts afresh
    assert (track.steps, track.values) == ([0], [3.0])
    track.add("b", 10, 4.0)
    track.add("b", 4, 5.0)  # a reset: the later points go
    assert track.steps == [0, 4]
    for s in range(5, 5 + curv.SHARPNESS_POINTS):
        track.add("b", s, float(s))
    assert len(track.steps) <= curv.SHARPNESS_POINTS and track.steps[-1] == 4 + curv.SHARPNESS_POINTS
    assert track.steps == sorted(track.steps)
