"""Benchmarks the engine against hand-written NumPy (and PyTorch, if installed) in one process.

Run: python benchmarks/run.py [--quick]
Every case runs its implementations interleaved, round after round, so a noisy machine slows all
columns alike; the table reports the median time per implementation and the engine's ratio to
hand-written NumPy. BLAS is pinned to one thread for the comparison.
"""

import argparse
import gc
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import autograd  # noqa: E402
from benchmarks import cases  # noqa: E402


def interleaved(impls, rounds, inner=1):
    """Median seconds per call of each implementation, measured round-robin."""
    times = {name: [] for name in impls}
    for fn in impls.values():  # warm-up
        fn()
    for _ in range(rounds):
        for name, fn in impls.items():
            gc.disable()
            start = time.perf_counter()
            for _ in range(inner):
                fn()
            times[name].append((time.perf_counter() - start) / inner)
            gc.enable()
    return {name: statistics.median(ts) for name, ts in times.items()}


def report(title, medians, target=None, note=""):
    base = medians["numpy"]
    cells = []
    for name, t in medians.items():
        cells.append(f"{name} {t * 1e3:8.3f} ms ({t / base:4.2f}x)")
    ratio = medians["engine"] / base
    verdict = ""
    if target is not None:
        verdict = f"  target <= {target}x: {'ok' if ratio <= target else 'MISSED'}"
    if "torch" in medians:
        faster = medians["engine"] < medians["torch"]
        verdict += f"; vs torch: {'faster' if faster else 'slower'}"
    print(f"{title}\n    " + " | ".join(cells) + verdict + (f"\n    {note}" if note else ""))
    return ratio


def modes(medians):
    """Forward mode against reverse mode on the chain, each against its hand-written NumPy (DESIGN: a JVP costs
    at most what its VJP costs)."""
    cells = []
    for mode in ("JVP", "VJP"):
        engine, numpy = medians[f"engine {mode}"], medians[f"numpy {mode}"]
        cell = f"{mode}: engine {engine * 1e3:6.3f} ms, numpy {numpy * 1e3:6.3f} ms ({engine / numpy:4.2f}x)"
        if f"torch {mode}" in medians:
            cell += f", torch {medians[f'torch {mode}'] * 1e3:6.3f} ms"
        cells.append(cell)
    ratio = medians["engine JVP"] / medians["engine VJP"]
    print(
        "forward vs reverse mode: the same chain, d(sum h)/dx · v as a JVP (func.jvp) and as a VJP (backward())\n    "
        + " | ".join(cells)
        + f"\n    engine JVP / VJP: {ratio:4.2f}  target <= 1.0: {'ok' if ratio <= 1.0 else 'MISSED'}"
    )
    return ratio


def deep_chain():
    sizes = (25_000, 50_000, 100_000)
    for label, collect in (("with the garbage collector", True), ("without it", False)):
        if not collect:
            gc.disable()
        try:
            secs = [min(cases.deep_chain_seconds(n) for _ in range(2)) for n in sizes]
        finally:
            gc.enable()
        per_op = [s / n * 1e6 for s, n in zip(secs, sizes)]
        print(
            f"deep chain forward + backward, {label}: "
            + ", ".join(f"{n:,} ops {s:.2f} s ({p:.2f} us/op)" for n, s, p in zip(sizes, secs, per_op))
            + f"\n    cost per op at 100k / at 25k: {per_op[2] / per_op[0]:.2f} (1.0 = linear)"
        )


def memory(steps=1000):
    step = cases.playground_engine()
    tracemalloc.start()
    for _ in range(100):
        step()
    gc.collect()
    after_100 = tracemalloc.get_traced_memory()[0]
    for _ in range(steps - 100):
        step()
    gc.collect()
    after_all = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    print(
        f"memory over {steps} playground steps: {after_100 / 1e3:.1f} kB after 100, "
        f"{after_all / 1e3:.1f} kB after {steps} (growth {(after_all - after_100) / 1e3:+.1f} kB)"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
    args = parser.parse_args()
    rounds = 5 if args.quick else 25

    from threadpoolctl import threadpool_limits

    autograd.tune_malloc()  # as the app does: freed buffers are kept for the next step
    with threadpool_limits(limits=1):
        print(f"numpy {np.__version__}; torch: {cases.torch_version() or 'not installed'}; BLAS pinned to 1 thread\n")
        report(
            "per-op overhead: chain of 1,000 elementwise ops (mul, add, relu) on 4-element arrays, fwd + bwd",
            interleaved(cases.chain_impls(), rounds * 2),
            target=2.5,
        )
        modes(interleaved(cases.chain_modes_impls(), rounds * 2))
        report(
            "playground step, SGD: MLP 2-16-16-1 (ReLU), 200 points, full batch, MSE, fwd + bwd + SGD lr 0.1",
            interleaved(cases.playground_impls("sgd"), rounds * 4, inner=20),
            target=1.5,
        )
        report(
            "playground step, Adam: the same with Adam lr 0.01 (NumPy: Adam written parameter by parameter)",
            interleaved(cases.playground_impls("adam"), rounds * 4, inner=20),
            target=1.5,
        )
        report(
            "playground step, BCE + Adam: the same net on the class labels, BCE with logits",
            interleaved(cases.playground_impls("adam", loss="bce"), rounds * 4, inner=20),
        )
        report(
            "large step: MLP 784-512-256-10, batch 256, softmax cross-entropy, fwd + bwd + SGD",
            interleaved(cases.large_impls(), rounds),
            target=1.1,
        )
        deep_chain()
        memory(300 if args.quick else 1000)
        for line in cases.presentation_lines(quick=args.quick):
            print(line)


if __name__ == "__main__":
    main()
