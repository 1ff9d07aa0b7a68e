"""deploy/classroom.py's watcher under faults, with real HAProxy and Streamlit processes: a child killed is reaped and
started again on its port, a child that keeps dying ends the class with exit code 1 and its last words, and a signal
still stops every process; then the one restart rule both kinds of child share, table-driven."""

import contextlib
import http.client
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import psutil
import pytest

from deploy.classroom import RestartRule, free_ports, healthy
from tests.support.helpers import ROOT, program_or_skip
from tests.support.waits import until

DEADLINE = 60.0  # seconds for any one condition, generous for a machine with both cores loaded


class Launcher:
    """`python -m deploy.classroom --processes 1` on free ports, its output collected as it comes."""

    def __init__(self, tmp_path):
        self.logs = tmp_path / "logs"
        env = {**os.environ, "AUTOGRAD_EXPLORER_RUNS": f"sqlite:///{tmp_path}/runs.sqlite3"}
        for _ in range(5):  # the processes' port (the next one) may be another's: then try other ports
            self.port = free_ports(1)[0]
            self.process = subprocess.Popen(
                [sys.executable, "-m", "deploy.classroom", "--processes", "1", "--port", str(self.port),
                 "--host", "127.0.0.1", "--logs", str(self.logs)],
                cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                start_new_session=True)
            first = self.process.stdout.readline()  # printed once the class answers (or the launcher's error)
            if "are in use: choose another --port" not in first:
                break
            self.process.wait()
        assert first.startswith("Class open at "), first + self.process.stdout.read()
        self.url = f"http://127.0.0.1:{self.port}"
        self.backend = int(first.split("on ports ")[1].split(";")[0])
        self.lines: list[str] = []
        threading.Thread(target=lambda: self.lines.extend(self.process.stdout), daemon=True).start()

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def children(self) -> list[psutil.Process]:
        return psutil.Process(self.process.pid).children()

    def child(self, name: str) -> psutil.Process | None:
        """The launcher's live child that runs `name` (haproxy, streamlit), if any."""
        for child in self.children():
            try:  # NOTE: the program's name, not the whole command line (the logs' folder has the test's name)
                if name in child.cmdline()[:3] and child.status() != psutil.STATUS_ZOMBIE:
                    return child
            except psutil.NoSuchProcess:
                pass
        return None

    def everything(self) -> list[psutil.Process]:
        """Every process the launcher started, its children's children included (sandbox workers)."""
        return psutil.Process(self.process.pid).children(recursive=True)

    def close(self):
        """Kills whatever a failed test left running: the launcher, then each process it started."""
        left = self.everything() if self.process.poll() is None else []
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        for child in left:
            with contextlib.suppress(psutil.NoSuchProcess):
                child.kill()


@pytest.fixture
def launcher(tmp_path):
    program_or_skip("haproxy", "haproxy", "the classroom's fault tests")
    started = Launcher(tmp_path)
    yield started
    started.close()


def _ends_with(launcher: Launcher, sig: int | None, code: int, started: list[psutil.Process]) -> None:
    """Sends `sig` (if any) to the launcher, which must exit with `code` and leave none of `started` behind."""
    if sig is not None:
        launcher.process.send_signal(sig)
    until(lambda: launcher.process.poll() is not None, "the launcher exits", DEADLINE)
    assert launcher.process.returncode == code, launcher.output
    _, alive = psutil.wait_procs(started, timeout=DEADLINE)
    assert alive == [], f"left behind: {[' '.join(p.cmdline()) for p in alive]}"


def test_a_killed_haproxy_is_reaped_and_started_again_on_the_same_port(launcher):
    old = launcher.child("haproxy")
    # A keep-alive connection open through the old HAProxy: once it is killed, the class's port may have a socket in
    # TIME_WAIT that a listener without SO_REUSEADDR could not bind past.
    connection = http.client.HTTPConnection("127.0.0.1", launcher.port, timeout=10)
    connection.request("GET", "/_stcore/health")
    assert connection.getresponse().read() == b"ok"

    killed = time.monotonic()
    os.kill(old.pid, signal.SIGKILL)
    connection.close()
    new = until(lambda: (p := launcher.child("haproxy")) and p.pid != old.pid and healthy(launcher.url) and p,
                 "the balancer answers /_stcore/health again through a new HAProxy", DEADLINE)
    recovered = time.monotonic() - killed

    assert any(c.status == psutil.CONN_LISTEN and c.laddr.port == launcher.port
               for c in new.net_connections(kind="tcp")), "the new HAProxy listens on the class's port"
    # NOTE: whether the old side of the connection is left in TIME_WAIT (or reset) is the kernel's race between
    # the kill and the client's close, not the launcher's: the new listener on the same port is what is asserted.
    zombies = [c.pid for c in launcher.children() if c.status() == psutil.STATUS_ZOMBIE]
    assert zombies == [], f"the launcher leaves its dead children unreaped: {zombies}"
    assert old.pid not in [c.pid for c in launcher.children()]
    until(lambda: f"classroom: haproxy on port {launcher.port} exited (-9); starting it again\n" in launcher.output,
           "the restart's log line", DEADLINE)
    assert launcher.output.count("starting it again") == 1, launcher.output
    print(f"HAProxy killed -> the balancer answers again: {recovered:.2f} s")

    _ends_with(launcher, signal.SIGINT, 0, launcher.everything())  # Ctrl-C stops the new HAProxy too


