"""What the run store's guards cost a save: the store before them and now, side by side, in SQLite and in Redis.

Run: python benchmarks/store_save.py [--before 80f02b1] [--saves 400] [--big]

"before" is server/run_store.py as it was at that commit (the unguarded store: WAL, no identity or integrity
checks, no back-off), loaded from git into this process; "now" is server.run_store. The memory store shows the
guards' own cost; SQLite's also holds the rollback journal's (its fsyncs: WAL had none at commit). Both save the
same Playground snapshots (a 2-8-8-1 run after 200 steps, and after 1,000) under 20 runs of 5 learners,
interleaved save by save into two files of one folder (and two prefixes of one redis-server started here, on a
Unix socket), so a busy machine slows both alike. Prints the median and p95 of a save in each, their ratio (now /
before), and what a whole Playground.save (snapshot + store) costs now, for scale. ``--big`` also times the
quick_check the store runs at start on a file near the 256 MB bound. Figures depend on the machine's load:
record them with the command that made them.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.playground import snapshot, training  # noqa: E402
from explorer.playground.controller import Playground  # noqa: E402
from explorer.playground.settings import TrainConfig  # noqa: E402
from server import run_store  # noqa: E402

REPO = Path(__file__).resolve().parent.parent


def old_store(rev: str) -> types.ModuleType:
    """server/run_store.py at ``rev``, as a module of its own."""
    source = subprocess.run(["git", "show", f"{rev}:server/run_store.py"], cwd=REPO, capture_output=True, text=True,
                            check=True).stdout
    module = types.ModuleType("run_store_before")
    module.__file__ = f"{rev}:server/run_store.py"
    sys.modules[module.__name__] = module  # its dataclasses look their module up
    exec(compile(source, module.__file__, "exec"), module.__dict__)  # noqa: S102 - our own file at an older commit
    return module


def blobs() -> list[bytes]:
    state = training.new_state(TrainConfig(hidden=(8, 8)))
    out = []
    for steps in (200, 800):
        training.step(state, steps)
        out.append(snapshot.dump(state, None, True))
    return out


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def race(stores: dict[str, object], saves: int, payloads: list[bytes]) -> dict[str, list[float]]:
    times = {name: [] for name in stores}
    for i in range(saves):
        blob = payloads[i % len(payloads)]
        run, user = f"benchrun{i % 20:04d}", f"learner{i % 5}"
        for name, store in (stores.items() if i % 2 else reversed(stores.items())):
            start = time.perf_counter()
            done = store.save(run, blob, user=user, holder=run, live=True)
            times[name].append(time.perf_counter() - start)
            assert done == "saved", (name, done)
    return times


def report(label: str, times: dict[str, list[float]]) -> None:
    med = {name: statistics.median(t) * 1e6 for name, t in times.items()}
    tail = {name: p95(t) * 1e6 for name, t in times.items()}
    print(f"{label}: before {med['before']:.0f} µs median, {tail['before']:.0f} µs p95; "
          f"now {med['now']:.0f} µs median, {tail['now']:.0f} µs p95; "
          f"ratio now/before {med['now'] / med['before']:.2f} (median), {tail['now'] / tail['before']:.2f} (p95)")


def redis_server(folder: Path) -> tuple[subprocess.Popen, str] | None:
    if shutil.which("redis-server") is None:
        return None
    sock = folder / "redis.sock"
    process = subprocess.Popen(["redis-server", "--port", "0", "--unixsocket", str(sock), "--save", "",
                                "--appendonly", "no", "--dir", str(folder)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True)
    for _ in range(200):
        if sock.exists():
            break
        time.sleep(0.05)
    time.sleep(0.2)
    return process, f"unix://{sock}?db=0"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", default="80f02b1", help="the commit whose server/run_store.py is 'before'")
    parser.add_argument("--saves", type=int, default=400)
    parser.add_argument("--big", action="store_true", help="also time quick_check on a ~250 MB store")
    args = parser.parse_args()
    before = old_store(args.before)
    payloads = blobs()
    print(f"snapshots of {', '.join(f'{len(b) / 1000:.0f} KB' for b in payloads)}; {args.saves} saves each; "
          f"load average {os.getloadavg()[0]:.2f}")
    # The guard's own cost, with no disk or socket under it:
    report("memory", race({"before": before.MemoryRunStore(), "now": run_store.MemoryRunStore()}, args.saves, payloads))
    with tempfile.TemporaryDirectory(prefix="store-save-") as folder:
        folder = Path(folder)
        stores = {"before": before.SQLiteRunStore(folder / "before.sqlite3"),
                  "now": run_store.SQLiteRunStore(folder / "now.sqlite3")}
        report("SQLite", race(stores, args.saves, payloads))
        for store in stores.values():
            store.close()
        started = redis_server(folder)
        if started is None:
            print("Redis: redis-server is not installed; skipped")
        else:
            process, url = started
            try:
                stores = {"before": before.RedisRunStore(url, prefix="before:"),
                          "now": run_store.RedisRunStore(url, prefix="now:")}
                report("Redis", race(stores, args.saves, payloads))
                for store in stores.values():
                    store.close()
            finally:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        store = run_store.SQLiteRunStore(folder / "page.sqlite3")
        pg = Playground(TrainConfig(hidden=(8, 8)), store=store, user="ann")
        training.step(pg.state, 800)
        pg.playing = True
        times = []
        for _ in range(100):
            start = time.perf_counter()
            pg.save()
            times.append(time.perf_counter() - start)
        print(f"a whole Playground.save now (snapshot + SQLite): {statistics.median(times) * 1000:.2f} ms median, "
              f"{p95(times) * 1000:.2f} ms p95")
        store.close()
        if args.big:
            path = folder / "big.sqlite3"
            big = run_store.SQLiteRunStore(path, max_bytes=300_000_000, user_bytes=300_000_000)
            blob = os.urandom(100_000)
            for i in range(2_500):
                big.save(f"bigrun{i:06d}", blob, user=f"learner{i % 50}", holder="h")
            big.close()
            start = time.perf_counter()
            fresh = run_store.SQLiteRunStore(path)
            fresh.get("bigrun000000")  # the first call connects, and checks the file
            print(f"start on a {path.stat().st_size / 1e6:.0f} MB store (quick_check included): "
                  f"{(time.perf_counter() - start) * 1000:.0f} ms")
            fresh.close()


if __name__ == "__main__":
    main()
