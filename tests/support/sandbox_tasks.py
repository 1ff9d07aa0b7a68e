"""Tasks the sandbox tests run in worker processes (imported there by name: keep them module-level)."""

import os
import time
from pathlib import Path

import numpy as np


def add(a, b):
    return a + b


def ones(n):
    return {"data": np.ones(n), "name": "ones"}


def allocate(megabytes):
    """Keeps allocating until it holds `megabytes` (a program whose tensors outgrow the limit)."""
    held = [np.ones(16 * 1024 * 1024 // 8) for _ in range(megabytes // 16)]
    return len(held)


def expression_out_of_memory():
    """What the language does when NumPy cannot allocate: an ExpressionError raised `from None`."""
    from autograd.expr import ExpressionError

    try:
        np.ones(2**40)
    except MemoryError:
        raise ExpressionError("ran out of memory computing `x.mean(axis=0)`", 2, 5) from None


def bad_program(text):
    from autograd.expr import evaluate

    return evaluate(text)


def spin(marker, seconds=60.0):
    """Writes its pid to `marker` (appending, so a test can count evaluations), then spins on the CPU."""
    with open(marker, "a") as f:
        f.write(f"{os.getpid()}\n")
    end = time.monotonic() + seconds
    x = 0
    while time.monotonic() < end:
        x += 1
    return Path(marker).read_text().count("\n")


def sleep(seconds):
    time.sleep(seconds)
    return seconds


def counted(marker, value):
    """Appends a line to `marker` per evaluation and returns `value`."""
    with open(marker, "a") as f:
        f.write("run\n")
    return value


def own_name():
    """The worker's process name while it runs this task (what ps shows)."""
    return Path("/proc/self/comm").read_text().strip(), os.getpid()


def burn(cpu_seconds, tag=0):
    """Uses ``cpu_seconds`` of CPU time (measured by the process's own CPU clock) and returns ``tag``."""
    end = time.process_time() + cpu_seconds
    x = 0
    while time.process_time() < end:
        x += 1
    return tag


def burn_where(cpu_seconds, tag=0):
    """burn, and which worker did it: (tag, the worker's pid)."""
    return burn(cpu_seconds, tag), os.getpid()


def signalled(signum):
    """Dies of signal ``signum`` mid-task (what the OOM killer, a CPU limit or a crash do to a worker)."""
    import signal

    if signum not in (signal.SIGKILL, signal.SIGSTOP):
        signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
    time.sleep(5)
