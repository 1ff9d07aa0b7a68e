"""Everything the Landscape tab shows for a run at its current step, computed at once: the slice along the
directions asked for, the path and the line on it, λmax with its verdict, and the per-example gradients.

A big network gets a coarser slice (SIZE × SIZE down to MIN_SIZE × MIN_SIZE) so one panel stays under about
FLOP_BUDGET floating-point operations; the panel says so. `hooks` are the data-* attributes tests read.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace

import numpy as np

from explorer.numbers import fmt_number, fmt_percent
from explorer.playground import training
from explorer.playground.landscape import curvature, examples, plane
from explorer.playground.landscape import directions as dirs
from explorer.playground.landscape import net as nets
from explorer.playground.settings import BATCH_SIZES

FLOP_BUDGET = 1.5e9  # a slice's forward passes at most (about 0.5 s here); a bigger network gets a coarser grid
CURVATURE_BUDGET = 6e9  # ... and power iteration's gradients (a big network gets fewer iterations, said)
MIN_SIZE, MIN_ITERATIONS = 7, 20


@dataclass(frozen=True)
class Panel:
    step: int
    asked: str  # the directions asked for (dirs.RANDOM or dirs.PCA)
    note: str | None  # why the panel shows other directions than asked, or a coarser slice
    slice: plane.Slice
    path: plane.Path
    line: plane.Line
    curvature: curvature.Curvature
    lr: float
    optimizer: str
    verdict: curvature.Verdict
    each: nets.PerExample
    agreement: list[examples.Agreement]
    points: np.ndarray  # the training points (raw coordinates), in the per-example gradients' order
    labels: np.ndarray
    task: str
    seconds: dict[str, float]  # how long each part took

    @property
    def kind(self) -> str:
        return self.slice.directions.kind

    def hooks(self) -> dict[str, str]:
        explained = self.slice.directions.explained
        return {
            "data-directions": self.kind,
            "data-explained": "" if explained is None else repr(round(sum(explained), 6)),
            "data-lambda-max": repr(float(self.curvature.lambda_max)),
            "data-lr": repr(float(self.lr)),
            "data-verdict": self.verdict.kind,
            "data-step": str(self.step),
        }

    def curvature_line(self) -> str:
        c = self.curvature
        edge = fmt_number(2 / c.lambda_max) if c.lambda_max > 0 else "∞"
        rough = "" if c.converged else ", not converged: at least this"
        return (f"λmax = {fmt_number(c.lambda_max)} (power iteration: {c.iterations} Hessian-vector products by "
                f"{c.method}{rough}) · 2/λmax = {edge} · lr = {self.lr:g}")

    def directions_line(self) -> str:
        d = self.slice.directions
        if d.kind == dirs.PCA:
            a, b = d.explained
            return (f"The plane of the path's two principal directions (PCA of the {len(self.path.steps)} recorded "
                    f"steps): they explain {fmt_percent(a)} and {fmt_percent(b)} of its variance, "
                    f"{fmt_percent(a + b)} together.")
        return ("Two random directions, filter-normalised (Li et al. 2018: each neuron's row of weights scaled to that "
                "neuron's own norm, biases held): at ±1 every neuron has moved by as much as its own weights.")


def _origin(state: training.TrainState) -> tuple[np.ndarray, int]:
    """The current weights and their step (a run that diverged: its last recorded frame's, as the replay ends)."""
    w = training.flat_params(state)
    if state.diverged is None and np.isfinite(w).all():
        return w, state.step
    last = next((f for f in reversed(state.frames) if np.isfinite(f.params).all()), state.frames[0])
    return last.params, last.step


def _flops(net: nets.Net) -> int:
    """Multiply-adds ×2 of one forward pass over the training points."""
    return max(1, 2 * len(net.inputs) * sum(i * o for i, o in zip(net.sizes[:-1], net.sizes[1:])))


def grid_size(net: nets.Net) -> int:
    """The slice's side for this network: SIZE unless SIZE² forward passes would pass FLOP_BUDGET."""
    return int(min(plane.SIZE, max(MIN_SIZE, math.isqrt(int(FLOP_BUDGET // _flops(net))))))


def iterations(net: nets.Net) -> int:
    """Power iteration's most steps for this network (an HVP is two gradients: about six forward passes)."""
    return int(min(curvature.ITERATIONS, max(MIN_ITERATIONS, CURVATURE_BUDGET // (6 * _flops(net)))))


def compute(state: training.TrainState, asked: str = dirs.RANDOM, seed: int = 0) -> Panel:
    """The panel for the run as it is now."""
    # NOTE: a run on its way to diverging has weights whose squares overflow: its losses are inf, said as such.
    # BLAS on one thread: the matrices are small, and on a busy machine extra threads only wait on each other
    # (the PCA's SVD took 0.3 s instead of 1 ms beside a load of 13 on 2 cores).
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"), training.one_blas_thread():
        return _compute(state, asked, seed)


def _compute(state: training.TrainState, asked: str, seed: int) -> Panel:
    seconds = {}
    t0 = time.perf_counter()
    net = nets.net_of(state)
    origin, step = _origin(state)
    frames = [f for f in training.replay_frames(state) if f.step <= step and np.isfinite(f.params).all()]
    path = np.array([f.params for f in frames]).reshape(-1, len(origin))
    steps = np.array([f.step for f in frames], dtype=np.int64)
    note = None
    directions = dirs.pca_directions(path, origin) if asked == dirs.PCA else None
    if asked == dirs.PCA and directions is None:
        note = ("The path's principal directions need at least three recorded steps that do not lie on one line: "
                "until then the plane is two random directions.")
    if directions is None:
        directions = dirs.random_directions(net, origin, seed)
    size = grid_size(net)
    if size < plane.SIZE:
        note = (f"{note + ' ' if note else ''}This network is big: the slice is {size} × {size} points, not "
                f"{plane.SIZE} × {plane.SIZE}.")
    start = path[0] if len(path) else origin
    start_step = int(steps[0]) if len(steps) else step
    sl, pa, li = plane.landscape(net, origin, directions, path, steps, start, start_step, size=size,
                                 line_points=plane.LINE_POINTS if size == plane.SIZE else 31)
    seconds["slice"] = time.perf_counter() - t0
    t1 = time.perf_counter()
    curv = curvature.lambda_max(net, origin, iterations=iterations(net))
    seconds["lambda_max"] = time.perf_counter() - t1
    t2 = time.perf_counter()
    each = nets.per_example(net, origin)
    seconds["per_example"] = time.perf_counter() - t2
    agreement = examples.agreement(each, BATCH_SIZES)
    seconds["total"] = time.perf_counter() - t0
    lr = float(state.optimizer.lr)
    verdict = curvature.verdict(lr, curv.lambda_max, state.config.optimizer, float(state.config.l2))
    return Panel(step, asked, note, sl, pa, li, curv, lr, state.config.optimizer, verdict, each, agreement,
                 state.X_train, state.y_train, state.task, seconds)


def with_lr(panel: Panel, lr: float, optimizer: str, l2: float) -> Panel:
    """The same panel for another learning rate (changed while paused: nothing else needs computing)."""
    return replace(panel, lr=lr, optimizer=optimizer,
                   verdict=curvature.verdict(lr, panel.curvature.lambda_max, optimizer, l2))
