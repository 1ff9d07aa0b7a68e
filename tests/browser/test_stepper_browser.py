"""The Backward Stepper in a real browser: Next moves the highlighted node in backward order."""

from __future__ import annotations

import re

import pytest

from autograd.expr import evaluate
from autograd.graph import backward_steps
from explorer import presets
from explorer.dot import STATE_LEGEND, fmt_number

from .helpers import (
    button,
    node_styles,
    open_page,
    settled,
    wait_for_idle,
    wait_for_node_count,
    wait_for_rerun,
    wait_for_text,
)

pytestmark = pytest.mark.browser

PROGRAM = presets.program(presets.DEFAULT)
STATE = {entry.key: entry for entry in STATE_LEGEND}
ACTIVE_FILL = STATE["active"].fill.lower()     # bright yellow, thick red border
ACTIVE_BORDER = STATE["active"].border.lower()
WAITING_FILL = STATE["waiting"].fill.lower()   # greyed out, dashed border


def nodes_by_style(page) -> dict[str, dict]:
    return {style["title"]: style for style in node_styles(page)}


def styles_once(page, ok) -> dict[str, dict]:
    """The nodes' styles once `ok(styles)` holds (or as drawn after 10 s): see helpers.settled."""
    return settled(lambda: nodes_by_style(page), ok)


def active_titles(styles: dict[str, dict]) -> set[str]:
    return {
        title for title, style in styles.items()
        if ACTIVE_FILL in [f.lower() for f in style["fills"] if f]
        and ACTIVE_BORDER in [s.lower() for s in style["strokes"] if s]
    }


def waiting_titles(styles: dict[str, dict]) -> set[str]:
    return {
        title for title, style in styles.items()
        if WAITING_FILL in [f.lower() for f in style["fills"] if f]
    }


def on_screen(page, title: str) -> dict:
    """Where node `title` is drawn: inside the graph's pane and the window, or not (with the rects)."""
    return page.evaluate(
        """(title) => {
            const pane = document.querySelector('.st-key-stepper_graph');
            const node = [...document.querySelectorAll('.st-key-stepper_graph svg g.node')]
                .find((g) => (g.querySelector('title') || {}).textContent === title);
            if (!pane || !node) return {shown: false, pane: !!pane, node: !!node};
            const p = pane.getBoundingClientRect(), n = node.getBoundingClientRect();
            const shown = n.top >= Math.max(p.top, 0) - 1 && n.bottom <= Math.min(p.bottom, innerHeight) + 1;
            return {shown, node: [Math.round(n.top), Math.round(n.bottom)],
                    pane: [Math.round(p.top), Math.round(p.bottom)], window: innerHeight,
                    scrolled: pane.scrollTop, settled: (window.__followNode || {}).settled};
        }""",
        title,
    )


def wait_on_screen(page, title: str) -> dict:
    """`on_screen` once the pane has scrolled to `title` (smoothly, so it takes a moment)."""
    return settled(lambda: on_screen(page, title), lambda where: where["shown"])


def step_heading(position: int, total: int) -> str:
    return "Seed:" if position == 0 else f"Step {position} of {total}:"


def open_stepper(page, app_url):
    """Open the stepper on the default program; wait for its graph and the seed. -> graph, steps, total."""
    graph, steps = backward_steps(evaluate(PROGRAM).output)
    open_page(page, f"{app_url}/stepper")
    wait_for_node_count(page, len(graph.nodes))
    wait_for_text(page, step_heading(0, len(steps)))
    return graph, steps, len(steps)


def panel_text(page, position: int, total: int) -> str:
    """The text of the column beside the graph that explains step `position`."""
    column = page.locator('[data-testid="stColumn"]', has_text=step_heading(position, total))
    return column.last.inner_text()


def test_next_moves_the_active_node_in_backward_order(page, app_url, artifacts):
    graph, steps, total = open_stepper(page, app_url)
    assert total >= 4

    styles = nodes_by_style(page)
    assert active_titles(styles) == set(), "no node is active before the first step"
    # Every node that takes part in backward() waits at the seed, but the output, which has its grad.
    assert waiting_titles(styles) == {
        f"n{node.id}" for node in graph.nodes if node.requires_grad and node.id != graph.output
    }
    assert button(page, "Prev").is_disabled()
    # The pane is as tall as it shows: the Layout control follows right under it, not after a blank.
    gap = page.evaluate(
        """() => {
            const pane = document.querySelector('.st-key-stepper_graph').getBoundingClientRect();
            const layout = [...document.querySelectorAll('[data-testid="stWidgetLabel"]')]
                .find((label) => label.innerText.trim() === 'Layout').getBoundingClientRect();
            return layout.top - pane.bottom;
        }"""
    )
    assert 0 <= gap <= 40, f"{gap:.0f} px between the graph's pane and the Layout control"

    seen_waiting = len(waiting_titles(styles)) + 1  # the output, seeded, is the first to leave the queue
    for k in range(1, 5):
        wait_for_rerun(page, button(page, "Next").click)
        wait_for_text(page, step_heading(k, total))
        expected = f"n{steps[k - 1].node}"
        styles = styles_once(page, lambda styles, expected=expected: active_titles(styles) == {expected})
        assert active_titles(styles) == {expected}, f"after {k} Next clicks"
        where = wait_on_screen(page, expected)
        assert where["shown"], f"after {k} Next clicks the active node is off screen: {where}"
        waiting = waiting_titles(styles)
        assert expected not in waiting
        assert all(f"n{step.node}" in waiting for step in steps[k:]), "later steps still wait"
        assert not any(f"n{step.node}" in waiting for step in steps[:k]), "earlier steps are done"
        assert len(waiting) < seen_waiting
        seen_waiting = len(waiting)
        # The panel names the rule that ran for this node.
        formula = steps[k - 1].formula or graph.nodes[steps[k - 1].node].formula
        if formula:
            assert formula.splitlines()[0] in panel_text(page, k, total)
    page.screenshot(path=str(artifacts / "stepper-step4.png"))

    wait_for_rerun(page, button(page, "Prev").click)
    wait_for_text(page, step_heading(3, total))
    expected = {f"n{steps[2].node}"}
    assert active_titles(styles_once(page, lambda s: active_titles(s) == expected)) == expected


