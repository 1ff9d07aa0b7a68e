"""The sandbox: limits (memory, CPU, wall clock, result size), cancellation, shared evaluations, and the
byte-bounded cache behind it. Tasks run in real worker processes (tests/support/sandbox_tasks.py)."""

import contextlib
import os
import signal
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from autograd.expr import ExpressionError
from server.cache import ByteCache
from server.sandbox import Cancelled, Limits, Sandbox, SandboxError
from tests.support import sandbox_tasks as tasks
from tests.support.clock import Clock
from tests.support.helpers import ROOT

LIMITS = Limits(memory_mb=256, cpu_seconds=1.5, wall_seconds=20.0, result_mb=4)


@pytest.fixture(scope="module", autouse=True)
def tasks_importable():
    """The workers import the tasks by name (tests.support.sandbox_tasks), so they need the repo root on their path."""
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(ROOT) + (os.pathsep + saved if saved else "")
    yield
    if saved is None:
        os.environ.pop("PYTHONPATH", None)
    else:
        os.environ["PYTHONPATH"] = saved


@pytest.fixture(scope="module")
def sandbox(tasks_importable):
    box = Sandbox(LIMITS, workers=2, preload=("numpy", "tests.support.sandbox_tasks"))
    yield box
    box.close()


def wait_until(condition, timeout=15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/stat")
    return not (status.exists() and status.read_text().rsplit(")", 1)[1].split()[0] == "Z")


def pids(marker: Path) -> list[int]:
    return [int(line) for line in marker.read_text().split()] if marker.exists() else []


def test_a_task_runs_in_another_process_and_comes_back_as_read_only_data(sandbox):
    assert sandbox.run(tasks.add, 2, 3) == 5
    result = sandbox.run(tasks.ones, 1000)
    assert result["name"] == "ones" and np.array_equal(result["data"], np.ones(1000))
    assert not result["data"].flags.writeable, "a cached result is shared between sessions: it must not change"
    assert sandbox.run(tasks.ones, 1000) is result, "the second call is the cached object, not a copy"


def test_memory_over_the_limit_is_a_clear_error_and_the_worker_is_replaced():
    # NOTE: touching fresh pages costs CPU, and a lot on these VMs (256 MB took 1.5 s of CPU, the module's
    # whole CPU budget, and CI once saw 'time'); this sandbox's CPU budget is far past what 64 MB takes.
    limits = Limits(memory_mb=64, cpu_seconds=30.0, wall_seconds=60.0)
    box = Sandbox(limits, workers=1, preload=("numpy", "tests.support.sandbox_tasks"))
    try:
        with pytest.raises(SandboxError) as caught:
            box.run(tasks.allocate, 1024)
        assert caught.value.kind == "memory"
        assert "64 MB" in caught.value.message and "smaller" in caught.value.message
        assert box.run(tasks.add, 1, 1) == 2, "the sandbox works on after a worker ran out of memory"
    finally:
        box.close()


def test_a_program_error_caused_by_memory_keeps_its_line_and_says_the_limit(sandbox):
    with pytest.raises(ExpressionError) as caught:
        sandbox.run(tasks.expression_out_of_memory)
    error = caught.value
    assert (error.line, error.col) == (2, 5)
    assert error.message.startswith("ran out of memory computing `x.mean(axis=0)`: ")
    assert "256 MB" in error.message and "256 MB" in str(error)


def test_program_errors_come_back_whole_and_are_remembered(sandbox, tmp_path):
    with pytest.raises(ExpressionError) as caught:
        sandbox.run(tasks.bad_program, "a = 1\nb = a +* 2")
    assert caught.value.line == 2 and "syntax" in caught.value.message
    marker = tmp_path / "runs"
    for _ in range(3):
        assert sandbox.run(tasks.counted, str(marker), 7) == 7
    assert marker.read_text().count("run") == 1


def test_cpu_time_over_the_limit_stops_the_task(sandbox, tmp_path):
    marker = tmp_path / "spin"
    with pytest.raises(SandboxError) as caught:
        sandbox.run(tasks.spin, str(marker))
    assert caught.value.kind == "time" and "1.5 s of CPU" in caught.value.message
    (pid,) = pids(marker)
    assert wait_until(lambda: not alive(pid)), "the spinning worker was killed"
    # The limit is remembered: the same program is not run again on the next rerun.
    with pytest.raises(SandboxError):
        sandbox.run(tasks.spin, str(marker))
    assert len(pids(marker)) == 1


NON_ROOT_RUN = """
import json, resource, sys
from tests.support import sandbox_tasks as tasks
from server.sandbox import Limits, Sandbox, SandboxError

# What the test is about: this process cannot raise a hard CPU limit once lowered (no CAP_SYS_RESOURCE).
resource.setrlimit(resource.RLIMIT_CPU, (10**6, 10**6))
try:
    resource.setrlimit(resource.RLIMIT_CPU, (10**6, 10**6 + 1))
    privileged = True
except (ValueError, OSError):
    privileged = False
box = Sandbox(Limits(cpu_seconds=1.0, wall_seconds=60.0, worker_cpu_seconds=3.0), workers=1,
              preload=("numpy", "tests.support.sandbox_tasks"))
answers, failures, workers = [], [], set()
for i in range(50):
    try:
        answer, pid = box.run(tasks.burn_where, 0.12, i)
        answers.append(answer)
        workers.add(pid)  # a worker near its lifetime CPU retires and a fresh one serves the next task
    except SandboxError as exc:
        failures.append(f"{i}: {exc.kind}: {exc.message}")
box.close()
print(json.dumps({"privileged": privileged, "answers": answers, "failures": failures, "workers": len(workers)}))
"""


def _without_cap_sys_resource() -> None:
    """In the child, before exec: CAP_SYS_RESOURCE leaves the bounding set, so root runs as a service would."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(24, 24, 0, 0, 0) != 0:  # PR_CAPBSET_DROP, CAP_SYS_RESOURCE
        raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP, CAP_SYS_RESOURCE)")


@pytest.mark.slow  # over 10 s (python -m pytest -m "not slow" leaves it out)
def test_fifty_evaluations_in_a_row_without_cap_sys_resource_all_finish():
    """Issue 23 item 3: RLIMIT_CPU counts a worker's whole life and without CAP_SYS_RESOURCE its hard limit never
    rises again; per-task hard limits killed a long-lived worker with SIGXCPU after ~12 s of CPU in all. Here 50
    tasks of 0.12 s use 6 s of CPU, six times the per-task budget (1 s) and twice a worker's lifetime (3 s)."""
    import json
    import subprocess
    import sys

    root = str(ROOT)
    env = dict(os.environ, PYTHONPATH=root)
    preexec = _without_cap_sys_resource if os.geteuid() == 0 else None
    done = subprocess.run([sys.executable, "-c", NON_ROOT_RUN], env=env, cwd=root, preexec_fn=preexec,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert not outcome["privileged"], "the child could raise its hard CPU limit: the test would prove nothing"
    assert outcome["failures"] == [], "no evaluation dies of the CPU limit"
    assert outcome["answers"] == list(range(50))
    assert outcome["workers"] >= 2, "a worker near its lifetime CPU retires and a fresh one takes over"


def test_the_message_of_a_dead_worker_names_its_cause(tmp_path):
    box = Sandbox(LIMITS, workers=1, preload=("tests.support.sandbox_tasks",))
    try:
        for signum, kind, words in ((signal.SIGSEGV, "crash", "signal 11 (SIGSEGV)"),
                                    (signal.SIGKILL, "memory", "SIGKILL"),
                                    (signal.SIGXCPU, "time", "1.5 s of CPU")):
            with pytest.raises(SandboxError) as caught:
                box.run(tasks.signalled, int(signum))
            assert caught.value.kind == kind and words in caught.value.message
            assert "perhaps" not in caught.value.message
    finally:
        box.close()


def test_wall_clock_over_the_limit_stops_the_task_and_is_not_remembered(tmp_path):
    box = Sandbox(Limits(wall_seconds=0.5), workers=1, preload=("tests.support.sandbox_tasks",))
    try:
        with pytest.raises(SandboxError) as caught:
            box.run(tasks.sleep, 30.0)
        assert caught.value.kind == "wall" and "0.5 s" in caught.value.message
        assert len(box.cache) == 0, "a busy machine's timeout may pass: it is not cached"
        assert box.run(tasks.add, 2, 2) == 4
    finally:
        box.close()


def test_a_result_over_the_size_limit_is_refused(sandbox):
    with pytest.raises(SandboxError) as caught:
        sandbox.run(tasks.ones, 1_000_000)  # 8 MB of data, over the 4 MB limit
    assert caught.value.kind == "size" and "4 MB" in caught.value.message


def test_cancelling_stops_the_worker(sandbox, tmp_path):
    marker = tmp_path / "spin"
    gone = threading.Event()
    threading.Timer(0.5, gone.set).start()
    with pytest.raises(Cancelled):
        sandbox.run(tasks.spin, str(marker), 120.0, cancelled=gone.is_set)
    assert wait_until(lambda: bool(pids(marker)))
    (pid,) = pids(marker)
    assert wait_until(lambda: not alive(pid)), "nobody waits for the evaluation: its worker is killed"
    assert sandbox.run(tasks.add, 3, 4) == 7


def test_cancelled_may_raise_its_own_exception(sandbox, tmp_path):
    class TabClosed(BaseException):
        pass

    marker = tmp_path / "spin"

    def closed():
        if pids(marker):
            raise TabClosed

        return False

    with pytest.raises(TabClosed):
        sandbox.run(tasks.spin, str(marker), 120.0, cancelled=closed)
    (pid,) = pids(marker)
    assert wait_until(lambda: not alive(pid))


def test_callers_of_the_same_evaluation_share_it(sandbox, tmp_path):
    marker = tmp_path / "spin"
    results = []

    def call():
        results.append(sandbox.run(tasks.spin, str(marker), 0.5))

    threads = [threading.Thread(target=call) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert results == [1, 1, 1] and len(pids(marker)) == 1


def test_a_rerun_within_the_grace_period_picks_the_evaluation_up_again(sandbox, tmp_path):
    marker = tmp_path / "spin"
    left = threading.Event()
    threading.Timer(0.3, left.set).start()
    with pytest.raises(Cancelled):
        sandbox.run(tasks.spin, str(marker), 1.0, cancelled=left.is_set)
    assert sandbox.run(tasks.spin, str(marker), 1.0) == 1, "the page came back at once: the same evaluation"


# ----------------------------------------------------------------------------- the cache




def test_the_cache_is_bounded_by_bytes_least_recently_used_first():
    cache = ByteCache(100, idle_seconds=60)
    for key in "abc":
        cache.put(key, key.upper(), 40)
    assert len(cache) == 2 and cache.nbytes == 80 and cache.get("a") is None
    cache.get("b")
    cache.put("d", "D", 40)
    assert cache.get("b") == "B" and cache.get("c") is None and cache.get("d") == "D"


def test_the_cache_refuses_an_entry_over_its_item_limit():
    cache = ByteCache(100, max_item=30)
    assert cache.put("small", 1, 30) and not cache.put("big", 2, 31)
    assert cache.get("big") is None and cache.nbytes == 30


def test_idle_entries_expire_so_memory_goes_back():
    clock = Clock()
    cache = ByteCache(1000, idle_seconds=90, clock=clock)
    cache.put("old", 1, 500)
    cache.put("used", 2, 100)
    clock.now = 60
    assert cache.get("used") == 2
    clock.now = 120
    assert cache.sweep() == 1 and cache.nbytes == 100 and cache.get("old") is None
    clock.now = 400
    cache.sweep()
    assert len(cache) == 0 and cache.nbytes == 0


def test_replacing_an_entry_counts_its_bytes_once():
    cache = ByteCache(100)
    cache.put("a", 1, 60)
    cache.put("a", 2, 70)
    assert cache.nbytes == 70 and cache.get("a") == 2


@pytest.mark.skipif(not Path("/proc/self/comm").exists(), reason="process names are read from Linux's /proc")
def test_a_worker_is_named_after_the_task_it_runs(sandbox):
    """ps (and the tab-close browser test) sees what each worker does: the task's function, else idle."""
    from server.sandbox import IDLE_NAME

    name, pid = sandbox.run(tasks.own_name)
    assert name == "own_name"
    assert wait_until(lambda: Path(f"/proc/{pid}/comm").read_text().strip() == IDLE_NAME)


def test_a_worker_killed_idle_or_busy_is_reaped_and_replaced(tasks_importable, tmp_path):
    """kill -9 (as the kernel's OOM killer sends it) to an idle worker and to a busy one: no zombie is left,
    each is replaced, and the busy one's evaluation ends in a message saying what happened."""
    import signal

    import psutil

    me = psutil.Process()
    others = {child.pid for child in me.children()}
    box = Sandbox(LIMITS, workers=2, preload=("numpy", "tests.support.sandbox_tasks"))

    def workers() -> list:
        return [child for child in me.children() if child.pid not in others]

    def zombies() -> list:
        return [child.pid for child in workers() if child.status() == psutil.STATUS_ZOMBIE]

    def settled(killed: int) -> bool:
        with contextlib.suppress(psutil.NoSuchProcess):
            living = [child.pid for child in workers() if child.status() != psutil.STATUS_ZOMBIE]
            return not zombies() and killed not in living and len(living) == 2
        return False

    try:
        idle_marker = tmp_path / "idle"
        box.run(tasks.spin, str(idle_marker), 0.0)
        # NOTE: the caller has its answer before the worker is back among the idle ones: wait for that
        assert wait_until(lambda: len(workers()) == 2 and len(box._idle) == 2)
        (idle,) = pids(idle_marker)
        os.kill(idle, signal.SIGKILL)
        assert wait_until(lambda: settled(idle)), f"an idle worker killed: zombies {zombies()}"

        busy_marker, outcome = tmp_path / "busy", {}

        def evaluate():
            try:
                box.run(tasks.spin, str(busy_marker), 60.0)
            except SandboxError as exc:
                outcome["error"] = exc

        thread = threading.Thread(target=evaluate)
        thread.start()
        assert wait_until(lambda: bool(pids(busy_marker)))
        (busy,) = pids(busy_marker)
        os.kill(busy, signal.SIGKILL)
        thread.join(30)
        error = outcome.get("error")
        # a SIGKILL within the task's CPU budget is the system's doing (on Linux mostly for memory): said so
        assert error is not None and error.kind == "memory" and "signal 9, SIGKILL" in error.message
        assert wait_until(lambda: settled(busy)), f"a busy worker killed: zombies {zombies()}"
        assert box.run(tasks.add, 5, 6) == 11, "the replacements work"
    finally:
        box.close()
    assert wait_until(lambda: not workers()), "closing the sandbox leaves no worker, dead or alive"
