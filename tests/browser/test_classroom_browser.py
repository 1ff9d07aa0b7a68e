"""A class behind HAProxy in a real headless Chromium: two Streamlit processes started by deploy/classroom.py,
one SQLite run store. A reload keeps the run (playing), an upload reaches its session's process, and a run
link opened in a fresh browser forks the run, whether its owner plays or is paused."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from deploy.classroom import Classroom, free_ports

from .helpers import LIVE_VIEW as LV
from .helpers import (
    app_exception,
    balancer_server,
    click_button,
    fresh_context,
    live_step,
    open_live,
    run_id,
    wait_live_until,
)
from .server import unavailable

pytestmark = [pytest.mark.browser, pytest.mark.slow]



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


def test_a_reload_through_the_balancer_comes_back_to_the_same_run_playing(page, classroom):
    open_live(page, f"{classroom.url}/playground")
    click_button(page, "Play")
    step = wait_live_until(page, lambda s: s >= 60)
    run, server = run_id(page), balancer_server(page.context)
    assert server in ("s1", "s2")
    page.reload(wait_until="domcontentloaded")
    page.locator(LV).wait_for()
    back = wait_live_until(page, lambda s: s > 0)
    assert run_id(page) == run and balancer_server(page.context) == server
    assert back >= step - 2 * 25  # from the last snapshot: at most a save interval (1 s at 25 steps/s) behind
    page.get_by_role("button", name="Pause", exact=True).wait_for()  # still playing (issue 17 item 7)
    wait_live_until(page, lambda s: s > back + 10)
    assert app_exception(page) is None


def test_a_csv_upload_reaches_the_process_of_its_session(page, classroom, tmp_path):
    open_live(page, f"{classroom.url}/playground")
    path = tmp_path / "mine.csv"
    X = np.random.default_rng(0).normal(size=(60, 2)) * 100 + 500
    path.write_text("x1,x2,label\n" + "\n".join(f"{a:.3f},{b:.3f},{int(a > 500)}" for a, b in X))
    page.locator(".st-key-pg_file input[type=file]").set_input_files(str(path))
    page.wait_for_function("() => new URL(location.href).searchParams.get('dataset') === 'uploaded CSV'")
    click_button(page, "Step")
    wait_live_until(page, lambda s: s == 1)
    assert app_exception(page) is None
    assert "uploaded: mine.csv" in page.locator(".st-key-pg_dataset").evaluate(
        "box => box.textContent + ' ' + Array.from(box.querySelectorAll('input'), (i) => i.value).join(' ')")


def test_a_run_link_in_a_fresh_browser_forks_the_run_whether_its_owner_plays_or_not(page, browser, classroom):
    open_live(page, f"{classroom.url}/playground")
    click_button(page, "Play")
    wait_live_until(page, lambda s: s >= 60)
    run = run_id(page)
    link = page.url
    contexts = []
    try:
        # While its owner plays it: a fork, its own id, from the owner's last snapshot.
        other = fresh_context(browser, contexts)
        fork = other.new_page()
        open_live(fork, link)
        assert run_id(fork) != run and live_step(fork) >= 25
        page.get_by_role("button", name="Pause", exact=True).click()
        page.get_by_role("button", name="Play", exact=True).wait_for()
        page.locator(f'{LV}[data-playing="0"]').wait_for()  # the paused frame drawn: its step is the snapshot's
        paused = live_step(page)
        # Paused too (issue 28 item 7): a fresh browser (no cookies, whichever process it reaches) continues a
        # copy under its own id, and the link goes on showing the owner's run.
        fresh = fresh_context(browser, contexts)
        later = fresh.new_page()
        open_live(later, link)
        wait_live_until(later, lambda s: s == paused)
        assert run_id(later) not in (run, run_id(fork))
        click_button(later, "Step")
        wait_live_until(later, lambda s: s == paused + 1)
        open_live(page, link)  # the owner's bookmark
        wait_live_until(page, lambda s: s == paused)
        assert run_id(page) == run
        assert app_exception(later) is None and app_exception(fork) is None
    finally:
        for context in contexts:
            context.close()
