"""What "Show the backward as a graph" costs (issue 32): the server's work and the browser's.

Run: python benchmarks/backward_graph.py [--preset NAME] [--repeat 5] [--no-browser]
     python benchmarks/backward_graph.py --apptest ROOT [--preset NAME]   (the page in AppTest, from checkout ROOT)

Prints, for each preset (median of --repeat runs, in this process):
- the page's own evaluation (explorer.program.page_data.explorer_run: graph, steps, sliders, check) and what the
  switch adds on top (explorer.program.backward_view.backward_view: the backward recorded under create_graph and its
  DOT), the boxes drawn and the bytes of JSON sent to the graph view, with the switch off and on;
- "differentiate again" of the first leaf: the three-layer view and the second-order grads with their checks.
Then, in headless Chromium at 1280x800, for --preset (default: the largest), a fresh tab of the Explorer to the drawn
graph with and without `&backward=1` (median of 3), and the switch clicked to the backward's boxes drawn.
`--apptest ROOT` instead times the Explorer's whole run in Streamlit's AppTest (from the checkout at ROOT, e.g. main
in a temporary worktree for "before"), opened from a link, switch off and (where ROOT has it) on, median of --repeat.
Figures depend on the machine's load: record `uptime` with them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.program import backward_view, page_data, presets  # noqa: E402
from explorer.program import view_data as graph_data  # noqa: E402


def _median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def server_side(repeat: int) -> str:
    """Each preset: the page run, the switch's extra, differentiate again; returns the largest preset's name."""
    print(f"{'preset':28s} {'page run':>9s} {'+switch':>8s} {'+again':>8s} {'boxes':>11s} {'JSON off/on (KB)':>17s}")
    largest, most = None, -1
    for name in presets.names():
        text = presets.program(name)
        run = page_data.explorer_run(text)
        page_ms = _median_ms(lambda t=text: page_data.explorer_run(t), repeat)
        switch_ms = _median_ms(lambda t=text: backward_view.backward_view(t), repeat)
        view = backward_view.backward_view(text)
        if "none" in view:
            print(f"{name:28s} {page_ms:8.1f}ms  (no backward pass)")
            continue
        again = backward_view.choices(backward_view.layers(text)[0])[0]
        again_ms = _median_ms(lambda t=text, a=again: (backward_view.backward_view(t, (), a),
                                                       backward_view.second_order(t, (), a)), repeat)
        off = len(json.dumps(graph_data.view_data(run.graph, run.steps)))
        on = len(json.dumps(view))
        boxes = f"{len(run.graph.nodes)} → {len(view['boxes'])}"
        print(f"{name:28s} {page_ms:8.1f}ms {switch_ms:7.1f}ms {again_ms:7.1f}ms {boxes:>11s} "
              f"{off / 1000:8.1f} / {on / 1000:.1f}")
        if len(view["boxes"]) > most:
            largest, most = name, len(view["boxes"])
    return largest


def browser_side(preset: str) -> None:
    from tests.browser import helpers
    from tests.browser.server import app_in_chromium

    text = presets.program(preset)
    app = Path(__file__).resolve().parent.parent / "app.py"
    with app_in_chromium(app) as (server, browser):
        def fresh(query: str) -> float:
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            helpers.install_run_tracker(context)
            page = context.new_page()
            start = time.perf_counter()
            page.goto(f"{server.url}/?program={quote(text)}{query}", wait_until="domcontentloaded")
            helpers.wait_for_view(page, timeout=120_000)
            if query:
                page.locator('[data-testid="graph-view"] g.node[data-order="2"]').first.wait_for(timeout=120_000)
            seconds = time.perf_counter() - start
            context.close()
            return seconds

        fresh("")  # the server's first run of the page, its imports and caches
        off = [fresh("") for _ in range(3)]
        on = [fresh("&backward=1") for _ in range(3)]
        print(f"\n{preset}: fresh tab to the drawn graph, median of 3: switch off {statistics.median(off):.2f} s, "
              f"on {statistics.median(on):.2f} s")
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        helpers.install_run_tracker(context)
        page = context.new_page()
        clicks = []
        for _ in range(3):
            page.goto(f"{server.url}/?program={quote(text)}", wait_until="domcontentloaded")
            helpers.wait_for_view(page, timeout=120_000)
            helpers.wait_for_idle(page)
            start = time.perf_counter()
            page.locator(".st-key-explorer_backward label").click()
            page.locator('[data-testid="graph-view"] g.node[data-order="2"]').first.wait_for(timeout=120_000)
            helpers.wait_for_view(page, timeout=120_000)
            clicks.append(time.perf_counter() - start)
        print(f"{preset}: the switch clicked to the backward's boxes drawn, median of 3: "
              f"{statistics.median(clicks):.2f} s")
        context.close()


_APPTEST = """
import statistics, sys, time
sys.path.insert(0, ".")
from streamlit.testing.v1 import AppTest
from explorer.program import presets
text = presets.program(sys.argv[1])
for query in ({"program": text}, {"program": text, "backward": "1"}):
    shown = "on" if "backward" in query else "off"
    times = []
    for k in range(int(sys.argv[2])):
        at = AppTest.from_file("app.py", default_timeout=300)
        at.run()
        # NOTE: a comment of its own per run: the sandbox caches a program's evaluation by its text
        at.query_params.update({**query, "program": query["program"] + f"\\n# run {k} {shown}"})
        start = time.perf_counter()
        at.switch_page("pages/explorer.py").run()
        times.append(time.perf_counter() - start)
        assert not at.exception, at.exception
    print(f"the Explorer's run, link backward={shown}: median {statistics.median(times):.2f} s of {len(times)} "
          f"({', '.join(f'{t:.2f}' for t in times)})")
"""


def apptest_side(root: Path, preset: str, repeat: int) -> None:
    """The Explorer's whole run in AppTest, in a process of its own started in checkout ``root`` (so it imports that
    checkout's code, not this one's)."""
    import subprocess

    print(f"{root} ({preset}):", flush=True)
    subprocess.run([sys.executable, "-c", _APPTEST, preset, str(repeat)], cwd=root, check=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default=None)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--apptest", type=Path, default=None)
    args = parser.parse_args()
    if args.apptest is not None:
        apptest_side(args.apptest.resolve(), args.preset or "transformer training step", args.repeat)
        return 0
    largest = server_side(args.repeat)
    if not args.no_browser:
        browser_side(args.preset or largest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
