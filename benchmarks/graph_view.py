"""The graph view in a real browser: stepper key → repaint, Play rate, Explorer edit → graph, first load,
and how big node text is drawn.

Run: python benchmarks/graph_view.py [--app PATH] [--legacy] [--quick]

It starts the app (the browser tests' server code), drives headless Chromium at 1280×800 and prints:
- Stepper: key (→) to repainted graph and panel, p50 / p95 over 20 presses, for the micrograd preset,
  the 6-layer MLP below and a 361-node program (40 scalar tanh neurons summed, 239 steps);
- Play asked for 8 and 20 steps/s: steps/s delivered over 5 s (361-node program);
- Explorer: edit (Ctrl+Enter) to the full graph of the 6-layer MLP and of micrograd (median of 5);
- first load of / to the drawn graph (median of 3 fresh tabs);
- node text size in px (font size × screen scale) of the 6-layer MLP at 1280×800 and of micrograd
  at 420 px wide, as the graph opens;
- fan-out: a fresh tab of the Explorer to every box drawn for x feeding the 360 adds of four chains of 90
  (361 boxes) and the 1,080 adds of twelve (summarised to 399 boxes), each given at most `--fan-out-cap`
  seconds (before the tags in explorer/graph/dot.py neither finished in 240 s). `--fan-out` prints only these.
- inspector: a click on a box of the 6-layer MLP to the dock's inspector showing that node (in the window, the
  page not scrolled, held 500 ms), with the inspector's code on time and 2 s late (median of 5 fresh tabs, or 2
  with --quick). `--inspect` prints only these.
Times are taken inside the page: a requestAnimationFrame loop started at the key press finds the first
frame whose DOM shows the new step, and the time is read at the start of the frame after it (the
changed frame has been rendered by then). `--legacy` drives the pages as they were before the graph
view (st.graphviz_chart, Streamlit buttons), to measure "before" on an older checkout given by
`--app`. Figures depend on the machine's load: record them with the command that made them.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import quote

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.browser import helpers  # noqa: E402
from tests.browser.server import app_in_chromium, browser_unavailable_reason  # noqa: E402

#: The issue's 6-layer MLP (35 tensors).
MLP6 = """\
x = randn(8, 4)
target = randn(8, 1)
W1 = randn(4, 16) * 0.5
b1 = zeros(16)
W2 = randn(16, 16) * 0.25
b2 = zeros(16)
W3 = randn(16, 16) * 0.25
b3 = zeros(16)
W4 = randn(16, 16) * 0.25
b4 = zeros(16)
W5 = randn(16, 16) * 0.25
b5 = zeros(16)
W6 = randn(16, 1) * 0.25
b6 = zeros(1)
h1 = tanh(x @ W1 + b1)
h2 = tanh(h1 @ W2 + b2)
h3 = tanh(h2 @ W3 + b3)
h4 = tanh(h3 @ W4 + b4)
h5 = tanh(h4 @ W5 + b5)
pred = h5 @ W6 + b6
loss = ((pred - target) ** 2).mean()
"""


def neurons_program(n: int = 40, seed: int = 0) -> str:
    """``n`` scalar tanh neurons of two inputs, summed: 9n + 1 tensors (361 for 40), 6n - 1 backward steps."""
    rng = np.random.default_rng(seed)
    lines = ["x1 = 0.5", "x2 = -1.5"]
    for i in range(1, n + 1):
        wa, wb, b = (round(float(v), 3) for v in rng.normal(0.0, 0.7, 3))
        lines += [f"w{i}a = {wa}", f"w{i}b = {wb}", f"b{i} = {b}", f"n{i} = tanh(w{i}a * x1 + w{i}b * x2 + b{i})"]
    lines.append("y = " + " + ".join(f"n{i}" for i in range(1, n + 1)))
    return "\n".join(lines) + "\n"


VIEWPORT = {"width": 1280, "height": 800}
PHONE = {"width": 420, "height": 860}

# Records the time of each key press (capture phase, before any handler) for the in-page timer.
KEY_CLOCK = """
(() => {
  window.__bench = {key: 0};
  window.addEventListener('keydown', () => { window.__bench.key = performance.now(); }, true);
})();
"""

# Milliseconds from the last key press to the frame after the first one whose DOM shows `done()`:
# the DOM is checked at the start of each animation frame, and the next frame's start is when the
# frame with the change has been rendered.
FRAME_TIMER = """
([source, timeoutMs]) => new Promise((resolve) => {
  const done = new Function('return (' + source + ')();');
  const start = window.__bench.key;
  const tick = () => {
    let ok = false;
    try { ok = done(); } catch (e) { ok = false; }
    const now = performance.now();
    if (ok) requestAnimationFrame(() => resolve(performance.now() - start));
    else if (now - start > timeoutMs) resolve(-1);
    else requestAnimationFrame(tick);
  };
  tick();
})
"""

NODE_TEXT_PX = """
(svgSelector) => {
  const svg = document.querySelector(svgSelector);
  if (!svg) return null;
  const sizes = [...svg.querySelectorAll('g.node text')].filter((t) => t.textContent.trim())
    .map((t) => parseFloat(t.getAttribute('font-size') || '14') * t.getScreenCTM().a);
  sizes.sort((a, b) => a - b);
  if (!sizes.length) return null;
  return {min: sizes[0], median: sizes[Math.floor(sizes.length / 2)], max: sizes[sizes.length - 1]};
}
"""


class Probe:
    """How to read the graph view's pages (see Legacy for the pages before it)."""

    svg = '[data-testid="graph-view"] svg.gv-graph'

    def graph_drawn(self, nodes: int, marker: str) -> str:
        """JS predicate source: the graph shows `nodes` boxes and a box containing `marker`."""
        return f"""() => {{
            const root = document.querySelector('[data-testid="graph-view"]');
            const svg = document.querySelector({self.svg!r});
            if (!root || !svg || root.dataset.ready !== '1') return false;
            const boxes = svg.querySelectorAll('g.node');
            return boxes.length === {nodes} && [...boxes].some((g) => g.textContent.includes({marker!r}));
        }}"""

    def open_stepper(self, page, url: str) -> int:
        page.wait_for_selector('[data-testid="graph-view"][data-ready="1"]', state="attached", timeout=120_000)
        return int(page.get_attribute('[data-testid="graph-view"]', "data-steps"))

    def at_step(self, k: int, node: int, total: int) -> str:
        return f"""() => {{
            const root = document.querySelector('[data-testid="graph-view"]');
            const panel = document.querySelector('[data-testid="graph-view-panel"]');
            const active = root && root.querySelector('g.node.active');
            return root.dataset.step === '{k}' && panel && panel.dataset.step === '{k}' &&
                   active && active.dataset.node === '{node}';
        }}"""

    def step(self, page) -> int:
        return int(page.get_attribute('[data-testid="graph-view"]', "data-step"))

    def play(self, page, speed: float) -> None:
        page.locator('[data-testid="graph-view"] select.gv-speed').select_option(str(int(speed)))
        page.locator('[data-testid="graph-view"] button.gv-play').click()

    def pause(self, page) -> None:
        page.locator('[data-testid="graph-view"] button.gv-play').click()


