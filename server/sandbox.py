"""Runs a user's program in a worker process that can be limited and stopped, and caches the outcome.

    sandbox = Sandbox()
    analysis = sandbox.run(check.analyse_program, text, cancelled=lambda: tab_closed)

Why: a 43-character link built a 3 GB tensor inside the server, and a program whose gradient check
ran for minutes kept a core busy long after its tab closed. Here the work runs in a separate
process with a memory limit (``RLIMIT_AS``), a CPU-time limit (``RLIMIT_CPU``, and the parent
watching the worker's CPU clock), a wall-clock limit, and a lower scheduling priority (nice), and
it is killed as soon as nobody waits for it any more. What comes back is plain data (pickled
with out-of-band buffers, so arrays arrive without a copy and read-only) of bounded size.

Workers are long-lived (numpy and the engine imported once, ~0.35 s), so an evaluation costs a
round trip through a pipe (a few milliseconds); ``workers`` of them run at once and later calls
queue. Calls with the same function and arguments share one evaluation (a page rerun while its
program is still being evaluated waits for it instead of starting again) and one cached outcome:
values in a ``ByteCache`` bounded by bytes and idle time, errors of the program and limit
errors too, so a program that hits the time limit is not run again on every rerun.

``fn`` must be importable by name (a module-level function) and its arguments hashable and
picklable. POSIX only (``resource``); the CPU clock is read from /proc where there is one.
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import ctypes.util
import importlib
import mmap
import os
import pickle
import resource
import signal
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from autograd import tune_malloc
from server.cache import ByteCache

MB = 1024 * 1024
_ROOT = Path(__file__).resolve().parents[1]  # the checkout: workers import explorer/ and autograd/ from it
_MMAP_FROM = 256 * 1024  # result buffers this large are received into an mmap of their own
_THREAD_ENV = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


@dataclass(frozen=True)
class Limits:
    """What one evaluation may use. ``memory_mb`` is address space on top of what the worker has mapped
    once its modules are imported (~100 MB of address space, ~35 MB resident)."""

    # NOTE: the worker holds the result when it sends it and the server a copy once it arrives, so a
    # link can raise the server's process tree by at most memory_mb + result_mb: under 1 GB. The
    # language accepts at most ~320 MB of data, grads and Stepper record, so any program it accepts fits.
    memory_mb: int = 640
    cpu_seconds: float = 10.0
    wall_seconds: float = 30.0
    result_mb: int = 352
    #: CPU seconds one worker may use over its whole life (its hard RLIMIT_CPU, set once); a worker that could
    #: not fit one more task's budget under it retires and a fresh one takes its place.
    worker_cpu_seconds: float = 300.0


class SandboxError(Exception):
    """An evaluation that did not finish: ``kind`` is 'memory', 'time' (CPU), 'wall', 'size', 'crash' or
    'cancelled'; ``message`` says which limit and what to do."""

    def __init__(self, kind: str, message: str):
        message = message[:1].upper() + message[1:]  # a sentence, whichever clause it was built from
        message += "" if message.endswith(".") else "."
        super().__init__(message)
        self.kind = kind
        self.message = message

    def __reduce__(self):
        return type(self), (self.kind, self.message)


class Cancelled(SandboxError):
    """Nobody waits for the evaluation any more (its tab closed, or its page reran)."""

    def __init__(self, kind: str = "cancelled", message: str = "the evaluation was cancelled"):
        super().__init__(kind, message)


def memory_message(limits: Limits) -> str:
    return (f"the program needs more memory than one evaluation may use ({limits.memory_mb:,} MB); "
            "make its tensors smaller")


def time_message(limits: Limits) -> str:
    return (f"the program ran for more than {limits.cpu_seconds:g} s of CPU time and was stopped; "
            "make its tensors smaller or its matrix products fewer")


def wall_message(limits: Limits) -> str:
    return (f"the evaluation took more than {limits.wall_seconds:g} s (the server is busy); "
            "try again in a moment, or make the program smaller")


def size_message(limits: Limits, nbytes: int) -> str:
    return (f"the program's data and grads come to {nbytes / MB:,.0f} MB, more than the "
            f"{limits.result_mb:,} MB a page can show; make its tensors smaller")


# ----------------------------------------------------------------------------- the worker process


def _worker_main(read_fd: int, write_fd: int, memory_bytes: int, preload: Sequence[str],
                 lifetime_cpu: float = 300.0) -> None:
    """A worker's life: import, limit itself, then run tasks until its pipe closes (or it retires)."""
    inbox, outbox = Connection(read_fd, writable=False), Connection(write_fd, readable=False)
    _die_with_parent()
    with contextlib.suppress(OSError):
        os.nice(10)  # the server's own threads (other learners' live views) come first
    warnings.simplefilter("ignore", RuntimeWarning)  # "mean of empty slice" and the like: the page shows nan
    for name in preload:
        importlib.import_module(name)

    # NOTE: the gradient check runs a program again and again: keeping freed buffers for the next run
    # saves page faults; what is kept goes back after each task (malloc_trim below), and a worker that
    # stays large retires. (Results reach the server in mmaps, so its own tuning does not keep them.)
    tune_malloc()
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # SIGXCPU would otherwise dump core
    baseline = _vm_bytes()
    if baseline:  # NOTE: the address space is what RLIMIT_AS counts; the baseline is ~100 MB of it.
        limit = baseline + memory_bytes
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resident = _rss_bytes()
    hard = _lifetime_cpu_limit(lifetime_cpu)
    _name_process(IDLE_NAME)
    outbox.send_bytes(pickle.dumps(("ready", os.getpid())))
    while True:
        try:
            fn, args, cpu_seconds, result_bytes = pickle.loads(inbox.recv_bytes())
        except EOFError:
            return
        # The parent stops the task at cpu_seconds; this is a backstop, below the hard limit and so always
        # allowed (a soft limit may move anywhere under the hard one without any privilege).
        soft = min(int(_cpu_used() + cpu_seconds) + 2, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
        _name_process(getattr(fn, "__name__", "task"))
        retire = _run_task(outbox, fn, args, result_bytes)
        _name_process(IDLE_NAME)
        if _rss_bytes() > resident + 32 * MB:
            _malloc_trim()  # freed arrays go back to the OS, not into this worker's heap
        retire = retire or _rss_bytes() > resident + 128 * MB or _cpu_used() + cpu_seconds + 3 > hard
        outbox.send_bytes(pickle.dumps("retiring" if retire else "idle"))
        if retire:
            return


def _cpu_used() -> float:
    return sum(os.times()[:2])


def _lifetime_cpu_limit(lifetime_cpu: float) -> int:
    """Sets the worker's hard CPU limit once, ``lifetime_cpu`` seconds past what it has used (or lower, where
    the server's own hard limit is lower): the limit each task's soft limit stays under. Returns it.

    NOTE: RLIMIT_CPU counts a process's whole life, and without CAP_SYS_RESOURCE (any server not run as root,
    and root in most containers) a hard limit can be lowered but never raised again: a per-task hard limit
    (used + budget) froze at the first task's and killed the worker with SIGXCPU after ~12 s of CPU in all.
    """
    _, inherited = resource.getrlimit(resource.RLIMIT_CPU)
    hard = int(_cpu_used() + lifetime_cpu) + 1
    if inherited != resource.RLIM_INFINITY:
        hard = min(hard, inherited)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_CPU, (hard, hard))
    return hard


