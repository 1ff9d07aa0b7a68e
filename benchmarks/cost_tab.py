"""The Forward vs reverse tab's cost on the server: the program's panel (explorer.program.mode_cost.program_cost: its
Jacobian counted, then built and timed both ways) and the lab's (lab_cost, lab_counts), in-process and in the sandbox.

Run: python benchmarks/cost_tab.py [--repeat 3]

Prints, for every preset and a few programs at and past the build limits, the wall and CPU seconds of program_cost
in this process (best of --repeat); the lab at its start and its largest; then what opening the tab costs through
the app's sandbox (a worker process, with its limits) on micrograd and on the preset with the most input numbers:
the three evaluations the tab asks for, first calls (not cached), with the workers already started as on a page.
Figures depend on the machine's load: record them with the command that made them.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from autograd.func import forward_blocks
from components.program.cost_panel import LAB_MAX, LAB_START
from explorer.program import presets
from explorer.program.mode_cost import SECONDS_PER_VISIT, lab_cost, lab_counts, node_visits, program_cost
from language import compile_program
from server.sandbox import Sandbox  # noqa: E402

PROGRAMS = {
    **{name: presets.program(name) for name in presets.names()},
    "tanh(W @ x), 3,050 in, 60 out (built)": "x = randn(50)\nW = randn(60, 50)\ny = (W @ x).tanh()",
    "tanh(W @ x), 300,600 in, 500 out (counted only)": "x = randn(600)\nW = randn(500, 600)\ny = (W @ x).tanh()",
    "x * 2 on 1,000 x 1,000 (counted only)": "x = randn(1000, 1000)\ny = x * 2",
    "4,096 in, a 300-step scalar chain (counted only: 1.2 million node visits)":
        "\n".join(["x = randn(4096)", "s = x.sum()", *(["s = s * 2", "s = tanh(s)"] * 150), "s"]),
}
#: Chains whose forward-mode Jacobian is built to measure a node visit (SECONDS_PER_VISIT's figure).
CHAINS = ((64, 100), (256, 100), (64, 400), (512, 50))


def visit_seconds(n: int, links: int, repeat: int) -> tuple[float, float]:
    """(CPU seconds per node visit of forward_blocks on n inputs through a chain of ``links`` scalar steps, the
    same passes written by hand in NumPy: seconds per visit of one tanh/multiply on a scalar)."""
    text = "\n".join([f"x = randn({n})", "s = x.sum()", *(["s = s * 2", "s = tanh(s)"] * (links // 2)), "s"])
    result = compile_program(text).run()
    out, inputs = result.output, list(result.inputs.values())
    visits = node_visits(out, inputs)[0]
    _, cpu = timed(forward_blocks, out, inputs, repeat=repeat)

    def by_hand():  # the same tangents, one pass per input number, without a graph
        x = result.inputs["x"].data
        for j in range(n):
            v = np.zeros(n)
            v[j] = 1.0
            s, t = x.sum(), v.sum()
            for _ in range(links // 2):
                s, t = s * 2, t * 2
                s = np.tanh(s)
                t = t * (1 - s * s)

    _, numpy_cpu = timed(by_hand, repeat=repeat)
    return cpu / visits, numpy_cpu / visits


def timed(fn, *args, repeat: int) -> tuple[float, float]:
    best = (float("inf"), float("inf"))
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        fn(*args)
        best = min(best, (time.perf_counter() - wall, time.process_time() - cpu))
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    program_cost(presets.program(presets.DEFAULT))  # imports
    for name, text in PROGRAMS.items():
        cost = program_cost(text)
        wall, cpu = timed(program_cost, text, repeat=args.repeat)
        print(f"in-process  {wall * 1e3:8.1f} ms wall {cpu * 1e3:8.1f} ms CPU  program_cost  {name}: n = {cost.n:,}, "
              f"m = {cost.m:,}, {'built' if cost.built else 'counted only'}")
    for n, links in CHAINS:
        per_visit, by_hand = visit_seconds(n, links, args.repeat)
        print(f"in-process  {per_visit * 1e6:8.2f} µs CPU a node visit (forward_blocks, {n} inputs, a {links}-step "
              f"chain; {per_visit / by_hand:.1f}x the same passes by hand in NumPy; the caps assume "
              f"{SECONDS_PER_VISIT * 1e6:.1f} µs)")
    ns = tuple(range(1, LAB_MAX + 1))
    for label, fn, fn_args in (
        (f"lab_cost({LAB_START['n']}, {LAB_START['m']})", lab_cost, (LAB_START["n"], LAB_START["m"])),
        (f"lab_cost({LAB_MAX}, {LAB_MAX})", lab_cost, (LAB_MAX, LAB_MAX)),
        (f"lab_counts(1..{LAB_MAX}, {LAB_START['m']})", lab_counts, (ns, LAB_START["m"])),
        (f"lab_counts(1..{LAB_MAX}, {LAB_MAX})", lab_counts, (ns, LAB_MAX)),
    ):
        wall, cpu = timed(fn, *fn_args, repeat=args.repeat)
        print(f"in-process  {wall * 1e3:8.1f} ms wall {cpu * 1e3:8.1f} ms CPU  {label}")

    biggest = max(presets.names(), key=lambda name: program_cost(presets.program(name)).n)
    sandbox = Sandbox()
    try:
        sandbox.run(lab_cost, 1, 1)  # the workers started, as on a page that has drawn its graph
        for k, name in enumerate((presets.DEFAULT, biggest)):
            start = time.perf_counter()
            parts = []
            for label, fn, fn_args in (("program_cost", program_cost, (presets.program(name), ())),
                                       ("lab_cost", lab_cost, (LAB_START["n"], LAB_START["m"] + k)),
                                       ("lab_counts", lab_counts, (ns, LAB_START["m"] + k))):
                t0 = time.perf_counter()
                sandbox.run(fn, *fn_args)
                parts.append(f"{label} {(time.perf_counter() - t0) * 1e3:.1f} ms")
            print(f"sandbox     {(time.perf_counter() - start) * 1e3:8.1f} ms wall  the tab's first opening on {name} "
                  f"({', '.join(parts)}; the lab at m = {LAB_START['m'] + k}, not cached)")
        t0 = time.perf_counter()
        sandbox.run(program_cost, presets.program(biggest), ())
        print(f"sandbox     {(time.perf_counter() - t0) * 1e3:8.1f} ms wall  program_cost on {biggest}, cached")
    finally:
        sandbox.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
