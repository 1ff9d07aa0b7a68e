"""Small Playwright helpers for driving a Streamlit page: wait for reruns, graphs, widgets."""

from __future__ import annotations

import contextlib
import json
import re
import time
from pathlib import Path
from urllib.parse import parse_qs, urlparse

GRAPH = '[data-testid="graph-view"]'
GRAPH_NODES = f"{GRAPH} svg.gv-graph g.node"
GRAPH_EDGES = f"{GRAPH} svg.gv-graph g.edge"
PANEL = '[data-testid="graph-view-panel"]'
APP = '[data-testid="stApp"]'
EXCEPTION = '[data-testid="stException"]'

# Counts finished script runs in window.__stRunsFinished by watching the attribute the Streamlit
# frontend sets on its root (data-test-script-state: initial | running | notRunning | ...), and
# messages from the server in window.__stWsMessages (a quick rerun can go running -> notRunning
# inside one React render, so the attribute alone may never show it).
RUN_TRACKER_JS = """
(() => {
  if (window.__stRunTracker) return;
  window.__stRunTracker = true;
  window.__stRunsFinished = 0;
  window.__stWsMessages = 0;
  window.__stLastWs = 0;
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', () => {
        window.__stWsMessages += 1;
        window.__stLastWs = performance.now();
      });
    }
  };
  let last = null;
  const check = () => {
    const app = document.querySelector('[data-testid="stApp"]');
    const state = app ? app.getAttribute('data-test-script-state') : null;
    if (state !== last) {
      if (state === 'notRunning') window.__stRunsFinished += 1;
      last = state;
    }
  };
  new MutationObserver(check).observe(document, {
    subtree: true, childList: true, attributes: true,
    attributeFilter: ['data-test-script-state'],
  });
})();
"""


#: The node inspector's Jacobian-view code, as the page fetches it (a glob for page.route).
JACOBIAN_CODE = "**/component/**/jacobian_view/**"


def hold_back(page, url_glob: str, seconds: float) -> None:
    """Every request of ``page`` matching ``url_glob`` answered ``seconds`` late (code arriving late, as on a
    loaded server). NOTE: the handler sleeps in Playwright's own thread, so the test's own calls wait meanwhile."""
    page.route(url_glob, lambda route: (time.sleep(seconds), route.continue_()))


def install_run_tracker(page_or_context) -> None:
    """Install the run counter in every document the page (or context) loads from now on."""
    page_or_context.add_init_script(RUN_TRACKER_JS)


def runs_finished(page) -> int:
    return page.evaluate("window.__stRunsFinished || 0")


def _progress(page) -> dict:
    return page.evaluate("({runs: window.__stRunsFinished || 0, ws: window.__stWsMessages || 0})")


def wait_for_idle(page, timeout: float = 30_000) -> None:
    """Wait until the app is connected and no script run is in progress."""
    page.wait_for_selector(
        f'{APP}[data-test-script-state="notRunning"][data-test-connection-state="CONNECTED"]',
        state="attached", timeout=timeout,
    )


def wait_for_rerun(page, action, timeout: float = 30_000, quiet_ms: int = 300) -> None:
    """Do `action()` (a click, a key press) and wait until the rerun it causes has finished.

    Done when the app is idle after a run finished, or after the server sent something and then
    stayed quiet for `quiet_ms`; or when two runs finished (a fragment run already in flight,
    then ours: pages with a timer are rarely idle). Needs `install_run_tracker` on the page.
    """
    before = _progress(page)
    action()
    page.wait_for_function(
        """([before, quietMs]) => {
            const app = document.querySelector('[data-testid="stApp"]');
            const runs = window.__stRunsFinished || 0;
            const idle = app && app.getAttribute('data-test-script-state') === 'notRunning';
            const heard = (window.__stWsMessages || 0) > before.ws;
            const quiet = performance.now() - (window.__stLastWs || 0) >= quietMs;
            return (runs > before.runs && idle) || runs > before.runs + 1 || (heard && quiet && idle);
        }""",
        arg=[before, quiet_ms], timeout=timeout,
    )


def open_page(page, url: str, timeout: float = 30_000) -> None:
    """Navigate and wait for the first script run to finish."""
    page.goto(url, wait_until="domcontentloaded")
    wait_for_idle(page, timeout)


def node_count(page, selector: str = GRAPH_NODES) -> int:
    return page.locator(selector).count()