def _run_task(outbox: Connection, fn: Callable, args: tuple, result_bytes: int) -> bool:
    """Runs one task and sends its outcome; True when the worker should exit afterwards."""
    try:
        value = fn(*args)
        buffers: list[pickle.PickleBuffer] = []
        data = pickle.dumps(value, protocol=5, buffer_callback=buffers.append)
        views = [b.raw() for b in buffers]
        total = len(data) + sum(v.nbytes for v in views)
        if total > result_bytes:
            outbox.send_bytes(pickle.dumps(("size", total)))
            return False
        outbox.send_bytes(pickle.dumps(("ok", [v.nbytes for v in views], total)))
        outbox.send_bytes(data)
        for view in views:  # raw, after the framed header: the parent reads each into a buffer of its own
            _write_all(outbox.fileno(), view.cast("B"))
        return False
    except MemoryError:
        _send_error(outbox, "memory", None)
        return True
    except Exception as exc:  # noqa: BLE001 - every failure goes back to the caller as data
        memory = _caused_by_memory(exc)
        _send_error(outbox, "memory" if memory else "error", exc)
        return memory


def _write_all(fd: int, view: memoryview) -> None:
    while view.nbytes:
        view = view[os.write(fd, view):]


def _read_buffer(fd: int, size: int) -> memoryview | bytes:
    """``size`` raw bytes from a pipe, as a read-only buffer. Large ones land in an anonymous mmap of
    their own, which goes back to the OS the moment the last array using it is freed: results never
    pass through malloc, whose freed chunks glibc may keep in its heaps however its trim threshold
    is set."""
    if size < _MMAP_FROM:
        chunks = []
        while size:
            chunk = os.read(fd, size)
            if not chunk:
                raise EOFError
            chunks.append(chunk)
            size -= len(chunk)
        return b"".join(chunks)
    buffer = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    view = memoryview(buffer)
    got = 0
    while got < size:
        n = os.readv(fd, [view[got:]])
        if not n:
            raise EOFError
        got += n
    return view.toreadonly()


