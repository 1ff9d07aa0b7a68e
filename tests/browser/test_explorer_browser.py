"""The Expression Explorer in a real browser: the default graph, editing, errors, shareable URLs, and the
graph view's clicks, hovers and toggles."""

from __future__ import annotations

import re
import time
from urllib.parse import parse_qs, quote, urlsplit

import numpy as np
import pytest

from explorer.numbers import fmt_number
from explorer.program import presets
from tests.support.helpers import traced

from .helpers import (
    GRAPH,
    GRAPH_EDGES,
    app_exception,
    boxes,
    install_run_tracker,
    node_count,
    open_page,
    open_sidebar,
    record_metric,
    set_text_area,
    text_area,
    view_state,
    wait_for_idle,
    wait_for_node_count,
    wait_for_rerun,
    wait_for_text,
    wait_for_value,
    wait_for_view,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DEFAULT_PROGRAM = presets.program(presets.DEFAULT)
OTHER_PROGRAM = presets.program("seed example")
PLOT = '[data-testid="stPlotlyChart"]'
BROKEN_PROGRAM = "a = 1.0\nb = a +* 2\n"  # a syntax error at line 2, col 8


def program_in_url(url: str) -> str | None:
    values = parse_qs(urlsplit(url).query).get("program")
    return values[0] if values else None


def leaf(graph, name):
    return [n for n in graph.nodes if n.name == name and not n.op][0]


def box(page, node_id):
    return page.locator(f'{GRAPH} svg.gv-graph g.node[data-node="{node_id}"]')


def test_default_program_draws_its_graph(page, app_url, artifacts):
    graph = traced(DEFAULT_PROGRAM)
    assert len(graph.nodes) != len(traced(OTHER_PROGRAM).nodes), "pick programs whose graphs differ"

    start = time.monotonic()
    page.goto(app_url, wait_until="commit")
    wait_for_node_count(page, len(graph.nodes), timeout=60_000)
    seconds = time.monotonic() - start
    print(f"\nExpression Explorer: navigation to full graph SVG ({len(graph.nodes)} nodes) in {seconds:.2f} s")
    record_metric(artifacts, "explorer_first_load_to_graph_s", round(seconds, 3))
    record_metric(artifacts, "explorer_default_graph_nodes", len(graph.nodes))

    # One SVG edge per argument slot, as traced.
    assert node_count(page, GRAPH_EDGES) == len(graph.edges)
    # The output box shows the output's value (micrograd's g = 24.7041) and its grad (the seed, 1).
    output = graph.nodes[graph.output]
    assert output.name == "g" and abs(float(output.data) - 24.7041) < 1e-3
    drawn = boxes(page)
    assert set(drawn) == {str(node.id) for node in graph.nodes}
    assert fmt_number(output.data) in drawn[str(graph.output)]["text"]
    assert "output" not in drawn[str(graph.output)]["classes"] and "kind-output" in drawn[str(graph.output)]["classes"]
    # Each leaf's box shows its grad as backward() computed it (dg/da = 138.8338, dg/db = 645.5773).
    for name in ("a", "b"):
        node = leaf(graph, name)
        assert fmt_number(node.grad) in drawn[str(node.id)]["text"], (name, drawn[str(node.id)])
    # Graphviz put each data and grad cell's text in a group of its own: what the view retexts in place.
    cells = page.evaluate(
        f"() => [...document.querySelectorAll('{GRAPH} g[data-cell]')].map((g) => [g.dataset.cell, g.textContent])"
    )
    a = leaf(graph, "a")
    assert [f"n{a.id}.d", "-4"] in [[c, t.strip()] for c, t in cells]
    assert [f"n{a.id}.g", "138.8"] in [[c, t.strip()] for c, t in cells]
    # The page's own title, and no native tooltip ("n5") left over from Graphviz's <title>s.
    assert page.locator(f"{GRAPH} svg title").count() == 0
    # The finite-difference check agrees, and says so.
    wait_for_text(page, "match central differences")
    wait_for_value(text_area(page, "Program"), DEFAULT_PROGRAM)
    page.screenshot(path=str(artifacts / "explorer-default.png"))


def test_reload_draws_graph_quickly(page, app_url, artifacts):
    expected = len(traced(DEFAULT_PROGRAM).nodes)
    open_page(page, app_url)
    wait_for_node_count(page, expected)
    start = time.monotonic()
    page.reload(wait_until="commit")
    wait_for_node_count(page, expected)
    seconds = time.monotonic() - start
    print(f"\nExpression Explorer: reload to full graph SVG in {seconds:.2f} s")
    record_metric(artifacts, "explorer_reload_to_graph_s", round(seconds, 3))


def test_typing_a_program_redraws_the_graph_and_updates_url(page, app_url, artifacts):
    open_page(page, app_url)
    wait_for_node_count(page, len(traced(DEFAULT_PROGRAM).nodes))

    graph = traced(OTHER_PROGRAM)
    set_text_area(page, OTHER_PROGRAM, label="Program")
    wait_for_node_count(page, len(graph.nodes))
    assert node_count(page, GRAPH_EDGES) == len(graph.edges)
    wait_for_text(page, f"{len(graph.nodes)} tensors, {len(graph.edges)} edges.")
    page.wait_for_function("() => new URLSearchParams(location.search).get('program') !== null")
    assert program_in_url(page.url) == OTHER_PROGRAM
    page.screenshot(path=str(artifacts / "explorer-edited.png"))


def test_broken_program_shows_line_and_column_and_keeps_graph(page, app_url, artifacts):
    graph = traced(DEFAULT_PROGRAM)
    open_page(page, app_url)
    wait_for_node_count(page, len(graph.nodes))
    layouts = view_state(page)["layouts"]

    set_text_area(page, BROKEN_PROGRAM, label="Program")
    alert = page.locator('[data-testid="stAlert"]', has_text="Line 2, column 8")
    alert.first.wait_for()
    assert "syntax" in alert.first.inner_text().lower()
    wait_for_text(page, "2 | b = a +* 2")  # the caret block quotes the bad line
    wait_for_text(page, "From the last program that ran.")
    # The last good graph is still drawn, unchanged, and not laid out again.
    assert node_count(page) == len(graph.nodes)
    assert node_count(page, GRAPH_EDGES) == len(graph.edges)
    assert view_state(page)["layouts"] == layouts
    # What is left from the last good program is dimmed, its green check included; the error is not.
    page.wait_for_function(f"() => ({OPACITY})(document.querySelector('{GRAPH}')) < 0.6")
    success = page.locator('[data-testid="stAlertContentSuccess"]').first
    assert "match central differences" in success.inner_text()
    assert success.evaluate(OPACITY) < 0.6
    assert alert.first.evaluate(OPACITY) == 1
    page.screenshot(path=str(artifacts / "explorer-error.png"))
    set_text_area(page, OTHER_PROGRAM, label="Program")
    wait_for_node_count(page, len(traced(OTHER_PROGRAM).nodes))
    page.wait_for_function(f"() => ({OPACITY})(document.querySelector('{GRAPH}')) == 1")
    assert page.get_by_text("From the last program that ran.").count() == 0


# The opacity an element is drawn with: the product of its own and its ancestors'.
OPACITY = """(el) => {
    let o = 1;
    for (let e = el; e; e = e.parentElement || (e.getRootNode() && e.getRootNode().host)) {
        o *= parseFloat(getComputedStyle(e).opacity);
    }
    return o;
}"""


def test_url_with_program_reproduces_graph_in_fresh_page(page, browser, app_url, artifacts):
    graph = traced(OTHER_PROGRAM)
    open_page(page, app_url)
    set_text_area(page, OTHER_PROGRAM, label="Program")
    wait_for_node_count(page, len(graph.nodes))
    page.wait_for_function("() => new URLSearchParams(location.search).get('program') !== null")
    shared = page.url
    assert program_in_url(shared) == OTHER_PROGRAM

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        fresh = context.new_page()
        fresh.goto(shared, wait_until="commit")
        wait_for_node_count(fresh, len(graph.nodes), timeout=60_000)
        assert node_count(fresh, GRAPH_EDGES) == len(graph.edges)
        # NOTE: Streamlit mounts a text area empty and fills it a moment later; on a busy machine
        # the graph can be drawn in between, so wait for the value rather than read it once.
        wait_for_value(text_area(fresh, "Program"), OTHER_PROGRAM)
        assert set(boxes(fresh)) == {str(node.id) for node in graph.nodes}
        fresh.screenshot(path=str(artifacts / "explorer-shared-url.png"))
    finally:
        context.close()


def test_inspect_and_export_tabs_open_on_click(page, app_url, artifacts):
    # The tabs run lazily: their content is built when the tab is clicked, not on the first load.
    graph = traced(DEFAULT_PROGRAM)
    open_page(page, app_url)
    wait_for_node_count(page, len(graph.nodes))
    heatmap = page.locator(PLOT)
    assert heatmap.count() == 0, "the node inspector ran before its tab was opened"

    wait_for_rerun(page, page.get_by_role("tab", name="Inspect a node").click)
    heatmap.first.wait_for(timeout=30_000)
    page.wait_for_selector(f'{PLOT} .heatmaplayer image', state="attached", timeout=30_000)
    output = graph.nodes[graph.output]
    wait_for_text(page, f"VJP of {output.op}")
    page.screenshot(path=str(artifacts / "explorer-inspect.png"))

    wait_for_rerun(page, page.get_by_role("tab", name="Export").click)
    page.get_by_role("button", name="As Python").wait_for(timeout=30_000)
    assert page.get_by_role("button", name="DOT (Graphviz)").count() == 1
    assert app_exception(page) is None


def test_the_inspector_s_heatmap_follows_the_dark_theme(browser, app_url, artifacts):
    program = "x = [[1.0, -2.0], [0.0, 3.0]]\ny = x * 2.0\n"  # the output, chosen at first: a 2 x 2 with a 0
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="dark")
    install_run_tracker(context)
    try:
        page = context.new_page()
        open_page(page, f"{app_url}/?program={quote(program)}")
        wait_for_view(page, timeout=60_000)
        wait_for_rerun(page, page.get_by_role("tab", name="Inspect a node").click)
        page.wait_for_selector(f"{PLOT} .heatmaplayer image", state="attached", timeout=30_000)
        seen = page.evaluate(
            f"""() => {{
            const plot = document.querySelector('{PLOT} .js-plotly-plot');
            const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
            const light = (c) => {{ const [r, g, b] = rgb(c); return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255; }};
            const texts = [...plot.querySelectorAll('.heatmaplayer text')].map((t) => getComputedStyle(t).fill);
            const page = getComputedStyle(document.querySelector('.stApp')).backgroundColor;
            return {{
                paper: plot._fullLayout.paper_bgcolor, page: light(page), mid: plot._fullData[0].colorscale[1][1],
                texts: texts.map(light),
            }};
        }}"""
        )
        page.screenshot(path=str(artifacts / "explorer-inspect-dark.png"))
    finally:
        context.close()
    assert seen["page"] < 0.2, "the page is dark"
    paper = seen["paper"]
    assert paper.startswith("#") and sum(int(paper[i : i + 2], 16) for i in (1, 3, 5)) / 765 < 0.2, seen
    assert seen["mid"].replace(" ", "").endswith(",0)"), "0 is transparent: the dark page shows through, not white"
    assert len(seen["texts"]) == 8 and min(seen["texts"]) > 0.8, f"numbers written light on dark: {seen['texts']}"


