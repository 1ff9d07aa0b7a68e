"""The Practice page's server time on the backprop-ninja exercise (about 25 intermediates): one check of the
learner's answers, one whole page run, and the 20-draw re-check.

Run: python benchmarks/practice.py [--repeats 15]

Prints the median and the fastest of ``--repeats`` runs (process CPU time and wall time) of:
- check: the answers compiled in the language and run, each tensor compared with the engine's grad (the program's
  run and backward done once before, as the page's cache has them);
- page: practice_page (the program compiled and run, backward, traced, the drawing, the check and the table's data),
  what one page run evaluates in the sandbox;
- redraws: the 20 random draws (the answers compiled once, the program run 20 times with fresh inputs).
Targets (issue 30): the check at most 150 ms, the 20-draw re-check within 1.5 s. The machine is shared: record
`uptime` beside the figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.practice import draws, page_data  # noqa: E402
from explorer.practice.check import check  # noqa: E402
from explorer.practice.exercises import EXERCISES, NINJA_ANSWERS  # noqa: E402
from explorer.practice.setup import prepare  # noqa: E402


def timed(fn, repeats: int) -> tuple[float, float, float]:
    """(median CPU seconds, fastest CPU seconds, median wall seconds) of ``repeats`` calls."""
    cpu, wall = [], []
    for _ in range(repeats):
        c, w = time.process_time(), time.perf_counter()
        fn()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return statistics.median(cpu), min(cpu), statistics.median(wall)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    program = EXERCISES["backprop ninja"].program
    setup = prepare(program)
    report = check(setup, NINJA_ANSWERS)
    assert report.good == report.total, "the reference answers must be right"
    print(f"backprop ninja: {len(setup.graph.nodes)} graph nodes, {report.total} tensors asked, "
          f"{len(NINJA_ANSWERS.splitlines())} answer lines; load {os.getloadavg()[0]:.2f}")
    rows = [
        ("check (150 ms target)", lambda: check(setup, NINJA_ANSWERS), args.repeats),
        ("page run", lambda: page_data.practice_page(program, NINJA_ANSWERS), args.repeats),
        ("20 draws (1.5 s target)", lambda: draws.redraw(setup, NINJA_ANSWERS), max(3, args.repeats // 3)),
    ]
    for label, fn, n in rows:
        cpu, best, wall = timed(fn, n)
        print(f"{label:24s} median {cpu * 1000:7.1f} ms CPU (fastest {best * 1000:7.1f}), wall {wall * 1000:7.1f} ms"
              f"  [{n} runs]")


if __name__ == "__main__":
    main()