def _send_error(outbox: Connection, kind: str, exc: BaseException | None) -> None:
    try:
        payload = pickle.dumps((kind, _exception_state(exc)))
    except Exception:  # noqa: BLE001 - an exception that does not pickle still gets its words across
        payload = pickle.dumps((kind, (RuntimeError, (f"{type(exc).__name__}: {exc}",), {})))
    outbox.send_bytes(payload)


def _exception_state(exc: BaseException | None):
    if exc is None:
        return None
    state = {k: v for k, v in vars(exc).items() if not k.startswith("__")}
    return type(exc), exc.args, state


def _rebuild_exception(state) -> BaseException:
    cls, args, attributes = state
    exc = cls.__new__(cls)
    exc.args = args
    for name, value in attributes.items():
        with contextlib.suppress(AttributeError):
            setattr(exc, name, value)
    return exc


def _caused_by_memory(exc: BaseException) -> bool:
    """True when a MemoryError is behind ``exc`` (the language reports one `from None`: it is the context)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, MemoryError):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def _die_with_parent() -> None:
    """Linux: the kernel kills this worker if the process that started it dies."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        if os.getppid() == 1:  # the parent died before prctl
            os._exit(0)


#: A worker's process name (``ps -o comm``, /proc/PID/comm) between tasks; during one it is the task's function
#: (``analyse_program``), so ps, top and the tests see what each worker is doing.
IDLE_NAME = "sandbox-idle"


