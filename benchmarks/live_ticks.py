"""The playing Playground's own work per second of play, without Streamlit or a browser: CPU and instructions.

Run:  python benchmarks/live_ticks.py [--root PATH] [--seconds 20] [--instructions] [--speed 25]

Drives `Playground.tick` and `view_data` (and the JSON the component's data becomes) on the run's own clock, one tick
per `Playground.interval`, for `--seconds` of play at the default speed (25 steps/s) and the fastest (1000), with the
run store in memory. Prints CPU ms per second of play (time.process_time) and, with `--instructions`, valgrind
callgrind's instruction count per second of play ((count after S seconds − count after 0) / S, as
benchmarks/instructions.py does: figures that do not move with the machine's load). Streamlit's own cost of each
tick (a fragment rerun) is not in these: benchmarks/live_view.py measures the whole server.
`--root` measures another checkout's controller (e.g. main's, in a temporary worktree).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import gc, json, sys, time
sys.path.insert(0, {root!r})
from explorer.playground.controller import Playground
from explorer.playground.settings import TrainConfig
from server.run_store import MemoryRunStore
gc.disable()
now = [0.0]
pg = Playground(TrainConfig(speed={speed}), clock=lambda: now[0], store=MemoryRunStore())
pg.play()
cpu = time.process_time()
while now[0] < {seconds}:
    now[0] += pg.interval
    json.dumps(pg.view_data(pg.tick(), full=False))
print(1000 * (time.process_time() - cpu) / max({seconds}, 1e-9))
"""


def _probe(root: Path, speed: int, seconds: float) -> str:
    return PROBE.format(root=str(root), speed=speed, seconds=seconds)


def cpu_ms(root: Path, speed: int, seconds: float) -> float:
    run = subprocess.run([sys.executable, "-c", _probe(root, speed, seconds)], capture_output=True, text=True,
                         check=True, env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
    return float(run.stdout.split()[-1])


def instructions(root: Path, speed: int, seconds: float) -> int:
    env = {**os.environ, "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    run = subprocess.run(["setarch", os.uname().machine, "-R", "valgrind", "--tool=callgrind",
                          "--callgrind-out-file=/dev/null", sys.executable, "-c", _probe(root, speed, seconds)],
                         capture_output=True, text=True, env=env, check=True)
    return int(next(line for line in run.stderr.splitlines() if "Collected" in line).split()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose controller to drive")
    parser.add_argument("--seconds", type=float, default=20.0, help="seconds of play on the run's clock")
    parser.add_argument("--instructions", action="store_true", help="also count instructions (valgrind)")
    parser.add_argument("--speed", type=int, action="append", help="steps per second (repeatable; default 25, 1000)")
    args = parser.parse_args()
    for speed in args.speed or (25, 1000):
        line = f"{speed} steps/s: {cpu_ms(args.root, speed, args.seconds):.2f} CPU ms per second of play"
        if args.instructions:
            spent = instructions(args.root, speed, args.seconds) - instructions(args.root, speed, 0)
            per_second = spent / args.seconds
            line += f", {per_second / 1e6:.1f} M instructions per second of play"
        print(line)
    print(f"(root {args.root}, load average {os.getloadavg()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
