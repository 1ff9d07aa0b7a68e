"""Take the README screenshots: docs/screenshots/{explorer,stepper,poke,jacobian,playground,depth_lab,
forward-reverse-cost,practice,landscape,curvature}.png,
forward mode on both program pages ({explorer,stepper}_forward.png),
and the Explorer, the Stepper, the Playground, the cost tab, the forward walk and Practice (on a 390 px phone) in the
dark theme too (*-dark.png: PAGES).

Starts the app (the same server code the browser tests use), opens each page in headless
Chromium at 1280x800 (a presenter's screen), waits for its picture, and saves a screenshot.

    .venv/bin/python scripts/screenshots.py [--out docs/screenshots] [--train-seconds 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from urllib.parse import quote

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from tests.browser import helpers  # noqa: E402
from tests.browser.server import app_in_chromium, browser_unavailable_reason  # noqa: E402

VIEWPORT = {"width": 1280, "height": 800}
SHOTS = ("explorer", "stepper", "poke", "jacobian", "playground", "depth_lab", "forward-reverse-cost",
         "explorer_forward", "stepper_forward", "practice", "landscape", "predict", "twice",
         "backward_graph", "curvature")
PAGES = ("explorer", "stepper", "playground", "forward-reverse-cost", "stepper_forward", "practice",
         "predict", "backward_graph")  # dark too


def _settle(page, seconds: float = 0.5) -> None:
    """Let fonts, layout and animations finish before the picture is taken."""
    page.evaluate("document.fonts.ready")
    time.sleep(seconds)


def shoot_explorer(page, url: str, out: Path) -> None:
    """The micrograd preset as the page opens: the editor and the graph's pane on one screen."""
    helpers.open_page(page, url)
    helpers.wait_for_view(page, timeout=60_000)
    helpers.wait_for_text(page, "match central differences")
    _settle(page)
    page.screenshot(path=str(out))


def shoot_stepper(page, url: str, out: Path, steps: int = 3) -> None:
    # A few steps in, so the picture shows active, done and waiting nodes at once.
    helpers.open_page(page, f"{url}/stepper?step={steps}")
    helpers.wait_for_view(page, timeout=60_000, step=steps)
    _settle(page, 1.0)
    page.screenshot(path=str(out))


def shoot_poke(page, url: str, out: Path) -> None:
    """A poked value on the Backward Stepper: the sliders, the tangent and the contour plot in their drawer,
    over the graph they retext."""
    helpers.open_page(page, f"{url}/stepper?step=2&poke={quote('a=-2.5')}")
    helpers.wait_for_view(page, timeout=60_000, step=2)
    page.get_by_role("button", name="Poke the inputs").click()  # the drawer over the page
    page.locator('[data-testid="poke"] [data-testid="poke-contour"]').wait_for(timeout=60_000)
    helpers.wait_for_idle(page)
    _settle(page, 1.0)
    page.screenshot(path=str(out))


def shoot_jacobian(page, url: str, out: Path) -> None:
    """The Explorer's node inspector on the attention preset's softmax: its Jacobian, three dense blocks."""
    from explorer.program import presets
    from tests.support.helpers import traced

    program = presets.program("attention scores")
    softmax = next(n.id for n in traced(program).nodes if n.op == "softmax")
    helpers.open_page(page, f"{url}/?program={quote(program)}")
    helpers.wait_for_view(page, timeout=60_000)
    box = page.locator(f'[data-testid="graph-view"] g.node[data-node="{softmax}"]')
    helpers.wait_for_rerun(page, box.click)
    view = page.locator('[data-testid="jacobian"][data-op="softmax"]')
    view.wait_for(timeout=60_000)
    # its top at the top of the dock beside the graph (the dock scrolls; the page stays where it is)
    view.evaluate("""(el) => { const p = el.closest('[role="tabpanel"]');
        p.scrollTop += el.getBoundingClientRect().top - p.getBoundingClientRect().top - 8; }""")
    page.mouse.move(2, 400)  # the box's tooltip off the graph
    _settle(page, 1.0)
    page.screenshot(path=str(out))


