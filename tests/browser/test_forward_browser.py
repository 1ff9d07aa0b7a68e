"""Forward mode in a real browser: the switch on the Explorer redraws the graph with tangents (data-mode="forward")
and writes the URL; the Stepper walks the JVPs parents first without a server run, each box's tangent filling
in at the step that computes it, the panel showing the JVP rule, the tangents received and the one made; the
meeting line says forward and reverse agree."""

from __future__ import annotations

from urllib.parse import parse_qs, quote, urlsplit

import pytest

from explorer import numbers
from explorer.graph import dot as dotmod
from explorer.program import forward_mode, presets
from explorer.program import view_data as graph_data

from .helpers import (
    GRAPH,
    PANEL,
    boxes,
    grad_cells,
    open_page,
    open_poke_drawer,
    runs_finished,
    settled,
    view_state,
    wait_for_idle,
    wait_for_view,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PROGRAM = presets.program(presets.DEFAULT)
MEETING = '[data-testid="ad-meeting"]'


def words(text: str) -> str:
    return " ".join(text.split())  # HTML collapses runs of spaces


def expected_tangents(run, k: int) -> dict[str, list[str]]:
    """What each box's tangent cell shows at position k: the walk's tangent then (forward_mode.tangents_at), '—'
    before its step."""
    drawing = dotmod.plan(run.graph, max_nodes=graph_data.MAX_DRAWN)
    known = forward_mode.tangents_at(run, k)
    return {str(b): numbers.value_lines(known[b], drawing.compact) if b in known else ["—"]
            for b in drawing.boxes if b in run.tangents and run.graph.nodes[b].requires_grad}


def test_the_switch_redraws_the_explorer_with_tangents_and_writes_the_url(page, app_url):
    open_page(page, f"{app_url}/?program={quote(PROGRAM)}")
    wait_for_view(page, mode="reverse")
    assert page.locator(MEETING).count() == 0
    page.locator(".st-key-explorer_ad_mode button", has_text="forward (JVP)").click()
    wait_for_view(page, mode="forward")
    wait_for_idle(page)
    query = parse_qs(urlsplit(page.url).query)
    assert query["mode"] == ["forward"] and query["v"] == ["ones"]
    run = forward_mode.forward_program(PROGRAM, direction="ones")
    want = {str(n): lines for n, lines in expected_tangents(run, len(run.steps)).items()}
    assert settled(lambda: grad_cells(page), lambda got: got == want) == want
    assert page.locator(f"{GRAPH} .gv-toolbar button.gv-toggle", has_text="tangent").count() == 1
    meeting = page.locator(MEETING)
    assert meeting.get_attribute("data-agree") == "1" and meeting.get_attribute("data-v") == "ones"
    assert words(run.meeting.text) in words(meeting.inner_text())


def test_the_stepper_walks_the_jvps_without_the_server(page, app_url, artifacts):
    run = forward_mode.forward_program(PROGRAM, direction="input:a")
    n = len(run.steps)
    open_page(page, f"{app_url}/stepper?program={quote(PROGRAM)}&mode=forward&v=input%3Aa")
    wait_for_view(page, mode="forward", steps=n, step=0)
    wait_for_idle(page)
    panel = page.locator(PANEL)
    assert "Seed: v = ones in a, zeros elsewhere" in panel.inner_text()
    runs = runs_finished(page)
    for k in (1, 2, 3):
        page.keyboard.press("ArrowRight")
        wait_for_view(page, step=k)
        want = expected_tangents(run, k)
        assert settled(lambda: grad_cells(page), lambda got, want=want: got == want) == want, f"at step {k}"
        text = panel.inner_text()
        step = run.steps[k - 1]
        assert f"Step {k} of {n}" in text and "JVP of" in text and step.formula in text
        active = [key for key, box in boxes(page).items() if "active" in box["classes"]]
        assert active == [str(step.node)], f"step {k} is the JVP of node {step.node}"
    assert runs_finished(page) <= runs + 1, "stepping does not wait for the server (one report at most)"
    page.locator(f"{GRAPH} input.gv-slider").focus()
    page.keyboard.press("End")
    wait_for_view(page, step=n)
    assert words(run.meeting.text) in words(panel.inner_text()), "the last step ends where the modes meet"
    assert view_state(page)["layouts"] == "1", "the walk restyles one drawing"
    page.screenshot(path=str(artifacts / "stepper-forward.png"))
    page.wait_for_function(f"() => new URLSearchParams(location.search).get('step') === '{n}'", timeout=20_000)
    query = parse_qs(urlsplit(page.url).query)
    assert query["mode"] == ["forward"] and query["v"] == ["input:a"]


def test_dragging_a_slider_retexts_the_forward_walk_in_place(page, app_url):
    from .poking import drag_and_settle

    open_page(page, f"{app_url}/stepper?program={quote(PROGRAM)}&mode=forward&v=ones")
    start = wait_for_view(page, mode="forward", step=0)
    for _ in range(6):
        page.keyboard.press("ArrowRight")
    wait_for_view(page, step=6)
    wait_for_idle(page)
    open_poke_drawer(page)
    b = drag_and_settle(page, "b", 0.25)  # b: 0 .. 4, so about 1
    run = forward_mode.forward_program(PROGRAM, (("b", b),), direction="ones")
    want = expected_tangents(run, 6)
    assert settled(lambda: grad_cells(page), lambda got: got == want) == want, "the poked b's tangents, step 6"
    state = view_state(page)
    assert state["step"] == "6" and state["layouts"] == start["layouts"] == "1", "same step, same drawing"
    assert words(run.meeting.text) in words(page.locator(MEETING).inner_text()), "the meeting line follows"