def test_a_click_on_a_box_selects_it_and_the_inspector_shows_it(page, app_url, artifacts):
    graph = traced(DEFAULT_PROGRAM)
    open_page(page, app_url)
    wait_for_view(page)
    b = leaf(graph, "b")
    wait_for_rerun(page, box(page, b.id).click)
    assert view_state(page)["selected"] == str(b.id)
    assert "selected" in boxes(page)[str(b.id)]["classes"]
    # the inspector opens on b, with its grad
    tab = page.get_by_role("tab", name="Inspect a node")
    page.wait_for_function("(t) => t.getAttribute('aria-selected') === 'true'", arg=tab.element_handle())
    wait_for_text(page, "a leaf, no op")
    node_box = page.get_by_role("combobox", name="Node")
    page.wait_for_function("(box) => /^b\\s+·\\s+input/.test(box.value)", arg=node_box.element_handle())
    # NOTE: the heatmap below mounts a moment later and would close a dropdown opened before it
    page.wait_for_selector(f"{PLOT} .heatmaplayer image", state="attached", timeout=30_000)
    page.screenshot(path=str(artifacts / "explorer-clicked.png"))
    # the select box (for keyboard users) moves the graph's selection
    a = leaf(graph, "a")
    node_box.scroll_into_view_if_needed()
    node_box.click()
    option = page.get_by_role("option", name=re.compile(r"^a\s+·\s+input"))
    option.wait_for()
    wait_for_rerun(page, option.click)
    wait_for_view(page, selected=a.id)
    drawn = boxes(page)
    assert "selected" in drawn[str(a.id)]["classes"] and "selected" not in drawn[str(b.id)]["classes"]