class Legacy(Probe):
    """The pages before the graph view: st.graphviz_chart, Streamlit buttons and slider."""

    svg = '[data-testid="stGraphVizChart"] svg'

    def graph_drawn(self, nodes: int, marker: str) -> str:
        return f"""() => {{
            const svg = document.querySelector({self.svg!r});
            if (!svg) return false;
            const boxes = svg.querySelectorAll('g.node');
            return boxes.length === {nodes} && [...boxes].some((g) => g.textContent.includes({marker!r}));
        }}"""

    def open_stepper(self, page, url: str) -> int:
        page.wait_for_selector(f"{self.svg} g.node", state="attached", timeout=120_000)
        helpers.wait_for_text(page, "Seed:")
        label = page.get_by_text("Step (of ").first.inner_text()
        return int(label.split("of ")[1].split(")")[0])

    def at_step(self, k: int, node: int, total: int) -> str:
        return f"""() => {{
            const main = document.querySelector('[data-testid="stMain"]');
            if (!main || !main.innerText.includes('Step {k} of {total}:')) return false;
            const g = [...document.querySelectorAll({self.svg!r} + ' g.node')]
                .find((n) => (n.querySelector('title') || {{}}).textContent === 'n{node}');
            const fills = g ? [...g.querySelectorAll('path, polygon')].map((s) => s.getAttribute('fill') || '') : [];
            return fills.some((fill) => fill.toLowerCase() === '#fde047');
        }}"""

    def step(self, page) -> int:
        found = re.search(r"Step (\d+) of \d+:", helpers.main_text(page))
        return int(found.group(1)) if found else 0

    def play(self, page, speed: float) -> None:
        if speed > 8:
            raise ValueError("the old stepper plays at most 8 steps/s")
        thumb = page.get_by_role("slider", name="Play speed", exact=False).first
        thumb.focus()
        helpers.wait_for_rerun(page, lambda: thumb.press("End"))  # 8 steps/s, its fastest
        helpers.wait_for_rerun(page, helpers.button(page, "Play").first.click)

    def pause(self, page) -> None:
        helpers.button(page, "Pause").first.click()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def stepper_keys(browser, url: str, probe: Probe, program: str, presses: int, direction: str | None = None) -> dict:
    """Key (→) to the repainted step, p50 / p95 / max over ``presses`` steps; in forward mode along ``direction``
    (its URL form) with it."""
    from explorer.program import page_data

    page_run = page_data.stepper_run(program, (), direction)
    steps = page_run.steps if direction is None else page_run.forward.steps
    mode = "" if direction is None else f"&mode=forward&v={quote(direction)}"
    context = browser.new_context(viewport=VIEWPORT)
    helpers.install_run_tracker(context)
    context.add_init_script(KEY_CLOCK)
    page = context.new_page()
    page.set_default_timeout(120_000)
    try:
        page.goto(f"{url}/stepper?program={quote(program)}{mode}", wait_until="domcontentloaded")
        total = probe.open_stepper(page, url)
        assert total == len(steps), (total, len(steps))
        page.wait_for_timeout(500)
        times = []
        for k in range(1, min(presses, total) + 1):
            page.keyboard.press("ArrowRight")
            ms = page.evaluate(FRAME_TIMER, [probe.at_step(k, steps[k - 1].node, total), 60_000])
            if ms < 0:
                raise RuntimeError(f"step {k} was not drawn within 60 s")
            times.append(ms)
            page.wait_for_timeout(50)
        return {"steps": total, "p50_ms": statistics.median(times), "p95_ms": percentile(times, 0.95),
                "max_ms": max(times)}
    finally:
        context.close()