def app_exception(page) -> str | None:
    """The text of the first uncaught exception Streamlit shows on the page, if any."""
    shown = page.locator(EXCEPTION)
    return shown.first.inner_text() if shown.count() else None


def wait_for_node_count(page, expected: int, timeout: float = 30_000,
                        selector: str = GRAPH_NODES) -> float:
    """Wait until the graph SVG holds exactly `expected` nodes; return the seconds it took.

    Fails with the count it last saw, so a wrong graph reads as a clear assertion error, and
    at once with the traceback's text if the page shows an uncaught exception instead.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    start = time.monotonic()
    try:
        page.wait_for_function(
            """([sel, n, exc]) => document.querySelectorAll(sel).length === n ||
                                  document.querySelector(exc) !== null""",
            arg=[selector, expected, EXCEPTION], timeout=timeout, polling=50,
        )
    except PlaywrightTimeoutError as error:
        seen = node_count(page, selector)
        raise AssertionError(
            f"expected {expected} graph nodes ({selector}), saw {seen} after {timeout / 1000:.0f} s"
        ) from error
    seconds = time.monotonic() - start
    exception = app_exception(page)
    if exception is not None and node_count(page, selector) != expected:
        raise AssertionError(f"the page shows an exception instead of the graph:\n{exception[:1500]}")
    return seconds


def boxes(page, selector: str = GRAPH_NODES) -> dict[str, dict]:
    """Every drawn box by its data-node: its text, classes, and the computed fill/stroke of its shape."""
    return page.evaluate(
        """(sel) => Object.fromEntries([...document.querySelectorAll(sel)].map((g) => {
            const shape = g.querySelector(':scope > path, :scope > polygon');
            const style = shape ? getComputedStyle(shape) : null;
            return [g.dataset.node, {
              text: [...g.querySelectorAll('text')].map((t) => t.textContent).join(' '),
              classes: [...g.classList],
              fill: style ? style.fill : null,
              stroke: style ? style.stroke : null,
            }];
        }))""",
        selector,
    )


def grad_cells(page) -> dict[str, list[str]]:
    """Each drawn box's grad cell (forward mode: its tangent) as text lines, blank lines left out, by box id."""
    cells = page.evaluate(
        f"""() => Object.fromEntries([...document.querySelectorAll('{GRAPH} g[data-cell$=".g"]')].map(
            (g) => [g.closest('g.node').dataset.node, [...g.querySelectorAll('text')].map((t) => t.textContent)]))"""
    )
    return {key: [line for line in lines if line] for key, lines in cells.items()}


def view_state(page) -> dict:
    """The graph view's data-* hooks (step, steps, selected, zoom, ready, layouts, updates)."""
    return page.evaluate(f"() => ({{...(document.querySelector('{GRAPH}') || {{}}).dataset}})")


def wait_for_view(page, timeout: float = 60_000, **expected) -> dict:
    """Wait until the graph view is drawn and its data-* hooks hold `expected` (as strings)."""
    page.wait_for_function(
        """([sel, expected]) => {
            const root = document.querySelector(sel);
            return !!root && root.dataset.ready === '1' &&
                   Object.entries(expected).every(([k, v]) => root.dataset[k] === v);
        }""",
        arg=[GRAPH, {k: str(v) for k, v in expected.items()}], timeout=timeout,
    )
    return view_state(page)


def text_area(page, label: str | None = None):
    """The text area with this label (or the only one on the page)."""
    if label is not None:
        return page.get_by_label(label, exact=True)
    return page.locator('[data-testid="stTextArea"] textarea').first


def settled(read, ok, timeout: float = 10.0, interval: float = 0.1):
    """Call `read()` until `ok(value)` holds or `timeout` seconds pass; return the last value.

    For what the browser draws a moment after the run's text: Graphviz lays a graph out
    asynchronously, so a rerun's new heading can be on screen before its recoloured SVG. The
    caller asserts on the returned value, so a wrong drawing fails with what was drawn.
    """
    deadline = time.monotonic() + timeout
    value = read()
    while not ok(value) and time.monotonic() < deadline:
        time.sleep(interval)
        value = read()
    return value


def wait_for_value(field, expected: str, timeout: float = 10_000) -> None:
    """Wait until an input or text area holds `expected`; fails with the value it last held."""
    from playwright.sync_api import expect

    expect(field).to_have_value(expected, timeout=timeout)


