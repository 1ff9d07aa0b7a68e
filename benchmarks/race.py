"""The optimiser race's cost: a 500-step race of four optimisers on the server, and the browser's frames/s.

Run: python benchmarks/race.py [--repeats 5] [--browser] [--seconds 6]

Server: Rosenbrock from (-1.5, 2), SGD, momentum, Nesterov and Adam, 500 steps each (explorer.race.course.run_race,
the function the page runs in a sandbox worker), its contour grid (race.grid), and the JSON the page sends
the browser (once per race: the browser plays it locally). Timed in this process (median of --repeats) and
once through the sandbox the page uses (a worker process, then its cache).

--browser: starts the app (the browser tests' server code) and opens the race in headless Chromium at
1280×800, plays the same race and counts the pictures drawn per second (the view's data-frames: one
Plotly.update of the paths, arrows and losses each) while it plays, at 1× (500 steps over ~8 s) and 4×.
Figures depend on the machine's load: record them with the command that made them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.race import course as race
from explorer.race import setup

KINDS = ("sgd", "momentum", "nesterov", "adam")


def the_race(steps: int = 500) -> race.Race:
    surface = race.SURFACES["rosenbrock"]
    return race.preset_race("rosenbrock", tuple(surface.runner(k) for k in KINDS), steps=steps)


def server(repeats: int = 5, steps: int = 500) -> dict:
    """Seconds for run_race and grid in this process (medians), the JSON's bytes, and the sandbox's first and
    cached call."""
    r = the_race(steps)
    times, grids = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        result = race.run_race(r)
        times.append(time.perf_counter() - start)
        start = time.perf_counter()
        picture = race.grid(r)
        grids.append(time.perf_counter() - start)
    payload = len(json.dumps({"grid": picture, "paths": result["paths"]}, separators=(",", ":")))
    from server.sandbox import Sandbox

    sandbox = Sandbox()
    try:
        sandbox.run(race.program_plane, r.text)  # the worker is started and has imported the engine
        start = time.perf_counter()
        sandbox.run(race.run_race, r)
        worker = time.perf_counter() - start
        start = time.perf_counter()
        sandbox.run(race.run_race, r)
        cached = time.perf_counter() - start
    finally:
        sandbox.close()
    return {"race": statistics.median(times), "grid": statistics.median(grids), "bytes": payload,
            "worker": worker, "cached": cached, "points": sum(len(p["x"]) for p in result["paths"])}


PLAY = """
([speed, ms]) => new Promise((resolve) => {
  const root = document.querySelector('[data-testid="optimiser-race"]');
  root.querySelector('select').value = String(speed);
  const frames0 = Number(root.dataset.frames), t0 = performance.now();
  root.querySelector('button.race-play').click();
  const done = () => {
    const t = performance.now() - t0;
    if (root.dataset.steps === root.querySelector('input[type=range]').max || t > ms) {
      resolve({frames: Number(root.dataset.frames) - frames0, ms: t, steps: Number(root.dataset.steps)});
    } else requestAnimationFrame(done);
  };
  requestAnimationFrame(done);
})
"""


def browser(seconds: float) -> list[dict]:
    from playwright.sync_api import sync_playwright

    from tests.browser import helpers
    from tests.browser.server import launch_chromium, start_streamlit

    app = start_streamlit("app.py")
    out = []
    try:
        with tempfile.TemporaryDirectory() as profile, sync_playwright() as p:
            chromium = launch_chromium(p, profile)
            page = chromium.new_page(viewport={"width": 1280, "height": 800})
            helpers.install_run_tracker(page)
            opt = setup.runners_text(the_race().runners)
            page.goto(f"{app.url}/optimiser_race?steps=500&opt={opt}", wait_until="domcontentloaded")
            page.locator('[data-testid="optimiser-race"] polyline[data-path-line]').first.wait_for(
                state="attached", timeout=60_000)
            helpers.wait_for_idle(page)
            for speed in (1, 4):
                page.locator('[data-testid="optimiser-race"] input[type=range]').evaluate(
                    "(s) => { s.value = 0; s.dispatchEvent(new Event('input')); }")
                result = page.evaluate(PLAY, [speed, seconds * 1000])
                out.append({"speed": speed} | result)
            chromium.close()
    finally:
        app.stop()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--browser", action="store_true")
    parser.add_argument("--seconds", type=float, default=10.0, help="at most this long per playing speed")
    args = parser.parse_args()
    s = server(args.repeats)
    print(f"500-step race of {len(KINDS)} optimisers on Rosenbrock ({s['points']:,} points):")
    print(f"  run_race in-process     {s['race'] * 1000:7.0f} ms (median of {args.repeats})")
    print(f"  contour grid            {s['grid'] * 1000:7.0f} ms")
    print(f"  through the sandbox     {s['worker'] * 1000:7.0f} ms (a worker), {s['cached'] * 1000:.1f} ms cached")
    print(f"  sent to the browser     {s['bytes'] / 1024:7.0f} KB of JSON, once per race")
    if args.browser:
        for b in browser(args.seconds):
            print(f"  browser, {b['speed']}x: {b['frames'] / b['ms'] * 1000:5.1f} pictures/s "
                  f"({b['frames']} in {b['ms'] / 1000:.1f} s, reached step {b['steps']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