def test_hovering_a_box_shows_its_values(page, app_url):
    graph = traced(DEFAULT_PROGRAM)
    open_page(page, app_url)
    wait_for_view(page)
    a = leaf(graph, "a")
    box(page, a.id).hover()
    tip = page.locator(f"{GRAPH} .gv-tip")
    tip.wait_for(state="visible")
    text = tip.inner_text()
    assert "a" in text.splitlines()[0] and "input" in text
    assert "data -4" in text and "grad 138.8" in text.replace("\n", " "), text
    page.mouse.move(2, 2)
    tip.wait_for(state="hidden")


def test_toggles_and_direction_lay_out_again_in_the_browser(page, app_url, artifacts):
    graph = traced(presets.program("layer norm"))
    page.goto(f"{app_url}/?program={quote(presets.program('layer norm'))}")
    state = wait_for_view(page)
    wait_for_node_count(page, len(graph.nodes))
    layouts = int(state["layouts"])
    data_cells = f"{GRAPH} g[data-cell$='.d']"
    assert page.locator(data_cells).count() > 0
    size = page.evaluate(f"() => document.querySelector('{GRAPH} svg.gv-graph').viewBox.baseVal.height")

    page.locator(f"{GRAPH} button.gv-toggle", has_text="data").click()
    wait_for_view(page, layouts=layouts + 1)
    assert page.locator(data_cells).count() == 0
    assert page.locator(f"{GRAPH} g[data-cell$='.g']").count() > 0, "grads stay"
    smaller = page.evaluate(f"() => document.querySelector('{GRAPH} svg.gv-graph').viewBox.baseVal.height")
    assert smaller < size, "the boxes shrink: a new layout, not hidden rows"
    page.locator(f"{GRAPH} select.gv-rankdir").select_option("LR")
    wait_for_view(page, layouts=layouts + 2)
    page.screenshot(path=str(artifacts / "explorer-toggled.png"))
    # back to the first picture: laid out already, so nothing new is laid out
    page.locator(f"{GRAPH} select.gv-rankdir").select_option("TB")
    page.locator(f"{GRAPH} button.gv-toggle", has_text="data").click()
    page.wait_for_function("(sel) => document.querySelectorAll(sel).length > 0", arg=data_cells)
    assert view_state(page)["layouts"] == str(layouts + 2)
    # leave shape off: the server hears of it, and the Backward Stepper opens with the same parts
    page.locator(f"{GRAPH} button.gv-toggle", has_text="shape").click()
    wait_for_view(page, layouts=layouts + 3)
    wait_for_idle(page)
    open_sidebar(page)  # collapsed on the lesson pages
    page.get_by_role("link", name="Backward Stepper").click()
    page.locator(f"{GRAPH} .gv-controls").wait_for()
    pressed = page.evaluate(
        f"() => [...document.querySelectorAll('{GRAPH} button.gv-toggle')].map((b) => b.getAttribute('aria-pressed'))"
    )
    assert pressed == ["true", "true", "false"]
    assert page.locator(f"{GRAPH} g[data-cell$='.s']").count() == 0


