"""The backward as a graph in a real browser on the sweep's programs (issue 32): the written cases that broke panels
and a few generated from the op registry (tests/support/program_gen.py), each opened from a link with the switch on
(``backward=1``): every box drawn carries the layer explorer/program/backward_view.py gave it, and no page shows an
exception or a traceback."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings

from explorer.program import backward_view
from tests.support import program_gen
from tests.support.sweep_cases import CASES

from .helpers import app_exception, box_orders, main_text, settled, wait_for_idle, wait_for_view

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WRITTEN = ["size-1 bias", "label picking", "empty reductions"]
GENERATED = settings(derandomize=True, max_examples=3, deadline=None, database=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])




def walk(page, app_url: str, program: str) -> None:
    want = backward_view.backward_view(program)
    page.goto(f"{app_url}/?program={quote(program)}&backward=1", wait_until="domcontentloaded")
    wait_for_view(page)
    wait_for_idle(page)
    exception = app_exception(page)
    assert exception is None, exception[:800]
    assert "Traceback" not in main_text(page)
    if "none" in want:  # nothing requires grad: said, the forward graph drawn
        assert "no backward pass to draw" in main_text(page)
        return
    expected = {b: str(o) for b, o in want["orders"].items()}
    assert settled(lambda: box_orders(page), lambda got: got == expected, timeout=30) == expected


@pytest.mark.parametrize("name", WRITTEN)
def test_the_backward_graph_of_a_written_case(page, app_url, name):
    walk(page, app_url, CASES[name])


@GENERATED
@given(program_gen.programs(max_lines=3))
def test_the_backward_graph_of_generated_programs(page, app_url, program):
    walk(page, app_url, program)
