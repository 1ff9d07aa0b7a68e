"""The Training Playground in a real headless Chromium: the whole live view moves while playing and
agrees with itself, follows the theme and the window, explains bad links and files, and keeps its
run across a reload. Rates are measured by benchmarks/live_view.py, not asserted here."""

from __future__ import annotations

import contextlib
import json
import re
import time
from urllib.parse import urlparse

import numpy as np
import pytest

from explorer.numbers import value_lines
from explorer.playground import step_graph, training
from explorer.playground.settings import TrainConfig
from tests.support.playground_by_hand import independent_health, numpy_step

from .helpers import GRAPH_NODES, app_exception, click_button, horizontal_overflow, live_step, open_page, wait_live_step

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LV = '[data-testid="live-view"]'
NET = '[data-testid="live-network"]'

# Every animation frame: are all panels there, and do the step numbers they show agree?
SAMPLER_JS = """(lv) => {
  const root = lv.getRootNode();
  const q = (sel) => root.querySelector(sel);
  const s = window.__lvSampler = {samples: 0, blank: [], disagree: [], frames: [], steps: [], running: true};
  new MutationObserver(() => { s.frames.push(Number(lv.dataset.frame)); s.steps.push(Number(lv.dataset.step)); })
    .observe(lv, {attributes: true, attributeFilter: ['data-frame']});
  const tick = () => {
    if (!s.running) return;
    s.samples += 1;
    const b = q('[data-panel="boundary"]'), n = q('[data-testid="live-network"]');
    const canvases = [b && b.querySelector('canvas'), n && n.querySelector('canvas'), q('[data-chart="loss"]')];
    if (!lv.isConnected || canvases.some((c) => !c || c.width < 10 || c.height < 10)) s.blank.push(s.samples);
    const step = lv.dataset.step;
    const shown = [b.dataset.step, n.dataset.step, q('[data-stat="step"]').dataset.step,
                   q('[data-stat="step"] b').textContent.replace(/,/g, '')];
    if (shown.some((v) => v !== step) && s.disagree.length < 20) s.disagree.push([step, ...shown]);
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}"""

PICTURES_JS = """(lv) => {
  const root = lv.getRootNode();
  const url = (sel) => { const c = root.querySelector(sel); return c ? c.toDataURL() : ''; };
  return {boundary: url('[data-panel="boundary"] canvas'), network: url('[data-testid="live-network"] canvas'),
          loss: url('[data-chart="loss"]'), health: root.querySelector('[data-layer="1"]').dataset.gradNorm};
}"""


def _open(page, app_url, query: str = ""):
    open_page(page, f"{app_url}/playground{query}")
    page.locator(LV).wait_for()
    _wait_frame(page, 1)


def _frame(page) -> int:
    return int(page.locator(LV).get_attribute("data-frame") or 0)


def _wait_frame(page, at_least: int, timeout: float = 30_000) -> None:
    deadline = time.monotonic() + timeout / 1000
    while _frame(page) < at_least and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert _frame(page) >= at_least, f"the live view painted {_frame(page)} frames, expected {at_least}"


SIDEBAR_RIGHT_JS = "() => document.querySelector('[data-testid=\"stSidebar\"]').getBoundingClientRect().right"


def _sidebar_right(page) -> float:
    return page.evaluate(SIDEBAR_RIGHT_JS)


