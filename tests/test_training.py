"""The training runner: determinism, convergence, divergence, live lr change, frames, programs."""

import math
from dataclasses import replace

import numpy as np
import pytest

from autograd import Tensor
from autograd import functional as F
from explorer import datasets, training
from explorer.training import TrainConfig


def test_two_moons_reaches_95_percent_test_accuracy():
    state = training.new_state(TrainConfig(dataset="two moons", noise=0.1, hidden=(16, 16), lr=0.03, seed=0))
    for _ in range(30):
        m = training.step(state, 20)
        if m["test_acc"] > 0.95:
            break
    assert m["test_acc"] > 0.95, f"test accuracy {m['test_acc']:.3f} after {m['step']} steps"
    assert m["step"] <= 600


def test_sine_reaches_low_mse():
    state = training.new_state(TrainConfig(dataset="sine", noise=0.05, hidden=(16, 16), lr=0.01, seed=0))
    m = training.step(state, 1500)
    assert m["test_loss"] < 0.02, f"test MSE {m['test_loss']:.4f} after {m['step']} steps"
    assert math.isnan(m["test_acc"])


def test_three_classes_use_softmax_cross_entropy():
    state = training.new_state(TrainConfig(dataset="three blobs", hidden=(8,), seed=1))
    assert state.n_classes == 3 and state.loss_kind == "multiclass"
    assert state.model.sizes[-1] == 3
    m = training.step(state, 300)
    assert m["test_acc"] > 0.85
    assert training.prediction_grid(state).shape == (training.GRID, training.GRID, 3)


def test_same_seed_same_run_and_different_seed_differs():
    config = TrainConfig(dataset="circles", batch_size=16, seed=4)
    a, b = training.new_state(config), training.new_state(config)
    training.step(a, 50)
    training.step(b, 50)
    for pa, pb in zip(a.model.parameters(), b.model.parameters(), strict=True):
        np.testing.assert_array_equal(pa.data, pb.data)
    c = training.new_state(TrainConfig(dataset="circles", batch_size=16, seed=5))
    training.step(c, 50)
    assert not np.array_equal(a.model.parameters()[0].data, c.model.parameters()[0].data)


def test_huge_learning_rate_is_caught_and_explained():
    state = training.new_state(TrainConfig(dataset="sine", optimizer="SGD", lr=1000.0, batch_size=0))
    m = training.step(state, 500)
    assert m["diverged"] is not None
    assert m["step"] < 500
    text = state.diverged
    assert f"at step {state.step}" in text
    assert "lower the learning rate (now 1000)" in text and "Adam" in text
    assert "inf" in text or "nan" in text
    # Further steps do nothing once stopped.
    assert training.step(state, 10)["step"] == m["step"]
    assert all(math.isfinite(v) for v in state.history.train_loss)


def test_learning_rate_change_mid_training_takes_effect():
    config = TrainConfig(dataset="two moons", optimizer="SGD", lr=0.1, batch_size=0, seed=2)
    a, b = training.new_state(config), training.new_state(config)
    training.step(a, 5)
    training.step(b, 5)
    before = [p.data.copy() for p in a.model.parameters()]
    training.set_hyperparameters(a, lr=1e-12)
    assert a.optimizer.lr == 1e-12 and a.config.lr == 1e-12
    training.step(a, 5)
    training.step(b, 5)  # b keeps lr 0.1
    assert a.step == 10  # same run: not reset
    moved_a = max(np.abs(p.data - w).max() for p, w in zip(a.model.parameters(), before, strict=True))
    moved_b = max(np.abs(p.data - w).max() for p, w in zip(b.model.parameters(), before, strict=True))
    assert moved_a < 1e-9 < 1e-3 < moved_b
    training.set_hyperparameters(b, lr=1.0, l2=0.01)
    assert b.optimizer.weight_decay == 0.01 and b.config.l2 == 0.01


