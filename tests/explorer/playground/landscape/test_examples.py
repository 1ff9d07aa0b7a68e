"""Per-example gradients put to use: a batch's agreement with the full-data gradient, a point's pull on each layer."""

import numpy as np
import pytest

from explorer.playground import training
from explorer.playground.landscape import examples
from explorer.playground.landscape import net as nets
from explorer.playground.settings import BATCH_SIZES, TrainConfig


@pytest.fixture(scope="module")
def each():
    state = training.new_state(TrainConfig(hidden=(16, 16), n=120, lr=0.3))
    net = nets.net_of(state)  # NOTE: at the first weights; near a minimum small batches can even point away
    return net, nets.per_example(net, training.flat_params(state))


def test_agreement_grows_with_the_batch_and_is_one_for_the_full_batch(each):
    net, e = each
    rows = examples.agreement(e, BATCH_SIZES)
    n = len(net.inputs)
    assert [r.size for r in rows] == [min(s, n) if s else n for s in BATCH_SIZES]
    full = [r for r in rows if r.size == n]
    assert full and all(r.mean == 1.0 for r in full)
    means = [r.mean for r in rows]
    assert means[0] < means[2] < means[4] < 1.0  # 1 < 8 < 32 points
    assert all(r.low <= r.mean <= r.high for r in rows)


def test_agreement_is_the_cosine_of_the_batch_mean(each):
    _, e = each
    one = examples.agreement(e, [1], draws=400, seed=1)[0]
    # a batch of one point: the mean over points of cos(gᵢ, g)
    full = e.grads.mean(axis=0)
    exact = np.mean([examples.cosine(g, full) for g in e.grads])
    assert one.mean == pytest.approx(exact, abs=0.05)


def test_a_points_pull_on_each_layer_adds_up(each):
    net, e = each
    i = int(np.argmax(e.norms))
    rows = examples.pull(e, i)
    assert [r[0] for r in rows] == ["layer 1", "layer 2", "layer 3"]
    assert sum(r[2] for r in rows) == pytest.approx(1.0)
    assert np.sqrt(sum(r[1] ** 2 for r in rows)) == pytest.approx(e.norms[i])
    g = e.grads[i]  # the same from the full matrix
    starts = [start for start, _, _ in net.layers()] + [net.n_params]
    for (_, size, _), lo, hi in zip(rows, starts, starts[1:]):
        assert size == pytest.approx(np.linalg.norm(g[lo:hi]), rel=1e-12)


def test_a_batch_mean_is_the_mean_of_its_rows(each):
    _, e = each
    rows = np.array([3, 1, 40, 7])
    np.testing.assert_allclose(e.mean_grad(rows), e.grads[rows].mean(axis=0), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(e.norms, np.linalg.norm(e.grads, axis=1), rtol=1e-12)
