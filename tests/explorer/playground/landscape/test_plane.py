"""The slice, the directions it is drawn along, the path on it with its projection error, and the 1-D line."""

import numpy as np
import pytest

from autograd import Tensor
from explorer.playground import training
from explorer.playground.landscape import directions as dirs
from explorer.playground.landscape import net as nets
from explorer.playground.landscape import plane
from explorer.playground.settings import TrainConfig


@pytest.fixture(scope="module")
def run():
    state = training.new_state(TrainConfig(hidden=(16, 16), n=100, lr=0.3))
    for _ in range(40):
        training.step(state, 3)
    return state


def _path(state):
    frames = training.replay_frames(state)
    return np.array([f.params for f in frames]), np.array([f.step for f in frames]), frames


def test_random_directions_are_filter_normalised(run):
    net, w = nets.net_of(run), training.flat_params(run)
    d = dirs.random_directions(net, w, seed=3)
    assert d.kind == dirs.RANDOM and d.explained is None
    for vec in (d.d1, d.d2):
        for (Wd, bd), (W, _) in zip(nets.unflatten(net, vec), nets.unflatten(net, w)):
            np.testing.assert_allclose(np.linalg.norm(Wd, axis=1), np.linalg.norm(W, axis=1), rtol=1e-12)
            assert np.all(bd == 0)
    assert not np.allclose(d.d1, d.d2)
    np.testing.assert_array_equal(dirs.random_directions(net, w, seed=3).d1, d.d1)  # seeded
    zero = dirs.random_directions(net, np.zeros_like(w))  # the zeros initialisation: unit rows, not nothing
    for Wd, _ in nets.unflatten(net, zero.d1):
        np.testing.assert_allclose(np.linalg.norm(Wd, axis=1), 1.0, rtol=1e-12)


def test_pca_directions_of_a_path_in_a_plane_explain_all_of_it():
    rng = np.random.default_rng(0)
    origin, a, b = rng.standard_normal((3, 50))
    t = np.linspace(0, 1, 20)
    path = origin + np.outer(np.cos(3 * t), a) + np.outer(t ** 2, b)
    d = dirs.pca_directions(path, path[-1])
    assert d.kind == dirs.PCA and sum(d.explained) == pytest.approx(1.0, abs=1e-12)
    assert d.explained[0] >= d.explained[1] > 0
    assert d.d1 @ d.d2 == pytest.approx(0, abs=1e-12) and np.linalg.norm(d.d1) == pytest.approx(1)
    coords, distance = plane.project(d, path[-1], path)
    np.testing.assert_allclose(distance, 0, atol=1e-10)  # the path lies in its own plane
    assert d.d1 @ (path[-1] - path[0]) > 0  # the first direction points along the run
    assert dirs.pca_directions(path[:2], path[-1]) is None


def test_pca_explained_fraction_of_a_real_run(run):
    path, _, _ = _path(run)
    d = dirs.pca_directions(path, training.flat_params(run))
    M = path - training.flat_params(run)
    M = M - M.mean(axis=0)
    eig = np.sort(np.linalg.eigvalsh(M @ M.T))[::-1]  # the same spectrum from the Gram matrix
    assert d.explained[0] == pytest.approx(eig[0] / eig.sum(), rel=1e-9)
    assert d.explained[1] == pytest.approx(eig[1] / eig.sum(), rel=1e-9)


@pytest.mark.parametrize("kind", dirs.KINDS)
def test_slice_path_and_line_are_the_losses_of_their_weights(run, kind):
    net, w = nets.net_of(run), training.flat_params(run)
    path, steps, frames = _path(run)
    d = dirs.random_directions(net, w) if kind == dirs.RANDOM else dirs.pca_directions(path, w)
    sl, pa, li = plane.landscape(net, w, d, path, steps, path[0], steps[0])
    assert sl.loss.shape == (plane.SIZE, plane.SIZE)
    assert sl.alphas[0] < 0 < sl.alphas[-1] and sl.betas[0] < 0 < sl.betas[-1]
    assert sl.origin_loss == pytest.approx(frames[-1].metrics.train_loss, rel=1e-12)
    for i, j in ((0, 0), (3, 17), (24, 9)):  # grid cells against the engine at those weights
        params = w + sl.alphas[i] * d.d1 + sl.betas[j] * d.d2
        assert sl.loss[j, i] == pytest.approx(nets.loss_tensor(net, Tensor(params)).item(), rel=1e-12)
    np.testing.assert_allclose(pa.real, [f.metrics.train_loss for f in frames], rtol=1e-12)
    for k in (0, len(path) // 2):
        drawn = w + pa.coords[k, 0] * d.d1 + pa.coords[k, 1] * d.d2
        assert pa.distance[k] == pytest.approx(np.linalg.norm(path[k] - drawn), rel=1e-9, abs=1e-12)
        assert pa.contour[k] == pytest.approx(nets.losses(net, drawn)[0], rel=1e-12)
    assert pa.coords[-1] == pytest.approx([0, 0], abs=1e-9) and pa.distance[-1] == pytest.approx(0, abs=1e-9)
    # the line: t = 0 is the first weights, t = 1 now
    assert li.start_step == 0
    assert np.interp(0.0, li.t, li.loss) == pytest.approx(frames[0].metrics.train_loss, rel=1e-9)
    assert np.interp(1.0, li.t, li.loss) == pytest.approx(sl.origin_loss, rel=1e-9)
    assert li.t[0] < 0 and li.t[-1] > 1


def test_the_projection_error_is_said_where_it_is(run):
    net, w = nets.net_of(run), training.flat_params(run)
    path, steps, _ = _path(run)
    _, random_path, _ = plane.landscape(net, w, dirs.random_directions(net, w), path, steps, path[0], 0)
    assert random_path.differs[0] and not random_path.differs[-1]  # the start is far off a random plane
    said = random_path.sentence()
    assert f"At {int(random_path.differs.sum())} of the {len(steps)} points" in said and "step 0" in said
    on_plane = plane.Path(steps[:3], np.zeros((3, 2)), np.zeros(3), np.array([1.0, 0.5, 0.2]),
                          np.array([1.02, 0.5, 0.2]))
    assert not on_plane.differs.any() and "can be read as the run's" in on_plane.sentence()
    off = plane.Path(steps[:2], np.zeros((2, 2)), np.array([2.0, 0.0]), np.array([1.0, 0.2]), np.array([0.5, 0.2]))
    assert off.differs.tolist() == [True, False]
    assert "1 of the 2 points" in off.sentence() and "up to 2 from it" in off.sentence()


def test_overflowing_weights_give_inf_not_a_crash(run):
    net, w = nets.net_of(run), training.flat_params(run)
    d = dirs.Directions(dirs.RANDOM, np.full_like(w, 1e200), np.zeros_like(w))
    sl, _, _ = plane.landscape(net, w, d, w[None], np.array([run.step]), w, run.step)
    assert np.isfinite(sl.loss[:, plane.SIZE // 2]).all()  # α = 0 column
    assert not np.isnan(sl.loss).any()
