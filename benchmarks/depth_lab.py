"""The depth lab's cost: one analysis (a deep MLP's forward and backward on a batch) in-process and in the sandbox.

Run: python benchmarks/depth_lab.py [--repeat 3]

For a few lab settings up to the limit (width × depth × batch = 4 million activations) it prints the wall
and CPU seconds of `explorer.depth_lab.lab.analyse` in this process (best of --repeat), then the largest
once more through the app's sandbox (a worker process, with its limits), a first call and a cached one.
The sandbox stops an evaluation after 10 s of CPU: the largest setting must stay well under it.
Figures depend on the machine's load: record them with the command that made them.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from explorer.depth_lab.lab import MAX_NUMBERS, LabConfig, analyse
from server.sandbox import Sandbox  # noqa: E402

CASES = [
    LabConfig(),  # the page's defaults: tanh, N(0, 1), 50 × 64, batch 200
    LabConfig(init="He normal", activation="relu", width=128, depth=50, batch=500),
    LabConfig(init="He normal", activation="gelu", width=256, depth=50, batch=310),  # at the limit
    LabConfig(init="N(0, 1)", activation="linear", width=256, depth=50, batch=310),
]


def timed(config: LabConfig, repeat: int) -> tuple[float, float]:
    best = (float("inf"), float("inf"))
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        analyse(config)
        best = min(best, (time.perf_counter() - wall, time.process_time() - cpu))
    return best


def label(c: LabConfig) -> str:
    return f"{c.init}, {c.activation}, {c.width} wide × {c.depth} deep, batch {c.batch} ({c.numbers:,} activations)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"limit: {MAX_NUMBERS:,} activations per analysis")
    for config in CASES:
        wall, cpu = timed(config, args.repeat)
        print(f"in-process  {wall:6.3f} s wall  {cpu:6.3f} s CPU   {label(config)}")
    sandbox = Sandbox()
    try:
        largest = CASES[2]
        for what in ("first", "cached"):
            t0 = time.perf_counter()
            sandbox.run(analyse, largest)
            print(f"sandbox     {time.perf_counter() - t0:6.3f} s wall ({what})   {label(largest)}")
    finally:
        sandbox.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
