"""A class under load, measured: learners submitting practice answers across server processes that share one run
store, and the teacher's dashboard reading it.

    python benchmarks/class_load.py                          # 200 learners, 4 processes, SQLite, 30 s
    python benchmarks/class_load.py --store redis://127.0.0.1:6379/0 --learners 200 --processes 4
    python benchmarks/class_load.py --browsers 30             # 30 learners in Chromium through HAProxy (see
                                                              # benchmarks/class_browser.py)

Each process stands for one Streamlit server: its learners (threads, as Streamlit runs sessions) each type their
way through the backprop-ninja exercise, one more answer line each --every seconds (some wrong first), and each
submission is graded as the Practice page grades it (explorer.practice.page_data.practice_page: the check of
every line) and handed in to the class (explorer/classes/room.hand_in, versioned as the page does: each written only
if newer). The main process is the teacher: it reads the dashboard as often as the page does
(explorer/classes/dashboard.REFRESH_SECONDS). Printed: submissions, the grading time per submission (check + hand-in,
p50/p95/max, the queueing inside a process included: one process's Python work is one core), the dashboard's
read time, and how stale it is (from a submission's hand-in to the first dashboard read that counts it, p95),
with the load average: the figure depends on what else this machine runs.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from explorer.classes import dashboard, room  # noqa: E402
from explorer.practice import exercises, page_data  # noqa: E402
from server.run_store import open_store  # noqa: E402

EXERCISE = exercises.EXERCISES["backprop ninja"]


def answer_steps(seed: int) -> list[str]:
    """A learner's answers as they type: the reference lines one by one, some first written wrong and then fixed."""
    rng = random.Random(seed)
    lines = [line for line in EXERCISE.reference.splitlines() if line.strip()]
    typed, steps = [], []
    for line in lines:
        if rng.random() < 0.3:
            steps.append("\n".join([*typed, line.split("=")[0] + "= 0"]))  # wrong first
        typed.append(line)
        steps.append("\n".join(typed))
    return steps


def learners(process: int, count: int, where: str, code: str, seconds: float, every: float, out) -> None:
    store = open_store(where)
    info = room.find(store, code, who=f"p{process}")
    times = []
    lock = threading.Lock()
    end = time.monotonic() + seconds

    def one(i: int) -> None:
        me = f"learner-{process}-{i}"
        room.join(store, info, me, f"L{process}.{i}")
        steps = answer_steps(process * 10_000 + i)
        k, version = 0, None
        time.sleep(random.random() * every)
        while time.monotonic() < end:
            answers = steps[min(k, len(steps) - 1)]
            k += 1
            start = time.perf_counter()
            page = page_data.practice_page(EXERCISE.program, answers)
            rows = {r["name"]: {"verdict": r["verdict"], "maxdiff": r["maxdiff"]} for r in page["rows"]}
            checked = time.perf_counter()
            # NOTE: versioned as the page versions it (the browser's time of the text, here this process's clock)
            version = room.next_version(version, time.time() * 1000)
            room.hand_in(store, info, me, {"rows": rows, "sent": time.time()}, version=version)
            took = time.perf_counter() - start
            with lock:
                times.append((took, checked - start))
            time.sleep(max(0.0, every - took))

    threads = [threading.Thread(target=one, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out.put((times, os.times()))


def _pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--learners", type=int, default=200)
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--every", type=float, default=10.0, help="seconds between one learner's checks")
    parser.add_argument("--store", default="")
    parser.add_argument("--browsers", type=int, default=0,
                        help="instead: this many learners in real Chromium through HAProxy (benchmarks/class_browser)")
    args = parser.parse_args()
    if args.browsers:
        from benchmarks.class_browser import run

        run(args)
        return
    folder = tempfile.mkdtemp(prefix="class-load-")
    where = args.store or f"sqlite:///{folder}/runs.sqlite3"
    store = open_store(where)
    made = room.open_class(store, "load")
    info = room.find(store, made.code, who="teacher")
    queue = multiprocessing.get_context("spawn").Queue()
    per = args.learners // args.processes
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=learners, args=(p, per, where, made.code, args.seconds, args.every, queue))
             for p in range(args.processes)]
    for p in procs:
        p.start()
    reads, stale = [], []
    seen: dict[str, float] = {}
    end = time.monotonic() + args.seconds + 5
    while time.monotonic() < end:
        start = time.perf_counter()
        work = room.work_of(store, info)
        people = room.learners(store, info, work)
        board = dashboard.dashboard(people, work, {}, now=store.clock())
        reads.append(time.perf_counter() - start)
        now = time.time()
        for learner, record in work.items():
            if seen.get(learner) != record.get("sent"):
                seen[learner] = record.get("sent")
                stale.append(now - record["sent"])
        time.sleep(dashboard.REFRESH_SECONDS)
    results = [queue.get() for _ in procs]
    for p in procs:
        p.join()
    both = [t for r in results for t in r[0]]
    times, checks = [t for t, _ in both], [c for _, c in both]
    stored = [t - c for t, c in both]
    print(f"$ python benchmarks/class_load.py --learners {args.learners} --processes {args.processes} "
          f"--seconds {args.seconds:g} --every {args.every:g} --store {where.split(':')[0]}")
    print(f"load average before the end: {os.getloadavg()[0]:.1f}")
    print(f"submissions: {len(times)} ({len(times) / args.seconds:.1f}/s), learners on the dashboard: "
          f"{len(board.learners)}")
    print(f"grading (check + hand-in): p50 {statistics.median(times) * 1000:.0f} ms, "
          f"p95 {_pct(times, 0.95) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms")
    print(f"  of which the check: p50 {statistics.median(checks) * 1000:.0f} ms, "
          f"p95 {_pct(checks, 0.95) * 1000:.0f} ms; the hand-in: p50 {statistics.median(stored) * 1000:.0f} ms, "
          f"p95 {_pct(stored, 0.95) * 1000:.0f} ms")
    print(f"dashboard read: p50 {statistics.median(reads) * 1000:.0f} ms, p95 {_pct(reads, 0.95) * 1000:.0f} ms; "
          f"stale (hand-in to counted): p95 {_pct(stale, 0.95):.2f} s, max {max(stale):.2f} s")


if __name__ == "__main__":
    main()
