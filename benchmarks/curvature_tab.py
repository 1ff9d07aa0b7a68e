"""The Curvature tab's cost on the server: explorer.program.curvature.curvature (H·v three ways, their operations
counted, and the Hessian with its eigenvalues up to 64 input numbers) and the tab's words, table and heatmap.

Run: python benchmarks/curvature_tab.py [--repeat 5]

Prints, for every preset, a 64-input program (the largest whose Hessian is drawn) and a 65-input one, the wall and
CPU seconds of curvature() in this process (best of --repeat), and of building the tab's HTML and heatmap JSON; then
the tab's first opening through the app's sandbox (a worker process, with its limits), not cached, on the largest
preset and on the 64-input program. Figures depend on the machine's load: record them with `uptime`.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from explorer.program import curvature_report, presets  # noqa: E402
from explorer.program.curvature import curvature  # noqa: E402
from server.sandbox import Sandbox  # noqa: E402

#: 64 input numbers through a small net: the largest Hessian the tab draws (64 reverse passes through the gradient).
NET_64 = "x = randn(8)\nW = randn(7, 8)\nf = ((W @ x).tanh() ** 2).sum()"
PROGRAMS = {
    **{name: presets.program(name) for name in presets.names()},
    "64 inputs: tanh(W @ x), W 7 x 8, x 8 (Hessian drawn)": NET_64,
    "65 inputs: (x ** 3).sum() (Hessian not drawn)": "x = randn(65)\nf = (x ** 3).sum()",
}


def best(fn, repeat: int) -> tuple[float, float, object]:
    wall = cpu = float("inf")
    value = None
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        value = fn()
        wall, cpu = min(wall, time.perf_counter() - w0), min(cpu, time.process_time() - c0)
    return wall, cpu, value


def shown(c) -> None:
    curvature_report.curvature_html(c)
    if c.hessian is not None:
        curvature_report.hessian_figure(c).to_json()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"{'':12}{'wall':>9}  {'cpu':>8}  program (n: input numbers)")
    for name, text in PROGRAMS.items():
        wall, cpu, c = best(lambda text=text: curvature(text), args.repeat)
        draw, draw_cpu, _ = best(lambda c=c: shown(c), args.repeat)
        print(f"curvature {wall * 1e3:9.1f} ms {cpu * 1e3:7.1f} ms  {name} (n = {c.n}; "
              f"{'H built' if c.hessian is not None else 'no H'}; HTML + heatmap {draw * 1e3:.1f} ms wall, "
              f"{draw_cpu * 1e3:.1f} ms cpu)")
    biggest = max(presets.names(), key=lambda name: curvature(presets.program(name)).n)
    sandbox = Sandbox()
    try:
        sandbox.run(len, "warm")  # the workers started, as on a page that has drawn its graph
        for name, text in ((biggest, presets.program(biggest)), ("64 inputs", NET_64)):
            for direction, words in (("random", "the tab's first opening"), ("ones", "another direction")):
                t0 = time.perf_counter()
                sandbox.run(curvature, text, (), direction, 0)
                print(f"sandbox   {(time.perf_counter() - t0) * 1e3:9.1f} ms wall  {words} on {name}, not cached")
    finally:
        sandbox.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
