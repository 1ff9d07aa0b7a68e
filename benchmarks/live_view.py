"""The live Training Playground in headless Chromium: pictures per second, blank frames, payload,
server CPU and bytes per playing session, pacing of the default run.

Run:  python benchmarks/live_view.py [--app-dir DIR] [--seconds 10]
      python benchmarks/live_view.py --app-dir /path/to/an/older/checkout   # "before"

It starts the app in DIR (this checkout by default), opens /playground at 1280x900, presses Play
and measures for `--seconds`:
- distinct pictures per second of the boundary and of the network (a picture of a new step), the p95
  and the largest interval between two of them, and blank animation frames (a panel missing or empty),
  sampled on every animation frame; the same for
  the step graph under the view (its caption names the step it shows; it is painted while on screen:
  a second case scrolls the window down to it);
- the websocket's bytes and messages per second and the largest message (CDP, in the browser; a binary frame's
  bytes, not the length of CDP's base64 text of it);
- the server's CPU (psutil: its process's user + system time over the wall time);
then the same at the fastest speed (1000 steps/s), for the largest network (8 hidden layers of 64,
1,000 points, full batch), and the seconds of Play the default run needs to reach 95 % test accuracy
(`--quick`: the defaults and the fastest speed only). The page before the live-view redesign
(components/live_chart) is measured with its own hooks: its network was hidden while playing.
Figures depend on the machine's load: say how busy it was when you quote them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.browser import helpers  # noqa: E402
from tests.browser.server import browser_unavailable_reason, launch_chromium, start_streamlit  # noqa: E402

LARGEST = "?hidden=64,64,64,64,64,64,64,64&n=1000&batch_size=0"

# Samples every animation frame: for the live view (its data-step per panel) or the old live chart
# (the boundary heatmap's image). Counts distinct pictures and frames where a panel is missing.
SAMPLER_JS = """() => {
  const find = () => {
    for (const el of document.querySelectorAll('*'))
      if (el.shadowRoot && el.shadowRoot.querySelector('[data-testid="live-view"]'))
        return el.shadowRoot;
    return null;
  };
  const s = window.__bench = {samples: 0, blank: 0, boundary: 0, network: 0, graph: 0, last: {}, running: true,
                              kind: null, times: []};
  const tick = () => {
    if (!s.running) return;
    s.samples += 1;
    const root = find();
    let pictures = null;
    if (root) {
      s.kind = 'live view';
      const b = root.querySelector('[data-panel="boundary"]'), n = root.querySelector('[data-testid="live-network"]');
      const ok = b && n && b.querySelector('canvas').width > 10 && n.querySelector('canvas').width > 10;
      pictures = ok ? {boundary: b.dataset.step, network: n.dataset.step} : null;
    } else {
      s.kind = 'live chart';
      const image = document.querySelector('div.live-chart[data-name="boundary"] .heatmaplayer image');
      const href = image && (image.getAttribute('href') || image.getAttribute('xlink:href'));
      pictures = href ? {boundary: href, network: undefined} : null;
    }
    const graph = document.querySelector('[data-testid="graph-view"]');
    if (pictures) pictures.graph = graph ? graph.dataset.caption : undefined;
    if (!pictures) s.blank += 1;
    else for (const k of ['boundary', 'network', 'graph'])
      if (pictures[k] !== undefined && pictures[k] !== s.last[k]) {
        s[k] += 1; s.last[k] = pictures[k];
        if (k === 'boundary') s.times.push(performance.now());
      }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}"""

STEP_JS = """() => {
  for (const el of document.querySelectorAll('*'))
    if (el.shadowRoot && el.shadowRoot.querySelector('[data-testid="live-view"]'))
      return Number(el.shadowRoot.querySelector('[data-testid="live-view"]').dataset.step);
  const c = (window.__liveCharts || {}).boundary;
  return c && c.step !== null ? Number(c.step) : null;
}"""

ACCURACY_JS = """() => {
  for (const el of document.querySelectorAll('*'))
    if (el.shadowRoot && el.shadowRoot.querySelector('[data-testid="live-view"]'))
      return el.shadowRoot.querySelector('[data-stat="test_acc"]').dataset.value;
  for (const m of document.querySelectorAll('[data-testid="stMetric"]'))
    if (m.innerText.includes('Test accuracy')) return m.querySelector('[data-testid="stMetricValue"]').innerText;
  return null;
}"""


def ws_bytes(response: dict) -> int:
    """Bytes of one websocket frame as sent (CDP's Network.webSocketFrame* `response`). NOTE: CDP gives a binary
    frame's payload (opcode 2: every Streamlit message) as base64 text, 4/3 of its bytes: counting that text's
    length overstated the bytes by a third."""
    payload = response["payloadData"]
    if response.get("opcode") != 2:
        return len(payload.encode())
    return len(payload) * 3 // 4 - payload[-2:].count("=")


def _session(browser, url: str, server_pid: int, seconds: float, to_graph: bool = False) -> dict:
    import psutil

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    helpers.install_run_tracker(context)
    page = context.new_page()
    page.set_default_timeout(60_000)
    frames: list[int] = []
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.on("Network.webSocketFrameReceived", lambda e: frames.append(ws_bytes(e["response"])))
    try:
        helpers.open_page(page, url, timeout=60_000)
        page.wait_for_function(f"({STEP_JS}) !== null", timeout=60_000)
        page.get_by_role("button", name="Play", exact=True).click()
        page.get_by_role("button", name="Pause", exact=True).wait_for()
        if to_graph:  # the window scrolled down to the step graph (and the bottom of the live view)
            page.locator('[data-testid="graph-view"][data-ready="1"]').wait_for(timeout=60_000)
            page.locator('[data-testid="graph-view"]').scroll_into_view_if_needed()
        page.wait_for_timeout(2000)  # warm up
        page.evaluate(SAMPLER_JS)
        process = psutil.Process(server_pid)
        cpu0 = sum(process.cpu_times()[:2])
        step0 = page.evaluate(STEP_JS)
        frames.clear()
        t0 = time.perf_counter()
        page.wait_for_timeout(seconds * 1000)
        elapsed = time.perf_counter() - t0
        cpu = (sum(process.cpu_times()[:2]) - cpu0) / elapsed
        sampler = page.evaluate("() => { window.__bench.running = false; return window.__bench; }")
        gaps = sorted(b - a for a, b in zip(sampler["times"], sampler["times"][1:]))
        step1 = page.evaluate(STEP_JS)
        received = list(frames)
        page.get_by_role("button", name="Pause", exact=True).click()
    finally:
        context.close()
    return {
        "view": sampler["kind"],
        "boundary_pictures_per_s": round(sampler["boundary"] / elapsed, 1),
        "network_pictures_per_s": round(sampler["network"] / elapsed, 1),
        "step_graph_pictures_per_s": round(sampler["graph"] / elapsed, 1),
        "p95_picture_interval_ms": round(gaps[min(len(gaps) - 1, int(0.95 * (len(gaps) - 1)))], 1) if gaps else None,
        "max_picture_interval_ms": round(gaps[-1], 1) if gaps else None,
        "blank_frames": sampler["blank"],
        "sampled_frames": sampler["samples"],
        "steps_per_s": round((step1 - step0) / elapsed, 1),
        "server_cpu_percent_of_a_core": round(100 * cpu, 1),
        "ws_kb_per_s": round(sum(received) / elapsed / 1000, 1),
        "ws_messages_per_s": round(len(received) / elapsed, 1),
        "largest_message_kb": round(max(received, default=0) / 1000, 1),
        "mean_message_kb": round(sum(received) / max(len(received), 1) / 1000, 2),
    }


def _pacing(browser, url: str, limit: float = 90.0) -> float | None:
    """Seconds of Play until the test accuracy tile reads 95 % or more (None if not within `limit`)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        helpers.open_page(page, url, timeout=60_000)
        page.wait_for_function(f"({STEP_JS}) !== null", timeout=60_000)
        page.get_by_role("button", name="Play", exact=True).click()
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < limit:
            text = page.evaluate(ACCURACY_JS) or ""
            try:
                if float(text.rstrip("%")) >= 95.0:
                    return round(time.perf_counter() - t0, 1)
            except ValueError:
                pass
            page.wait_for_timeout(100)
        return None
    finally:
        context.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app-dir", type=Path, default=REPO, help="the checkout whose app.py to run")
    parser.add_argument("--seconds", type=float, default=10.0, help="measuring window per case")
    parser.add_argument("--skip-pacing", action="store_true")
    parser.add_argument("--quick", action="store_true", help="only the defaults and the fastest speed")
    parser.add_argument("--no-graph-case", action="store_true",
                        help="skip the case scrolled to the step graph (an app without that panel)")
    args = parser.parse_args()
    reason = browser_unavailable_reason()
    if reason:
        print(f"cannot run: {reason}", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    server = start_streamlit("app.py", cwd=args.app_dir.resolve(), log_dir=Path(tempfile.gettempdir()))
    results = {}
    try:
        with tempfile.TemporaryDirectory(prefix="autograd-bench-") as profile, sync_playwright() as playwright:
            browser = launch_chromium(playwright, profile)
            try:
                results["defaults"] = _session(browser, f"{server.url}/playground", server.process.pid, args.seconds)
                results["fastest (1000 steps/s)"] = _session(
                    browser, f"{server.url}/playground?speed=1000", server.process.pid, args.seconds)
                if not args.quick and not args.no_graph_case:
                    results["defaults, scrolled to the step graph"] = _session(
                        browser, f"{server.url}/playground", server.process.pid, args.seconds, to_graph=True)
                if not args.quick:
                    results["largest (8x64, 1000 points, full batch)"] = _session(
                        browser, f"{server.url}/playground{LARGEST}", server.process.pid, args.seconds
                    )
                if not args.quick and not args.skip_pacing:
                    pacing = _pacing(browser, f"{server.url}/playground")
                    results["seconds_of_play_to_95_percent_test_accuracy"] = pacing
            finally:
                browser.close()
    finally:
        server.stop()
    print(f"Live playground in headless Chromium, app in {args.app_dir} ({args.seconds:g} s windows), "
          f"load average {os.getloadavg()}")
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