def play_rate(browser, url: str, probe: Probe, program: str, speed: float, seconds: float = 5.0) -> float:
    context = browser.new_context(viewport=VIEWPORT)
    helpers.install_run_tracker(context)
    page = context.new_page()
    page.set_default_timeout(120_000)
    try:
        page.goto(f"{url}/stepper?program={quote(program)}", wait_until="domcontentloaded")
        probe.open_stepper(page, url)
        probe.play(page, speed)
        page.wait_for_timeout(500)  # past the first step
        first, t0 = probe.step(page), time.monotonic()
        page.wait_for_timeout(seconds * 1000)
        last, t1 = probe.step(page), time.monotonic()
        probe.pause(page)
        return (last - first) / (t1 - t0)
    finally:
        context.close()


def explorer_edits(browser, url: str, probe: Probe, rounds: int) -> dict:
    from explorer.program import presets
    from tests.support.helpers import traced

    cases = {
        "6-layer MLP": (MLP6, "h5"),
        "micrograd": (presets.program("micrograd"), "24.7"),
    }
    sizes = {name: len(traced(text).nodes) for name, (text, _) in cases.items()}
    context = browser.new_context(viewport=VIEWPORT)
    helpers.install_run_tracker(context)
    page = context.new_page()
    page.set_default_timeout(120_000)
    seconds = {name: [] for name in cases}
    try:
        helpers.open_page(page, url)
        page.wait_for_function(probe.graph_drawn(sizes["micrograd"], "24.7"), timeout=120_000, polling="raf")
        box = helpers.text_area(page, "Program")
        for r in range(rounds):
            for name, (text, marker) in cases.items():
                box.fill(text + f"# edit {r}\n")  # a new text each time: no cached analysis
                start = time.monotonic()
                box.press("Control+Enter")
                page.wait_for_function(probe.graph_drawn(sizes[name], marker), timeout=120_000, polling="raf")
                seconds[name].append(time.monotonic() - start)
                helpers.wait_for_idle(page, 120_000)
        return {name: statistics.median(s) for name, s in seconds.items()}
    finally:
        context.close()


def first_load(browser, url: str, probe: Probe, rounds: int) -> float:
    from explorer.program import presets
    from tests.support.helpers import traced

    nodes = len(traced(presets.program("micrograd")).nodes)
    times = []
    for _ in range(rounds):
        context = browser.new_context(viewport=VIEWPORT)
        page = context.new_page()
        try:
            start = time.monotonic()
            page.goto(url, wait_until="commit")
            page.wait_for_function(probe.graph_drawn(nodes, "24.7"), timeout=120_000, polling="raf")
            times.append(time.monotonic() - start)
        finally:
            context.close()
    return statistics.median(times)


