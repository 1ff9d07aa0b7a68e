"""The Training Playground in a real headless Chromium: the live boundary moves, never blanks,
and redraws fast enough (DESIGN.md: at least 8 redraws a second of a 100×100 boundary).

A redraw is one new boundary picture painted in the chart; the server sends a few snapshots per
Streamlit round trip (server_updates_per_second) and the chart paints them one after another.
Measured numbers are printed (see them with `pytest -s`) and written to
test-artifacts/playground_metrics.json.
"""

from __future__ import annotations

import json
import os
import time
from urllib.parse import urlparse

import pytest

from .helpers import GRAPH_NODES, app_exception, click_button, horizontal_overflow, open_page, record_metric

pytestmark = pytest.mark.browser

MIN_REDRAWS_PER_SECOND = float(os.environ.get("PLAYGROUND_MIN_REDRAWS", "8"))
MEASURE_SECONDS = 5.0
MEASURE_WINDOWS = 3

# Samples every animation frame: is the live boundary on screen with its heatmap drawn?
# A frame where it is missing, detached, zero-sized or without a heatmap image counts as blank.
BLANK_SAMPLER_JS = """
() => {
  if (window.__pgSampler) return;
  const s = window.__pgSampler = {frames: 0, blankFrames: 0, blankMs: 0, running: true, last: performance.now(),
                                  hrefChanges: 0, lastHref: null};
  s.reasons = [];
  const drawn = () => {
    const host = document.querySelector('div.live-chart[data-name="boundary"]');
    if (!host || !host.isConnected) return [null, 'no chart'];
    const height = host.getBoundingClientRect().height;
    if (height < 50) return [null, `chart ${Math.round(height)} px high`];
    const image = host.querySelector('.heatmaplayer image');
    if (!image) return [null, 'no heatmap'];
    const href = image.getAttribute('href') || image.getAttribute('xlink:href');
    return [href || null, href ? '' : 'empty heatmap'];
  };
  const tick = (now) => {
    if (!s.running) return;
    const [href, reason] = drawn();
    s.frames += 1;
    if (!href) {
      s.blankFrames += 1; s.blankMs += now - s.last;
      if (s.reasons.length < 20) s.reasons.push(`${Math.round(now)} ms: ${reason}`);
    }
    else if (href !== s.lastHref) { s.hrefChanges += 1; s.lastHref = href; }
    s.last = now;
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}
"""


def _stats(page) -> dict:
    return page.evaluate(
        """() => {
            const c = (window.__liveCharts || {}).boundary || {};
            const s = window.__pgSampler || {};
            const host = document.querySelector('div.live-chart[data-name="boundary"] .heatmaplayer image');
            return {draws: c.draws || 0, fastDraws: c.fastDraws || 0, received: c.received || 0,
                    fullDraws: c.fullDraws || 0, resizes: c.resizes || 0,
                    mounts: c.mounts || 0, step: c.step, drawTimes: (c.drawTimes || []).slice(-50),
                    frames: s.frames || 0, blankFrames: s.blankFrames || 0, blankMs: s.blankMs || 0,
                    hrefChanges: s.hrefChanges || 0, reasons: s.reasons || [],
                    href: host ? (host.getAttribute('href') || host.getAttribute('xlink:href')) : null};
        }"""
    )


def _open_playground(page, app_url, query: str = ""):
    open_page(page, f"{app_url}/playground{query}")
    page.wait_for_function("() => ((window.__liveCharts || {}).boundary || {}).draws >= 1", timeout=30_000)