# ----------------------------------------------------------------------------- poking the inputs


def poke_in_url(url: str) -> str | None:
    values = parse_qs(urlsplit(url).query).get("poke")
    return values[0] if values else None


def test_dragging_a_slider_changes_every_number_in_place(page, browser, app_url, artifacts):
    from .poking import (
        assert_tangent_touches_the_curve,
        box_texts,
        drag,
        expected_data,
        poke_state,
        slider,
        tangent_geometry,
        texts_outside_their_box,
        wait_for_answers,
    )

    open_page(page, app_url + "/")
    start = wait_for_view(page, ready=1)
    page.wait_for_selector('[data-testid="poke"] [data-testid="poke-curve"]')
    before = box_texts(page)
    assert before == expected_data(DEFAULT_PROGRAM, ()), "the program's own numbers"
    drag(page, "a", 0.8)  # a: -8 .. 0, so about -1.6
    wait_for_answers(page)
    assert int(poke_state(page)["sent"]) >= 2, "values go to the server while the slider moves, not only at the end"
    page.wait_for_function("() => new URLSearchParams(location.search).get('poke') !== null")
    wait_for_idle(page)
    a = float(slider(page, "a").input_value())
    assert a != -4.0 and poke_in_url(page.url) == f"a={a:.8g}"
    shown = box_texts(page)
    assert shown == expected_data(DEFAULT_PROGRAM, (("a", a),)), "every box shows the engine's numbers for a"
    assert shown != before
    state = view_state(page)
    assert state["layouts"] == start["layouts"] == "1", "the same drawing, retexted in place"
    assert int(state["updates"]) >= 2
    assert texts_outside_their_box(page) == [], "a longer number is fitted into its box"
    geometry = tangent_geometry(page)
    assert geometry["x0"] == pytest.approx(a)
    assert_tangent_touches_the_curve(geometry)
    page.screenshot(path=str(artifacts / "explorer-poked.png"))
    # a link reproduces the poked state
    other = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        fresh = other.new_page()
        fresh.goto(page.url, wait_until="domcontentloaded")
        wait_for_view(fresh, ready=1)
        fresh.wait_for_selector('[data-testid="poke"] [data-testid="poke-curve"]')
        wait_for_idle(fresh)
        assert float(slider(fresh, "a").input_value()) == pytest.approx(a)
        assert settled_texts(fresh, shown) == shown
    finally:
        other.close()
    # Reset: the program's own numbers
    wait_for_rerun(page, page.locator('[data-testid="poke"] .pk-reset').click)
    page.wait_for_function("() => new URLSearchParams(location.search).get('poke') === null")
    wait_for_idle(page)
    assert float(slider(page, "a").input_value()) == -4.0
    assert settled_texts(page, before) == before