def shoot_cost(page, url: str, out: Path) -> None:
    """The Explorer's Forward vs reverse tab on the attention preset (reverse mode wins, 36 inputs, 1 output)
    beside the lab at its start (n = 16, m = 64: forward mode wins), scrolled to the tab."""
    from explorer.program import presets

    helpers.open_page(page, f"{url}/?program={quote(presets.program('attention scores'))}")
    helpers.wait_for_view(page, timeout=60_000)
    helpers.wait_for_rerun(page, page.get_by_role("tab", name="Forward vs reverse").click)
    page.locator('[data-testid="ad-cost"]').wait_for(timeout=60_000)
    page.locator('[data-testid="ad-cost-lab"]').wait_for(timeout=60_000)
    page.locator('[data-testid="stPlotlyChart"] .main-svg').first.wait_for(timeout=60_000)
    helpers.wait_for_idle(page)
    tabs = page.locator('[data-testid="stTabs"]').first
    tabs.evaluate("(el) => { el.style.scrollMarginTop = '64px'; el.scrollIntoView({block: 'start'}); }")
    _settle(page, 1.0)
    page.screenshot(path=str(out))


def shoot_playground(page, url: str, out: Path, train_seconds: float, steps: int = 300) -> None:
    """Play until the run has taken `steps` steps (the boundary has formed), pause, and shoot."""
    helpers.open_page(page, f"{url}/playground?speed=100")
    view = page.locator('[data-testid="live-view"]')
    view.wait_for(timeout=60_000)
    helpers.button(page, "Play").first.click()
    page.wait_for_function(
        "(n) => { for (const el of document.querySelectorAll('*')) { const v = el.shadowRoot &&"
        " el.shadowRoot.querySelector('[data-testid=\"live-view\"]'); if (v) return Number(v.dataset.step) >= n; }"
        " return false; }",
        arg=steps, timeout=max(60_000, train_seconds * 1000),
    )
    helpers.button(page, "Pause").first.click()
    helpers.button(page, "Play").first.wait_for()
    _settle(page, 1.0)
    page.screenshot(path=str(out))


def shoot_landscape(page, url: str, out: Path, train_seconds: float = 3.0) -> None:
    """The Playground trained 300 steps at lr 0.3, paused, its Landscape tab open on the path's PCA plane."""
    helpers.open_page(page, f"{url}/playground?speed=100&lr=0.3")
    page.locator('[data-testid="live-view"]').wait_for(timeout=60_000)
    page.get_by_role("tab", name="Landscape").click()
    page.locator('[data-testid="landscape"]').wait_for(state="attached", timeout=60_000)
    page.get_by_text("PCA of the path", exact=True).click()
    helpers.button(page, "Play").first.click()
    page.wait_for_function(
        "() => Number(document.querySelector('[data-testid=\"landscape\"]')?.dataset.step) >= 300",
        timeout=max(90_000, train_seconds * 1000))
    helpers.button(page, "Pause").first.click()
    helpers.button(page, "Play").first.wait_for()
    helpers.wait_for_idle(page)
    page.wait_for_function("() => document.querySelector('[data-testid=\"landscape\"]')?.dataset.directions"
                           " === 'pca'")
    page.get_by_role("tab", name="Landscape").scroll_into_view_if_needed()
    page.locator('[data-testid="stMain"]').evaluate(
        "(m) => { const t = document.querySelector('[data-testid=\"stTabs\"]') ||"
        " document.querySelector('[role=\"tablist\"]'); (m.closest('[data-testid=\"stAppScrollToBottomContainer\"]')"
        " || m).scrollTop += t.getBoundingClientRect().top - 8; }")
    _settle(page, 1.5)
    page.screenshot(path=str(out))


def shoot_explorer_forward(page, url: str, out: Path) -> None:
    """The micrograd preset in forward mode along a: every box's tangent, and the line where the two modes meet."""
    helpers.open_page(page, f"{url}/?mode=forward&v={quote('input:a')}")
    helpers.wait_for_view(page, timeout=60_000, mode="forward")
    page.locator('[data-testid="ad-meeting"]').wait_for(timeout=60_000)
    _settle(page)
    page.screenshot(path=str(out))


