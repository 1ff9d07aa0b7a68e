"""A DOT drawing turned into SVG by Graphviz's ``dot``, within limits of CPU time and memory."""

from __future__ import annotations

import contextlib
import ctypes
import math
import resource
import shutil
import signal
import subprocess


class DrawingError(Exception):
    """Graphviz did not draw a graph within its limits (or at all); ``message`` says which and what to do."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def _dot_binary() -> str | None:
    return shutil.which("dot")


def _within_hard(kind: int, value: int) -> int:
    """``value`` as a limit of ``kind`` can be in this process and its children: at most the hard limit it
    inherited (a sandbox worker's memory limit may be lower than ``to_svg``'s)."""
    _, hard = resource.getrlimit(kind)
    return value if hard == resource.RLIM_INFINITY else min(value, hard)


def _limited(cpu_seconds: int, memory_bytes: int):
    """What the ``dot`` child sets for itself before it starts: limits already within what it inherits
    (_within_hard: it can only lower them)."""

    def limit() -> None:
        for kind, value in ((resource.RLIMIT_CPU, cpu_seconds), (resource.RLIMIT_AS, memory_bytes)):
            _, hard = resource.getrlimit(kind)
            resource.setrlimit(kind, (value, value if hard == resource.RLIM_INFINITY else hard))
        with contextlib.suppress(OSError, AttributeError):  # Linux: dies with the worker that started it
            ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG

    return limit


def to_svg(dot: str, cpu_seconds: float = 10.0, memory_mb: int = 640) -> str | None:
    """SVG text for DOT text via Graphviz's ``dot`` program; None when Graphviz is not installed.

    ``dot`` runs with at most ``cpu_seconds`` of CPU, ``memory_mb`` of address space (or less, when this process
    may have less: the message says which) and twice that time on the clock (a large graph took 3.75-4.6 s of
    CPU, with no limit at all); past them, DrawingError says so. The pages run this in a sandbox worker
    (components/common/session.py), so it is cancelled with its tab too.

    NOTE: dot runs in a subprocess of our own, not through the graphviz package's ``pipe``: that takes no timeout
    and no ``preexec_fn``, so it could set neither limit in dot's process nor stop it on the clock. The bytes are
    the same (tests/explorer/graph/test_svg.py).
    """
    binary = _dot_binary()
    if binary is None:
        return None
    memory_mb = _within_hard(resource.RLIMIT_AS, memory_mb * 1024 * 1024) // (1024 * 1024)  # what it can have
    too_long = (f"Graphviz took more than {cpu_seconds:g} s to draw this graph for the SVG picture; download the "
                "DOT file and draw it on your own machine (dot -Tsvg), or show fewer of its parts")
    try:
        limit = _limited(_within_hard(resource.RLIMIT_CPU, math.ceil(cpu_seconds)), memory_mb * 1024 * 1024)
        done = subprocess.run([binary, "-Tsvg"], input=dot.encode("utf-8"), capture_output=True,
                              timeout=2 * cpu_seconds, preexec_fn=limit)
    except subprocess.TimeoutExpired:
        raise DrawingError(too_long) from None
    if done.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        raise DrawingError(too_long)
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        if done.returncode < 0 or any("memory" in line.lower() for line in said):
            raise DrawingError(f"Graphviz needed more than {memory_mb:,} MB to draw this graph for the SVG "
                               "picture; download the DOT file and draw it on your own machine")
        raise DrawingError(f"Graphviz could not draw this graph: {said[0] if said else 'no reason given'}")
    return done.stdout.decode("utf-8")