def _collapse_sidebar(page) -> None:
    """Collapse the sidebar (its button shows on hover only) and wait until it is gone and the view relaid out."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    deadline = time.monotonic() + 20
    while _sidebar_right(page) > 1 and time.monotonic() < deadline:
        page.locator('[data-testid="stSidebarCollapseButton"] button').evaluate("b => b.click()")
        with contextlib.suppress(PlaywrightTimeoutError):  # a click before the page listens: click again
            page.wait_for_function(f"() => ({SIDEBAR_RIGHT_JS})() <= 1", timeout=2_000)
    assert _sidebar_right(page) <= 1, "the sidebar did not collapse"
    _wait_laid_out(page)


def _wait_laid_out(page, timeout: float = 30_000) -> None:
    """Wait until the live view has laid itself out for its width (data-width), and that width held for a frame."""
    page.wait_for_function(
        """(lv) => {
            const w = lv.clientWidth, held = window.__lvWidth === w;
            window.__lvWidth = w;
            return held && lv.dataset.width === String(w);
        }""",
        arg=page.locator(LV).element_handle(), timeout=timeout,
    )


def _play(page):
    page.get_by_role("button", name="Play", exact=True).click()
    page.get_by_role("button", name="Pause", exact=True).wait_for()


def _pause(page):
    """Pause, and wait until the live view has drawn the paused frame (data-playing="0"): its step is final."""
    page.get_by_role("button", name="Pause", exact=True).click()
    page.get_by_role("button", name="Play", exact=True).wait_for()
    page.locator(f'{LV}[data-playing="0"]').wait_for()


def test_everything_moves_together_while_playing(page, app_url, artifacts):
    _open(page, app_url)
    lv = page.locator(LV)
    assert page.locator(f"{NET} [data-neuron]").count() == 2 + 8 + 8 + 1
    assert page.locator("[data-layer]").count() == 3
    before = lv.evaluate(PICTURES_JS)
    lv.evaluate(SAMPLER_JS)
    _play(page)
    start = live_step(page)
    page.wait_for_function("() => window.__lvSampler.frames.length >= 40", timeout=60_000)
    page.screenshot(path=str(artifacts / "playground_playing.png"))
    during = lv.evaluate(PICTURES_JS)
    # Nothing is hidden during Play: the network, its neurons and the health rows are all there.
    assert page.locator(f"{NET} [data-neuron]").count() == 19 and page.locator("[data-layer]").count() == 3
    _pause(page)
    sampler = page.evaluate("() => { window.__lvSampler.running = false; return window.__lvSampler; }")
    assert live_step(page) > start
    for name in ("boundary", "network", "loss", "health"):
        assert during[name] != before[name], f"the {name} did not change while playing"
    assert sampler["blank"] == [], f"panels missing in samples {sampler['blank'][:10]}"
    assert sampler["disagree"] == [], f"[root, boundary, network, tile, tile text]: {sampler['disagree']}"
    frames = sampler["frames"]
    assert np.all(np.diff(frames) == 1), f"data-frame went {frames[:50]}"
    assert not [e for e in page.console_errors if "live" in e.lower()], page.console_errors


def test_hovering_a_neuron_and_an_edge_shows_their_weights(page, app_url):
    _open(page, app_url)
    click_button(page, "Step")
    wait_live_step(page, 1)
    page.locator(f'{NET} [data-neuron="1.3"]').hover()
    tip = page.locator(".lv-tip")
    tip.wait_for()
    text = tip.inner_text()
    assert text.startswith("h1.3") and "from x1" in text and "from x2" in text and "bias" in text
    assert tip.locator("canvas").bounding_box()["width"] >= 140  # the enlarged picture
    # An edge: from x1 (input 1) to h1.3, halfway along.
    a = page.locator(f'{NET} [data-neuron="0.1"]').bounding_box()
    b = page.locator(f'{NET} [data-neuron="1.3"]').bounding_box()
    page.mouse.move(a["x"] + a["width"] + 5, a["y"] + a["height"] / 2)
    x0, y0 = a["x"] + a["width"], a["y"] + a["height"] / 2
    x1, y1 = b["x"], b["y"] + b["height"] / 2
    page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2)
    deadline = time.monotonic() + 10
    while "W1[3, 1]" not in tip.inner_text() and time.monotonic() < deadline:
        page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2 + 0.5)
        page.wait_for_timeout(100)
    assert re.search(r"W1\[3, 1\] = -?[0-9.e-]+ +\(x1 → h1\.3\)", tip.inner_text()), tip.inner_text()


def test_gradient_health_equals_values_computed_independently(page, app_url):
    config = TrainConfig(activation="relu", hidden=(24,), seed=0)
    _open(page, app_url, "?activation=relu&hidden=24&seed=0")
    click_button(page, "Step")
    wait_live_step(page, 1)
    state = training.new_state(config)
    rows, dead, _ = independent_health(state, "relu")
    assert dead > 0, "this run has dead units on its first batch"
    for layer, want in enumerate(rows, start=1):
        row = page.locator(f'[data-layer="{layer}"]')
        assert float(row.get_attribute("data-grad-norm")) == pytest.approx(want["grad"], rel=1e-3)
        assert float(row.get_attribute("data-weight-norm")) == pytest.approx(want["weight"], rel=1e-3)
        assert float(row.get_attribute("data-update-ratio")) == pytest.approx(want["ratio"], rel=1e-3)
    first = page.locator('[data-layer="1"]')
    assert float(first.get_attribute("data-dead")) == pytest.approx(dead, abs=1e-4)
    assert first.get_attribute("data-saturated") == ""
    assert page.locator('[data-layer="2"]').get_attribute("data-dead") == ""  # the output layer


def test_a_layer_in_trouble_is_marked_with_its_reason(page, app_url):
    # A learning rate of 10 on SGD: each step changes the weights by far more than a tenth of their size.
    _open(page, app_url, "?lr=10.0&activation=relu")
    click_button(page, "Step")
    wait_live_step(page, 1)
    why = page.locator('[data-why="1"]')
    assert "learning rate is too high" in why.inner_text()
    assert page.locator('[data-layer="1"].trouble').count() == 1


def test_the_view_fits_a_projector_and_a_phone(browser, app_url, artifacts):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    try:
        _open(page, app_url)
        _collapse_sidebar(page)
        page.screenshot(path=str(artifacts / "playground_1280x800.png"))
        for selector in ('[data-panel="boundary"] canvas', f"{NET} canvas", '[data-chart="loss"]'):
            box = page.locator(selector).bounding_box()
            assert box["y"] >= 0 and box["y"] + box["height"] <= 800, (selector, box)
            assert box["x"] + box["width"] <= 1280, (selector, box)
    finally:
        context.close()
    context = browser.new_context(viewport={"width": 420, "height": 900})
    page = context.new_page()
    try:
        _open(page, app_url)
        page.screenshot(path=str(artifacts / "playground_420.png"))
        overflow = horizontal_overflow(page)
        assert overflow["docScrollWidth"] <= overflow["docClientWidth"] + 1, overflow
        panels = ('[data-panel="boundary"] canvas', f"{NET} canvas", '[data-chart="loss"]', '[data-layer="3"] > span')
        for selector in panels:
            box = page.locator(selector).first.bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= 420, (selector, box)
        boundary = page.locator('[data-panel="boundary"] canvas').bounding_box()
        network = page.locator(f"{NET} canvas").bounding_box()
        assert network["y"] >= boundary["y"] + boundary["height"], "the panels stack"
    finally:
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_view_takes_the_theme_colours(browser, app_url, scheme):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
    page = context.new_page()
    try:
        _open(page, app_url)
        colours = page.locator(LV).evaluate("""(lv) => {
            const root = lv.getRootNode();
            const c = root.querySelector('[data-panel="boundary"] canvas');
            const ctx = c.getContext('2d');
            const d = ctx.getImageData(0, 0, c.width, c.height).data;
            let sum = 0, n = 0;
            for (let i = 0; i < d.length; i += 4 * 97)
              if (d[i + 3] > 0) { sum += (d[i] + d[i + 1] + d[i + 2]) / 3; n++; }
            const text = getComputedStyle(root.querySelector('[data-stat="step"] b')).color;
            return {picture: sum / n, text};
        }""")
        text = [int(v) for v in re.findall(r"\d+", colours["text"])[:3]]
        if scheme == "dark":
            assert colours["picture"] < 110 and sum(text) / 3 > 150, colours
        else:
            assert colours["picture"] > 150 and sum(text) / 3 < 110, colours
        assert page.locator('[data-testid="stPlotlyChart"]').count() == 0
    finally:
        context.close()


def test_the_boundary_has_a_class_colour_legend(page, app_url):
    _open(page, app_url, "?dataset=three+blobs")
    chips = page.locator(".lv-legend [data-class]")
    assert chips.count() == 3
    colours = chips.evaluate_all(
        "cs => cs.map(c => [c.textContent, c.dataset.colour, getComputedStyle(c.querySelector('i')).backgroundColor])"
    )
    assert [c[0] for c in colours] == ["class 0", "class 1", "class 2"]
    assert [c[1] for c in colours] == ["#f28e2b", "#1f77b4", "#2ca02c"]  # the points' colours
    assert colours[1][2] == "rgb(31, 119, 180)"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_colour_keys_are_whole_and_true_in_either_theme(browser, app_url, scheme):
    """Issue 17 item 7: the network's key ("blue +, orange −") was cut off at 1280 px inside the title and did not
    say that blue and orange are also the classes; "paler where the model is unsure" is false on a dark page."""
    context = browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme=scheme)
    page = context.new_page()
    try:
        _open(page, app_url)
        seen = page.locator(LV).evaluate("""(lv) => {
            const root = lv.getRootNode();
            const whole = (e) => e.scrollWidth <= e.clientWidth + 1;
            const key = root.querySelector('[data-testid="live-network-key"]');
            const title = root.querySelector('[data-testid="live-network"] .lv-title');
            const legend = root.querySelector('[data-panel="boundary"] .lv-legend');
            const box = key.getBoundingClientRect();
            return {key: key.textContent, keyWhole: whole(key), keyShown: box.height > 0 && box.right <= innerWidth,
                    titleWhole: whole(title), legend: legend.textContent};
        }""")
        assert seen["keyWhole"] and seen["keyShown"] and seen["titleWhole"], seen
        assert "Blue +, orange −" in seen["key"] and "the same colours are the classes" in seen["key"], seen["key"]
        legend = seen["legend"]
        assert "paler" not in legend and "the colour fades where the model is unsure" in legend, legend
    finally:
        context.close()


def test_no_test_split_shows_a_dash_not_nan(page, app_url):
    _open(page, app_url, "?test_fraction=0.0")
    click_button(page, "Step")
    wait_live_step(page, 1)
    assert page.locator('[data-stat="test_acc"]').get_attribute("data-value") == "—"
    assert page.locator('[data-stat="test_loss"]').get_attribute("data-value") == "—"
    assert "nan" not in page.locator(LV).inner_text().lower()


def test_a_loss_within_one_decade_still_has_numbers_on_its_axis(page, app_url):
    _open(page, app_url, "?dataset=spiral&speed=250")
    _play(page)
    deadline = time.monotonic() + 30
    while live_step(page) < 100 and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    _pause(page)
    ticks = page.locator('[data-chart="loss"]').get_attribute("data-ticks").split()
    assert len(ticks) >= 2, ticks


@pytest.mark.parametrize("query", ["?n=5000", "?n=4", "?noise=2.0", "?test_fraction=0.9", "?hidden=" + "9" * 5000])
def test_a_link_outside_the_widgets_ranges_is_explained_not_a_traceback(page, app_url, query):
    _open(page, app_url, query)
    assert app_exception(page) is None
    warning = page.locator('[data-testid="stAlert"]').filter(has_text="Ignored part of the link")
    assert warning.count() == 1 and len(warning.inner_text()) < 400
    assert page.get_by_role("button", name="Play", exact=True).is_enabled()


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("x1,x2,label\n1,2,0\n" + "9" * 131_073 + ",1,0\n", "not readable as CSV"),
        ("1e308,0,0\n-1e308,1,1\n0,0,0\n1,1,1\n", "coordinates up to ±1e300 can be rescaled"),
        ("1e-320,0,0\n0,1,1\n0,0,0\n0,1,1\n", "too little to rescale"),
    ],
    ids=["field-over-the-csv-limit", "huge-coordinates", "subnormal-spread"],
)
def test_a_bad_upload_is_explained_not_a_traceback(page, app_url, tmp_path, content, says):
    _open(page, app_url)
    page.get_by_text("Use your own points (CSV)").click()
    path = tmp_path / "points.csv"
    path.write_text(content)
    page.locator(".st-key-pg_file input[type=file]").set_input_files(str(path))
    error = page.locator('[data-testid="stSidebar"] [data-testid="stAlert"]')
    error.wait_for()
    assert says in error.inner_text() and "points.csv" in error.inner_text()
    assert app_exception(page) is None
    assert page.get_by_role("button", name="Play", exact=True).is_enabled()


def test_a_good_upload_trains(page, app_url, tmp_path):
    _open(page, app_url)
    path = tmp_path / "mine.csv"
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2)) * 100 + 500
    path.write_text("x1,x2,label\n" + "\n".join(f"{a:.3f},{b:.3f},{int(a > 500)}" for a, b in X))
    page.locator(".st-key-pg_file input[type=file]").set_input_files(str(path))
    page.wait_for_function("() => new URL(location.href).searchParams.get('dataset') === 'uploaded CSV'")
    click_button(page, "Step")
    wait_live_step(page, 1)
    shown = page.locator(".st-key-pg_dataset").evaluate(
        "box => box.textContent + ' ' + Array.from(box.querySelectorAll('input'), (i) => i.value).join(' ')"
    )
    assert app_exception(page) is None and "uploaded: mine.csv" in shown, shown


def test_a_reload_keeps_the_run(page, app_url):
    _open(page, app_url)
    _play(page)
    deadline = time.monotonic() + 30
    while live_step(page) < 40 and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    _pause(page)
    step, probe = live_step(page), page.locator(LV).get_attribute("data-probe")
    assert step >= 40
    page.reload(wait_until="domcontentloaded")
    page.locator(LV).wait_for()
    wait_live_step(page, step)
    assert page.locator(LV).get_attribute("data-probe") == probe
    # Playing on after the reload continues from there.
    click_button(page, "Step")
    wait_live_step(page, step + 1)


def test_the_model_downloads_and_loads_back(page, app_url, tmp_path):
    _open(page, app_url, "?activation=relu")
    for _ in range(3):
        click_button(page, "Step")
    wait_live_step(page, 3)
    probe = page.locator(LV).get_attribute("data-probe")
    page.get_by_text("Weights and data").click()
    with page.expect_download() as info:
        page.get_by_role("button", name="Model (.json)").click()
    saved = tmp_path / "model.json"
    info.value.save_as(saved)
    meta = json.loads(saved.read_text())
    assert meta["step"] == 3 and meta["settings"]["activation"] == "relu"
    click_button(page, "Reset")
    wait_live_step(page, 0)
    page.locator(".st-key-pg_model_file input[type=file]").set_input_files(str(saved))
    wait_live_step(page, 3)
    assert page.locator(LV).get_attribute("data-probe") == probe
    assert app_exception(page) is None


def test_replay_scrubs_through_the_whole_view(page, app_url):
    _open(page, app_url, "?speed=250")
    _play(page)
    deadline = time.monotonic() + 30
    while live_step(page) < 60 and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    _pause(page)
    page.get_by_text("Replay", exact=True).click()
    slider = page.locator('.lv-replay input[type=range]')
    slider.wait_for()
    slider.fill("0")
    wait_live_step(page, 0)
    assert page.locator('[data-panel="boundary"]').get_attribute("data-step") == "0"
    assert page.locator(NET).get_attribute("data-step") == "0"
    assert page.locator('[data-stat="step"]').get_attribute("data-value") == "0"
    assert page.locator(".lv-replay").get_attribute("data-step") == "0"


def test_diverging_run_is_explained_in_the_browser(page, app_url):
    _open(page, app_url, "?dataset=sine&optimizer=SGD&lr=10.0&batch_size=0&hidden=16,16&speed=1000")
    # NOTE: not _play: this run diverges within its first tick, so the Pause button may come and go before it is
    # seen (it did, with both cores loaded); the warning is what to wait for.
    page.get_by_role("button", name="Play", exact=True).click()
    warning = page.locator('[data-testid="stAlert"]').filter(has_text="Training stopped")
    warning.wait_for(timeout=60_000)
    assert "lower the learning rate (now 10)" in warning.inner_text()
    assert app_exception(page) is None


def test_show_this_steps_graph_opens_the_explorer(browser, app_url):
    context = browser.new_context(viewport={"width": 420, "height": 900})
    page = context.new_page()
    try:
        _open(page, app_url)
        page.get_by_role("button", name="Show this step's graph").click()
        page.wait_for_url(lambda url: "playground" not in urlparse(url).path, timeout=30_000)
        page.wait_for_selector(GRAPH_NODES, timeout=30_000)
        editor = page.locator('[data-testid="stTextArea"] textarea').first
        page.wait_for_function("(el) => el.value.includes('W1_new = W1 - 0.1 * W1_grad')", arg=editor.element_handle())
        assert "X = tensor([[" in editor.input_value()
        page.wait_for_function("([sel, n]) => document.querySelectorAll(sel).length === n", arg=[GRAPH_NODES, 14])
        kinds = page.evaluate(f"""() => Object.fromEntries([...document.querySelectorAll('{GRAPH_NODES}')].map(
            (g) => [g.textContent.trim().split(/[\\s(=]/)[0], [...g.classList].find((c) => c.startsWith('kind-'))]))""")
        assert kinds.get("X") == kinds.get("y") == "kind-const" and kinds.get("W1") == "kind-input", kinds
    finally:
        context.close()


# ----------------------------------------------------------------------------- the step graph

GV = '[data-testid="graph-view"]'

# At every paint of the live view: its step and what the step graph below shows (its caption).
GRAPH_SAMPLER_JS = """(lv) => {
  const gv = document.querySelector('[data-testid="graph-view"]');
  const s = window.__gvSampler = {pairs: []};
  new MutationObserver(() => s.pairs.push([lv.dataset.step, gv.dataset.caption]))
    .observe(lv, {attributes: true, attributeFilter: ['data-frame']});
}"""

# In one go (no paint in between): the live view's step and the step graph's boxes and hooks.
SNAPSHOT_JS = """(lv) => {
  const gv = document.querySelector('[data-testid="graph-view"]');
  const boxes = {};
  for (const g of gv.querySelectorAll('svg.gv-graph g.node'))
    boxes[g.dataset.node] = {text: [...g.querySelectorAll('text')].map((t) => t.textContent).join(' '),
                             classes: [...g.classList]};
  return {...gv.dataset, boxes, lvStep: Number(lv.dataset.step)};
}"""


def _expected_boxes(step: int) -> dict[str, dict]:
    """The default run's step graph at `step`, computed here: NumPy forward and backward written out
    (tests/explorer/playground/test_playground_graph.py), each value as the box prints it; by box id."""
    state = training.new_state(TrainConfig())
    training.step(state, step)
    want = numpy_step(state)
    graph = step_graph.step_graph(state)  # its structure: which box is which
    ids = {node.name: node.id for node in graph.nodes if node.name}
    for k in (1, 2):  # the linear op before each activation
        ids[f"z{k}"] = graph.nodes[ids[f"h{k}"]].parents[0]
    return {str(ids[name]): {"data": value_lines(data, True)[0], "grad": None if grad is None else value_lines(
        np.asarray(grad), True)[0]} for name, (data, grad) in want.items()}


def test_the_step_graph_moves_with_the_view_and_shows_the_engines_numbers(page, app_url, artifacts):
    _open(page, app_url)
    page.locator(f'{GV}[data-ready="1"]').wait_for(timeout=60_000)
    lv = page.locator(LV)
    start = lv.evaluate(SNAPSHOT_JS)
    assert start["caption"] == "Step 0" and start["layouts"] == "1"
    _play(page)
    page.locator(GV).scroll_into_view_if_needed()  # it is painted while on screen
    page.locator(f'{GV}[data-on-screen="1"]').wait_for()
    # NOTE: the server sends the graph's texts while its panel is on screen: the frames already on their way when
    # it came into view have none, so the graph follows the view from the first frame sent after.
    page.wait_for_function("""(lv) => {
        const gv = document.querySelector('[data-testid="graph-view"]');
        const step = Number(lv.dataset.step).toLocaleString('en-US');
        return lv.dataset.playing === '1' && gv.dataset.caption === 'Step ' + step;
    }""", arg=lv.element_handle(), timeout=60_000)
    lv.evaluate(GRAPH_SAMPLER_JS)
    snapshots = []
    for _ in range(3):  # NOTE: each once the run has moved on (a condition, not a sleep: a loaded machine is slower)
        seen = snapshots[-1]["lvStep"] if snapshots else 0
        deadline = time.monotonic() + 60
        while live_step(page) <= seen and time.monotonic() < deadline:
            page.wait_for_timeout(50)
        snapshots.append(lv.evaluate(SNAPSHOT_JS))
    page.wait_for_function("() => window.__gvSampler.pairs.length >= 20", timeout=60_000)
    page.screenshot(path=str(artifacts / "playground_step_graph_playing.png"))
    pairs = page.evaluate("() => window.__gvSampler.pairs")
    end = lv.evaluate(SNAPSHOT_JS)
    _pause(page)  # (the click scrolls the page up to the button: the graph is off screen again)
    assert len(pairs) >= 20, pairs
    disagree = [(step, caption) for step, caption in pairs if caption != f"Step {int(step):,}"]
    assert disagree == [], f"the live view's step and the step graph's differ: {disagree[:10]}"
    assert end["layouts"] == "1", "numbers retexted in place: one layout"
    assert int(end["updates"]) >= int(start["updates"]) + len(pairs) - 1
    steps = [shot["lvStep"] for shot in snapshots]
    assert steps == sorted(set(steps)) and steps[0] > 0, steps
    for shot in snapshots:
        assert shot["caption"] == f"Step {shot['lvStep']:,}"
        for box, want in _expected_boxes(shot["lvStep"]).items():
            text = shot["boxes"][box]["text"]
            # (a scalar's box is one row, its data after its title without the word: "loss = … 0.1454  grad 1")
            assert f"data {want['data']}" in text or f" {want['data']}  grad" in text, (shot["lvStep"], box, text)
            if want["grad"] is None:  # X and y: data, drawn as constants with no grad row
                assert "kind-const" in shot["boxes"][box]["classes"] and "grad" not in text, text
            else:
                assert f"grad {want['grad']}" in text, (shot["lvStep"], box, text, want)
    assert snapshots[0]["boxes"] != snapshots[-1]["boxes"]


def test_the_step_graph_draws_data_in_the_constants_colour(page, app_url):
    _open(page, app_url)
    page.locator(f'{GV}[data-ready="1"]').wait_for(timeout=60_000)
    colours = page.evaluate("""() => {
      const gv = document.querySelector('[data-testid="graph-view"]');
      const chip = (kind) => getComputedStyle(gv.querySelector('.gv-chip.kind-' + kind)).backgroundColor;
      const box = (name) => [...gv.querySelectorAll('svg.gv-graph g.node')]
        .find((g) => g.textContent.trim().startsWith(name));
      const fill = (name) => getComputedStyle(box(name).querySelector('path, polygon')).fill;
      return {x: fill('X'), w: fill('W1'), constChip: chip('const'), paramChip: chip('param'),
              legend: [...gv.querySelectorAll('.gv-chip')].map((c) => c.textContent)};
    }""")
    assert colours["x"] == colours["constChip"] and colours["w"] == colours["paramChip"], colours
    assert colours["x"] != colours["w"]
    assert "const · no grad" in colours["legend"] and "param · weight" in colours["legend"], colours["legend"]


def test_slow_motion_paints_every_step(page, app_url):
    _open(page, app_url, "?speed=5")
    page.locator(LV).evaluate(SAMPLER_JS)
    _play(page)
    deadline = time.monotonic() + 30
    while live_step(page) < 4 and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    _pause(page)
    steps = page.evaluate("() => { window.__lvSampler.running = false; return window.__lvSampler.steps; }")
    assert steps[-1] >= 4 and set(range(1, steps[-1] + 1)) <= set(steps), f"a step was not painted: {steps}"