def test_stepping_to_the_end_shows_final_grads(page, app_url, artifacts):
    graph, steps, total = open_stepper(page, app_url)

    # Drag the step slider to its end with the keyboard.
    thumb = page.get_by_role("slider", name=re.compile("^Step"))
    thumb.focus()
    wait_for_rerun(page, lambda: thumb.press("End"))
    wait_for_text(page, step_heading(total, total))
    wait_for_text(page, "Done: every grad now equals what backward() gives.")
    assert button(page, "Next").is_disabled()

    styles = styles_once(page, lambda styles: not waiting_titles(styles))
    assert waiting_titles(styles) == set(), "nothing waits after the last step"
    assert active_titles(styles) == {f"n{steps[-1].node}"}
    where = wait_on_screen(page, f"n{steps[-1].node}")
    assert where["shown"], f"the last step's node is off screen: {where}"
    leaves = {node.name: node for node in graph.nodes if node.name in ("a", "b") and not node.op}
    assert abs(float(leaves["a"].grad) - 138.8338) < 1e-3
    assert abs(float(leaves["b"].grad) - 645.5773) < 1e-3
    for node in leaves.values():
        assert fmt_number(node.grad) in styles[f"n{node.id}"]["text"], styles[f"n{node.id}"]
    # The panel's last step sends the final grads to the leaves it feeds.
    last = steps[-1]
    panel = panel_text(page, total, total)
    assert "Done: every grad now equals what backward() gives." in panel
    for contribution in last.contributions:
        assert fmt_number(contribution.accumulated.ravel()[0]) in panel
    page.screenshot(path=str(artifacts / "stepper-done.png"))

    wait_for_rerun(page, button(page, "Reset").click)
    wait_for_text(page, step_heading(0, total))
    assert active_titles(styles_once(page, lambda s: not active_titles(s))) == set()


def test_play_advances_on_its_own_and_pause_stops_it(page, app_url):
    """The Play timer (st.fragment run_every) only runs in a real browser: AppTest never fires it."""
    graph, steps, total = open_stepper(page, app_url)

    wait_for_rerun(page, button(page, "Play").click)
    # At the default 2 steps per second, step 3 arrives within a few seconds without any click.
    # (Polled on the slider: a heading can be replaced faster than a locator catches it.)
    slider = page.get_by_role("slider", name=re.compile("^Step"))
    reached = settled(lambda: int(slider.input_value()), lambda step: step >= 3, timeout=20.0, interval=0.2)
    assert reached >= 3, "Play did not advance the stepper on its own"
    button(page, "Pause").click()
    button(page, "Play").wait_for()  # the label flips back once the timer has stopped
    wait_for_idle(page)
    paused_at = int(slider.input_value())
    assert 3 <= paused_at < total
    seen = []
    for _ in range(8):  # two seconds: at 2 steps/s a running timer would move 4 steps
        page.wait_for_timeout(250)
        seen.append(int(slider.input_value()))
    assert set(seen) == {paused_at}, f"Pause showed Play at step {paused_at}, then the slider read {seen}"
    wait_for_text(page, step_heading(paused_at, total))
    expected = {f"n{steps[paused_at - 1].node}"}
    assert active_titles(styles_once(page, lambda s: active_titles(s) == expected)) == expected


def test_arrow_keys_step_like_the_buttons(page, app_url):
    """→ / PageDown press Next and ← / PageUp press Prev (a presenter's clicker sends these keys)."""
    graph, steps, total = open_stepper(page, app_url)
    # The listener comes with the component's script, which may run a moment after the page's text.
    page.wait_for_function("() => (window.__hotkeys || {}).listening === true", timeout=10_000)

    for key, position in (("ArrowRight", 1), ("ArrowRight", 2), ("PageDown", 3), ("ArrowLeft", 2), ("PageUp", 1)):
        wait_for_rerun(page, lambda key=key: page.keyboard.press(key))
        wait_for_text(page, step_heading(position, total))
    expected = {f"n{steps[0].node}"}
    assert active_titles(styles_once(page, lambda s: active_titles(s) == expected)) == expected
    assert page.evaluate("window.__hotkeys.pressed") == 5

    # A key typed into a focused control is the control's: the slider moves itself, no button is pressed.
    slider = page.get_by_role("slider", name=re.compile("^Step"))
    slider.focus()
    wait_for_rerun(page, lambda: slider.press("ArrowRight"))
    wait_for_text(page, step_heading(2, total))
    assert page.evaluate("window.__hotkeys.pressed") == 5
