"""Serve a class from one address: N Streamlit processes on N ports behind HAProxy, started and stopped together.

    python -m deploy.classroom --processes 2 --port 8500

starts the processes on 127.0.0.1:8501.. (one per core is the rule: a process's Python work is one
core), waits until each answers /_stcore/health, then HAProxy on --host:--port with
deploy/haproxy.cfg's settings (cookie stickiness, websocket tunnel timeout, health checks). A
process that dies is started again on its port (its learners reconnect to another meanwhile and
continue from the run store). Ctrl-C or SIGTERM stops everything: each child runs in a process
group of its own (the sandbox's workers with it), which gets SIGTERM, then SIGKILL after 10 s.

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
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CONFIG = Path(__file__).with_name("haproxy.cfg")
STOP_GRACE = 10.0  # seconds between SIGTERM and SIGKILL
START_TIMEOUT = 60.0


def haproxy_config(host: str, port: int, backends: list[int]) -> str:
    """deploy/haproxy.cfg with its `bind` on host:port and one `server` line per backend port."""
    text = CONFIG.read_text()
    text = re.sub(r"(?m)^    bind .*$", f"    bind {host}:{port}", text)
    servers = "".join(f"    server s{i} 127.0.0.1:{p} cookie s{i}\n" for i, p in enumerate(backends, 1))
    text = re.sub(r"(?m)^    server .*\n", "", text)
    return text.rstrip("\n") + "\n" + servers


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
    streamlits: list[subprocess.Popen | None] = field(default_factory=list)
    haproxy: subprocess.Popen | None = None
    restarts: int = 0
    _stopping: threading.Event = field(default_factory=threading.Event)
    _logs: list = field(default_factory=list)

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{host}:{self.port}"

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
        try:
            self.streamlits = [self._start_streamlit(i) for i in range(self.processes)]
            for i in range(self.processes):
                self._wait(self.backend_url(i), self.streamlits[i], f"streamlit on port {self.backend_ports[i]}")
            config = self.log_dir / "haproxy.cfg"
            config.write_text(haproxy_config(self.host, self.port, self.backend_ports))
            self.haproxy = self._spawn(["haproxy", "-f", str(config), "-db"], "haproxy.log")
            self._wait(self.url, self.haproxy, "haproxy")
        except BaseException:
            self.stop()
            raise
        if self.restart:
            threading.Thread(target=self._watch, name="classroom-watch", daemon=True).start()
        return self

    def _spawn(self, command: list[str], log_name: str) -> subprocess.Popen:
        log = open(self.log_dir / log_name, "a")  # noqa: SIM115 - closed in stop()
        self._logs.append(log)
        return subprocess.Popen(command, cwd=REPO, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env={**os.environ, **self.env}, start_new_session=True)

    def _start_streamlit(self, i: int) -> subprocess.Popen:
        port = self.backend_ports[i]
        return self._spawn([
            sys.executable, "-m", "streamlit", "run", "app.py",
            "--server.headless=true", f"--server.port={port}", "--server.address=127.0.0.1",
            "--browser.gatherUsageStats=false", "--server.fileWatcherType=none",
        ], f"streamlit-{port}.log")

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
        """Starts a process that died again on its port (HAProxy's health check takes it back)."""
        while not self._stopping.wait(1.0):
            for i, process in enumerate(self.streamlits):
                if process is not None and process.poll() is not None and not self._stopping.is_set():
                    _stop_group(process, grace=0)  # its sandbox workers, if any outlived it
                    print(f"classroom: the process on port {self.backend_ports[i]} exited "
                          f"({process.returncode}); starting it again", file=sys.stderr, flush=True)
                    self.streamlits[i] = self._start_streamlit(i)
                    self.restarts += 1

    def kill(self, i: int, sig: int = signal.SIGKILL) -> int:
        """Sends ``sig`` to the i-th Streamlit process alone (a fault, for benchmarks); its pid."""
        pid = self.streamlits[i].pid
        os.kill(pid, sig)
        return pid

    def stop(self) -> None:
        self._stopping.set()
        for process in [self.haproxy, *self.streamlits]:
            if process is not None:
                _stop_group(process)
        for log in self._logs:
            log.close()
        self._logs.clear()

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
    classroom = Classroom(processes=args.processes, port=args.port, host=args.host, log_dir=args.logs)
    stop = threading.Event()
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
        print("classroom: stopping", file=sys.stderr, flush=True)
        classroom.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