def set_text_area(page, text: str, label: str | None = None, timeout: float = 30_000) -> None:
    """Replace a text area's content and commit it (Ctrl+Enter), waiting for the rerun."""
    box = text_area(page, label)
    box.fill(text)
    wait_for_rerun(page, lambda: box.press("Control+Enter"), timeout)


def button(page, label: str):
    """The button whose label ends in `label` (buttons may carry an icon before the label)."""
    return page.get_by_role("button", name=re.compile(rf"(^|\W){label}$"))


def click_button(page, label: str, timeout: float = 30_000, exact: bool = True) -> None:
    """Click the button with this label and wait for the rerun it causes."""
    button = page.get_by_role("button", name=label, exact=exact)
    wait_for_rerun(page, button.first.click, timeout)


def main_text(page) -> str:
    """All visible text of the main block."""
    return page.locator('[data-testid="stMain"]').inner_text()


def wait_for_text(page, text: str, timeout: float = 30_000) -> None:
    """Wait until the main block shows `text`. Elements of one script run can appear a moment
    apart (each waits for its own JS chunk), so a text below the graph may trail the graph."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    try:
        page.locator('[data-testid="stMain"]', has_text=text).wait_for(timeout=timeout)
    except PlaywrightTimeoutError as error:
        shown = main_text(page)[:1500]
        raise AssertionError(f"{text!r} not shown after {timeout / 1000:.0f} s; the page says:\n{shown}") from error


def horizontal_overflow(page, selector: str = '[data-testid="stMain"]') -> dict:
    """scrollWidth vs clientWidth of the element and of the document."""
    return page.evaluate(
        """(sel) => {
            const el = document.querySelector(sel);
            const doc = document.documentElement;
            return {
              scrollWidth: el ? el.scrollWidth : null,
              clientWidth: el ? el.clientWidth : null,
              docScrollWidth: doc.scrollWidth,
              docClientWidth: doc.clientWidth,
            };
        }""",
        selector,
    )


def record_metric(artifacts: Path, key: str, value) -> None:
    """Merge one value into test-artifacts/browser_metrics.json."""
    path = Path(artifacts) / "browser_metrics.json"
    try:
        metrics = json.loads(path.read_text())
    except (OSError, ValueError):
        metrics = {}
    metrics[key] = value
    path.write_text(json.dumps(metrics, indent=2, sort_keys=True) + "\n")


def safe_filename(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)[:120]


def page_state_report(page, console_errors=()) -> str:
    """What a failed test's page showed, as text: the URL, the app's run and connection state, every
    text area's value, every graph view's hooks (data-*), the main block's text and console errors."""
    state = page.evaluate(
        """() => {
            const app = document.querySelector('[data-testid="stApp"]');
            const views = [...document.querySelectorAll('[data-testid="graph-view"]')].map((v) =>
                Object.entries(v.dataset).map(([k, x]) => `${k}=${String(x).slice(0, 80)}`).join(' '));
            return {
                url: location.href,
                app: app ? `script ${app.dataset.testScriptState}, ${app.dataset.testConnectionState}` : 'no app',
                runs: window.__stRunsFinished || 0,
                textareas: [...document.querySelectorAll('textarea')].map((t) => t.value),
                views,
            };
        }"""
    )
    lines = [f"url: {state['url']}", f"app: {state['app']}, runs finished: {state['runs']}"]
    lines += [f"text area: {value!r}" for value in state["textareas"]]
    lines += [f"graph view: {view}" for view in state["views"]]
    lines += ["", "main block:", main_text(page)[:6000], "", "console errors:", *console_errors]
    return "\n".join(lines) + "\n"


def live_step(page) -> int:
    """The training step the Playground's live view shows (-1 before its first frame)."""
    return int(page.locator('[data-testid="live-view"]').get_attribute("data-step") or -1)


def wait_live_step(page, step: int, timeout: float = 30_000) -> None:
    deadline = time.monotonic() + timeout / 1000
    while live_step(page) != step and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert live_step(page) == step, f"the live view shows step {live_step(page)}, expected {step}"


# ---- the Playground's live view, as a learner of a class sees it ----------------------------------------------
LIVE_VIEW = '[data-testid="live-view"]'


def wait_live_until(page, ok, timeout: float = 30.0) -> int:
    """Waits until ``ok(step)`` holds for the step the live view shows, and returns that step."""
    deadline = time.monotonic() + timeout
    while not ok(live_step(page)) and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    step = live_step(page)
    assert ok(step), f"the live view shows step {step}"
    return step


