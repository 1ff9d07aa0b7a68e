"""The Stepper's walk of a grad's backward in a real browser on the sweep's programs (issue 32): the written cases that
broke panels and a few generated from the op registry (tests/support/program_gen.py), each opened from a link with
``again=`` (the last choice: Σ of every leaf's grad where there are several): the view's steps are the walk's
(explorer/program/backward_walk.py), every box drawn carries its layer, and no page shows an exception or a
traceback."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings

from explorer.program import backward_view, backward_walk
from tests.support import program_gen
from tests.support.sweep_cases import CASES

from .helpers import app_exception, box_orders, main_text, settled, wait_for_idle, wait_for_view

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WRITTEN = ["size-1 bias", "label picking", "empty reductions"]
GENERATED = settings(derandomize=True, max_examples=3, deadline=None, database=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])




def walk(page, app_url: str, program: str) -> None:
    try:
        choices = backward_view.choices(backward_view.layers(program)[0])
    except (backward_view.NoBackward, ValueError):
        choices = []
    again = choices[-1] if choices else "x"  # a program with no grad to differentiate: its link's again is said
    page.goto(f"{app_url}/stepper?program={quote(program)}&again={quote(again)}", wait_until="domcontentloaded")
    if not choices:
        wait_for_idle(page)
        assert app_exception(page) is None and "Traceback" not in main_text(page)
        return
    want = backward_walk.walk_view(program, (), again)
    wait_for_view(page, steps=want["steps"]["count"])
    wait_for_idle(page)
    exception = app_exception(page)
    assert exception is None, exception[:800]
    assert "Traceback" not in main_text(page)
    expected = {b: str(o) for b, o in want["orders"].items()}
    assert settled(lambda: box_orders(page), lambda got: got == expected, timeout=30) == expected


@pytest.mark.parametrize("name", WRITTEN)
def test_the_walk_of_a_written_case(page, app_url, name):
    walk(page, app_url, CASES[name])


@GENERATED
@given(program_gen.programs(max_lines=3))
def test_the_walk_of_generated_programs(page, app_url, program):
    walk(page, app_url, program)