def test_live_boundary_moves_without_blanking(page, app_url, artifacts):
    _open_playground(page, app_url)
    page.evaluate(BLANK_SAMPLER_JS)
    assert _stats(page)["step"] == 0

    page.get_by_role("button", name="Play", exact=True).click()
    page.get_by_role("button", name="Pause", exact=True).wait_for(timeout=30_000)
    page.wait_for_function("() => (window.__liveCharts.boundary.step || 0) > 0", timeout=30_000)
    time.sleep(1.0)

    first = _stats(page)
    page.screenshot(path=str(artifacts / "playground_live_1.png"))
    time.sleep(1.0)
    second = _stats(page)
    page.screenshot(path=str(artifacts / "playground_live_2.png"))
    assert second["step"] > first["step"], f"step counter did not advance: {first['step']} -> {second['step']}"
    assert second["href"] != first["href"], "the boundary heatmap did not change in a second of training"

    # Up to MEASURE_WINDOWS windows of MEASURE_SECONDS; the rate is the best window's. The machines
    # are shared: one window slowed by a neighbour does not show that the page cannot keep up, while
    # a page that cannot fails every window. Blank frames and remounts count over all windows.
    windows = []
    for _ in range(MEASURE_WINDOWS):
        start = _stats(page)
        t0 = time.perf_counter()
        time.sleep(MEASURE_SECONDS)
        end = _stats(page)
        elapsed = time.perf_counter() - t0
        windows.append({
            "redraws": (end["draws"] - start["draws"]) / elapsed,
            "distinct": (end["hrefChanges"] - start["hrefChanges"]) / elapsed,
            "steps": (end["step"] - start["step"]) / elapsed,
            "received": (end["received"] - start["received"]) / elapsed,
            "elapsed": elapsed,
        })
        if windows[-1]["redraws"] >= MIN_REDRAWS_PER_SECOND:
            break
    page.get_by_role("button", name="Pause", exact=True).click()

    best = max(windows, key=lambda w: w["redraws"])
    redraws, distinct, steps = best["redraws"], best["distinct"], best["steps"]
    blank_ms = end["blankMs"]
    times = sorted(end["drawTimes"]) or [0]
    metrics = {
        "redraws_per_second": round(redraws, 2),
        "server_updates_per_second": round(best["received"], 2),
        "distinct_frames_per_second": round(distinct, 2),
        "training_steps_per_second": round(steps, 1),
        "windows_redraws_per_second": [round(w["redraws"], 2) for w in windows],
        "blank_ms_total": round(blank_ms, 1),
        "blank_frames": end["blankFrames"],
        "blank_reasons": end["reasons"],
        "sampled_frames": end["frames"],
        "remounts": end["mounts"] - 1,
        "fast_draws": end["fastDraws"],
        "full_plotly_redraws": end["fullDraws"],
        "resizes": end["resizes"],
        "median_draw_ms": times[len(times) // 2],
        "measure_seconds": round(best["elapsed"], 2),
        "min_redraws_required": MIN_REDRAWS_PER_SECOND,
    }
    print("\nplayground live metrics:", json.dumps(metrics, indent=2))
    (artifacts / "playground_metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    record_metric(artifacts, "playground_redraws_per_second", metrics["redraws_per_second"])
    record_metric(artifacts, "playground_blank_ms", metrics["blank_ms_total"])

    assert end["mounts"] == 1, f"the chart was remounted {end['mounts'] - 1} times"
    assert end["blankFrames"] == 0, f"the chart was blank for {blank_ms:.0f} ms ({end['blankFrames']} frames)"
    assert redraws >= MIN_REDRAWS_PER_SECOND, f"{redraws:.1f} redraws/s, target {MIN_REDRAWS_PER_SECOND}"
    assert distinct >= 0.8 * redraws, "redraws did not show new pictures"
    assert not [e for e in page.console_errors if "live" in e.lower() or "plotly" in e.lower()]


def test_diverging_run_is_explained_in_the_browser(page, app_url):
    _open_playground(page, app_url, "?dataset=sine&optimizer=SGD&lr=10.0&batch_size=0&hidden=16,16")
    for _ in range(10):
        click_button(page, "Step")
        if page.get_by_text("Training stopped").count():
            break
    warning = page.locator('[data-testid="stAlert"]').filter(has_text="Training stopped")
    warning.wait_for()
    assert "lower the learning rate (now 10)" in warning.inner_text()
    assert app_exception(page) is None


def test_narrow_window_and_show_graph(browser, app_url, artifacts):
    context = browser.new_context(viewport={"width": 420, "height": 900})
    page = context.new_page()
    try:
        _open_playground(page, app_url)
        page.screenshot(path=str(artifacts / "playground_narrow.png"), full_page=True)
        overflow = horizontal_overflow(page)
        assert overflow["docScrollWidth"] <= overflow["docClientWidth"] + 1, overflow
        width = page.evaluate(
            "() => document.querySelector('div.live-chart[data-name=\"boundary\"]').getBoundingClientRect().width"
        )
        assert 200 < width <= 420
        page.get_by_role("button", name="Show this step's graph").click()
        page.wait_for_selector(GRAPH_NODES, timeout=30_000)
        assert "playground" not in urlparse(page.url).path
        assert page.locator(GRAPH_NODES).count() > 10
    finally:
        context.close()


def test_square_data_keeps_its_axis_titles_inside_the_chart(page, app_url):
    # Spiral data is as tall as it is wide, so the boundary fills the chart's whole height; the
    # component must leave room for the caption line above it, or the x axis is cut off.
    _open_playground(page, app_url, "?dataset=spiral")
    page.wait_for_selector('div.live-chart[data-name="boundary"] .xtitle', state="attached", timeout=30_000)
    boxes = page.evaluate(
        """() => {
            const chart = document.querySelector('div.live-chart[data-name="boundary"]');
            let box = chart.parentElement;
            while (box && getComputedStyle(box).overflow === 'visible') box = box.parentElement;
            const bottom = (el) => Math.round(el.getBoundingClientRect().bottom);
            return {title: bottom(chart.querySelector('.xtitle')), chart: bottom(chart),
                    clip: box ? bottom(box) : null};
        }"""
    )
    assert boxes["title"] <= boxes["chart"], boxes
    assert boxes["clip"] is None or boxes["chart"] <= boxes["clip"] + 1, boxes
