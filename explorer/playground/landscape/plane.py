"""The loss over a plane through the current weights, the run's path projected onto it, and the line from the
first weights to now: all losses of one picture in a few batched forward passes (net.losses), not one each.

A point (α, β) of the plane is the weights w + α·d1 + β·d2. A weight vector of the path lies off the plane in
general: its projection (the least-squares α, β) is where it is drawn, its distance from the plane is what the
projection dropped, and the contour under it is the loss at the projection, not its own. Where the two differ
the picture misleads, and the panel says so (the projection error Li et al.'s trajectory plots leave unshown).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.numbers import fmt_number
from explorer.playground.landscape import net as nets
from explorer.playground.landscape.directions import PCA, Directions

SIZE = 25  # the slice's grid: SIZE × SIZE losses
LINE_POINTS = 61  # t steps of 0.025: t = 0 and t = 1 are points of the line (as they are of 31, a big net's)
LINE_RANGE = (-0.25, 1.25)  # the line's ends: t = 0 the first weights, t = 1 now
RANDOM_SPAN = 1.0  # the random plane's half-width (Li et al.'s [−1, 1]), widened to hold the projected path
MARGIN = 0.25  # PCA plane: the share of the path's extent added around it
DIFFERS = 0.1  # the real loss and the contour's differ when they are this far apart (relative, or absolute)


@dataclass(frozen=True)
class Slice:
    directions: Directions
    alphas: np.ndarray  # (size,): SIZE unless the network is big (panel.grid_size)
    betas: np.ndarray
    loss: np.ndarray  # (size, size): loss[j, i] at (alphas[i], betas[j]); inf where the network overflowed
    origin_loss: float


@dataclass(frozen=True)
class Path:
    steps: np.ndarray  # (T,)
    coords: np.ndarray  # (T, 2): the projection's (α, β)
    distance: np.ndarray  # (T,): each point's distance from the plane (in weight space)
    real: np.ndarray  # (T,): the loss at the path's own weights
    contour: np.ndarray  # (T,): the loss at its projection, what the contour shows under it

    @property
    def differs(self) -> np.ndarray:
        """Where the contour under a point is not its loss (more than DIFFERS apart, relative or absolute)."""
        gap = np.abs(self.real - self.contour)
        return ~(gap <= DIFFERS * np.maximum(np.abs(self.real), 1.0))

    def sentence(self) -> str:
        bad = self.differs
        if not len(self.steps):
            return "No recorded steps to draw yet."
        if not bad.any():
            return (f"Each of the {len(self.steps)} points of the path lies on a contour within "
                    f"{DIFFERS:.0%} of its own loss: here the picture can be read as the run's.")
        worst = int(np.argmax(np.where(bad, np.abs(self.real - self.contour), -1.0)))
        real, under, far = (fmt_number(float(x)) for x in (self.real[worst], self.contour[worst], self.distance.max()))
        return (f"At {int(bad.sum())} of the {len(self.steps)} points of the path the contour under the point is not "
                f"its loss (more than {DIFFERS:.0%} apart): those weights lie off the plane, up to {far} from it. "
                f"The worst, step {int(self.steps[worst])}: its loss {real}, the contour under it {under}.")


@dataclass(frozen=True)
class Line:
    t: np.ndarray  # (LINE_POINTS,)
    loss: np.ndarray
    start_step: int


def project(directions: Directions, origin: np.ndarray, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """((α, β) (T, 2), distance (T,)) of weight vectors (T, P) on the plane origin + span(d1, d2)."""
    B = np.stack([directions.d1, directions.d2], axis=1)  # (P, 2)
    D = np.asarray(points, dtype=np.float64) - origin
    coords, *_ = np.linalg.lstsq(B, D.T, rcond=None)
    coords = coords.T
    return coords, np.linalg.norm(D - coords @ B.T, axis=1)


def _axes(directions: Directions, coords: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """The grid: the random plane ±RANDOM_SPAN (wider if the path's projection reaches out); the PCA plane the
    path's extent with a margin, the current weights always inside."""
    if not len(coords):
        coords = np.zeros((1, 2))
    if directions.kind != PCA:
        half = max(RANDOM_SPAN, float(np.abs(coords).max()) * (1 + MARGIN))
        return np.linspace(-half, half, size), np.linspace(-half, half, size)
    out = []
    for k in range(2):
        lo, hi = min(float(coords[:, k].min()), 0.0), max(float(coords[:, k].max()), 0.0)
        pad = MARGIN * max(hi - lo, 1e-3)
        out.append(np.linspace(lo - pad, hi + pad, size))
    return out[0], out[1]


def landscape(net: nets.Net, origin: np.ndarray, directions: Directions, path: np.ndarray, steps: np.ndarray,
              start: np.ndarray, start_step: int, size: int = SIZE,
              line_points: int = LINE_POINTS) -> tuple[Slice, Path, Line]:
    """The slice (size × size), the path on it and the line from `start` to `origin`, from one call of net.losses."""
    origin = np.asarray(origin, dtype=np.float64)
    path = np.asarray(path, dtype=np.float64).reshape(-1, len(origin))
    coords, distance = project(directions, origin, path)
    alphas, betas = _axes(directions, coords, size)
    A, Bt = np.meshgrid(alphas, betas)  # rows: β, columns: α
    grid = origin + A.reshape(-1, 1) * directions.d1 + Bt.reshape(-1, 1) * directions.d2
    projected = origin + coords[:, :1] * directions.d1 + coords[:, 1:] * directions.d2
    t = np.linspace(*LINE_RANGE, line_points)
    line = start + t[:, None] * (origin - start)
    every = nets.losses(net, np.vstack([grid, path, projected, line, origin[None]]))
    n_grid, n_path = size * size, len(path)
    values = np.where(np.isfinite(every), every, np.inf)
    loss = values[:n_grid].reshape(size, size)
    real = values[n_grid:n_grid + n_path]
    contour = values[n_grid + n_path:n_grid + 2 * n_path]
    line_loss = values[n_grid + 2 * n_path:-1]
    return (Slice(directions, alphas, betas, loss, float(values[-1])),
            Path(np.asarray(steps), coords, distance, real, contour),
            Line(t, line_loss, int(start_step)))
