"""A class behind HAProxy in a real headless Chromium: two Streamlit processes started by deploy/classroom.py,
one SQLite run store. A reload keeps the run (playing), an upload reaches its session's process, and a run
link opened in a fresh browser forks the run, whether its owner plays or is paused."""

from __future__ import annotations

import shutil
import time
from urllib.parse import parse_qs, urlparse

import numpy as np
import pytest

from deploy.classroom import Classroom, free_ports

from .helpers import app_exception, click_button, install_run_tracker, open_page
from .server import unavailable

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LV = '[data-testid="live-view"]'


@pytest.fixture(scope="module")
def classroom(tmp_path_factory, artifacts):
    if shutil.which("haproxy") is None:
        unavailable("haproxy is not installed (apt-get install -y haproxy; .ci/run installs it)")
    data = tmp_path_factory.mktemp("classroom-data")
    port, *backends = free_ports(3)
    room = Classroom(processes=2, port=port, host="127.0.0.1", backend_ports=backends, restart=False,
                     log_dir=artifacts / f"classroom-{port}",
                     env={"AUTOGRAD_EXPLORER_RUNS": f"sqlite:///{data}/runs.sqlite3"})
    with room:
        yield room


def _step(page) -> int:
    return int(page.locator(LV).get_attribute("data-step") or -1)


def _wait_step(page, ok, timeout: float = 30.0) -> int:
    deadline = time.monotonic() + timeout
    while not ok(_step(page)) and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    step = _step(page)
    assert ok(step), f"the live view shows step {step}"
    return step


def _run_id(page) -> str:
    page.wait_for_function("() => new URL(location.href).searchParams.get('run')")
    return parse_qs(urlparse(page.url).query)["run"][0]


def _server(context) -> str:
    return {c["name"]: c["value"] for c in context.cookies()}.get("SERVERID", "")


def _fresh(browser, contexts: list):
    """A new browser context: no cookies (no SERVERID, no Streamlit XSRF token), so another learner."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    install_run_tracker(context)
    contexts.append(context)
    return context


def _open(page, url: str) -> None:
    open_page(page, url)
    page.locator(LV).wait_for()
    _wait_step(page, lambda s: s >= 0)


def test_a_reload_through_the_balancer_comes_back_to_the_same_run_playing(page, classroom):
    _open(page, f"{classroom.url}/playground")
    click_button(page, "Play")
    step = _wait_step(page, lambda s: s >= 60)
    run, server = _run_id(page), _server(page.context)
    assert server in ("s1", "s2")
    page.reload(wait_until="domcontentloaded")
    page.locator(LV).wait_for()
    back = _wait_step(page, lambda s: s > 0)
    assert _run_id(page) == run and _server(page.context) == server
    assert back >= step - 2 * 25  # from the last snapshot: at most a save interval (1 s at 25 steps/s) behind
    page.get_by_role("button", name="Pause", exact=True).wait_for()  # still playing (issue 17 item 7)
    _wait_step(page, lambda s: s > back + 10)
    assert app_exception(page) is None


def test_a_csv_upload_reaches_the_process_of_its_session(page, classroom, tmp_path):
    _open(page, f"{classroom.url}/playground")
    path = tmp_path / "mine.csv"
    X = np.random.default_rng(0).normal(size=(60, 2)) * 100 + 500
    path.write_text("x1,x2,label\n" + "\n".join(f"{a:.3f},{b:.3f},{int(a > 500)}" for a, b in X))
    page.locator(".st-key-pg_file input[type=file]").set_input_files(str(path))
    page.wait_for_function("() => new URL(location.href).searchParams.get('dataset') === 'uploaded CSV'")
    click_button(page, "Step")
    _wait_step(page, lambda s: s == 1)
    assert app_exception(page) is None
    assert "uploaded: mine.csv" in page.locator(".st-key-pg_dataset").evaluate(
        "box => box.textContent + ' ' + Array.from(box.querySelectorAll('input'), (i) => i.value).join(' ')")


def test_a_run_link_in_a_fresh_browser_forks_the_run_whether_its_owner_plays_or_not(page, browser, classroom):
    _open(page, f"{classroom.url}/playground")
    click_button(page, "Play")
    _wait_step(page, lambda s: s >= 60)
    run = _run_id(page)
    link = page.url
    contexts = []
    try:
        # While its owner plays it: a fork, its own id, from the owner's last snapshot.
        other = _fresh(browser, contexts)
        fork = other.new_page()
        _open(fork, link)
        assert _run_id(fork) != run and _step(fork) >= 25
        page.get_by_role("button", name="Pause", exact=True).click()
        page.get_by_role("button", name="Play", exact=True).wait_for()
        page.locator(f'{LV}[data-playing="0"]').wait_for()  # the paused frame drawn: its step is the snapshot's
        paused = _step(page)
        # Paused too (issue 28 item 7): a fresh browser (no cookies, whichever process it reaches) continues a
        # copy under its own id, and the link goes on showing the owner's run.
        fresh = _fresh(browser, contexts)
        later = fresh.new_page()
        _open(later, link)
        _wait_step(later, lambda s: s == paused)
        assert _run_id(later) not in (run, _run_id(fork))
        click_button(later, "Step")
        _wait_step(later, lambda s: s == paused + 1)
        _open(page, link)  # the owner's bookmark
        _wait_step(page, lambda s: s == paused)
        assert _run_id(page) == run
        assert app_exception(later) is None and app_exception(fork) is None
    finally:
        for context in contexts:
            context.close()
