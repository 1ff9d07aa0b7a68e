"""Navigation in a real browser: the sidebar reaches every page, titles, console, narrow windows."""

from __future__ import annotations

import time
from urllib.parse import urlsplit

import pytest

from autograd.expr import evaluate
from autograd.graph import trace
from explorer.program import presets

from .helpers import (
    APP,
    horizontal_overflow,
    install_run_tracker,
    open_page,
    open_sidebar,
    wait_for_idle,
    wait_for_node_count,
    wait_for_text,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TITLES = {"": "Expression Explorer", "stepper": "Backward Stepper", "practice": "Practice",
          "playground": "Training Playground",
          "optimiser_race": "Optimiser race", "depth_lab": "Initialisation & depth", "class": "Class"}
SIDEBAR_LINKS = '[data-testid="stSidebar"] [data-testid="stPageLink"] a'
DEFAULT_NODES = len(trace(evaluate(presets.program(presets.DEFAULT)).output).nodes)

# True once the block's and the document's sizes have stayed the same for 10 animation frames in a row (polled
# every frame): what is drawn has settled, however slowly this machine draws.
STEADY_JS = """(sel) => {
    const el = document.querySelector(sel), doc = document.documentElement;
    const now = [el.scrollWidth, el.clientWidth, el.scrollHeight, doc.scrollWidth, doc.clientWidth].join();
    const s = window.__steady = window.__steady || {last: null, frames: 0};
    s.frames = now === s.last ? s.frames + 1 : 0;
    s.last = now;
    return s.frames >= 10;
}"""


def sidebar_links(page) -> list[str]:
    """The accessible names of the sidebar's page links."""
    links = page.locator(SIDEBAR_LINKS)
    links.first.wait_for()
    return [link.inner_text().strip() for link in links.all()]


def wait_for_page(page, path: str) -> None:
    """Wait until `path`'s page has drawn what it is for."""
    page.get_by_role("heading", name=TITLES[path]).first.wait_for()
    if path in ("", "stepper"):
        wait_for_node_count(page, DEFAULT_NODES)
    if path == "optimiser_race":  # its view draws once Plotly and its modules have loaded
        page.locator('[data-testid="optimiser-race"] polyline[data-path-line]').first.wait_for(state="attached")
    wait_for_idle(page)


def test_sidebar_links_reach_every_page(page, app_url, artifacts):
    open_page(page, app_url)
    wait_for_page(page, "")
    for path in ("stepper", "playground", "depth_lab", ""):
        open_sidebar(page)  # collapsed on the lesson pages
        page.get_by_role("link", name=TITLES[path]).click()
        page.wait_for_url(lambda url, path=path: urlsplit(url).path.rstrip("/") == f"/{path}".rstrip("/"))
        wait_for_page(page, path)
        if path in ("", "stepper"):  # the explorer and stepper keep the shared program in the URL
            page.wait_for_function("() => new URLSearchParams(location.search).has('program')", timeout=5_000)
        assert page.title(), "the tab has a title"
        page.screenshot(path=str(artifacts / f"nav-{path or 'explorer'}.png"))
    assert page.console_errors == [], "\n".join(page.console_errors)
    assert page.external_requests == [], "the app must not fetch from the internet"


@pytest.mark.parametrize("path", ["", "stepper", "practice", "playground", "optimiser_race", "depth_lab"])
def test_page_opened_directly_has_titled_sidebar(page, streamlit_app, path, artifacts):
    """A link straight to a page, as the first visit to a fresh server, gets the app's navigation.

    The pages live in `pages/` beside app.py, the folder Streamlit's old multipage mode reads on a
    fresh server's first request (components/common/entry.py). That mode must never show: the sidebar is
    sampled for 4 s from the first paint and must only ever hold the pages' titles, never a name made
    from a file ("stepper", "playground"), and no "Page not found" dialog may appear.
    """
    url = streamlit_app("app.py")  # a fresh server: this is its first session
    open_page(page, f"{url}/{path}")
    seen = set()
    not_found = 0
    deadline = time.monotonic() + 4.0
    while time.monotonic() < deadline:
        seen.update(page.locator(f"{SIDEBAR_LINKS}, [data-testid='stSidebarNav'] a").all_inner_texts())
        not_found += page.get_by_text("Page not found").count()
        page.wait_for_timeout(50)  # NOTE: a deliberate 4-s watch, sampled every 50 ms (events are heard meanwhile)
    links = sidebar_links(page)
    page.screenshot(path=str(artifacts / f"direct-{path or 'explorer'}.png"))
    for title in TITLES.values():
        assert any(title in link for link in links), f"sidebar on /{path}: {links}"
    # A link's text is its Material icon's ligature name, then its title, on separate lines.
    names = {text.strip().splitlines()[-1].strip() for text in seen if text.strip()}
    stray = names - set(TITLES.values())
    assert not stray, f"sidebar on /{path} showed entries that are not page titles: {sorted(stray)}"
    assert not_found == 0, f"/{path} showed Streamlit's 'Page not found' dialog"
    assert page.title() == "Autograd Explorer" or TITLES[path] in page.title(), page.title()
    wait_for_text(page, TITLES[path])


@pytest.mark.parametrize("path", ["", "stepper", "practice", "playground", "optimiser_race", "depth_lab"])
def test_narrow_window_has_no_horizontal_overflow(browser, app_url, path, artifacts):
    context = browser.new_context(viewport={"width": 420, "height": 900})
    try:
        page = context.new_page()
        install_run_tracker(page)
        open_page(page, f"{app_url}/{path}")
        wait_for_page(page, path)
        if path == "playground":  # the live view has painted, laid out for this width
            page.locator('[data-testid="live-view"]:not([data-frame="0"])').wait_for()
        page.wait_for_function(STEADY_JS, arg=f"{APP} [data-testid='stMain']")
        page.screenshot(path=str(artifacts / f"narrow-{path or 'explorer'}.png"), full_page=True)
        sizes = horizontal_overflow(page)
        assert sizes["scrollWidth"] <= sizes["clientWidth"] + 1, f"main block overflows: {sizes}"
        assert sizes["docScrollWidth"] <= sizes["docClientWidth"] + 1, f"page scrolls sideways: {sizes}"
        # Nothing sticks out past the window's right edge, unless a scrolling box clips it.
        wide = page.locator(f"{APP} [data-testid='stMain'] *").evaluate_all(
            """(els) => {
                const clipped = (e) => {
                    for (let a = e.parentElement; a; a = a.parentElement) {
                        if (['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(a).overflowX)) {
                            return a.getBoundingClientRect().right <= window.innerWidth + 1;
                        }
                    }
                    return false;
                };
                return els.filter(e => {
                    const r = e.getBoundingClientRect();
                    return r.width > 0 && r.height > 0 && r.right > window.innerWidth + 1 && !clipped(e);
                }).slice(0, 5).map(e => (e.getAttribute('data-testid') || e.tagName) + ' right=' +
                                        Math.round(e.getBoundingClientRect().right));
            }"""
        )
        assert wide == [], f"elements past the right edge at 420 px: {wide}"
    finally:
        context.close()
