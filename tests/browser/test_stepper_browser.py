"""The Backward Stepper in a real browser: keys, buttons, the slider and Play move the graph view in
backward order without a server run; every box's state and grad is the engine's at that step; a
link opens at its step; the server hears where the stepper is."""

from __future__ import annotations

from urllib.parse import parse_qs, quote, urlsplit

import numpy as np
import pytest

from autograd.expr import evaluate
from autograd.graph import backward_steps
from explorer import numbers
from explorer.graph import dot as dotmod
from explorer.program import presets, run, stepper
from explorer.program import rules as program_rules
from explorer.program import view_data as graph_data

from .helpers import (
    GRAPH,
    PANEL,
    boxes,
    grad_cells,
    open_poke_drawer,
    runs_finished,
    settled,
    view_state,
    wait_for_idle,
    wait_for_view,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PROGRAM = presets.program(presets.DEFAULT)
STATES = ("active", "done", "waiting")


def open_stepper(page, app_url, program: str = PROGRAM, step: int | None = None):
    """Open the stepper on `program` (at ?step=N if given); wait for its graph. -> graph, steps."""
    graph, steps = backward_steps(evaluate(program).output)
    url = f"{app_url}/stepper?program={quote(program)}" + (f"&step={step}" if step is not None else "")
    page.goto(url, wait_until="domcontentloaded")
    wait_for_view(page, steps=len(steps))
    wait_for_idle(page)
    return graph, steps


def expected_boxes(graph, steps, k: int) -> dict[str, dict]:
    """What each box should show at position k: its state (Timeline) and its grad cell's lines."""
    timeline = stepper.step_timeline(graph, steps)
    versions = graph_data.grad_versions(graph, steps, dotmod.plan(graph, max_nodes=graph_data.MAX_DRAWN))
    out = {}
    for node in graph.nodes:
        shown = [v for v in versions.get(node.id, []) if v[0] <= k]
        out[str(node.id)] = {
            "state": timeline.state(node.id, k),
            "grad": shown[-1][1] if shown else (["—"] if node.id in versions else None),
        }
    return out


def drawn(page) -> dict[str, dict]:
    """Each box's state class and grad cell's lines as drawn."""
    grads = grad_cells(page)
    return {
        key: {
            "state": next((c for c in box["classes"] if c in STATES), None),
            "grad": grads.get(key),
        }
        for key, box in boxes(page).items()
    }


def check_position(page, graph, steps, k: int) -> None:
    wait_for_view(page, step=k)
    assert drawn(page) == expected_boxes(graph, steps, k), f"at step {k}"
    panel = page.locator(PANEL)
    assert panel.get_attribute("data-step") == str(k)
    title = stepper.describe_seed(graph, steps).title if k == 0 else f"Step {k} of {len(steps)}:"
    assert title in panel.inner_text()


def active_on_screen(page) -> dict:
    """Whether the active box is inside the graph's pane and the window."""
    return page.evaluate(
        f"""() => {{
            const pane = document.querySelector('{GRAPH} .gv-pane').getBoundingClientRect();
            const node = document.querySelector('{GRAPH} g.node.active');
            if (!node) return {{shown: false, node: null}};
            const n = node.getBoundingClientRect();
            const shown = n.top >= Math.max(pane.top, 0) - 1 && n.bottom <= Math.min(pane.bottom, innerHeight) + 1
              && n.left >= pane.left - 1 && n.right <= pane.right + 1;
            return {{shown, node: [n.top, n.bottom], pane: [pane.top, pane.bottom], window: innerHeight}};
        }}"""
    )


def test_keys_walk_the_backward_pass_and_every_box_shows_the_engine_s_grads(page, app_url, artifacts):
    graph, steps = open_stepper(page, app_url)
    check_position(page, graph, steps, 0)
    layouts, runs = view_state(page)["layouts"], runs_finished(page)
    assert page.locator(f"{GRAPH} button.gv-prev").is_disabled()
    for key, k in (("ArrowRight", 1), ("ArrowRight", 2), ("PageDown", 3), ("ArrowRight", 4), ("ArrowLeft", 3),
                   ("PageUp", 2), ("ArrowRight", 3)):
        page.keyboard.press(key)
        check_position(page, graph, steps, k)
        where = settled(lambda: active_on_screen(page), lambda w: w["shown"])
        assert where["shown"], f"step {k}: the active box is off screen: {where}"
    # step 3's rule with its numbers put in, under the rule (micrograd's scalars)
    plugged = program_rules.plugged_of(run.step_program(PROGRAM)[1], steps[2].node)
    assert plugged and " = " in plugged
    rules = page.locator(f"{PANEL} pre.gv-plugged")
    assert rules.count() == 1 and rules.inner_text() == plugged
    assert "With this step's numbers" in page.locator(PANEL).inner_text()
    state = view_state(page)
    assert state["layouts"] == layouts, "stepping restyles the drawing, it never lays it out again"
    assert int(state["updates"]) >= 7
    assert runs_finished(page) <= runs + 1, "stepping does not wait for the server (one report at most)"
    # the hot edges lead from the active box to its parents
    hot = page.evaluate(f"() => [...document.querySelectorAll('{GRAPH} g.edge.hot')].map((g) => g.dataset.child)")
    assert hot and set(hot) == {str(steps[2].node)}
    page.screenshot(path=str(artifacts / "stepper-step3.png"))

    # a key typed into a focused control is the control's: the slider moves itself
    slider = page.locator(f"{GRAPH} input.gv-slider")
    slider.focus()
    slider.press("ArrowRight")
    check_position(page, graph, steps, 4)


def test_buttons_and_slider_reach_the_end_where_grads_are_backward_s(page, app_url, artifacts):
    graph, steps = open_stepper(page, app_url)
    n = len(steps)
    page.locator(f"{GRAPH} button.gv-next").click()
    page.locator(f"{GRAPH} button.gv-next").click()
    page.locator(f"{GRAPH} button.gv-prev").click()
    check_position(page, graph, steps, 1)
    slider = page.locator(f"{GRAPH} input.gv-slider")
    slider.focus()
    slider.press("End")
    check_position(page, graph, steps, n)
    assert page.locator(f"{GRAPH} button.gv-next").is_disabled()
    assert "Done: every grad now equals what backward() gives." in page.locator(PANEL).inner_text()
    shown = drawn(page)
    for name, grad in (("a", "138.8"), ("b", "645.6")):
        node = [n for n in graph.nodes if n.name == name][0]
        assert shown[str(node.id)]["grad"] == [grad] and shown[str(node.id)]["state"] == "done"
    # the panel's last step sends the final grads to the leaves it feeds
    for contribution in steps[-1].contributions:
        assert numbers.fmt_number(contribution.accumulated.ravel()[0]) in page.locator(PANEL).inner_text()
    page.screenshot(path=str(artifacts / "stepper-done.png"))
    page.locator(f"{GRAPH} button.gv-reset").click()
    check_position(page, graph, steps, 0)


def test_play_advances_on_its_own_stops_at_the_end_and_pauses(page, app_url):
    program = presets.program("broadcasting bias")
    graph, steps = open_stepper(page, app_url, program)
    n = len(steps)
    page.locator(f"{GRAPH} select.gv-speed").select_option("20")
    play = page.locator(f"{GRAPH} button.gv-play")
    play.click()
    wait_for_view(page, step=n)  # at 20 steps/s, all of them in well under a second
    page.wait_for_function("(b) => b.getAttribute('aria-label') === 'Play'", arg=play.element_handle())
    # NOTE: a deliberate wait in which nothing may happen: 300 ms is 6 steps at 20 steps/s, so a Play that ran on
    # past the end (or restarted) would show here.
    page.wait_for_timeout(300)
    assert view_state(page)["step"] == str(n), "Play stops at the end"
    check_position(page, graph, steps, n)

    # a longer program at 1 step/s: Pause stops where it is
    graph, steps = open_stepper(page, app_url, PROGRAM)
    page.locator(f"{GRAPH} select.gv-speed").select_option("1")
    play.click()
    reached = settled(lambda: int(view_state(page)["step"]), lambda k: k >= 2, timeout=20.0)
    assert reached >= 2, "Play did not advance the stepper on its own"
    play.click()  # Pause
    page.wait_for_function("(b) => b.getAttribute('aria-label') === 'Play'", arg=play.element_handle())
    paused = int(view_state(page)["step"])
    page.wait_for_timeout(1500)  # NOTE: deliberate, nothing may happen: at 1 step/s a running Play would have moved on
    assert int(view_state(page)["step"]) == paused < len(steps)
    check_position(page, graph, steps, paused)


def test_a_link_opens_at_its_step_and_the_url_follows_the_stepper(page, app_url):
    graph, steps = open_stepper(page, app_url, PROGRAM, step=12)
    check_position(page, graph, steps, 12)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    check_position(page, graph, steps, 14)
    # the server hears of it once the stepper rests, and the URL says so
    page.wait_for_function("() => new URLSearchParams(location.search).get('step') === '14'", timeout=20_000)
    assert parse_qs(urlsplit(page.url).query)["program"] == [PROGRAM]
    # and the view was not sent back to 12 by the server's answer: the rerun the report caused has finished, and
    # NOTE: a deliberate wait in which nothing may happen, for a late answer to show if it moved the view
    wait_for_idle(page)
    page.wait_for_timeout(500)
    assert view_state(page)["step"] == "14"


def test_a_click_on_a_box_goes_to_its_step(page, app_url):
    graph, steps = open_stepper(page, app_url)
    target = steps[9]
    page.locator(f'{GRAPH} g.node[data-node="{target.node}"]').click()
    check_position(page, graph, steps, 10)
    a = [n for n in graph.nodes if n.name == "a"][0]
    page.locator(f'{GRAPH} g.node[data-node="{a.id}"]').click()  # a leaf: where its grad is complete
    check_position(page, graph, steps, stepper.step_timeline(graph, steps).done_at[a.id])


def test_a_box_s_tooltip_follows_a_click_that_jumps_past_it(page, app_url):
    """Issue 17 item 7: hovering a waiting box says 'grad — (not yet)'; a click on it jumps to its step, and the
    tooltip still said 'not yet'."""
    graph, steps = open_stepper(page, app_url)
    box = page.locator(f'{GRAPH} g.node[data-node="{steps[9].node}"]')
    box.scroll_into_view_if_needed()
    middle = box.bounding_box()
    page.mouse.move(middle["x"] + middle["width"] / 2, middle["y"] + middle["height"] / 2)
    tip = page.locator(f"{GRAPH} .gv-tip")
    tip.wait_for()
    assert "(not yet)" in tip.inner_text()
    page.mouse.down()
    page.mouse.up()
    check_position(page, graph, steps, 10)
    assert tip.is_visible() and "(not yet)" not in tip.inner_text(), tip.inner_text()
    assert "grad" in tip.inner_text()


def test_space_after_a_click_on_empty_space_plays_instead_of_scrolling_the_controls_away(page, app_url):
    graph, steps = open_stepper(page, app_url)
    page.locator(f"{GRAPH} select.gv-speed").select_option("1")
    pane = page.locator(f"{GRAPH} .gv-pane").bounding_box()
    scrolled = 'document.querySelector(\'[data-testid="stMain"]\').scrollTop'
    low = pane["y"] + pane["height"] - 12  # NOTE: micrograd's whole graph fits its pane: 760 px was the expander below
    for x, y in [(pane["x"] + 12, low), (pane["x"] + pane["width"] + 30, low)]:
        page.mouse.click(x, y)  # empty space in the pane, then beside it
        before = page.evaluate(scrolled)
        page.keyboard.press(" ")
        reached = settled(lambda: int(view_state(page)["step"]), lambda k: k >= 1, timeout=20.0)
        assert reached >= 1, "Space plays"
        page.keyboard.press(" ")  # ... and pauses
        page.locator(f"{GRAPH} button.gv-play[aria-label='Play']").wait_for()
        assert page.evaluate(scrolled) == before, "Space scrolled the page (and the Stepper's controls) away"
        page.locator(f"{GRAPH} button.gv-reset").click()
        wait_for_view(page, step=0)


# ----------------------------------------------------------------------------- the Jacobian tab, poking


def test_the_jacobian_tab_follows_the_steps(page, app_url, artifacts):
    from .poking import jacobian_cells

    program = presets.program("broadcasting bias")
    graph, steps = open_stepper(page, app_url, program)
    add = next(k for k, s in enumerate(steps, start=1) if s.op == "add")
    page.locator(f"{PANEL} .gv-tab[data-tab='jacobian']").click()
    assert page.locator(PANEL).get_attribute("data-tab") == "jacobian"
    assert "The seed runs no VJP" in page.locator(PANEL).inner_text()
    for _ in range(add):
        page.keyboard.press("ArrowRight")
    wait_for_view(page, step=add)
    jac = page.locator(f"{PANEL} [data-testid='jacobian']")
    page.wait_for_function("(sel) => document.querySelector(sel)?.dataset.op === 'add'",
                           arg=f"{PANEL} [data-testid='jacobian']")
    assert (jac.get_attribute("data-rows"), jac.get_attribute("data-cols")) == ("12", "16")
    x, bias = jacobian_cells(page, f"{PANEL} [data-testid='jacobian']")
    np.testing.assert_array_equal(x, np.eye(12))
    np.testing.assert_array_equal(bias, np.tile(np.eye(4), (3, 1)))
    page.locator(PANEL).screenshot(path=str(artifacts / "stepper-jacobian.png"))
    page.keyboard.press("ArrowLeft")  # the tab stays; the Jacobian is the previous step's node's
    wait_for_view(page, step=add - 1)
    op = steps[add - 2].op
    page.wait_for_function("([sel, op]) => document.querySelector(sel)?.dataset.op === op",
                           arg=[f"{PANEL} [data-testid='jacobian']", op])
    page.locator(f"{PANEL} .gv-tab[data-tab='step']").click()
    assert f"Step {add - 1} of {len(steps)}" in page.locator(PANEL).inner_text()


def test_dragging_a_slider_retexts_the_stepper_in_place_at_its_step(page, app_url):
    from .poking import drag_and_settle

    graph, steps = open_stepper(page, app_url)
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    start = wait_for_view(page, step=5)
    wait_for_idle(page)
    open_poke_drawer(page)
    b = drag_and_settle(page, "b", 0.25)  # b: 0 .. 4, so about 1
    poked_graph, poked_steps = run.step_program(PROGRAM, (("b", b),))
    expected = expected_boxes(poked_graph, poked_steps, 5)
    shown = settled(lambda: drawn(page), lambda d: d == expected)
    assert shown == expected, "every box's grad at step 5 is the engine's for the poked b"
    state = view_state(page)
    assert state["step"] == "5" and state["layouts"] == start["layouts"] == "1", "same step, same drawing"
    panel = stepper.describe_step(poked_graph, poked_steps[4], len(poked_steps))
    assert panel.upstream in page.locator(PANEL).inner_text()


def test_a_big_step_s_jacobian_is_asked_for_when_shown(page, app_url):
    program = "x = randn(64)\ny = softmax(x)\nz = softmax(y)\nw = softmax(z)\nv = softmax(w)\nu = softmax(v)\n" \
              "t = (u * u).sum()\n"
    graph, steps = open_stepper(page, app_url, program)
    page.locator(f"{PANEL} .gv-tab[data-tab='jacobian']").click()
    for _ in range(len(steps)):
        page.keyboard.press("ArrowRight")
    wait_for_view(page, step=len(steps))  # the last softmax: past the budget sent with the steps
    page.wait_for_function("(sel) => document.querySelector(sel)?.dataset.rows === '64'",
                           arg=f"{PANEL} [data-testid='jacobian']", timeout=30_000)
    jac = page.locator(f"{PANEL} [data-testid='jacobian']")
    assert jac.get_attribute("data-op") == "softmax" and jac.get_attribute("data-cols") == "64"


def test_the_panel_shows_long_summaries_whole_even_at_420_px(browser, app_url):
    # issue 13 item 8: "shape (8, 16): mean 0.001121, min −0.0961…" was cut off; every line wraps in its box
    program = "W = randn(8, 16) * 0.1\nx = randn(16, 8)\ny = (W @ x).sum()\n"
    context = browser.new_context(viewport={"width": 420, "height": 900})
    try:
        page = context.new_page()
        graph, steps = open_stepper(page, app_url, program, step=2)
        panel = page.locator(PANEL)
        assert "shape (8, 16): mean" in panel.inner_text() and "shape (16, 8): mean" in panel.inner_text()
        overflowing = page.evaluate(
            f"""() => [...document.querySelectorAll('{PANEL} pre')]
                .filter((pre) => pre.scrollWidth > pre.clientWidth + 1).map((pre) => pre.textContent)"""
        )
        assert overflowing == [], f"cut off: {overflowing}"
        assert len(steps) == 2
    finally:
        context.close()


CONTOUR_GEOMETRY_JS = """(fig) => {
  const clip = fig.querySelector('clipPath rect');
  const frame = {x0: +clip.getAttribute('x'), y0: +clip.getAttribute('y'), side: +clip.getAttribute('width')};
  const arrow = fig.querySelector('line.pk-arrow');
  const end = arrow.style.display === 'none' ? null : [+arrow.getAttribute('x2'), +arrow.getAttribute('y2')];
  const pieces = fig.querySelector('path.pk-contours').getAttribute('d').split('M').filter(Boolean).map((part) =>
    part.split('L').map((p) => p.split(',').map(Number)));
  const loops = pieces.filter((p) => p.length > 3 && p[0][0] === p[p.length - 1][0] && p[0][1] === p[p.length - 1][1])
    .map((p) => p.slice(1).reduce((sum, q, k) => sum + Math.hypot(q[0] - p[k][0], q[1] - p[k][1]), 0));
  return {frame, end, loops, pieces: pieces.length};
}"""


def test_the_contour_has_no_small_islands_and_its_arrow_stays_in_the_frame(page, app_url):
    """Issue 17 item 7: micrograd's contour plot drew small closed islands, and near an edge the gradient arrow
    (a fixed 30 % of the plot) left the frame."""
    page.goto(f"{app_url}/stepper?step=2&poke={quote('a=-2.5,b=5')}", wait_until="domcontentloaded")
    wait_for_view(page, step=2)
    open_poke_drawer(page)
    figure = page.locator('[data-testid="poke"] [data-testid="poke-contour"]')
    figure.wait_for(timeout=60_000)
    wait_for_idle(page)
    seen = figure.evaluate(CONTOUR_GEOMETRY_JS)
    frame = seen["frame"]
    assert seen["pieces"] >= 5, seen  # the contours are drawn
    assert all(length >= 0.35 * frame["side"] for length in seen["loops"]), f"small closed islands: {seen['loops']}"
    assert seen["end"] is not None, "b = 5 leaves room for the arrow up to the top edge"
    x, y = seen["end"]
    assert frame["x0"] - 0.5 <= x <= frame["x0"] + frame["side"] + 0.5, (seen["end"], frame)
    assert frame["y0"] - 0.5 <= y <= frame["y0"] + frame["side"] + 0.5, (seen["end"], frame)
