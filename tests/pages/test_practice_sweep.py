"""The Practice panel on every program of the sweep (tests/pages/test_sweep.py's pattern): the presets, the written
cases and programs generated from the op registry (tests/support/program_gen.py), each sent with its written-out
answers (from every primitive's vjp_lines): every tensor exact or close; then with one answer broken: flagged
there, and nothing before it in backward order. A sample goes through the page itself (AppTest)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from autograd.ops import PRIMITIVES
from explorer.practice import page_data
from explorer.practice.check import check
from explorer.practice.setup import prepare
from explorer.practice.written import written_answers
from explorer.program import presets
from tests.support import program_gen
from tests.support.sweep_cases import CASES

SWEEP = settings(derandomize=True, max_examples=40, deadline=None, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
REGISTRY_PROGRAMS = [(name, text) for i, name in enumerate(PRIMITIVES)
                     for text in program_gen.programs_of(name, limit=2, start=2 * i)]
PROGRAMS = ([(f"preset {name}", presets.program(name)) for name in presets.names()]
            + [(f"case {name}", text) for name, text in CASES.items()]
            + [(f"{name} {k}", text) for k, (name, text) in enumerate(REGISTRY_PROGRAMS)])


def practise(text: str) -> int:
    """The written-out answers all right, then one broken and flagged; returns how many tensors were checked."""
    setup = prepare(text)
    if not setup.order:
        assert check(setup, "").rows == ()
        return 0
    written = written_answers(setup)
    answers = "\n".join(written.values())
    report = check(setup, answers)
    assert [(r.name, r.verdict, r.message) for r in report.rows if not r.good] == [], answers
    page = page_data.practice_page(text, answers)
    json.dumps(page)  # the page's data, as sent
    assert page["good"] == page["total"] == len(setup.asked)
    broken = next((a.name for a in setup.order[1:] if np.size(setup.grads[a.name]) > 0
                   and np.isfinite(setup.grads[a.name]).all()), None)
    if broken is not None:
        line = written[broken]
        bad = answers.replace(line, f"{line.split(' = ', 1)[0]} = ({line.split(' = ', 1)[1]}) + 1.0")
        report = check(setup, bad)
        first = report.first_bad()
        assert first is not None and first.name == broken and first.verdict == "wrong", (broken, bad)
    return len(setup.order)


@pytest.mark.parametrize("text", [t for _, t in PROGRAMS], ids=[n for n, _ in PROGRAMS])
def test_every_program_s_written_answers_are_right_and_a_broken_one_is_flagged(text):
    practise(text)


def test_every_primitive_is_practised():
    practised = set()
    for name, text in REGISTRY_PROGRAMS:
        if practise(text):
            practised.add(name)
    assert practised == set(PRIMITIVES), set(PRIMITIVES) - practised


@SWEEP
@given(program_gen.programs())
def test_generated_programs(text):
    practise(text)


SAMPLE = ["size-1 bias", "int labels", "label picking", "empty reductions", "row and column"]


@pytest.mark.parametrize("name", SAMPLE)
def test_the_page_takes_a_sample_with_its_written_answers(name):
    from tests.support.apptest import no_exception, open_page

    text = CASES[name]
    answers = "\n".join(written_answers(prepare(text)).values())
    at = open_page("pages/practice.py", {"program": text, "answers": answers})
    no_exception(at)
    (body,) = [h.proto.body for h in at.get("html") if 'data-testid="practice"' in h.proto.body]
    assert 'data-verdict="wrong"' not in body and 'data-verdict="error"' not in body
    assert 'data-verdict="shape"' not in body and 'data-verdict="pending"' not in body
