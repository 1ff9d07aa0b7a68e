"""Server-side cost of the Playground's Landscape tab: the slice, λmax and the per-example gradients.

Run: python benchmarks/landscape.py [--repeat N] [--quick]
The network is the issue's 2-16-16-1 (tanh) on 200 training points, trained 60 steps so the path has frames.
Each figure is the best of N runs (the machine is shared: `uptime` is printed beside them), with what the same
work costs done one weight set (or one point) at a time:
- the 25 × 25 slice: net.losses on all 625 weight sets in a few batched passes, against a plain NumPy loop that
  evaluates the same forward pass once per weight set, and against the engine (no_grad) once per weight set;
- λmax: power iteration on finite-difference HVPs, against numpy.linalg.eigvalsh of the full Hessian built from
  P HVPs;
- per-example gradients: one backward (dWᵢ = δᵢ ⊗ aᵢ), against one engine backward per point.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from autograd import Tensor, no_grad  # noqa: E402
from explorer.playground import training  # noqa: E402
from explorer.playground.landscape import curvature, figures, panel, plane  # noqa: E402
from explorer.playground.landscape import directions as dirs  # noqa: E402
from explorer.playground.landscape import net as nets  # noqa: E402
from explorer.playground.settings import TrainConfig  # noqa: E402


def best(fn, repeat: int) -> tuple[float, object]:
    out, times = None, []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def run_state() -> training.TrainState:
    state = training.new_state(TrainConfig(hidden=(16, 16), n=286, lr=0.3))  # 286 × 70 % = 200 training points
    for _ in range(30):
        training.step(state, 2)
    return state


def lines(repeat: int = 5) -> list[str]:
    state = run_state()
    net, w = nets.net_of(state), training.flat_params(state)
    frames = training.replay_frames(state)
    path, steps = np.array([f.params for f in frames]), np.array([f.step for f in frames])
    d = dirs.random_directions(net, w)
    a = np.linspace(-1, 1, plane.SIZE)
    A, B = np.meshgrid(a, a)
    grid = w + A.reshape(-1, 1) * d.d1 + B.reshape(-1, 1) * d.d2
    out = [f"uptime: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} (1, 5, 15 min load)",
           f"network {'-'.join(map(str, net.sizes))}, {net.n_params} parameters, {len(net.inputs)} training points, "
           f"{len(path)} path frames; best of {repeat}"]
    with training.one_blas_thread():
        batched, values = best(lambda: nets.losses(net, grid), repeat)
        loop, looped = best(lambda: np.array([nets.losses(net, g[None])[0] for g in grid]), max(1, repeat // 2))

        def engine_loop():
            with no_grad():
                return np.array([nets.loss_tensor(net, Tensor(g)).item() for g in grid])

        engine, by_engine = best(engine_loop, max(1, repeat // 2))
        assert np.allclose(values, looped, rtol=1e-12) and np.allclose(values, by_engine, rtol=1e-12)
        whole, _ = best(lambda: plane.landscape(net, w, d, path, steps, path[0], steps[0]), repeat)
        out += [f"slice 25 x 25, batched: {1000 * batched:.1f} ms · NumPy loop of 625 passes: {1000 * loop:.1f} ms "
                f"({loop / batched:.1f}x) · engine loop: {1000 * engine:.1f} ms ({engine / batched:.1f}x)",
                f"slice + path ({len(path)} points and their projections) + the line: {1000 * whole:.1f} ms "
                "(limit 500 ms)"]
        lam_time, lam = best(lambda: curvature.lambda_max(net, w), repeat)
        full_time, H = best(lambda: np.stack([nets.hvp(net, w, e).value for e in np.eye(len(w))]), 1)
        top = float(np.linalg.eigvalsh((H + H.T) / 2)[-1])
        out.append(f"λmax by power iteration: {1000 * lam_time:.1f} ms ({lam.iterations} HVPs, {lam.method}; limit "
                   f"200 ms) · full Hessian ({len(w)} HVPs) + eigvalsh: {1000 * full_time:.0f} ms "
                   f"({full_time / lam_time:.0f}x) · λmax {lam.lambda_max:.6g} vs {top:.6g}")
        each_time, each = best(lambda: nets.per_example(net, w), repeat)
        norms_time, _ = best(lambda: each.norms, repeat)

        def one_by_one():
            rows = []
            for i in range(len(net.inputs)):
                alone = nets.Net(net.sizes, net.activation, net.task, net.loss, net.inputs[i:i + 1],
                                 net.labels[i:i + 1])
                rows.append(nets.gradient(alone, w)[1])
            return np.array(rows)

        loop_time, rows = best(one_by_one, max(1, repeat // 2))
        assert np.allclose(rows, each.grads, rtol=1e-9, atol=1e-12)
        out.append(f"per-example gradients of {len(net.inputs)} points, one backward: {1000 * each_time:.2f} ms "
                   f"(+ their norms {1000 * norms_time:.2f} ms; limit 20 ms) · one backward per point: "
                   f"{1000 * loop_time:.1f} ms ({loop_time / each_time:.0f}x)")
    total, p = best(lambda: panel.compute(state, dirs.PCA), repeat)
    track = curvature.Sharpness()
    track.add("run", p.step, p.curvature.lambda_max)
    figs_time, figs = best(lambda: [figures.slice_figure(p), figures.line_figure(p), figures.sharpness_figure(track, p),
                                    figures.points_figure(p, True), figures.agreement_figure(p)], repeat)
    size = sum(len(f.to_json()) for f in figs)
    out.append(f"the whole panel (PCA): {1000 * total:.0f} ms to compute, {1000 * figs_time:.0f} ms to build its five "
               f"figures, {size / 1000:.0f} KB of JSON; while playing once every {3:g} s at most")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="two repeats: a smoke run")
    args = parser.parse_args()
    for line in lines(2 if args.quick else args.repeat):
        print(line)


if __name__ == "__main__":
    main()