def test_sgd_step_matches_hand_computation():
    state = training.new_state(TrainConfig(dataset="xor", optimizer="SGD", lr=0.5, batch_size=0, hidden=(3,)))
    X = Tensor(training.model_inputs(state, state.X_train))
    before = [p.data.copy() for p in state.model.parameters()]
    loss = F.binary_cross_entropy_with_logits(state.model(X), Tensor(state.y_train[:, None].astype(float)))
    loss.backward()
    expected = [b - 0.5 * p.grad for b, p in zip(before, state.model.parameters(), strict=True)]
    state.model.zero_grad()
    training.step(state, 1)
    for e, p in zip(expected, state.model.parameters(), strict=True):
        np.testing.assert_allclose(p.data, e, rtol=1e-12)


def test_frames_are_capped_and_subsampled():
    state = training.new_state(TrainConfig(dataset="two moons", hidden=(4,)))
    for _ in range(400):
        training.step(state, 5)
    assert 2 <= len(state.frames) <= training.MAX_FRAMES
    steps = [f["step"] for f in state.frames]
    assert steps == sorted(steps) and steps[0] == 0
    assert state.frame_every > 10
    assert state.frames[-1]["grid"].shape == (training.GRID, training.GRID)


def test_history_and_gradient_norms_recorded():
    state = training.new_state(TrainConfig(hidden=(5, 4)))
    training.step(state, 3)
    training.step(state, 3)
    h = state.history
    assert h.steps == [0, 3, 6]
    assert len(h.grad_norms[-1]) == 3 and all(n > 0 for n in h.grad_norms[-1])
    assert all(math.isnan(n) for n in h.grad_norms[0])  # before any backward: a gap, not 0
    assert len(training.hidden_activations(state)) == 2


def test_train_for_respects_step_budget():
    state = training.new_state(TrainConfig())
    m = training.train_for(state, seconds=5.0, max_steps=25, chunk=10)
    assert m["step"] == 25
    assert m["steps_per_sec"] > 0


def test_train_frames_snapshots_in_parts():
    state = training.new_state(TrainConfig())
    shots = training.train_frames(state, seconds=10.0, max_steps=30, frames=3)
    assert [s["step"] for s in shots] == [10, 20, 30]
    assert not np.array_equal(shots[0]["grid"], shots[-1]["grid"])
    assert shots[-1]["metrics"]["step"] == 30


def test_features_are_extra_inputs():
    config = TrainConfig(dataset="circles", features=("x1²", "x2²"))
    state = training.new_state(config)
    assert state.model.sizes[0] == 4
    X = np.array([[2.0, 3.0]])
    np.testing.assert_allclose(training.model_inputs(state, X), [[2.0, 3.0, 4.0, 9.0]])
    with pytest.raises(ValueError, match="do not apply"):
        TrainConfig(dataset="sine", features=("x1²",))


def test_config_validation_messages():
    with pytest.raises(ValueError, match="up to 8 hidden layers"):
        TrainConfig(hidden=(8,) * 9)
    with pytest.raises(ValueError, match="1..64"):
        TrainConfig(hidden=(65,))
    with pytest.raises(ValueError, match="unknown optimiser"):
        TrainConfig(optimizer="Lion")
    with pytest.raises(ValueError, match="learning rate"):
        TrainConfig(lr=0)
    TrainConfig(hidden=(64,) * 8)  # the largest allowed network


def test_query_round_trip_and_bad_values():
    config = TrainConfig(dataset="spiral", hidden=(16, 8, 4), activation="relu", lr=0.1, features=("sin x1",))
    back, problems = TrainConfig.from_query(config.to_query())
    assert back == config and problems == []
    bad, problems = TrainConfig.from_query({"dataset": "spiral", "lr": "fast", "hidden": "8,999"})
    assert bad.dataset == "spiral" and bad.lr == TrainConfig().lr and bad.hidden == TrainConfig().hidden
    assert any("lr" in p for p in problems) and any("64" in p for p in problems)
    # Every refused field is reported, not only the first one the constructor met.
    bad, problems = TrainConfig.from_query(
        {"dataset": "moons", "lr": "abc", "hidden": "999", "activation": "foo", "optimizer": "Adam"}
    )
    assert bad.optimizer == "Adam" and bad.activation == TrainConfig().activation
    assert len(problems) == 4, problems
    for word in ("lr", "data set", "64", "activation"):
        assert any(word in p for p in problems), (word, problems)