def text_size(browser, url: str, probe: Probe, program: str, viewport: dict, marker: str) -> dict:
    from tests.support.helpers import traced

    nodes = len(traced(program).nodes)
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.set_default_timeout(120_000)
    try:
        page.goto(f"{url}/?program={quote(program)}", wait_until="commit")
        page.wait_for_function(probe.graph_drawn(nodes, marker), timeout=120_000, polling="raf")
        page.wait_for_timeout(1000)  # the width settles (scrollbars, fonts)
        return page.evaluate(NODE_TEXT_PX, probe.svg)
    finally:
        context.close()


def fan_out(browser, url: str, program: str, cap_s: float) -> float | None:
    """Seconds from a fresh tab of the Explorer on ``program`` to every box drawn (tags aside), None past
    ``cap_s``."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    from explorer.graph import dot
    from explorer.program import view_data as graph_data
    from tests.support.helpers import traced

    drawing = dot.plan(traced(program), max_nodes=graph_data.MAX_DRAWN)
    boxes = len(drawing.boxes) + (drawing.notice is not None)
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    try:
        start = time.monotonic()
        page.goto(f"{url}/?program={quote(program)}", wait_until="commit")
        page.wait_for_function(
            """([sel, n]) => document.querySelectorAll(sel).length === n""",
            arg=[f"{Probe.svg} g.node[data-node]", boxes], timeout=cap_s * 1000, polling="raf")
        return time.monotonic() - start
    except PlaywrightTimeout:
        return None
    finally:
        context.close()


def fan_out_lines(browser, url: str, cap_s: float) -> None:
    from tests.support.helpers import fan_out_program

    for label, program in (("x feeding 360 adds (361 boxes)", fan_out_program(4, 90)),
                           ("x feeding 1,080 adds (399 of 1,081)", fan_out_program(12, 90))):
        seconds = fan_out(browser, url, program, cap_s)
        said = f"{seconds:.2f} s" if seconds is not None else f"not drawn within {cap_s:g} s"
        print(f"  fan-out, {label}, fresh tab to drawn: {said}", flush=True)


# Milliseconds from the press on box `node` to the first frame of a run of `holdMs` in which the dock's inspector
# shows that node (its content visible, in the window) with the page not scrolled, and the page's scroll then
# (px); -1 if that never happened within `capMs`.
INSPECTOR_IN_VIEW = """
([node, holdMs, capMs]) => new Promise((resolve) => {
  const main = () => document.querySelector('[data-testid="stMain"]').scrollTop;
  const shown = () => {
    const e = document.querySelector('.st-key-explorer_inspecting_' + node);
    if (!e || !e.checkVisibility({visibilityProperty: true})) return false;
    const r = e.getBoundingClientRect();
    return r.height > 0 && r.top >= 0 && r.top < innerHeight && r.right <= innerWidth;
  };
  const t0 = window.__pressedAt;
  let since = null;
  const tick = () => {
    const now = performance.now();
    since = shown() && main() === 0 ? (since ?? now) : null;
    if (since !== null && now - since >= holdMs) resolve({ms: since - t0, scroll: main()});
    else if (now - t0 > capMs) resolve({ms: -1, scroll: main()});
    else requestAnimationFrame(tick);
  };
  tick();
})
"""


def inspector_scroll(browser, url: str, rounds: int, late_s: float) -> dict:
    """A click on the first box of the 6-layer MLP at 1280×800: ms to the dock's inspector showing that node (in
    the window, held 500 ms, the page not scrolled), median of ``rounds`` fresh tabs, and how many never got there
    within 10 s; with the inspector's Jacobian code on time and ``late_s`` late."""
    from tests.support.helpers import traced

    drawn, results = Probe().graph_drawn(len(traced(MLP6).nodes), "h5"), {}
    for late in (0.0, late_s):
        times, missed, scrolls = [], 0, []
        for _ in range(rounds):
            context = browser.new_context(viewport=VIEWPORT)
            helpers.install_run_tracker(context)
            page = context.new_page()
            page.set_default_timeout(120_000)
            try:
                helpers.open_page(page, f"{url}/?program={quote(MLP6)}")
                page.wait_for_function(drawn, timeout=120_000, polling="raf")
                helpers.wait_for_idle(page, 120_000)
                if late:
                    helpers.hold_back(page, helpers.JACOBIAN_CODE, late)
                page.evaluate("document.addEventListener('pointerdown', () => { window.__pressedAt ="
                              " performance.now(); }, {capture: true, once: true})")
                box = page.locator(f"{helpers.GRAPH} g.node").first
                node = box.get_attribute("data-node")
                box.click()
                seen = page.evaluate(INSPECTOR_IN_VIEW, [node, 500, 10_000])
                scrolls.append(seen["scroll"])
                if seen["ms"] < 0:
                    missed += 1
                else:
                    times.append(seen["ms"])
            finally:
                context.close()
        results[late] = {"median_ms": statistics.median(times) if times else None, "missed": missed,
                         "scroll": max(scrolls)}
    return results


