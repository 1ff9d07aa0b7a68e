"""The Landscape tab's panel: one call gives the slice, λmax with its verdict and the per-example gradients, for
any run (a diverged one, a big one), and its hooks say what it shows."""

import numpy as np
import pytest

from explorer.playground import training
from explorer.playground.landscape import directions as dirs
from explorer.playground.landscape import net as nets
from explorer.playground.landscape import panel as panels
from explorer.playground.landscape import plane
from explorer.playground.settings import TrainConfig


def test_a_panel_of_a_small_run_and_its_hooks():
    state = training.new_state(TrainConfig(hidden=(16, 16), n=100))
    for _ in range(5):
        training.step(state, 2)
    p = panels.compute(state, dirs.PCA)
    assert p.kind == dirs.PCA and p.note is None and p.slice.loss.shape == (plane.SIZE, plane.SIZE)
    hooks = p.hooks()
    assert hooks["data-directions"] == "pca"
    assert float(hooks["data-explained"]) == pytest.approx(sum(p.slice.directions.explained))
    assert hooks["data-step"] == "10" and float(hooks["data-lr"]) == 0.1
    assert "exact autograd.func.hvp" in p.curvature_line()
    assert len(p.each.losses) == len(state.y_train) == len(p.points)
    moved = panels.with_lr(p, 10.0, "SGD", 0.0)
    assert moved.verdict.kind == "oscillating" and moved.hooks()["data-lr"] == "10.0" and moved.slice is p.slice


def test_a_diverged_run_is_shown_at_its_last_finite_weights():
    state = training.new_state(TrainConfig(dataset="sine", hidden=(), lr=10.0, batch_size=0))  # lr ≫ 2/λmax
    for _ in range(400):
        training.step(state, 1)
        if state.diverged:
            break
    assert state.diverged
    p = panels.compute(state)
    assert p.step == state.frames[-1].step < state.step  # where the replay ends
    assert p.hooks()["data-verdict"] in ("stable", "oscillating") and not np.isnan(p.slice.loss).any()


def test_a_big_network_gets_a_coarser_slice_and_fewer_iterations_said():
    big = nets.Net((2, *(64,) * 8, 3), "relu", "classification", "cross-entropy", np.zeros((700, 2)),
                   np.zeros(700, dtype=np.int64))
    small = nets.Net((2, 16, 16, 1), "tanh", "classification", "cross-entropy", np.zeros((200, 2)),
                     np.zeros(200, dtype=np.int64))
    assert panels.grid_size(small) == plane.SIZE and panels.iterations(small) == 100
    assert panels.grid_size(big) == panels.MIN_SIZE and panels.iterations(big) < 30
