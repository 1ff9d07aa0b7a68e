"""The Stepper's walk of a grad's backward on every program of the sweep (issue 32): the presets, the written cases and
two programs per primitive and composite of the registry (tests/support/program_gen.py): the view's data (JSON for
the browser) never raises, each step of the walk is a node the second backward visits, and the leaves' grads at the
end are autograd.grad(create_graph=True) twice's. A sample goes through the Stepper in AppTest, no exception shown."""

from __future__ import annotations

import json

import numpy as np
import pytest

from autograd import grad
from autograd.expr import evaluate
from autograd.ops import PRIMITIVES
from explorer.program import backward_view, backward_walk, presets
from language.library import COMPOSITES
from tests.support import program_gen
from tests.support.apptest import STEPPER, no_exception, open_page, view_data
from tests.support.sweep_cases import CASES

pytestmark = pytest.mark.slow  # ~150 programs, each walked twice over

PROGRAMS = ([(f"preset {name}", presets.program(name)) for name in presets.names()]
            + [(f"case {name}", text) for name, text in CASES.items()]
            + [(f"{name} {k}", text) for k, name in enumerate([*PRIMITIVES, *COMPOSITES])
               for text in program_gen.programs_of(name, limit=2, start=2 * k)])


def _choices(text):
    try:
        bg = backward_view.layers(text)[0]
    except backward_view.NoBackward:
        return []
    choices = backward_view.choices(bg)
    return list(dict.fromkeys(choices[:1] + choices[-1:]))


@pytest.mark.parametrize("text", [t for _, t in PROGRAMS], ids=[n for n, _ in PROGRAMS])
def test_the_walk_of_every_program_s_grads(text):
    for again in _choices(text):
        data = backward_walk.walk_view(text, (), again)
        json.dumps(data)  # sent to the browser as JSON
        w = backward_walk.walk(text, (), again)
        assert data["steps"]["count"] == len(w.steps)
        if w.constant:
            continue
        assert len({s.node for s in w.steps}) == len(w.steps)
        assert all(w.graph.nodes[s.node].op for s in w.steps)
        fresh = evaluate(text)
        leaves = [t for t in fresh.inputs.values() if t.requires_grad]
        firsts = grad(fresh.output, leaves, create_graph=True, allow_unused=True)
        picked = [t.name for t in leaves] if again == backward_view.ALL else [again]
        total = sum(g.sum() for t, g in zip(leaves, firsts) if t.name in picked and g is not None)
        refs = dict(zip([t.name for t in leaves], grad(total, leaves, allow_unused=True)))
        for name, value in w.grads.items():
            ref = refs.get(name)
            want = np.zeros_like(value) if ref is None else ref.data
            np.testing.assert_allclose(value, want, rtol=1e-9, atol=1e-12, equal_nan=True, err_msg=f"{text}: {name}")


@pytest.mark.parametrize("name", ["micrograd", "layer norm", "softmax cross-entropy"])
def test_the_stepper_walks_a_preset_s_grad_s_backward(name):
    text = presets.program(name)
    again = _choices(text)[-1]
    at = open_page(STEPPER, {"program": text, "again": again})
    no_exception(at)
    assert view_data(at)["steps"]["count"] == backward_walk.walk_view(text, (), again)["steps"]["count"]