def inspector_lines(browser, url: str, rounds: int) -> None:
    for late, r in inspector_scroll(browser, url, rounds, late_s=2.0).items():
        label = f"its code {late:g} s late" if late else "its code on time"
        when = f"{r['median_ms']:.0f} ms" if r["median_ms"] is not None else "never"
        print(f"  click on a box → the dock's inspector shows it ({label}): {when} (median; {r['missed']} of"
              f" {rounds} never within 10 s; the page scrolled at most {r['scroll']:.0f} px)", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app", type=Path, default=Path(__file__).resolve().parent.parent / "app.py")
    parser.add_argument("--legacy", action="store_true", help="drive the pages as they were before the graph view")
    parser.add_argument("--quick", action="store_true", help="fewer presses and rounds")
    parser.add_argument("--fan-out", action="store_true", help="only the fan-out programs' time to drawn")
    parser.add_argument("--fan-out-cap", type=float, default=240.0, help="seconds the fan-out programs get")
    parser.add_argument("--inspect", action="store_true", help="only the click on a box → the dock's inspector")
    args = parser.parse_args(argv)
    reason = browser_unavailable_reason()
    if reason:
        print(f"cannot run: {reason}", file=sys.stderr)
        return 2

    from explorer.program import presets

    probe = Legacy() if args.legacy else Probe()
    presses, rounds = (8, 2) if args.quick else (20, 5)
    app = args.app.resolve()
    print(f"graph view benchmark ({'legacy pages' if args.legacy else 'graph view'}, {app})")
    with app_in_chromium(app) as (server, browser):
        if args.fan_out:
            fan_out_lines(browser, server.url, args.fan_out_cap)
            return 0
        if args.inspect:
            inspector_lines(browser, server.url, rounds)
            return 0
        load = first_load(browser, server.url, probe, 1 if args.quick else 3)
        print(f"  first load of / to the drawn graph:        {load:.2f} s")
        for name, program in (
            ("micrograd", presets.program("micrograd")),
            ("6-layer MLP", MLP6),
            ("361-node", neurons_program()),
        ):
            r = stepper_keys(browser, server.url, probe, program, presses)
            print(f"  stepper key → repaint, {name:<12} ({r['steps']} steps): p50 {r['p50_ms']:.0f} ms, "
                  f"p95 {r['p95_ms']:.0f} ms, max {r['max_ms']:.0f} ms")
        for speed in (8.0, 20.0):
            if args.legacy and speed > 8:
                print(f"  Play at {speed:g} steps/s: not offered")
                continue
            rate = play_rate(browser, server.url, probe, neurons_program(), speed)
            print(f"  Play asked for {speed:g} steps/s delivers:      {rate:.1f} steps/s (361-node, over 5 s)")
        if args.legacy:  # the old Play on a program it can redraw in time
            rate = play_rate(browser, server.url, probe, MLP6, 8.0, seconds=2.0)
            print(f"  Play asked for 8 steps/s delivers:      {rate:.1f} steps/s (6-layer MLP, over 2 s)")
        edits = explorer_edits(browser, server.url, probe, rounds)
        for name, seconds in edits.items():
            print(f"  Explorer edit → full graph, {name:<12}  {seconds:.2f} s")
        for label, program, viewport, marker in (
            ("6-layer MLP at 1280×800", MLP6, VIEWPORT, "h5"),
            ("micrograd at 420 px", presets.program("micrograd"), PHONE, "24.7"),
        ):
            px = text_size(browser, server.url, probe, program, viewport, marker)
            print(f"  node text, {label}:  min {px['min']:.1f} px, median {px['median']:.1f} px, "
                  f"max {px['max']:.1f} px")
        fan_out_lines(browser, server.url, args.fan_out_cap)
        if not args.legacy:
            inspector_lines(browser, server.url, rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
