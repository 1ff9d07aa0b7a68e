"""Forward mode as a user feels it, in a real browser: the switch's click to the graph of tangents, the Stepper's
key to the repainted step in forward mode against reverse mode, and what the server sends for each.

Run: python benchmarks/forward_mode.py [--quick]

It starts the app (the browser tests' server code), drives headless Chromium at 1280×800 and prints:
- Explorer: click on "forward (JVP)" to the graph redrawn with tangents (data-mode="forward", laid out), and
  back on "reverse (VJP)", median and max of several rounds, for micrograd and the 361-node program;
- Stepper: key (→) to repainted graph and panel, p50 / p95, in each mode (micrograd, 361-node program);
- the graph view's data for each mode and page, in KB of JSON (what one page run sends it).
Times are taken inside the page, as benchmarks/graph_view.py takes them (a requestAnimationFrame loop
from the event to the frame after the first one whose DOM shows the change). Figures depend on the
machine's load: record them with the command that made them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.graph_view import FRAME_TIMER, VIEWPORT, Probe, neurons_program, stepper_keys  # noqa: E402
from tests.browser import helpers  # noqa: E402
from tests.browser.server import app_in_chromium, browser_unavailable_reason  # noqa: E402

# Records the time of each click (capture phase, before any handler) for the in-page timer.
CLICK_CLOCK = """
(() => {
  window.__bench = window.__bench || {key: 0};
  window.addEventListener('click', () => { window.__bench.key = performance.now(); }, true);
})();
"""


def drawn_in(mode: str) -> str:
    """JS predicate source: the graph view is laid out in ``mode``."""
    return f"""() => {{
        const root = document.querySelector('[data-testid="graph-view"]');
        return !!root && root.dataset.mode === '{mode}' && root.dataset.ready === '1' &&
               !!root.querySelector('svg.gv-graph g.node');
    }}"""


def switch_times(browser, url: str, program: str, rounds: int) -> dict[str, list[float]]:
    context = browser.new_context(viewport=VIEWPORT)
    helpers.install_run_tracker(context)
    context.add_init_script(CLICK_CLOCK)
    page = context.new_page()
    page.set_default_timeout(120_000)
    times = {"forward": [], "reverse": []}
    try:
        helpers.open_page(page, f"{url}/?program={quote(program)}", timeout=120_000)
        helpers.wait_for_view(page, timeout=120_000, mode="reverse")
        for _ in range(rounds):
            for mode, label in (("forward", "forward (JVP)"), ("reverse", "reverse (VJP)")):
                page.locator(".st-key-explorer_ad_mode button", has_text=label).click()
                ms = page.evaluate(FRAME_TIMER, [drawn_in(mode), 60_000])
                if ms < 0:
                    raise RuntimeError(f"the {mode} graph was not drawn within 60 s")
                times[mode].append(ms)
                helpers.wait_for_idle(page, 60_000)
        return times
    finally:
        context.close()


def sent_kb(program: str) -> dict[str, float]:
    """KB of JSON the graph view is sent by one page run, per page and mode (with the DOT; a fragment's rerun
    with new numbers leaves the drawing out)."""
    from explorer.program import page_data
    from explorer.program import view_data as graph_data

    sizes = {}
    for page, run_of in (("Explorer", page_data.explorer_run), ("Stepper", page_data.stepper_run)):
        page_run = run_of(program, (), "ones")
        stepper = page == "Stepper"
        for mode, forward in (("reverse", None), ("forward", page_run.forward)):
            data = graph_data.view_data(page_run.graph, page_run.steps, stepper=stepper, forward=forward)
            if stepper:  # the Jacobians within the budget serve both walks
                data = graph_data.with_jacobians(data, page_run.jacobians)
            sizes[f"{page} {mode}"] = len(json.dumps(data)) / 1024
    return sizes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer presses and rounds")
    args = parser.parse_args(argv)
    reason = browser_unavailable_reason()
    if reason:
        print(f"cannot run: {reason}", file=sys.stderr)
        return 2

    from explorer.program import presets

    presses, rounds = (8, 2) if args.quick else (20, 5)
    programs = (("micrograd", presets.program("micrograd")), ("361-node", neurons_program()))
    print("forward mode benchmark")
    for name, program in programs:
        sizes = ", ".join(f"{k} {v:.0f} KB" for k, v in sent_kb(program).items())
        print(f"  graph view data, {name:<10} {sizes}")
    with app_in_chromium(Path(__file__).resolve().parent.parent / "app.py") as (server, browser):
        for name, program in programs:
            times = switch_times(browser, server.url, program, rounds)
            for mode, ms in times.items():
                print(f"  Explorer click → {mode:<7} graph, {name:<10} median {statistics.median(ms):.0f} ms, "
                      f"max {max(ms):.0f} ms ({len(ms)} clicks)")
        for name, program in programs:
            for direction in (None, "ones"):
                r = stepper_keys(browser, server.url, Probe(), program, presses, direction)
                mode = "reverse" if direction is None else "forward"
                print(f"  Stepper key → repaint, {mode:<7} {name:<10} ({r['steps']} steps): "
                      f"p50 {r['p50_ms']:.0f} ms, p95 {r['p95_ms']:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
