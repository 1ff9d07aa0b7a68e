"""Serve a class from one address: N Streamlit processes on N ports behind HAProxy, started and stopped together.

    python -m deploy.classroom --processes 2 --port 8500

starts the processes on 127.0.0.1:8501.. (one per core is the rule: a process's Python work is one
core), waits until each answers /_stcore/health, then HAProxy on --host:--port with
deploy/haproxy.cfg's settings (cookie stickiness, websocket tunnel timeout, health checks). The
watcher starts every child that dies again, under one rule (RestartRule): a Streamlit process on its
port (its learners reconnect to another meanwhile and continue from the run store), HAProxy on the
class's port with the same configuration. A child that keeps dying ends the class with exit code 1
and its last log lines, for a supervisor (systemd's Restart=on-failure) to take over. Ctrl-C or
SIGTERM stops everything: each child runs in a process group of its own (the sandbox's workers with
it), which gets SIGTERM, then SIGKILL after 10 s.

Runs are kept in the run store every process shares (server/run_store.py: SQLite in the data
folder by default; AUTOGRAD_EXPLORER_RUNS=redis://... for several machines).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CONFIG = Path(__file__).with_name("haproxy.cfg")
STOP_GRACE = 10.0  # seconds between SIGTERM and SIGKILL
START_TIMEOUT = 60.0
WATCH_EVERY = 0.2  # seconds between the watcher's looks at its children


def haproxy_config(host: str, port: int, backends: list[int | str]) -> str:
    """deploy/haproxy.cfg with its `bind` on host:port and one `server` line per backend: a port on this machine,
    or "address:port" of another."""
    text = CONFIG.read_text()
    text = re.sub(r"(?m)^    bind .*$", f"    bind {host}:{port}", text)
    where = [b if isinstance(b, str) else f"127.0.0.1:{b}" for b in backends]
    servers = "".join(f"    server s{i} {w} cookie s{i}\n" for i, w in enumerate(where, 1))
    text = re.sub(r"(?m)^    server .*\n", "", text)
    return text.rstrip("\n") + "\n" + servers


def streamlit_command(port: int, address: str = "127.0.0.1") -> list[str]:
    """One of the class's Streamlit processes (run from the repository's folder)."""
    return [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless=true", f"--server.port={port}",
            f"--server.address={address}", "--browser.gatherUsageStats=false", "--server.fileWatcherType=none"]


def healthy(url: str, timeout: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=timeout) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def port_free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
        return True


def free_ports(count: int) -> list[int]:
    """``count`` TCP ports free a moment ago (for tests and benchmarks)."""
    socks = [socket.socket(socket.AF_INET, socket.SOCK_STREAM) for _ in range(count)]
    try:
        for sock in socks:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in socks]
    finally:
        for sock in socks:
            sock.close()


def _stop_group(process: subprocess.Popen, grace: float = STOP_GRACE) -> None:
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=grace)
    with contextlib.suppress(ProcessLookupError):  # the group's other members (sandbox workers), if any
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=grace)


@dataclass(frozen=True)
class RestartRule:
    """When the watcher starts a child that died again, and when it gives up: one rule for HAProxy and every
    Streamlit process. A child's first death within `window` seconds is restarted at once, the next ones after
    `backoff` s, twice that, four times ... (at most `max_delay`), and its `limit`-th ends the class: a crash loop
    neither spins the CPU nor hides behind restarts."""

    limit: int = 5
    window: float = 60.0
    backoff: float = 1.0
    max_delay: float = 10.0

    def after_death(self, deaths: tuple[float, ...], now: float) -> tuple[tuple[float, ...], float | None]:
        """A child's deaths within the window, this one at `now` included, and the seconds to wait before
        starting it again (None: give up)."""
        recent = tuple(t for t in deaths if now - t < self.window) + (now,)
        if len(recent) >= self.limit:
            return recent, None
        return recent, 0.0 if len(recent) == 1 else min(self.max_delay, self.backoff * 2 ** (len(recent) - 2))


@dataclass
class Child:
    """One process the watcher keeps running: its name in messages, how to start it, its log, the running one."""

    name: str
    spawn: Callable[[], subprocess.Popen]
    log: Path
    process: subprocess.Popen | None = None
    deaths: tuple[float, ...] = ()  # monotonic times, within the rule's window
    due: float | None = None  # when the watcher starts it again, once it died


def last_lines(path: Path, count: int = 5) -> list[str]:
    """The last `count` non-blank lines of a log (its last run's words, as logs are appended to)."""
    with contextlib.suppress(OSError), open(path, "rb") as log:
        log.seek(max(0, log.seek(0, os.SEEK_END) - 8192))
        lines = log.read().decode(errors="replace").splitlines()
        return [line for line in lines if line.strip()][-count:]
    return []


@dataclass
class Classroom:
    """The processes of one class; `start()` returns when the balancer's address answers."""

    processes: int = 2
    port: int = 8500
    host: str = "0.0.0.0"
    backend_ports: list[int] | None = None  # default: port+1 ... port+processes
    log_dir: Path | None = None
    env: dict[str, str] = field(default_factory=dict)  # added to the children's environment
    restart: bool = True
    rule: RestartRule = field(default_factory=RestartRule)
    on_give_up: Callable[[], None] | None = None  # called by the watcher once it gave up and stopped the class
    restarts: int = 0
    failure: str | None = None  # why the watcher gave up
    children: list[Child] = field(default_factory=list)  # the Streamlit processes, then HAProxy
    _stopping: threading.Event = field(default_factory=threading.Event)
    _lock: threading.RLock = field(default_factory=threading.RLock)  # no child starts while stop() runs

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{host}:{self.port}"

    @property
    def streamlits(self) -> list[subprocess.Popen | None]:
        return [child.process for child in self.children[:self.processes]]

    @property
    def haproxy(self) -> subprocess.Popen | None:
        return self.children[self.processes].process if len(self.children) > self.processes else None

    def backend_url(self, i: int) -> str:
        return f"http://127.0.0.1:{self.backend_ports[i]}"

    def start(self) -> Classroom:
        if shutil.which("haproxy") is None:
            raise RuntimeError("haproxy is not installed (Debian: apt-get install -y haproxy)")
        if self.backend_ports is None:
            self.backend_ports = [self.port + i for i in range(1, self.processes + 1)]
        busy = [p for p in [self.port, *self.backend_ports] if not port_free(p)]
        if busy:
            raise RuntimeError(f"port(s) {', '.join(map(str, busy))} are in use: choose another --port")
        self.log_dir = Path(self.log_dir or tempfile.mkdtemp(prefix="classroom-"))
        self.log_dir.mkdir(parents=True, exist_ok=True)
        config = self.log_dir / "haproxy.cfg"
        config.write_text(haproxy_config(self.host, self.port, self.backend_ports))
        self.children = [self._streamlit(port) for port in self.backend_ports]
        # NOTE: HAProxy sets SO_REUSEADDR on its listener by default, so a restart binds the class's port again
        # even while the connections of the HAProxy that died are in TIME_WAIT on it.
        self.children.append(self._child(f"haproxy on port {self.port}", ["haproxy", "-f", str(config), "-db"],
                                         "haproxy.log"))
        try:
            *streamlits, balancer = self.children
            for child in streamlits:
                child.process = child.spawn()
            for i, child in enumerate(streamlits):
                self._wait(self.backend_url(i), child.process, child.name)
            balancer.process = balancer.spawn()
            self._wait(self.url, balancer.process, balancer.name)
        except BaseException:
            self.stop()
            raise
        if self.restart:
            threading.Thread(target=self._watch, name="classroom-watch", daemon=True).start()
        return self

    def _child(self, name: str, command: list[str], log_name: str) -> Child:
        log = self.log_dir / log_name

        def spawn() -> subprocess.Popen:
            with open(log, "a") as out:  # the child keeps its own copy of the descriptor
                return subprocess.Popen(command, cwd=REPO, stdout=out, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL, env={**os.environ, **self.env},
                                        start_new_session=True)

        return Child(name, spawn, log)

    def _streamlit(self, port: int) -> Child:
        return self._child(f"streamlit on port {port}", streamlit_command(port), f"streamlit-{port}.log")

    def _wait(self, url: str, process: subprocess.Popen, name: str) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"{name} exited with code {process.returncode}; see {self.log_dir}")
            if healthy(url):
                return
            time.sleep(0.1)
        raise RuntimeError(f"{name} did not answer {url}/_stcore/health in {START_TIMEOUT:.0f} s; see {self.log_dir}")

    def _watch(self) -> None:
        """Starts each child that died again, as `rule` says (HAProxy's health checks take a Streamlit process
        back), or gives up: then stops the class, says why in `failure` and on stderr, and calls `on_give_up`."""
        try:
            while self.failure is None and not self._stopping.wait(WATCH_EVERY):
                with self._lock:
                    for child in self.children:
                        if self._stopping.is_set() or not self._tend(child):
                            break
        except Exception as err:  # a watcher that died would leave the class unwatched
            self.failure = f"the watcher failed ({err!r}); stopping the class"
        if self.failure is not None:
            print(f"classroom: {self.failure}", file=sys.stderr, flush=True)
            self.stop()
            if self.on_give_up is not None:
                self.on_give_up()

    def _tend(self, child: Child) -> bool:
        """Reaps `child` if it died and schedules its restart, or starts it if its time came; False: give up."""
        now = time.monotonic()
        if child.due is None and child.process.poll() is not None:
            code = child.process.returncode
            _stop_group(child.process, grace=0)  # its sandbox workers, if any outlived it
            child.deaths, delay = self.rule.after_death(child.deaths, now)
            if delay is None:
                words = "".join(f"\n    {line}" for line in last_lines(child.log))
                self.failure = (f"{child.name} died {len(child.deaths)} times within {self.rule.window:g} s "
                                f"(last exit code {code}); giving up so that a supervisor can restart the class. "
                                f"The last lines of {child.log}:{words or ' (none)'}")
                return False
            print(f"classroom: {child.name} exited ({code}); starting it again"
                  + (f" in {delay:g} s" if delay else ""), file=sys.stderr, flush=True)
            child.due = now + delay
        if child.due is not None and now >= child.due:
            child.process = child.spawn()
            child.due = None
            self.restarts += 1
        return True

    def kill(self, i: int, sig: int = signal.SIGKILL) -> int:
        """Sends ``sig`` to the i-th Streamlit process alone (a fault, for benchmarks); its pid."""
        pid = self.streamlits[i].pid
        os.kill(pid, sig)
        return pid

    def stop(self) -> None:
        """Stops every child, HAProxy first; once is enough (a second call returns once the first is done)."""
        with self._lock:
            if self._stopping.is_set():
                return
            self._stopping.set()
            for child in reversed(self.children):
                if child.process is not None:
                    _stop_group(child.process)

    def __enter__(self) -> Classroom:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m deploy.classroom", description=__doc__.split("\n")[0])
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1,
                        help="Streamlit processes (default: one per core)")
    parser.add_argument("--port", type=int, default=8500, help="the class's port (HAProxy); processes use the next N")
    parser.add_argument("--host", default="0.0.0.0", help="address HAProxy listens on (default: every interface)")
    parser.add_argument("--logs", type=Path, default=None, help="folder for the logs (default: a new temp folder)")
    args = parser.parse_args(argv)
    if args.processes < 1:
        parser.error("--processes must be at least 1")
    stop = threading.Event()
    classroom = Classroom(processes=args.processes, port=args.port, host=args.host, log_dir=args.logs,
                          on_give_up=stop.set)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: stop.set())
    try:
        classroom.start()
    except RuntimeError as err:
        print(f"classroom: {err}", file=sys.stderr)
        return 1
    print(f"Class open at {classroom.url} ({args.processes} processes on ports "
          f"{', '.join(map(str, classroom.backend_ports))}; logs in {classroom.log_dir}). Ctrl-C stops it.", flush=True)
    try:
        stop.wait()
    finally:
        if classroom.failure is None:
            print("classroom: stopping", file=sys.stderr, flush=True)
        classroom.stop()
    return 0 if classroom.failure is None else 1


if __name__ == "__main__":
    sys.exit(main())