def shoot_stepper_forward(page, url: str, out: Path, steps: int = 6) -> None:
    """The forward walk a few JVPs in, along b: tangents filled in parents first, the panel's JVP rule."""
    helpers.open_page(page, f"{url}/stepper?mode=forward&v={quote('input:b')}&step={steps}")
    helpers.wait_for_view(page, timeout=60_000, mode="forward", step=steps)
    _settle(page, 1.0)
    page.screenshot(path=str(out))


def shoot_depth_lab(page, url: str, out: Path) -> None:
    """The Initialisation & depth page at its defaults: tanh with N(0, 1) weights, 50 layers of 64."""
    helpers.open_page(page, f"{url}/depth_lab")
    page.locator('[data-testid="depth-lab"] [data-layer="50"]').wait_for(timeout=60_000)
    page.locator('[data-testid="stPlotlyChart"] .main-svg').first.wait_for(timeout=60_000)
    helpers.wait_for_idle(page)
    _settle(page, 1.0)
    page.screenshot(path=str(out))


def shoot_practice(page, url: str, out: Path) -> None:
    """Practice on the linear layer + ReLU with an attempt: rows right, a bias without its batch sum, a dW without
    ReLU's mask, the graph's boxes marked; in the dark theme on a 390 px phone, the answer lines."""
    from explorer.practice.exercises import EXERCISES

    answers = ("dloss = ones(loss.shape)\ndh = 2 * (h - 1.0) / 20 * dloss\ndz = dh * (z > 0)\ndb = dz\n"
               "dW = x.T @ dh\ndx = dz @ W.T")
    dark = page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches")
    if dark:
        page.set_viewport_size({"width": 390, "height": 844})
    program = EXERCISES["linear + ReLU"].program
    helpers.open_page(page, f"{url}/practice?program={quote(program)}&answers={quote(answers)}")
    helpers.wait_for_view(page, timeout=60_000)
    helpers.wait_for_idle(page)
    target = 'textarea[data-testid="practice-editor"]' if dark else '[data-testid="practice"]'
    page.locator(target).scroll_into_view_if_needed()
    _settle(page, 1.0)
    page.screenshot(path=str(out))

def shoot_curvature(page, url: str, out: Path) -> None:
    """The Explorer's Curvature tab on the layer-norm preset (16 input numbers: a saddle), the dock scrolled to the
    three ways' agreement, the Hessian's heatmap and its eigenvalues."""
    from explorer.program import presets

    helpers.open_page(page, f"{url}/?program={quote(presets.program('layer norm'))}")
    helpers.wait_for_view(page, timeout=60_000)
    helpers.wait_for_rerun(page, page.get_by_role("tab", name="Curvature").click)
    panel = page.locator('[data-testid="curvature"]')
    panel.wait_for(timeout=60_000)
    page.locator('.st-key-explorer_curvature_hessian [data-testid="stPlotlyChart"] .main-svg').first.wait_for(
        state="attached", timeout=60_000)
    helpers.wait_for_idle(page)
    page.locator('[data-testid="stAlert"]').last.evaluate("""(el) => { const p = el.closest('[role="tabpanel"]');
        p.scrollTop += el.getBoundingClientRect().top - p.getBoundingClientRect().top - 8; }""")
    _settle(page, 1.0)
    page.screenshot(path=str(out))


def shoot_backward_graph(page, url: str, out: Path) -> None:
    """The backward as a graph (issue 32) of the seed example: the forward's boxes and the backward's, each leaf's grad
    an output; in the dark theme on a 390 px phone, differentiated again (three layers and the second-order grads)."""
    from explorer.program.presets import PRESETS

    dark = page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches")
    if dark:
        page.set_viewport_size({"width": 390, "height": 844})
    again = "&again=a" if dark else ""
    helpers.open_page(page, f"{url}/?program={quote(PRESETS['seed example'][1])}&backward=1{again}")
    helpers.wait_for_view(page, timeout=60_000)
    page.locator('[data-testid="graph-view"] g.node[data-order="2"]').first.wait_for(timeout=60_000)
    helpers.wait_for_idle(page)
    if dark:
        page.locator('[data-testid="graph-view"]').scroll_into_view_if_needed()
    _settle(page, 1.0)
    page.screenshot(path=str(out))


