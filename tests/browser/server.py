"""Start and stop a Streamlit server and a headless Chromium: shared by the browser tests and
scripts/screenshots.py (see TESTING.md for why each flag is here)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]

CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)

INSTALL_HINT = (
    "install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH, "
    "and the playwright Python package (pip install -r requirements-dev.txt; "
    "never `playwright install`)"
)


class ServerStartError(RuntimeError):
    """The Streamlit server did not become healthy."""


def free_port() -> int:
    """A TCP port that was free a moment ago (the caller retries if it gets taken)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class StreamlitServer:
    """One `streamlit run` process in its own process group."""

    process: subprocess.Popen
    port: int
    log_path: Path
    _log_file: object = field(repr=False, default=None)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log_tail(self, chars: int = 2000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def stop(self, timeout: float = 5.0) -> None:
        """SIGTERM the whole process group, then SIGKILL what is left."""
        if self.process.poll() is None:
            _signal_group(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                _signal_group(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=timeout)
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None


def _signal_group(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, sig)


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def start_streamlit(
    app: str | Path = "app.py",
    *,
    cwd: str | Path = REPO_ROOT,
    log_dir: str | Path | None = None,
    timeout: float = 30.0,
    attempts: int = 3,
) -> StreamlitServer:
    """Run `streamlit run <app>` on a free port and wait for /_stcore/health to answer 200.

    A busy port makes streamlit exit with code 1: then we try another port, `attempts` times.
    """
    cwd = Path(cwd)
    log_dir = Path(log_dir) if log_dir is not None else REPO_ROOT / "test-artifacts"
    log_dir.mkdir(parents=True, exist_ok=True)
    errors = []
    for attempt in range(1, attempts + 1):
        port = free_port()
        log_path = log_dir / f"streamlit-{Path(app).stem}-{port}.log"
        log_file = open(log_path, "w")  # noqa: SIM115 - closed by StreamlitServer.stop()
        command = [
            sys.executable, "-m", "streamlit", "run", str(app),
            "--server.headless=true",
            f"--server.port={port}",
            "--server.address=127.0.0.1",
            "--browser.gatherUsageStats=false",
            "--server.fileWatcherType=none",
        ]
        process = subprocess.Popen(
            command, cwd=cwd, stdout=log_file, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )
        server = StreamlitServer(process, port, log_path, log_file)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if process.poll() is not None:
                break
            if _healthy(server.url):
                return server
            time.sleep(0.1)
        code = process.poll()
        server.stop()
        reason = "timed out" if code is None else f"exited with code {code}"
        errors.append(f"attempt {attempt} (port {port}): {reason}\n{server.log_tail()}")
    raise ServerStartError("streamlit did not start:\n" + "\n".join(errors))


def find_chromium() -> str | None:
    """CHROMIUM_PATH, else Debian's /usr/bin/chromium, else `chromium` on PATH."""
    candidates = [os.environ.get("CHROMIUM_PATH"), "/usr/bin/chromium", shutil.which("chromium")]
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def unavailable(reason: str):
    """Skips a test whose browser or server cannot run here, and fails it under CI (which installs them all)."""
    if os.environ.get("CI"):
        pytest.fail(f"browser tests cannot run under CI: {reason}", pytrace=False)
    pytest.skip(reason)


def browser_unavailable_reason() -> str | None:
    """Why a real browser cannot run here, or None if it can."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return f"playwright is not installed: {INSTALL_HINT}"
    if find_chromium() is None:
        return f"no Chromium found: {INSTALL_HINT}"
    return None


def launch_chromium(playwright, profile_dir: str | Path):
    """Headless Debian Chromium with the flags TESTING.md verified; config/cache under profile_dir."""
    profile_dir = Path(profile_dir)
    env = dict(os.environ)
    env["XDG_CONFIG_HOME"] = str(profile_dir / "config")
    env["XDG_CACHE_HOME"] = str(profile_dir / "cache")
    return playwright.chromium.launch(
        executable_path=find_chromium(), args=list(CHROMIUM_ARGS), env=env,
    )


@contextlib.contextmanager
def app_in_chromium(app: str | Path, prefix: str = "autograd-chromium-"):
    """``streamlit run`` of the entry file ``app`` (from its own directory) and a headless Chromium with a
    throw-away profile, for scripts that drive the app (benchmarks, screenshots): yields (server, browser) and
    stops both, whatever happens."""
    import tempfile

    from playwright.sync_api import sync_playwright

    app = Path(app).resolve()
    server = start_streamlit(app.name, cwd=app.parent, log_dir=Path(tempfile.gettempdir()))
    try:
        with tempfile.TemporaryDirectory(prefix=prefix) as profile, sync_playwright() as playwright:
            browser = launch_chromium(playwright, profile)
            try:
                yield server, browser
            finally:
                browser.close()
    finally:
        server.stop()
