"""The Landscape tab on every data set and every kind of layout: the panel (slice, path, line, λmax, per-example
gradients) and its figures at the explorer level for breadth, and through AppTest for a sample. Nothing may raise,
every number the hooks carry must be a number, and the per-example gradients must sum to the batch gradient."""

from __future__ import annotations

import itertools
import json
import re

import numpy as np
import pytest

from explorer.playground import catalogue, datasets, training
from explorer.playground.landscape import curvature, figures, panel
from explorer.playground.landscape import directions as dirs
from explorer.playground.landscape import keys as ls_keys
from explorer.playground.settings import TrainConfig
from tests.support import apptest

LAYOUTS = [(), (3,), (16, 16), (4, 4, 4, 4), (1,)]
ACTIVATIONS = list(catalogue.ACTIVATIONS)
OPTIMIZERS = list(catalogue.OPTIMIZERS)


def _cases():
    """Every data set × every layout, the activations, losses, features and optimisers dealt round them."""
    deal = itertools.count()
    for dataset in datasets.DATASETS:
        task = datasets.task_of(dataset)
        for hidden in LAYOUTS:
            k = next(deal)
            losses = catalogue.loss_names(task)
            features = tuple(list(catalogue.features_for(task))[: k % 3])
            yield dict(dataset=dataset, hidden=hidden, activation=ACTIVATIONS[k % len(ACTIVATIONS)],
                       loss=losses[k % len(losses)], features=features, optimizer=OPTIMIZERS[k % len(OPTIMIZERS)],
                       n=60, batch_size=(0, 8, 16)[k % 3])


CASES = list(_cases())
IDS = [f"{c['dataset']}-{','.join(map(str, c['hidden'])) or 'none'}" for c in CASES]


def _check(p: panel.Panel, state) -> None:
    hooks = p.hooks()
    assert hooks["data-verdict"] in (curvature.STABLE, curvature.OSCILLATING)
    assert hooks["data-directions"] in dirs.KINDS
    float(hooks["data-lambda-max"]), float(hooks["data-lr"])
    assert not np.isnan(p.slice.loss).any() and np.isfinite(p.slice.origin_loss)
    np.testing.assert_allclose(p.each.grads.sum(axis=0) / len(p.each.losses), p.each.batch_grad, rtol=0,
                               atol=1e-12 * max(1.0, float(np.abs(p.each.batch_grad).max())))
    assert len(p.each.losses) == len(state.y_train)
    for fig in (figures.slice_figure(p), figures.line_figure(p), figures.points_figure(p, True),
                figures.agreement_figure(p)):
        json.loads(fig.to_json())
    assert p.path.sentence() and p.directions_line() and p.verdict.sentence


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_every_data_set_and_layout(case):
    state = training.new_state(TrainConfig(**case))
    for _ in range(4):
        training.step(state, 2)
    for kind in dirs.KINDS:
        p = panel.compute(state, kind)
        assert p.kind == kind  # five recorded frames: enough for the PCA
        _check(p, state)


def _hook(at) -> dict[str, str]:
    for element in at.get("html"):
        found = re.search(r'<div[^>]*data-testid="landscape"[^>]*>', element.proto.body)
        if found:
            return dict(re.findall(r'(data-[a-z-]+)="([^"]*)"', found.group(0)))
    raise AssertionError("no landscape hook on the page")


@pytest.mark.slow  # ~15 s: four pages through AppTest
@pytest.mark.parametrize("case", CASES[::9], ids=IDS[::9])
def test_a_sample_through_the_page(case):
    query = TrainConfig(**case).to_query()
    at = apptest.open_page("pages/playground.py", query)
    at.session_state[ls_keys.TABS] = "Landscape"
    at.run()
    next(b for b in at.button if b.label == "Step").click().run()
    assert not at.exception, at.exception
    hook = _hook(at)
    assert hook["data-step"] == "1" and hook["data-verdict"] in (curvature.STABLE, curvature.OSCILLATING)
