"""The Explorer's Forward vs reverse tab in a real browser: the program's cost hooks against its sizes, the lab's n
slider moving its hooks and its plot, light and dark at 1280x800."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from explorer.program import presets
from explorer.program.mode_cost import program_cost
from language import compile_program

from .helpers import install_run_tracker, open_page, set_text_area, wait_for_idle, wait_for_rerun, wait_for_view

pytestmark = [pytest.mark.browser, pytest.mark.slow]

COST = '[data-testid="ad-cost"]'
LAB = '[data-testid="ad-cost-lab"]'
PLOT = '.st-key-cost_lab_chart [data-testid="stPlotlyChart"]'  # the lab's plot (a softmax program has a second one)
PRESET = "linear + ReLU"


def open_cost_tab(page, app_url: str, program: str) -> None:
    """The Explorer on ``program``, its Forward vs reverse tab open, both tables and the plot drawn."""
    open_page(page, f"{app_url}/?program={quote(program)}")
    wait_for_view(page, timeout=60_000)
    wait_for_idle(page)
    wait_for_rerun(page, page.get_by_role("tab", name="Forward vs reverse").click)
    for selector in (COST, LAB, f"{PLOT} .main-svg"):
        page.locator(selector).first.wait_for(timeout=60_000)


def hooks(page, selector: str) -> dict:
    return page.locator(selector).evaluate("(el) => ({...el.dataset})")


def lab_plot(page) -> dict:
    """The lab plot's title and where it draws the chosen n (the marker trace's points, in pixels)."""
    return page.evaluate(
        """(plot) => {
            const root = document.querySelector(plot);
            const traces = root.querySelectorAll('.scatterlayer .trace');
            return {title: root.querySelector('.gtitle').textContent, traces: traces.length,
                    chosen: [...traces[2].querySelectorAll('.point')].map((p) => p.getAttribute('transform'))};
        }""",
        PLOT,
    )


def test_the_tab_s_hooks_follow_the_program_and_the_lab_s_slider(page, app_url, artifacts):
    program = presets.program(PRESET)
    result = compile_program(program).run()
    n, m = sum(t.data.size for t in result.inputs.values()), result.output.data.size
    open_cost_tab(page, app_url, program)
    found = hooks(page, COST)
    assert (found["n"], found["m"]) == (str(n), str(m)) == ("22", "1")
    assert (found["forwardPasses"], found["reversePasses"]) == (str(n), str(m))
    cost = program_cost(program)
    assert found["forwardOperations"] == str(cost.forward.operations) and found["winner"] == "reverse"
    assert found["built"] == "true"
    assert page.get_by_text(cost.verdict).is_visible()
    assert page.locator(f'{COST} tr[data-wins="true"]').get_attribute("data-mode") == "reverse"

    lab = hooks(page, LAB)
    assert (lab["n"], lab["m"], lab["forwardPasses"], lab["reversePasses"]) == ("16", "64", "16", "64")
    assert lab["winner"] == "forward"
    before = lab_plot(page)
    assert before["traces"] == 4 and before["title"].endswith("m = 64, n = 16"), before
    page.screenshot(path=str(artifacts / "cost-tab.png"))

    thumb = page.get_by_role("slider", name="n: inputs (the length of x)")
    thumb.focus()
    for _ in range(4):
        thumb.press("ArrowRight")
    page.wait_for_function("(sel) => document.querySelector(sel).dataset.n === '20'", arg=LAB, timeout=30_000)
    wait_for_idle(page)
    lab = hooks(page, LAB)
    assert (lab["n"], lab["m"], lab["forwardPasses"], lab["reversePasses"]) == ("20", "64", "20", "64")
    page.wait_for_function("(sel) => document.querySelector(sel + ' .gtitle').textContent.endsWith('n = 20')",
                           arg=PLOT, timeout=30_000)
    after = lab_plot(page)
    assert after["chosen"] != before["chosen"], "the chosen n moved on the plot"
    assert hooks(page, COST) == found, "the program's panel is untouched by the lab"
    assert page.console_errors == [], "\n".join(page.console_errors)
    assert page.external_requests == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_tab_fits_1280x800_and_follows_the_theme(browser, app_url, artifacts, scheme):
    context = browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme=scheme)
    install_run_tracker(context)
    try:
        page = context.new_page()
        open_cost_tab(page, app_url, presets.program("attention scores"))
        page.locator('[data-testid="stTabs"]').first.scroll_into_view_if_needed()
        seen = page.evaluate(
            """([cost, lab]) => {
                const lum = (c) => { const [r, g, b] = c.match(/[\\d.]+/g).map(Number); return (r + g + b) / 765; };
                const app = document.querySelector('[data-testid="stApp"]');
                const box = (sel) => document.querySelector(sel).getBoundingClientRect();
                return {page: lum(getComputedStyle(app).backgroundColor),
                        text: lum(getComputedStyle(document.querySelector(cost + ' td')).color),
                        costRight: box(cost).right, labLeft: box(lab).left,
                        width: document.documentElement.scrollWidth};
            }""",
            [COST, LAB],
        )
        page.screenshot(path=str(artifacts / f"cost-tab-{scheme}.png"))
        if scheme == "dark":
            assert seen["page"] < 0.2 and seen["text"] > 0.7, seen
        else:
            assert seen["page"] > 0.9 and seen["text"] < 0.4, seen
        assert seen["costRight"] < seen["labLeft"], f"the program's panel and the lab side by side: {seen}"
        assert seen["width"] <= 1280, "no sideways scrolling"
    finally:
        context.close()


def test_on_a_phone_the_lab_comes_under_the_program_and_wide_tables_scroll_in_place(browser, app_url, artifacts):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    install_run_tracker(context)
    try:
        page = context.new_page()
        open_cost_tab(page, app_url, "x = randn(600)\nW = randn(500, 600)\ny = (W @ x).tanh()")  # counted only
        assert hooks(page, COST)["built"] == "false"
        seen = page.evaluate(
            """([cost, lab]) => {
                const el = document.querySelector(cost);
                return {width: document.documentElement.scrollWidth, costBottom: el.getBoundingClientRect().bottom,
                        labTop: document.querySelector(lab).getBoundingClientRect().top,
                        overflow: getComputedStyle(el).overflowX, wide: el.scrollWidth > el.clientWidth};
            }""",
            [COST, LAB],
        )
        page.screenshot(path=str(artifacts / "cost-tab-phone.png"))
        assert seen["width"] <= 390, f"no sideways scrolling of the page: {seen}"
        assert seen["costBottom"] < seen["labTop"], f"the lab under the program's panel: {seen}"
        assert seen["overflow"] == "auto", f"a table wider than the phone scrolls within itself: {seen}"
    finally:
        context.close()


def test_a_broken_program_dims_its_costs_but_not_the_lab(page, app_url):
    """While the editor's program has an error, the tab shows the last program that ran, dimmed under a note; the
    lab beside it is a program of the learner's own: it stays bright and its sliders work."""
    open_cost_tab(page, app_url, presets.program(PRESET))
    wait_for_rerun(page, page.get_by_role("tab", name="Editor").click)  # the editor is the dock's first tab
    set_text_area(page, "x = [1.0, 2.0]\ny = x +* 2")
    page.get_by_text("Line 2, column").first.wait_for(timeout=60_000)
    wait_for_rerun(page, page.get_by_role("tab", name="Forward vs reverse").click)
    wait_for_idle(page)
    seen = page.evaluate(
        """([cost, lab]) => {
            const shown = (sel) => {  // the opacity the element is drawn with: the product of its ancestors'
                let el = document.querySelector(sel), opacity = 1;
                for (; el; el = el.parentElement) opacity *= Number(getComputedStyle(el).opacity);
                return opacity;
            };
            return {cost: shown(cost), lab: shown(lab)};
        }""",
        [COST, LAB],
    )
    assert seen["cost"] < 0.6 and seen["lab"] == 1, seen
    thumb = page.get_by_role("slider", name="n: inputs (the length of x)")
    thumb.focus()
    thumb.press("ArrowRight")
    page.wait_for_function("(sel) => document.querySelector(sel).dataset.n === '17'", arg=LAB, timeout=30_000)
    assert page.console_errors == [], "\n".join(page.console_errors)
