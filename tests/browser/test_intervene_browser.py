"""The Explorer's interventions in a real browser: the straight-through preset's detach drawn as a cut edge (with its
legend chip), and a link with an override opening the inspector's intervention panel with the gradient's prediction
and the actual change as the engine computes them (the hook's data-predicted, data-actual), light at 1280x800 and
dark at 390 px."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from explorer.program import intervene as iv
from explorer.program import presets

from .helpers import GRAPH, install_run_tracker, open_page, wait_for_idle, wait_for_rerun, wait_for_view

pytestmark = [pytest.mark.browser, pytest.mark.slow]

STE = presets.PRESETS["straight-through estimator"][1]
HOOK = '[data-testid="intervention"]'
CUT = '[data-testid="stMain"] g.edge[data-cut="true"]'


def _open(page, app_url: str, intervene: str) -> None:
    open_page(page, f"{app_url}/?program={quote(STE)}&intervene={quote(intervene)}")
    wait_for_view(page, timeout=60_000)
    wait_for_idle(page)


def _open_panel(page) -> dict:
    wait_for_rerun(page, page.get_by_role("tab", name="Inspect a node").click)
    page.locator(f"{HOOK}[data-predicted]").first.wait_for(state="attached", timeout=60_000)
    page.locator('[data-testid="stPlotlyChart"] .main-svg').first.wait_for(timeout=60_000)
    return page.locator(HOOK).first.evaluate("(el) => ({...el.dataset})")


def test_the_cut_edge_and_the_override_s_prediction(page, app_url, artifacts):
    _open(page, app_url, "y:scale:1.5")
    assert page.locator(CUT).count() == 1, "the edge into the detach is drawn cut"
    style = page.locator(f"{CUT} > path").first.evaluate(
        "(p) => ({dash: getComputedStyle(p).strokeDasharray, stroke: getComputedStyle(p).stroke})")
    assert style["dash"] not in ("", "none"), style
    assert "✂" in page.locator(CUT).first.text_content()
    assert page.locator(".gv-chip.kind-cut").count() == 1, "the legend says what a cut edge is"
    found = _open_panel(page)
    expected = iv.predict(STE, iv.Intervention("y", "scale", 1.5))
    assert float(found["predicted"]) == expected.predicted and float(found["actual"]) == expected.actual, found
    assert found["name"] == "y"
    assert page.get_by_text("Before", exact=False).first.is_visible()
    assert page.external_requests == []


@pytest.mark.parametrize(("scheme", "width", "height"), [("light", 1280, 800), ("dark", 390, 844)])
def test_the_panel_fits_and_follows_the_theme(browser, app_url, artifacts, scheme, width, height):
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    install_run_tracker(context)
    try:
        page = context.new_page()
        _open(page, app_url, "y:scale:1.5,q:detach")
        _open_panel(page)
        if width >= 1280:  # the whole graph in view, its cut edge too (the README's picture)
            page.get_by_role("button", name="Fit", exact=True).click()
        page.locator(HOOK).first.scroll_into_view_if_needed()
        seen = page.evaluate(
            """() => {
                const lum = (c) => { const [r, g, b] = c.match(/[\\d.]+/g).map(Number); return (r + g + b) / 765; };
                const app = document.querySelector('[data-testid="stApp"]');
                return {page: lum(getComputedStyle(app).backgroundColor), width: document.documentElement.scrollWidth};
            }""")
        page.screenshot(path=str(artifacts / f"intervene-{scheme}-{width}.png"))
        marked = page.locator(f'{GRAPH} g.node[data-intervention="scale"]')
        assert page.locator(f"{GRAPH} g.node[data-intervention]").count() == 2, "y and q marked on their boxes"
        marked.scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts / f"intervene-graph-{scheme}-{width}.png"))
        assert seen["width"] <= width, f"no sideways scrolling: {seen}"
        assert (seen["page"] < 0.2) if scheme == "dark" else (seen["page"] > 0.9), seen
    finally:
        context.close()


def _ids(text):
    from autograd.graph import order
    from language import compile_program

    result = compile_program(text).run()
    ids = {t: i for i, t in enumerate(order(result.output, result.uses))}
    return {name: ids[t] for name, t in result.variables.items() if t in ids}


def _cell(page, node_id, part="d"):
    return page.eval_on_selector_all(
        f'{GRAPH} g.node[data-node="{node_id}"] g[data-cell="n{node_id}.{part}"] text',
        "(ts) => ts.map((t) => t.textContent).filter(Boolean)")


def test_an_override_applied_from_the_panel_marks_its_box_and_changes_its_value(page, app_url, artifacts):
    from explorer import numbers
    from explorer.graph import dot
    from explorer.program import page_data

    y = _ids(STE)["y"]
    run = page_data.explorer_run(STE)
    compact = dot.plan(run.graph, max_nodes=400).compact
    before = numbers.value_lines(run.graph.nodes[y].data, compact)
    open_page(page, f"{app_url}/?program={quote(STE)}")
    wait_for_view(page, timeout=60_000)
    wait_for_idle(page)
    assert _cell(page, y) == before
    saves = page.eval_on_selector_all(f"{GRAPH} g.node[data-saves]",
                                      "(gs) => Object.fromEntries(gs.map((g) => [g.dataset.node, g.dataset.saves]))")
    assert saves == {k: str(v) for k, v in run.saves.items()}, "every box's saved bytes, the Memory tab closed"
    wait_for_rerun(page, page.locator(f'{GRAPH} svg.gv-graph g.node[data-node="{y}"]').click)
    kind = page.get_by_role("combobox", name="What to do to y")
    kind.wait_for(timeout=30_000)
    kind.scroll_into_view_if_needed()
    kind.click()
    option = page.get_by_role("option", name=iv.KINDS["set"][0])
    option.wait_for()
    wait_for_rerun(page, option.click)
    amount = page.get_by_label("value", exact=True)
    amount.fill("0.5")
    wait_for_rerun(page, lambda: amount.press("Enter"))
    wait_for_rerun(page, page.get_by_role("button", name="Apply to y").click)
    marked = page.locator(f'{GRAPH} g.node[data-node="{y}"][data-intervention="set"]')
    marked.wait_for(state="attached", timeout=30_000)
    want = iv.run(STE, [iv.Intervention("y", "set", 0.5)]).variables["y"].data
    assert _cell(page, y) == numbers.value_lines(want, compact) != before
    assert marked.locator(".gv-badge text").text_content() == "set 0.5"
    outline = page.evaluate(
        """([sel, y]) => [...document.querySelectorAll(sel)].map((g) => [g.dataset.node,
               getComputedStyle(g.querySelector(':scope > path, :scope > polygon')).strokeDasharray])""",
        [f"{GRAPH} svg.gv-graph g.node", str(y)])
    dashes = dict(outline)
    assert dashes[str(y)] not in ("", "none") and all(d in ("", "none") for k, d in dashes.items() if k != str(y))
    assert page.get_by_text("The graph shows the run with 1 intervention", exact=False).first.is_visible()
    page.screenshot(path=str(artifacts / "intervene-applied.png"))
    wait_for_rerun(page, page.get_by_role("button", name="Clear the interventions").click)
    page.wait_for_function(f"() => !document.querySelector('{GRAPH} g.node[data-intervention]')", timeout=30_000)
    assert _cell(page, y) == before and page.locator(f"{GRAPH} .gv-badge").count() == 0


def test_a_detached_box_s_outgoing_edges_are_cut(page, app_url):
    _open(page, app_url, "y:detach")
    page.locator(f'{GRAPH} g.node[data-intervention="detach"]').wait_for(state="attached", timeout=30_000)
    cut = page.locator(f'{CUT}[data-intervention="detach"]')
    assert cut.count() == 1, "y's one edge on (into y - 0.5)"
    assert page.locator(CUT).count() == 2, "and the program's own detach"
    dash = cut.locator("path").first.evaluate("(p) => getComputedStyle(p).strokeDasharray")
    assert dash not in ("", "none") and "✂" in cut.first.text_content()
