"""Poking an input in a real browser: full updates per second while a slider is dragged.

Run: python benchmarks/poke.py [--seconds 5] [--app PATH]

It starts the app (the browser tests' server code) and opens the micrograd preset in headless Chromium at
1280×800, on the Expression Explorer and on the Backward Stepper. There it drags the slider of `a` back and
forth for `--seconds`: the page moves the slider one step every animation frame (~60 Hz), as a hand
dragging it does, and the view sends values to the server one at a time (the next when the last is
answered). A *full update* is one answer drawn: the graph's values and grads retexted in place (the
graph view's `data-updates`) and the sliders, tangent point and slope redrawn (the poke view's
`data-answered`), from the same server run. It prints, per page:
- full updates per second while dragging (answers drawn; and graph repaints, which must match them),
- the time from a value sent to its answer drawn, p50 / p95,
- graph layouts made during the drag (must stay 0: values change in place),
- the server's CPU (percent of one core) and the bytes per second it sent, over the drag,
- that the numbers drawn at the end are the engine's for the slider's last value.
The target (issue 12) is ≥ 10 full updates per second on the micrograd preset. Figures depend on the
machine's load: record them with the command that made them.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.browser.server import app_in_chromium, browser_unavailable_reason  # noqa: E402

VIEWPORT = {"width": 1280, "height": 800}
POKE = '[data-testid="poke"]'
GRAPH = '[data-testid="graph-view"]'

# Moves slider `name` one step per animation frame between two fractions of its range for `ms`
# milliseconds, recording when each value was sent and when each answer and graph repaint was drawn.
DRAG = """
([name, ms]) => new Promise((resolve) => {
  const poke = document.querySelector('[data-testid="poke"]');
  const graph = document.querySelector('[data-testid="graph-view"]');
  const slider = poke.querySelector(`[data-testid="poke-slider"][data-name="${name}"] input`);
  const lo = Number(slider.min), hi = Number(slider.max), step = Number(slider.step);
  const a = lo + 0.35 * (hi - lo), b = lo + 0.65 * (hi - lo);
  const log = {sent: [], answered: [], repaints: [], layouts0: graph.dataset.layouts, values: []};
  const watch = new MutationObserver(() => {
    const now = performance.now();
    const s = Number(poke.dataset.sent), ans = Number(poke.dataset.answered), rep = Number(graph.dataset.updates);
    if (!log.sent.length || log.sent[log.sent.length - 1][1] !== s) log.sent.push([now, s]);
    if (!log.answered.length || log.answered[log.answered.length - 1][1] !== ans) log.answered.push([now, ans]);
    if (!log.repaints.length || log.repaints[log.repaints.length - 1][1] !== rep) log.repaints.push([now, rep]);
  });
  watch.observe(poke, {attributes: true, attributeFilter: ['data-sent', 'data-answered']});
  watch.observe(graph, {attributes: true, attributeFilter: ['data-updates']});
  const start = performance.now();
  let value = Number(slider.value), dir = 1;
  const frame = () => {
    const now = performance.now();
    if (now - start > ms) {
      watch.disconnect();
      log.start = start;
      log.end = now;
      log.last = slider.value;
      log.layouts1 = graph.dataset.layouts;
      resolve(log);
      return;
    }
    value += dir * step;
    if (value > b) dir = -1;
    if (value < a) dir = 1;
    slider.value = String(value);
    slider.dispatchEvent(new Event('input', {bubbles: true}));
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
})
"""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def drag(browser, url: str, path: str, program: str, seconds: float, server_pid: int) -> dict:
    import psutil

    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(120_000)
    try:
        page.goto(f"{url}{path}?program={quote(program)}", wait_until="domcontentloaded")
        page.wait_for_selector(f'{GRAPH}[data-ready="1"]', timeout=120_000)
        page.wait_for_selector(f'{POKE} [data-testid="poke-curve"]', timeout=120_000)
        page.wait_for_timeout(1500)  # the page settles (first full run done)
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        received = []
        cdp.on("Network.webSocketFrameReceived", lambda e: received.append(len(e["response"]["payloadData"])))
        # A first move starts the drag: its answer computes the pictures' curve (cached afterwards).
        page.evaluate(DRAG, ["a", 400])
        page.wait_for_function(f"() => document.querySelector('{POKE}').dataset.sent === "
                               f"document.querySelector('{POKE}').dataset.answered", timeout=60_000)
        received.clear()
        server = psutil.Process(server_pid)
        cpu0 = sum(server.cpu_times()[:2])
        t0 = time.monotonic()
        log = page.evaluate(DRAG, ["a", seconds * 1000])
        wall = time.monotonic() - t0
        cpu = (sum(server.cpu_times()[:2]) - cpu0) / wall
        bytes_sent = sum(received)
        # settle: the last value answered and the final (whole page) run done
        page.wait_for_function(f"() => document.querySelector('{POKE}').dataset.sent === "
                               f"document.querySelector('{POKE}').dataset.answered", timeout=60_000)
        page.wait_for_timeout(2000)
        drawn = page.evaluate(
            """() => [...document.querySelectorAll('[data-testid="graph-view"] g.node')]
                 .map((g) => g.textContent.replace(/\\s+/g, ' ').trim())"""
        )
        value = float(page.locator(f'{POKE} [data-testid="poke-slider"][data-name="a"] input').input_value())
    finally:
        context.close()
    span = (log["end"] - log["start"]) / 1000
    answers = [n for t, n in log["answered"] if log["start"] <= t <= log["end"]]
    repaints = [n for t, n in log["repaints"] if log["start"] <= t <= log["end"]]
    sent_at = {}
    for t, n in log["sent"]:
        sent_at.setdefault(n, t)
    latency = [t - sent_at[n] for t, n in log["answered"] if n in sent_at and log["start"] <= t <= log["end"]]
    return {
        "updates_per_s": len(answers) / span,
        "repaints_per_s": len(repaints) / span,
        "latency_p50_ms": statistics.median(latency) if latency else float("nan"),
        "latency_p95_ms": percentile(latency, 0.95) if latency else float("nan"),
        "layouts": int(log["layouts1"]) - int(log["layouts0"]),
        "cpu": cpu,
        "kb_per_s": bytes_sent / 1024 / wall,
        "value": value,
        "drawn": drawn,
    }


def engine_numbers(program: str, a: float) -> list[str]:
    """What the graph's boxes must show for a = `a`: every box's data line (the grads depend on the stepper's
    position), as explorer.program.view_data.value_texts writes them (constants show their value unlabelled)."""
    from explorer.program.run import step_program
    from explorer.program.view_data import value_texts

    graph, _ = step_program(program, (("a", a),))
    return sorted("data " + " ".join(texts["d"]) for box, texts in value_texts(graph).items()
                  if graph.nodes[int(box)].kind != "const")


def drawn_data(boxes: list[str]) -> list[str]:
    """The data line of each drawn box's text (``… data -4.5 grad …`` -> ``data -4.5``)."""
    lines = []
    for text in boxes:
        if " data " in f" {text}":
            after = text.split("data ", 1)[1]
            lines.append("data " + after.split(" grad", 1)[0].strip())
    return sorted(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app", type=Path, default=Path(__file__).resolve().parent.parent / "app.py")
    parser.add_argument("--seconds", type=float, default=5.0, help="how long each drag lasts")
    args = parser.parse_args(argv)
    reason = browser_unavailable_reason()
    if reason:
        print(f"cannot run: {reason}", file=sys.stderr)
        return 2
    import os

    from explorer.program import presets

    program = presets.program("micrograd")
    app = args.app.resolve()
    print(f"poke benchmark: drag a on the micrograd preset for {args.seconds:g} s ({app}; load average "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())})")
    with app_in_chromium(app) as (server, browser):
        for label, path in (("Explorer", "/"), ("Stepper", "/stepper")):
            r = drag(browser, server.url, path, program, args.seconds, server.process.pid)
            drawn, engine = drawn_data(r["drawn"]), engine_numbers(program, r["value"])
            right = drawn == engine
            print(f"  {label:<8} full updates while dragging: {r['updates_per_s']:.1f}/s "
                  f"(graph repaints {r['repaints_per_s']:.1f}/s); value sent → drawn p50 "
                  f"{r['latency_p50_ms']:.0f} ms, p95 {r['latency_p95_ms']:.0f} ms; layouts during the drag "
                  f"{r['layouts']}; server CPU {100 * r['cpu']:.0f} % of a core, {r['kb_per_s']:.0f} KB/s; "
                  f"numbers at a = {r['value']:g} {'are' if right else 'are NOT'} the engine's")
            if not right:
                print(f"    drawn:  {drawn}\n    engine: {engine}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