def run_id(page) -> str:
    """The run id the page's URL names (once it names one)."""
    page.wait_for_function("() => new URL(location.href).searchParams.get('run')")
    return parse_qs(urlparse(page.url).query)["run"][0]


def balancer_server(context) -> str:
    """The process HAProxy's cookie sends this browser to ("s1", "s2", ...)."""
    return {c["name"]: c["value"] for c in context.cookies()}.get("SERVERID", "")


def fresh_context(browser, contexts: list):
    """A new browser context: no cookies (no SERVERID, no Streamlit XSRF token), so another learner."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    install_run_tracker(context)
    contexts.append(context)
    return context


def open_live(page, url: str, timeout: float = 30_000) -> None:
    """Opens a Playground URL and waits until the live view shows a step."""
    open_page(page, url, timeout)
    page.locator(LIVE_VIEW).wait_for()
    wait_live_until(page, lambda s: s >= 0)

def open_sidebar(page) -> None:
    """Open Streamlit's sidebar if it is collapsed (the Explorer and the Stepper open with it collapsed, issue 29)
    and wait until it is on screen."""
    expand = page.locator('[data-testid="stExpandSidebarButton"]')
    if expand.count() and expand.first.is_visible():
        expand.first.click()
    page.wait_for_function(
        "() => { const s = document.querySelector('[data-testid=\"stSidebar\"]');"
        " return !!s && s.getBoundingClientRect().left >= 0 && s.getBoundingClientRect().right > 100; }")


def open_poke_drawer(page) -> None:
    """Open the Stepper's "Poke the inputs" drawer (its sliders and pictures; the sidebar held them before issue
    29) and wait until its sliders are on screen."""
    page.get_by_role("button", name="Poke the inputs").click()
    page.locator('[data-testid="poke"] [data-testid="poke-slider"]').first.wait_for(state="visible", timeout=60_000)


# ---- pages of a given size, their graphs drawn -----------------------------------------------------------------
RECT = ("(e) => { const r = e.getBoundingClientRect();"
        " return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; }")


def rect(page, selector: str) -> dict:
    """The first element's box on screen (px)."""
    return page.locator(selector).first.evaluate(RECT)


@contextlib.contextmanager
def pages_at(browser):
    """go(size, url, scheme="light", **expected) -> a page of that viewport size and colour scheme at that URL, its
    graph drawn (with the graph view's data-* hooks ``expected``); every context it made closes on the way out."""
    contexts = []

    def go(size: dict, url: str, scheme: str = "light", **expected):
        context = browser.new_context(viewport=size, color_scheme=scheme)
        contexts.append(context)
        install_run_tracker(context)
        page = context.new_page()
        page.set_default_timeout(30_000)
        open_page(page, url)
        wait_for_view(page, **expected)
        return page

    try:
        yield go
    finally:
        for context in contexts:
            context.close()



def box_orders(page) -> dict[str, str]:
    """Each drawn box's data-order (1: the forward's, 2: made by the backward pass, ...), by its data-node."""
    return page.evaluate(f"""() => Object.fromEntries([...document.querySelectorAll('{GRAPH_NODES}[data-node]')]
        .map((g) => [g.dataset.node, g.dataset.order]))""")


def data_cells(page) -> dict[str, list[str]]:
    """Each drawn box's data cell, its lines of text (empty ones left out), by its data-node."""
    cells = page.evaluate(f"""() => Object.fromEntries([...document.querySelectorAll('{GRAPH} g[data-cell$=".d"]')]
        .map((g) => [g.closest('g.node').dataset.node, [...g.querySelectorAll('text')].map((t) => t.textContent)]))""")
    return {key: [line for line in lines if line] for key, lines in cells.items()}


PRACTICE_EDITOR = ".st-key-practice_editor textarea"


def hand_in_practice(page, text: str) -> None:
    """Types `text` into the Practice page's editor (once it holds the exercise's first line) and checks it
    (Ctrl+Enter), then waits for the page to be idle."""
    box = page.locator(PRACTICE_EDITOR)
    box.wait_for()
    settled(lambda: box.input_value(), lambda v: v.startswith("dloss"), timeout=30)
    box.fill(text)
    box.press("Control+Enter")
    wait_for_idle(page, 60_000)