def shoot_predict(page, url: str, out: Path) -> None:
    """Predict on the Stepper (broadcasting bias): step 3's prediction checked, the bias's the wrong shape and why;
    in the dark theme on a 390 px phone, step 2's question held, a prediction typed."""
    from explorer.program import presets

    dark = page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches")
    if dark:
        page.set_viewport_size({"width": 390, "height": 844})
    program = presets.program("broadcasting bias")
    helpers.open_page(page, f"{url}/stepper?program={quote(program)}&predict=on&step=1")
    helpers.wait_for_view(page, timeout=60_000, step=1, predict="on")
    helpers.wait_for_idle(page)
    panel = page.locator(helpers.PANEL)
    page.locator(f"{helpers.GRAPH} button.gv-next").click()
    panel.locator('[data-testid="predict"] input').first.fill("2 * t2 * G")
    if not dark:
        panel.locator('[data-testid="predict"] input').first.press("Enter")
        helpers.wait_for_view(page, step=2)
        page.locator(f"{helpers.GRAPH} button.gv-next").click()
        inputs = panel.locator('[data-testid="predict"] input')
        inputs.nth(0).fill("G")
        inputs.nth(1).fill("G")
        inputs.nth(1).press("Enter")
        helpers.wait_for_view(page, step=3)
    panel.locator('[data-testid="predict"]').scroll_into_view_if_needed()
    _settle(page, 1.0)
    page.screenshot(path=str(out))


def shoot_twice(page, url: str, out: Path) -> None:
    """The backward-twice scene under the Stepper: backward() called twice, every grad doubled."""
    helpers.open_page(page, f"{url}/stepper")
    helpers.wait_for_view(page, timeout=60_000)
    page.locator(".st-key-twice_on label").first.click()
    page.get_by_role("button", name="backward() again").click()
    page.wait_for_selector('[data-testid="backward-twice"][data-since-clear="2"]', state="attached")
    page.wait_for_function(f"() => document.querySelectorAll('{helpers.GRAPH}[data-ready=\"1\"]').length == 2")
    page.locator(".st-key-twice_graph").scroll_into_view_if_needed()
    page.mouse.wheel(0, -160)
    _settle(page, 1.0)
    page.screenshot(path=str(out))


#: How each screenshot but the Playground's (which trains first) is taken.
SHOOT = {"explorer": shoot_explorer, "stepper": shoot_stepper, "poke": shoot_poke, "jacobian": shoot_jacobian,
         "depth_lab": shoot_depth_lab, "forward-reverse-cost": shoot_cost, "explorer_forward": shoot_explorer_forward,
         "stepper_forward": shoot_stepper_forward, "practice": shoot_practice, "landscape": shoot_landscape,
         "predict": shoot_predict, "twice": shoot_twice, "backward_graph": shoot_backward_graph,
         "curvature": shoot_curvature}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "docs" / "screenshots")
    parser.add_argument("--train-seconds", type=float, default=3.0)
    parser.add_argument("--app", type=Path, default=REPO_ROOT / "app.py",
                        help="the Streamlit entry file (run from its own directory)")
    parser.add_argument("--only", choices=SHOTS, action="append",
                        help="take only this screenshot (repeatable)")
    args = parser.parse_args(argv)

    reason = browser_unavailable_reason()
    if reason:
        print(f"cannot take screenshots: {reason}", file=sys.stderr)
        return 2

    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    wanted = args.only or list(SHOTS)
    app = args.app.resolve()
    with app_in_chromium(app) as (server, browser):
        for name, scheme in [(n, s) for n in wanted for s in ("light", "dark") if s == "light" or n in PAGES]:
            context = browser.new_context(viewport=VIEWPORT, color_scheme=scheme)
            helpers.install_run_tracker(context)
            page = context.new_page()
            page.set_default_timeout(30_000)
            start = time.monotonic()
            path = out / f"{name}{'-dark' if scheme == 'dark' else ''}.png"
            if name == "playground":
                shoot_playground(page, server.url, path, args.train_seconds)
            else:
                SHOOT[name](page, server.url, path)
            print(f"{path}  ({time.monotonic() - start:.1f} s)")
            context.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
