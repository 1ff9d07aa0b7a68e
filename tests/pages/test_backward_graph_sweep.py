"""The backward as a graph on every program of the sweep (issue 32): the presets, the written cases and two programs
per primitive and composite of the registry (tests/support/program_gen.py), and generated ones: the view's data
(JSON for the browser) never raises, every node is drawn in its layer (or a sentence says what was cut), each leaf's
grad box holds the engine's grad, and differentiating again gives what autograd.grad(create_graph=True) twice gives.
A sample goes through the Explorer in AppTest with the switch on, no exception shown."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from autograd import grad
from autograd.expr import evaluate
from autograd.ops import PRIMITIVES
from explorer import numbers
from explorer.program import backward_view, presets
from language.library import COMPOSITES
from tests.support import program_gen
from tests.support.apptest import EXPLORER, no_exception, open_page, view_data
from tests.support.sweep_cases import CASES

SWEEP = settings(derandomize=True, max_examples=30, deadline=None, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
ORDER = re.compile(r'^\s*n(\d+) \[.*?class="kind-[a-z]+ order-(\d)"', re.M)
PROGRAMS = ([(f"preset {name}", presets.program(name)) for name in presets.names()]
            + [(f"case {name}", text) for name, text in CASES.items()]
            + [(f"{name} {k}", text) for k, name in enumerate([*PRIMITIVES, *COMPOSITES])
               for text in program_gen.programs_of(name, limit=2, start=2 * k)])


def check_backward_view(text: str) -> None:
    result = evaluate(text)
    data = backward_view.backward_view(text)
    json.dumps(data)  # sent to the browser as JSON
    if not result.output.requires_grad:
        assert set(data) == {"none"} and "no backward pass" in data["none"]
        return
    drawn = dict(ORDER.findall(data["dot"]))
    assert drawn == {b: str(o) for b, o in data["orders"].items()} and set(drawn.values()) <= {"1", "2"}
    total = sum(data["counts"].values())
    assert len(data["boxes"]) == total or "Too big to read whole" in data["sentence"]
    result.output.backward()
    bg = backward_view.layers(text)[0]
    checked = 0
    for leaf, g in data["grads"]:
        tensor = result.inputs.get(bg.tensors[leaf].name)
        if g is None or str(g) not in data["boxes"] or tensor is None:
            continue
        assert data["boxes"][str(g)]["data"] == numbers.compact(tensor.grad), text
        checked += 1
    assert checked or "Too big" in data["sentence"] or not data["grads"]
    choices = backward_view.choices(bg)
    for again in choices[:1] + choices[-1:] if choices else ():
        twice = backward_view.backward_view(text, (), again)
        json.dumps(twice)
        assert set(twice["counts"]) <= {"1", "2", "3"}
        second = backward_view.second_order(text, (), again)
        fresh = evaluate(text)
        leaves = [t for t in fresh.inputs.values() if t.requires_grad]
        firsts = grad(fresh.output, leaves, create_graph=True, allow_unused=True)
        picked = [t.name for t in leaves] if again == backward_view.ALL else [again]
        total = sum(g.sum() for t, g in zip(leaves, firsts) if t.name in picked and g is not None)
        if not getattr(total, "requires_grad", False):
            continue
        refs = dict(zip([t.name for t in leaves], grad(total, leaves, allow_unused=True)))
        for name, value, _, _ in second.rows:
            ref = refs.get(name)
            want = np.zeros_like(value) if ref is None else ref.data
            np.testing.assert_allclose(value, want, rtol=1e-9, atol=1e-12, equal_nan=True, err_msg=f"{text}: {name}")


@pytest.mark.parametrize("text", [t for _, t in PROGRAMS], ids=[n for n, _ in PROGRAMS])
def test_the_backward_graph_of_every_program(text):
    check_backward_view(text)


@pytest.mark.slow  # ~20 s: generated programs
@SWEEP
@given(program_gen.programs())
def test_the_backward_graph_of_generated_programs(text):
    check_backward_view(text)


SAMPLE = [presets.program(name) for name in presets.names()] + [CASES[name] for name in list(CASES)[:6]]


@pytest.mark.slow  # ~40 s: every preset and a few cases through the page
@pytest.mark.parametrize("text", SAMPLE)
def test_the_explorer_draws_the_backward_of_the_sample_with_no_exception(text):
    at = open_page(EXPLORER, {"program": text, "backward": "1"})
    no_exception(at)
    data = view_data(at)
    assert "order-2" in data["dot"] or any("no backward pass" in i.value for i in at.info)
    assert not any("Traceback" in m.value for m in at.markdown)