def test_a_haproxy_that_dies_on_start_ends_the_class_with_its_last_words(launcher):
    # The configuration the launcher wrote, broken while the class runs: every HAProxy started from it dies at once.
    (launcher.logs / "haproxy.cfg").write_text("global\n    no-such-keyword\n")
    started = launcher.everything()
    killed = time.monotonic()
    os.kill(launcher.child("haproxy").pid, signal.SIGKILL)

    _ends_with(launcher, None, 1, started)
    rule, deaths, backoff = RestartRule(), (), 0.0
    for _ in range(rule.limit - 1):  # the delays of the restarts before the last death: 0 + 1 + 2 + 4 s
        deaths, delay = rule.after_death(deaths, 0.0)
        backoff += delay
    assert time.monotonic() - killed >= backoff, "each restart waits longer than the one before"
    output = launcher.output
    assert f"haproxy on port {launcher.port} died {rule.limit} times within {rule.window:g} s" in output, output
    assert "unknown keyword 'no-such-keyword'" in output, "the message quotes HAProxy's last lines"
    assert output.count(f"classroom: haproxy on port {launcher.port} exited") == rule.limit - 1, output


@pytest.mark.slow  # over 10 s (python -m pytest -m "not slow" leaves it out)
def test_a_streamlit_process_is_started_again_and_one_that_cannot_start_ends_the_class(launcher):
    old = launcher.child("streamlit")
    os.kill(old.pid, signal.SIGKILL)
    until(lambda: (p := launcher.child("streamlit")) and p.pid != old.pid
           and healthy(f"http://127.0.0.1:{launcher.backend}") and healthy(launcher.url),
           "a new Streamlit process answers on its port, and the balancer with it", DEADLINE)
    assert f" on port {launcher.backend} exited (-9); starting it again\n" in launcher.output

    # Killed again, with its port taken meanwhile: each new process exits at once ("Port ... is not available").
    # NOTE: the port is taken within milliseconds of the kill; a new process needs a second or more to bind it.
    started = launcher.everything()
    os.kill(launcher.child("streamlit").pid, signal.SIGKILL)
    taken = until(lambda: _listen(launcher.backend), "the killed process's port is free to take", seconds=10)
    try:
        _ends_with(launcher, None, 1, started)
    finally:
        taken.close()
    rule = RestartRule()
    output = launcher.output
    assert f"streamlit on port {launcher.backend} died {rule.limit} times within {rule.window:g} s" in output, output
    assert f"Port {launcher.backend} is not available" in output, "the message quotes the process's last lines"


def _listen(port: int) -> socket.socket | None:
    """A socket listening on 127.0.0.1:`port`, or None while another process listens there."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))
        sock.listen()
    except OSError:
        sock.close()
        return None
    return sock


@pytest.mark.parametrize(("rule", "deaths", "delays"), [
    (RestartRule(), [0.0], [0.0]),  # a first death is restarted at once
    (RestartRule(), [0.0, 0.1, 1.2, 3.3, 7.4], [0.0, 1.0, 2.0, 4.0, None]),  # then 1, 2, 4 s; the 5th gives up
    (RestartRule(), [0.0, 61.0, 122.0, 183.0, 244.0, 305.0], [0.0] * 6),  # a death a minute is never a crash loop
    (RestartRule(), [0.0, 30.0, 61.0, 62.0], [0.0, 1.0, 1.0, 2.0]),  # only the window's deaths count
    (RestartRule(limit=8, max_delay=5.0), [0, 1, 2, 3, 4, 5, 6, 7], [0, 1, 2, 4, 5, 5, 5, None]),  # capped
    (RestartRule(limit=1), [0.0], [None]),
])
def test_the_restart_rule_backs_off_and_gives_up_on_the_limit_th_death_within_the_window(rule, deaths, delays):
    kept, got = (), []
    for now in deaths:
        kept, delay = rule.after_death(kept, now)
        got.append(delay)
        assert all(now - t < rule.window for t in kept)
    assert got == delays