def test_a_long_link_value_is_not_echoed_whole():
    _, problems = TrainConfig.from_query({"lr": "9" * 5_000 + "x", "activation": "z" * 5_000})
    assert len(problems) == 2
    assert all(len(p) < 260 for p in problems), problems
    assert any("5,001 characters" in p for p in problems) and any("characters)" in p for p in problems)


def test_parse_hidden():
    assert training.parse_hidden("8, 8") == (8, 8)
    assert training.parse_hidden("") == ()
    assert training.parse_hidden("64 64 64") == (64, 64, 64)
    with pytest.raises(ValueError, match="'x' is not one"):
        training.parse_hidden("8, x")


def test_uploaded_data_trains():
    X, y = datasets.parse_csv(
        "x1,x2,label\n" + "\n".join(f"{100 + i},{200 - i},{int(i > 9)}" for i in range(20)), "classification"
    )
    config = TrainConfig(dataset=datasets.UPLOADED, task="classification", test_fraction=0.2)
    state = training.new_state(config, data=(X, y))
    assert np.abs(training.model_inputs(state, state.X_train)).max() <= 2.0 + 1e-9  # rescaled
    assert training.step(state, 200)["train_acc"] > 0.9
    with pytest.raises(ValueError, match="needs its points"):
        training.new_state(config)


def _expected_loss(state, rows):
    X = Tensor(training.model_inputs(state, state.X_train[rows]))
    return float(training._loss(state, state.model(X), state.y_train[rows]).data)


@pytest.mark.parametrize(
    "config",
    [
        TrainConfig(dataset="two moons", hidden=(4, 3), activation="relu"),
        TrainConfig(dataset="three blobs", hidden=(5,), activation="gelu"),
        TrainConfig(dataset="sine", hidden=(6,), activation="linear"),
    ],
    ids=["bce", "cross-entropy", "mse"],
)
def test_one_step_program_evaluates_to_the_same_loss(config):
    state = training.new_state(config)
    training.step(state, 20)
    text = training.one_step_program(state, batch=4)
    assert "X = [[" in text and "W1 = [[" in text and "loss = " in text
    assert {"bce": "binary_cross_entropy_with_logits", "cross-entropy": "cross_entropy", "mse": "mse_loss"}[
        {"binary": "bce", "multiclass": "cross-entropy", "regression": "mse"}[state.loss_kind]
    ] in text
    expr = pytest.importorskip("autograd.expr")
    result = expr.evaluate(text)
    assert result.output.shape == ()
    assert result.output.item() == pytest.approx(_expected_loss(state, np.arange(4)), rel=2e-3, abs=2e-3)
    result.output.backward()
    assert result.variables["W1"].grad is not None


def test_one_step_program_too_big_network_says_so():
    state = training.new_state(TrainConfig(hidden=(64,) * 8))
    with pytest.raises(ValueError, match="too many to show"):
        training.one_step_program(state)


def test_changed_settings_names_what_restarts_a_run():
    old = TrainConfig()
    assert training.changed_settings(old, replace(old, lr=1.0, l2=0.1)) == []  # tuned live, no restart
    new = replace(old, activation="relu", optimizer="SGD", hidden=(4,))
    assert training.changed_settings(old, new) == ["hidden layers", "activation", "optimiser"]
    # every field but lr and l2 is in the run key, and has a name on the page
    assert set(training.SETTING_NAMES) == {f for f in TrainConfig.__dataclass_fields__ if f not in ("lr", "l2")}