def settled_texts(page, wanted):
    from .helpers import settled
    from .poking import box_texts

    return settled(lambda: box_texts(page), lambda texts: texts == wanted)


JACOBIAN_CASES = {
    "softmax": ("x = [0.5, -1.0, 2.0, 0.0, 1.5]\nw = [1.0, -2.0, 0.5, 3.0, -1.0]\ny = (softmax(x) * w).sum()\n",
                "softmax"),
    "add with broadcast": (presets.program("broadcasting bias"), "add"),
    "matmul": ("A = [[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]]\nW = [[0.5, -1.0], [2.0, 1.0], [0.0, 3.0]]\n"
               "Y = (A @ W).sum()\n", "matmul"),
}


def expected_jacobians(name: str) -> list[np.ndarray]:
    if name == "softmax":
        x = np.array([0.5, -1.0, 2.0, 0.0, 1.5])
        s = np.exp(x - x.max()) / np.exp(x - x.max()).sum()
        return [np.diag(s) - np.outer(s, s)]
    if name == "add with broadcast":
        return [np.eye(12), np.tile(np.eye(4), (3, 1))]
    a = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
    w = np.array([[0.5, -1.0], [2.0, 1.0], [0.0, 3.0]])
    return [np.kron(np.eye(2), w.T), np.kron(a, np.eye(2))]


@pytest.mark.parametrize("name", list(JACOBIAN_CASES))
def test_the_inspector_draws_the_node_s_jacobian(page, app_url, artifacts, name):
    from .poking import JACOBIAN, jacobian_cells

    program, op = JACOBIAN_CASES[name]
    graph = traced(program)
    node = next(n for n in graph.nodes if n.op == op)
    open_page(page, f"{app_url}/?program={quote(program)}")
    wait_for_node_count(page, len(graph.nodes))
    wait_for_rerun(page, box(page, node.id).click)
    page.wait_for_selector(JACOBIAN, timeout=30_000)
    root = page.locator(JACOBIAN)
    expected = expected_jacobians(name)
    assert root.get_attribute("data-op") == op
    assert int(root.get_attribute("data-rows")) == expected[0].shape[0]
    assert int(root.get_attribute("data-cols")) == sum(m.shape[1] for m in expected)
    assert float(root.get_attribute("data-max-error")) < 1e-12, "gᵀJ equals the VJP's result"
    drawn = jacobian_cells(page)
    assert len(drawn) == len(expected)
    for got, want in zip(drawn, expected):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert page.locator(f'{JACOBIAN} [data-testid="jacobian-numeric"].jv-ok').count() == len(expected)
    assert "Cost. J has" in page.locator(f'{JACOBIAN} [data-testid="jacobian-cost"]').inner_text()
    root.scroll_into_view_if_needed()
    root.screenshot(path=str(artifacts / f"jacobian-{name.replace(' ', '-')}.png"))
