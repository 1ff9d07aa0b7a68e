"""Test hosts on this one machine: Linux network namespaces on a bridge, each host with an address of its own.

    with Hosts(["lb", "app1", "app2", "db"]) as hosts:
        server = hosts.run("db", ["redis-server", "--bind", hosts.address("db"), ...])
        hosts.cut("app1")   # its link down, as a pulled cable: its processes live on, unreachable
        hosts.mend("app1")

The bridge lives in this (the root) namespace with the address ``gateway``, so a browser or a test here reaches
every host; each host has its loopback up and one veth on the bridge. Everything is removed on the way out (each
process the test started, its process group with it, then every namespace and the bridge), even when the test
fails. Needs root (``ip netns add``): ``available()`` says why not.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
from collections.abc import Sequence


def available() -> str | None:
    """Why these hosts cannot be made here, or None."""
    if shutil.which("ip") is None:
        return "the `ip` command is missing (apt-get install -y iproute2; .ci/run installs it)"
    if os.geteuid() != 0:
        return "network namespaces need root (ip netns add): .ci/run runs as root"
    return None


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=check)


class Hosts:
    """Namespaces named ``t<tag>-<name>``, addresses 10.<a>.<b>.<10 + i>/24 on the bridge ``tb<tag>``."""

    def __init__(self, names: Sequence[str], tag: str | None = None):
        self.names = list(names)
        self.tag = tag or f"{os.getpid() % 100000}"
        net = os.getpid() % 60000
        self.prefix = f"10.{200 + net // 250 % 50}.{net % 250}"
        self.gateway = f"{self.prefix}.1"
        self.bridge = f"tb{self.tag}"[:15]
        self._processes: list[subprocess.Popen] = []

    def namespace(self, name: str) -> str:
        return f"t{self.tag}-{name}"

    def address(self, name: str) -> str:
        return f"{self.prefix}.{10 + self.names.index(name)}"

    def _link(self, name: str) -> str:
        """The bridge's end of the host's cable."""
        return f"tv{self.tag}{self.names.index(name)}"[:15]

    def __enter__(self) -> Hosts:
        try:
            _ip("link", "add", self.bridge, "type", "bridge")
            _ip("addr", "add", f"{self.gateway}/24", "dev", self.bridge)
            _ip("link", "set", self.bridge, "up")
            for name in self.names:
                ns, outside, inside = self.namespace(name), self._link(name), f"tp{self.tag}{self.names.index(name)}"
                _ip("netns", "add", ns)
                _ip("-n", ns, "link", "set", "lo", "up")
                _ip("link", "add", outside, "type", "veth", "peer", "name", inside[:15])
                _ip("link", "set", inside[:15], "netns", ns)
                _ip("-n", ns, "link", "set", inside[:15], "name", "eth0")
                _ip("-n", ns, "addr", "add", f"{self.address(name)}/24", "dev", "eth0")
                _ip("-n", ns, "link", "set", "eth0", "up")
                _ip("-n", ns, "route", "add", "default", "via", self.gateway)
                _ip("link", "set", outside, "master", self.bridge)
                _ip("link", "set", outside, "up")
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def run(self, name: str, argv: Sequence[str], **popen) -> subprocess.Popen:
        """``argv`` on host ``name``, in a process group of its own (stopped on the way out)."""
        process = subprocess.Popen(["ip", "netns", "exec", self.namespace(name), *argv], start_new_session=True,
                                   **popen)
        self._processes.append(process)
        return process

    def stop(self, process: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
        """Ends ``process`` and its group (as a host's crash would)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=10)

    def cut(self, name: str) -> None:
        """The host's cable pulled: nothing reaches it or leaves it; its processes go on."""
        _ip("link", "set", self._link(name), "down")

    def mend(self, name: str) -> None:
        _ip("link", "set", self._link(name), "up")

    def close(self) -> None:
        for process in self._processes:
            if process.poll() is None:
                self.stop(process)
        self._processes.clear()
        for name in self.names:
            _ip("netns", "del", self.namespace(name), check=False)  # the veth pair goes with its namespace
        _ip("link", "del", self.bridge, check=False)

    @staticmethod
    def left_over(tag: str) -> list[str]:
        """Namespaces of ``tag`` still there (none, after close)."""
        listed = _ip("netns", "list", check=False).stdout.split()
        return [ns for ns in listed if ns.startswith(f"t{tag}-")]