def _name_process(name: str) -> None:
    """Linux: the process's name as ps shows it (at most 15 bytes: the kernel keeps no more)."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(15, name.encode()[:15])  # PR_SET_NAME


def _malloc_trim() -> None:
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim(0)


def _vm_bytes() -> int:
    return _statm(0)


def _rss_bytes() -> int:
    return _statm(1)


def _statm(field: int) -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[field]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


# ----------------------------------------------------------------------------- the parent's side


_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


class _Worker:
    """One worker process and the two ends of its pipes."""

    def __init__(self, limits: Limits, preload: Sequence[str]):
        task_read, task_write = os.pipe()
        result_read, result_write = os.pipe()
        env = dict(os.environ)
        env.update({name: "1" for name in _THREAD_ENV})  # one core per evaluation
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(_ROOT), env.get("PYTHONPATH", "")) if p)
        code = (f"from server.sandbox import _worker_main; "
                f"_worker_main({task_read}, {result_write}, {limits.memory_mb * MB}, {tuple(preload)!r}, "
                f"{max(limits.worker_cpu_seconds, limits.cpu_seconds + 4)!r})")
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-c", code], pass_fds=(task_read, result_write), env=env, cwd=str(_ROOT),
                stdin=subprocess.DEVNULL, close_fds=True,
            )
        finally:
            os.close(task_read)
            os.close(result_write)
        self.tasks = Connection(task_write, readable=False)
        self.results = Connection(result_read, writable=False)

    def wait_ready(self, timeout: float) -> bool:
        if self.results.poll(timeout):
            with contextlib.suppress(EOFError, OSError, pickle.UnpicklingError):
                return pickle.loads(self.results.recv_bytes())[0] == "ready"
        return False

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def cpu_seconds(self) -> float | None:
        """User + system CPU time the worker has used, from /proc (None where there is none)."""
        try:
            with open(f"/proc/{self.pid}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / _TICK
        except (OSError, ValueError, IndexError):
            return None

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError, OSError):
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)
        for end in (self.tasks, self.results):
            with contextlib.suppress(OSError):
                end.close()


class _Job:
    """One evaluation and the callers waiting for it."""

    def __init__(self, key: Hashable, fn: Callable, args: tuple):
        self.key, self.fn, self.args = key, fn, args
        self.waiters = 0
        self.left_at: float | None = None  # when the last waiter left
        self.done = threading.Event()
        self.value: Any = None
        self.error: BaseException | None = None
        self.nbytes = 0


class Sandbox:
    """A small pool of worker processes that evaluate, limited and cancellable, and a cache of outcomes.

    ``grace`` is how long an evaluation nobody waits for may go on before it is killed: a page
    that reruns (a widget changed) comes back for the same evaluation within it. A worker that dies, busy or
    idle, is waited for (no zombie) and replaced; a busy one's death is its evaluation's SandboxError.
    """

    def __init__(
        self,
        limits: Limits = Limits(),
        *,
        workers: int = 2,
        preload: Sequence[str] = ("numpy", "autograd", "autograd.expr", "autograd.graph", "explorer.program.run"),
        cache: ByteCache | None = None,
        grace: float = 0.5,
        poll: float = 0.05,
        reap_period: float = 0.5,
    ):
        self.limits = limits
        self.preload = tuple(preload)
        self.cache = cache if cache is not None else ByteCache(512 * MB, max_item=limits.result_mb * MB)
        self.grace = grace
        self.poll = poll
        self.reap_period = reap_period  # how often idle workers are looked at for one that died (see _reap_idle)
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)  # a worker became idle, or the sandbox closed
        self._jobs: dict[Hashable, _Job] = {}
        self._slots = threading.BoundedSemaphore(workers)
        self._idle: list[_Worker] = []
        self._closed = False
        #: The keys (module, function, args) of the latest evaluations started (not cached, not shared): a page
        #: run's evaluations are the entries it added (tests count them).
        self.started: collections.deque = collections.deque(maxlen=256)
        self._cannot_start = ""  # why the last worker did not start, until one does
        self._spawn_requests = threading.Semaphore(workers)
        # NOTE: one long-lived thread starts every worker: Linux's parent-death signal fires when the
        # *thread* that started a worker exits, so workers must not be started by short-lived job threads.
        threading.Thread(target=self._spawner, name="sandbox-spawner", daemon=True).start()
        threading.Thread(target=self._sweeper, name="sandbox-sweeper", daemon=True).start()

    # -- the public side --
    def run(self, fn: Callable, *args: Any, cancelled: Callable[[], bool] | None = None) -> Any:
        """``fn(*args)`` evaluated in a worker (or the cached outcome). Raises what ``fn`` raised,
        ``SandboxError`` for a limit, or ``Cancelled`` once ``cancelled()`` is true (``cancelled``
        may also raise, e.g. a web framework's own stop exception: the evaluation is left the same way)."""
        key = (fn.__module__, fn.__qualname__, args)
        with self._lock:
            outcome = self.cache.get(key)
            if outcome is not None:
                return _unwrap(outcome)
            if self._closed:
                raise Cancelled(message="the sandbox is closed")
            job = self._jobs.get(key)
            if job is None:
                job = self._jobs[key] = _Job(key, fn, args)
                self.started.append(key)
                threading.Thread(target=self._execute, args=(job,), name="sandbox-job", daemon=True).start()
            job.waiters += 1
            job.left_at = None
        try:
            while not job.done.wait(self.poll):
                if cancelled is not None and cancelled():
                    raise Cancelled()
        finally:
            with self._lock:
                job.waiters -= 1
                if job.waiters == 0:
                    job.left_at = time.monotonic()
        if job.error is not None:
            raise _copy(job.error)
        return job.value

    def close(self) -> None:
        """Kills every worker; running evaluations end as cancelled."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
            self._changed.notify_all()
        self._spawn_requests.release()
        for worker in idle:
            worker.kill()

    # -- evaluation --
    def _abandoned(self, job: _Job) -> bool:
        with self._lock:
            return self._closed or (job.waiters == 0 and job.left_at is not None
                                    and time.monotonic() - job.left_at > self.grace)

    def _execute(self, job: _Job) -> None:
        outcome: tuple[str, Any] = ("error", Cancelled())
        worker = None
        try:
            worker = self._take_worker(job)  # it holds one of the slots
            if worker is not None:
                outcome = self._evaluate(worker, job)
        except Exception as exc:  # noqa: BLE001 - a bug here must not leave callers waiting
            outcome = "crash", SandboxError("crash", f"internal error in the sandbox: {exc!r}")
        finally:
            self._finish(job, outcome)  # the callers have their answer before the worker is tidied up
        if worker is None:
            return
        try:
            if outcome[0] in ("crash", "killed") or not self._ready_again(worker):
                self._retire(worker)
            else:
                self._give_back(worker)
        finally:
            self._slots.release()

    def _ready_again(self, worker: _Worker) -> bool:
        """After a task the worker says whether it takes another or exits (memory it cannot give back)."""
        try:
            return worker.results.poll(10) and pickle.loads(worker.results.recv_bytes()) == "idle"
        except (EOFError, OSError, pickle.UnpicklingError):
            return False

    def _take_worker(self, job: _Job) -> _Worker | None:
        """An idle worker, holding a slot for it; None (and no slot) if the job was abandoned meanwhile."""
        while not self._slots.acquire(timeout=self.poll):
            if self._abandoned(job):
                return None
        while True:
            with self._changed:
                while not self._idle:
                    if self._abandoned(job) or self._cannot_start:
                        self._slots.release()
                        if self._cannot_start:
                            raise SandboxError("crash", self._cannot_start)
                        return None
                    self._changed.wait(self.poll)
                worker = self._idle.pop()
            if worker.alive():
                return worker
            self._retire(worker)  # it retired itself after its last task (see _worker_main)

    def _give_back(self, worker: _Worker) -> None:
        with self._changed:
            if worker.alive() and not self._closed:
                self._idle.append(worker)
                self._changed.notify_all()
                return
        self._retire(worker)

    def _retire(self, worker: _Worker) -> None:
        """Kills a worker and has the spawner start another in its place."""
        worker.kill()
        if not self._closed:
            self._spawn_requests.release()

    def _evaluate(self, worker: _Worker, job: _Job) -> tuple[str, Any]:
        """Sends the task and waits for it, watching its clocks; ('ok', (value, bytes)), ('error', exc),
        ('killed', exc) when the worker was stopped, or ('crash', exc) when it died."""
        limits = self.limits
        start_cpu = worker.cpu_seconds()
        start = time.monotonic()
        try:
            worker.tasks.send_bytes(
                pickle.dumps((job.fn, job.args, limits.cpu_seconds, limits.result_mb * MB), protocol=5))
        except (OSError, ValueError):
            return "crash", SandboxError("crash", "the evaluation's worker process was not running; try again")
        while not worker.results.poll(self.poll):
            if self._abandoned(job):
                return "killed", Cancelled()
            cpu = worker.cpu_seconds()
            if start_cpu is not None and cpu is not None and cpu - start_cpu > limits.cpu_seconds:
                return "killed", SandboxError("time", time_message(limits))
            if time.monotonic() - start > limits.wall_seconds:
                return "killed", SandboxError("wall", wall_message(limits))
        try:
            header = pickle.loads(worker.results.recv_bytes())
            if header[0] == "ok":
                _, sizes, total = header
                data = worker.results.recv_bytes()
                buffers = [_read_buffer(worker.results.fileno(), size) for size in sizes]
                return "ok", (pickle.loads(data, buffers=buffers), total)
        except (EOFError, OSError):
            return "crash", self._death(worker, start_cpu)
        kind, detail = header
        if kind == "size":
            return "error", SandboxError("size", size_message(limits, detail))
        if kind == "memory":
            return "error", _memory_error(detail, limits)
        return "error", _rebuild_exception(detail)

    def _death(self, worker: _Worker, start_cpu: float | None) -> SandboxError:
        """Why a worker died mid-task, said by its cause: its CPU limit (SIGXCPU, or SIGKILL past the task's CPU
        budget), the system killing it (SIGKILL: on Linux mostly for memory), another signal, or an exit."""
        cpu = worker.cpu_seconds()
        with contextlib.suppress(subprocess.TimeoutExpired):
            worker.process.wait(timeout=2)
        code = worker.process.returncode
        spent = None if cpu is None or start_cpu is None else cpu - start_cpu
        over = spent is None or spent >= self.limits.cpu_seconds - 1
        if code == -signal.SIGXCPU or (code == -signal.SIGKILL and over):
            return SandboxError("time", time_message(self.limits))
        if code == -signal.SIGKILL:
            return SandboxError("memory", "the system killed the evaluation (signal 9, SIGKILL), which on Linux "
                                          "mostly means the machine ran short of memory; try again in a moment, "
                                          "or make the program's tensors smaller")
        if code is not None and code < 0:
            name = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else "unknown"
            return SandboxError("crash", f"the evaluation stopped on signal {-code} ({name}); "
                                         "try again, or make the program smaller")
        return SandboxError("crash", f"the evaluation's worker process exited (exit code {code}) before "
                                     "answering; try again")

    def _finish(self, job: _Job, outcome: tuple[str, Any]) -> None:
        kind, detail = outcome
        if kind == "ok":
            job.value, job.nbytes = detail
            self.cache.put(job.key, ("ok", job.value), job.nbytes)
        else:
            job.error = detail
            # A cancelled or crashed evaluation, or one that ran out of wall-clock time because the
            # machine was busy, may succeed next time; the program's own errors and its limits stay.
            if kind != "crash" and not (isinstance(detail, SandboxError) and detail.kind in ("cancelled", "wall")):
                self.cache.put(job.key, ("error", detail), 1024)
        with self._lock:
            self._jobs.pop(job.key, None)
        job.done.set()

    # -- background threads --
    def _spawner(self) -> None:
        while True:
            self._spawn_requests.acquire()
            if self._closed:
                return
            worker = _Worker(self.limits, self.preload)
            if not worker.wait_ready(timeout=60):
                worker.kill()
                with self._changed:
                    self._cannot_start = ("the worker process that evaluates programs did not start "
                                          f"(exit code {worker.process.returncode}; the server's log says why)")
                    self._changed.notify_all()
                time.sleep(1.0)  # a broken install: try again, without spinning
                self._spawn_requests.release()
                continue
            with self._changed:
                if self._closed:
                    worker.kill()
                    return
                self._cannot_start = ""
                self._idle.append(worker)
                self._changed.notify_all()

    def _sweeper(self) -> None:
        period = max(1.0, min(10.0, self.cache.idle_seconds / 4))
        swept = time.monotonic()
        while not self._closed:
            time.sleep(self.reap_period)
            self._reap_idle()
            if time.monotonic() - swept >= period:
                self.cache.sweep()
                swept = time.monotonic()

    def _reap_idle(self) -> None:
        """Idle workers that died (the kernel's OOM killer, a kill -9) are waited for now, not when next taken:
        until its parent waits for it a dead child stays a zombie. Each is replaced."""
        with self._changed:
            dead = [worker for worker in self._idle if not worker.alive()]  # NOTE: alive() polls, which reaps
            self._idle = [worker for worker in self._idle if worker not in dead]
        for worker in dead:
            self._retire(worker)


def _unwrap(outcome: tuple[str, Any]) -> Any:
    kind, detail = outcome
    if kind == "ok":
        return detail
    raise _copy(detail)


def _copy(error: BaseException) -> BaseException:
    """A copy of a stored exception to raise, so callers in several threads never share one traceback."""
    with contextlib.suppress(Exception):
        return _rebuild_exception(_exception_state(error))
    return error


def _memory_error(detail, limits: Limits) -> BaseException:
    """A memory failure: the program's own error (with its line and column) if it had one, saying the limit."""
    if detail is None:
        return SandboxError("memory", memory_message(limits))
    exc = _rebuild_exception(detail)
    message = getattr(exc, "message", None)
    if isinstance(message, str):
        exc.message = f"{message}: {memory_message(limits)}"
        exc.args = tuple(a.replace(message, exc.message) if isinstance(a, str) else a for a in exc.args)
        return exc
    return SandboxError("memory", memory_message(limits))

