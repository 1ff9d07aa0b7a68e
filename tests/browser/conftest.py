"""Fixtures for the real-browser tests: a Streamlit server on app.py and headless Chromium.

Fixtures: `artifacts` (test-artifacts/), `streamlit_app` (factory: start any app file, stopped at
session end), `app_url` (the server for app.py), `browser`, `page` (1280x900; console and page
errors collected in `page.console_errors`, also given by the `console_errors` fixture, requests
to hosts other than 127.0.0.1 in `page.external_requests`; a screenshot is saved to
test-artifacts/FAILED-<test>.png when the test fails). Helpers for driving Streamlit
(waiting for reruns and graph nodes, text areas, buttons) live in tests/browser/helpers.py.

Without Chromium or playwright the tests skip with the reason; with env CI set they fail instead.
"""

from __future__ import annotations

import contextlib
import re
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from .helpers import install_run_tracker, page_state_report, safe_filename
from .server import (
    REPO_ROOT,
    browser_unavailable_reason,
    launch_chromium,
    start_streamlit,
    unavailable,
)

# Console errors that are not the app's fault, each documented:
# - Streamlit's frontend first probes `<page path>/_stcore/health` and `/_stcore/host-config`
#   (e.g. /stepper/_stcore/health) to find its base path; those 404 before it falls back to
#   /_stcore/..., and Chromium logs each 404 as "Failed to load resource".
BENIGN_404_PATH = re.compile(r"/_stcore/(health|host-config)$")


def is_benign(message) -> bool:
    url = (message.location or {}).get("url", "")
    return "status of 404" in message.text and bool(BENIGN_404_PATH.search(urlsplit(url).path))


def is_local(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("data", "blob", "about") or parts.hostname in ("127.0.0.1", "localhost")


def pytest_configure(config):
    config.addinivalue_line("markers", "browser: drives the app in a real headless Chromium")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report


@pytest.fixture(scope="session")
def artifacts() -> Path:
    path = REPO_ROOT / "test-artifacts"
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="session")
def streamlit_app(artifacts):
    """Factory: `streamlit_app("app.py", cwd=...)` -> base URL; every server stops at session end."""
    servers = []

    def start(app: str | Path = "app.py", cwd: str | Path = REPO_ROOT) -> str:
        server = start_streamlit(app, cwd=cwd, log_dir=artifacts)
        servers.append(server)
        return server.url

    yield start
    for server in servers:
        server.stop()


@pytest.fixture(scope="session")
def app_url(streamlit_app) -> str:
    if not (REPO_ROOT / "app.py").exists():
        pytest.fail("app.py is missing from the repo root")
    return streamlit_app("app.py")


@pytest.fixture(scope="session")
def browser():
    reason = browser_unavailable_reason()
    if reason:
        unavailable(reason)
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="autograd-chromium-") as profile:
        playwright = sync_playwright().start()
        try:
            chromium = launch_chromium(playwright, profile)
        except PlaywrightError as error:
            playwright.stop()
            unavailable(f"Chromium did not launch ({error})")
        yield chromium
        chromium.close()
        playwright.stop()


@pytest.fixture
def page(browser, request, artifacts):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    install_run_tracker(context)
    page = context.new_page()
    page.set_default_timeout(30_000)
    errors: list[str] = []
    external: list[str] = []

    def on_console(message):
        if message.type == "error" and not is_benign(message):
            url = (message.location or {}).get("url", "")
            errors.append(f"console: {message.text}" + (f" ({url})" if url else ""))

    def on_request(request):
        if not is_local(request.url):
            external.append(request.url)

    page.on("console", on_console)
    page.on("pageerror", lambda error: errors.append(f"pageerror: {error}"))
    page.on("request", on_request)
    page.console_errors = errors
    page.external_requests = external
    yield page
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        from playwright.sync_api import Error as PlaywrightError

        shot = artifacts / f"FAILED-{safe_filename(request.node.name)}.png"
        # The page may be gone (a crash): the failure itself is what matters then.
        with contextlib.suppress(PlaywrightError):
            page.screenshot(path=str(shot), full_page=True)
        # NOTE: Streamlit scrolls inside its own container, so the screenshot shows only the top of a
        # long page: the page's state as text says what lies below (a flake seen once in CI needs it).
        with contextlib.suppress(PlaywrightError):
            shot.with_suffix(".txt").write_text(page_state_report(page, errors))
    context.close()


@pytest.fixture
def console_errors(page) -> list[str]:
    """Console errors and uncaught page errors seen so far by `page` (a live list)."""
    return page.console_errors
