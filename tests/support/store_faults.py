"""What the run store's fault tests share: a folder whose files can be made unwritable (and always made writable
again), a child process of playing learners (tests/support/store_learners.py), a redis-server the test starts,
stops and starts again, and the step a stored run is at."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.playground import snapshot
from explorer.playground.controller import Upload
from tests.support.helpers import ROOT

NOBODY = 65534
ANSWER_SECONDS = 120.0  # a child that answers nothing in this long is stuck (a failure, not a measurement)
WAIT_SECONDS = 120.0  # the longest a test waits for a condition before it fails


def need_root() -> None:
    if os.geteuid() != 0 or shutil.which("chattr") is None or shutil.which("setpriv") is None:
        if os.environ.get("CI"):
            pytest.fail("the fault tests need root, chattr and setpriv (.ci/run runs as root)", pytrace=False)
        pytest.skip("the fault tests need root (chattr +i, setpriv)")


def chattr(flag: str, *paths: Path) -> None:
    subprocess.run(["chattr", flag, *map(str, paths)], check=True, capture_output=True)


@contextlib.contextmanager
def unwritable(*paths: Path):
    """``paths`` immutable (``chattr +i``: not even root writes them, and an open file's mapping faults) until
    the block ends, however it ends."""
    chattr("+i", *paths)
    try:
        yield
    finally:
        chattr("-i", *paths)


@contextlib.contextmanager
def folder(owner: int = 0):
    """A folder of the test's own (outside pytest's, which only root may enter), owned by ``owner``; removed
    after, every file made writable first."""
    path = Path(tempfile.mkdtemp(prefix="store-faults-"))
    os.chmod(path, 0o755)
    os.chown(path, owner, owner)
    try:
        yield path
    finally:
        subprocess.run(["chattr", "-R", "-i", str(path)], capture_output=True)
        shutil.rmtree(path, ignore_errors=True)


def files_of(path: Path) -> list[Path]:
    """The store's file and every file beside it that SQLite made for it (journal, WAL, index)."""
    return sorted(p for p in path.parent.iterdir() if p.name.startswith(path.name))


class Learners:
    """tests/support/store_learners.py in a process of its own (as ``nobody`` if asked): playing learners."""

    def __init__(self, where: str, count: int, *, as_nobody: bool = False, log: Path | None = None):
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "AUTOGRAD_EXPLORER_RUNS": where}
        if as_nobody:
            env["HOME"] = tempfile.gettempdir()
        self._own_log = log is None  # removed after (the test has read what it needs: `stderr`)
        self.log = log or Path(tempfile.mkstemp(prefix="store-learners-", suffix=".log")[1])
        self._log_file = open(self.log, "w")  # noqa: SIM115 - closed in stop()
        # as_nobody: the learners' process drops to nobody itself, once loaded (store_learners.become)
        command = [sys.executable, "-m", "tests.support.store_learners", where, str(count),
                   *([str(NOBODY)] if as_nobody else [])]
        self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=self._log_file, text=True, start_new_session=True)
        self._answers: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self._answers.put(json.loads(line))
        self._answers.put(None)

    def send(self, command: str) -> list[dict]:
        """The learners' report after ``command`` (fails the test if the process died or hangs)."""
        try:
            self.process.stdin.write(command + "\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            pass
        try:
            answer = self._answers.get(timeout=ANSWER_SECONDS)
        except queue.Empty:
            pytest.fail(f"the learners' process answered nothing to {command!r} in {ANSWER_SECONDS:.0f} s")
        if answer is None:
            code = self.process.wait(timeout=60)
            name = signal.Signals(-code).name if code < 0 else f"exit code {code}"
            pytest.fail(f"the learners' server process died ({name}) after {command!r}:\n{self.stderr()}",
                        pytrace=False)
        return answer["learners"]

    def until(self, done: Callable[[list[dict]], bool], command: str = "tick 5", what: str = "") -> list[dict]:
        """Sends ``command`` again and again until the report satisfies ``done``: that report."""
        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            report = self.send(command)
            if done(report):
                return report
            if time.monotonic() > deadline:
                pytest.fail(f"not {what or 'done'} after {WAIT_SECONDS:.0f} s: {report}\n{self.stderr()}")
            time.sleep(0.1)  # the store's back-off runs on the wall clock

    def stderr(self) -> str:
        self._log_file.flush()
        return self.log.read_text()[-4000:]

    def stop(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(BrokenPipeError, OSError):
                self.process.stdin.close()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self._log_file.close()
        if self._own_log:
            self.log.unlink(missing_ok=True)

    def __enter__(self) -> Learners:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def step_of(blob: bytes | None) -> int | None:
    """The training step of a stored snapshot (None for none)."""
    return None if blob is None else snapshot.load(blob, Upload).state.step


class RedisServer:
    """A redis-server of the test's own on a Unix socket in ``folder``, which the test may kill and start again
    (the same socket, the same data folder); stopped by its PID."""

    def __init__(self, folder: Path, *args: str):
        try:
            import redis
        except ImportError:
            redis = None
        needed = (("redis-server (apt-get install -y redis-server)", shutil.which("redis-server")),
                  ("the redis package (pip install -r requirements.txt)", redis))
        missing = [what for what, there in needed if not there]
        if missing:
            if os.environ.get("CI"):
                pytest.fail(f"missing: {', '.join(missing)}", pytrace=False)
            pytest.skip(f"missing: {', '.join(missing)}")
        self.folder = folder
        self.sock = folder / "redis.sock"
        self.args = list(args) or ["--save", "", "--appendonly", "no"]
        self.url = f"unix://{self.sock}?db=0"
        self.process: subprocess.Popen | None = None

    def start(self) -> RedisServer:
        import redis

        self.process = subprocess.Popen(
            ["redis-server", *self.args, "--port", "0", "--unixsocket", str(self.sock), "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True)
        client = redis.Redis(unix_socket_path=str(self.sock))
        deadline = time.monotonic() + WAIT_SECONDS
        try:
            while True:
                if self.process.poll() is not None:
                    pytest.fail(f"redis-server exited with code {self.process.returncode}")
                with contextlib.suppress(redis.exceptions.ConnectionError, redis.exceptions.BusyLoadingError):
                    if self.sock.exists() and client.ping():
                        return self
                if time.monotonic() > deadline:
                    pytest.fail("redis-server did not answer")
                time.sleep(0.05)
        finally:
            client.close()

    def kill(self) -> None:
        """SIGKILL: no chance to write anything more."""
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait()
        with contextlib.suppress(FileNotFoundError):
            self.sock.unlink()
