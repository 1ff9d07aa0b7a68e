"""The two directions a loss slice is drawn along: filter-normalised random ones, or the PCA of the run's path.

Li, Xu, Taylor, Studer & Goldstein 2018, "Visualizing the Loss Landscape of Neural Nets": a random Gaussian
direction d, rescaled filter by filter to the weights' own size (for a fully connected layer a filter is a
neuron: one row of W, d_row ← d_row / ‖d_row‖ · ‖w_row‖), with the biases' directions zeroed (the paper's
`ignore biasbn` option), so a step of 1 along it changes every neuron by as much as the neuron's own weights,
whatever the layer's scale. Random directions in hundreds of dimensions are almost orthogonal to the path the
run took, which is why the paper draws trajectories on the plane of the path's own two principal directions
instead (section 7: PCA of the checkpoints' differences from the final weights).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.playground.landscape.net import Net

RANDOM, PCA = "random", "pca"
KINDS = (RANDOM, PCA)


@dataclass(frozen=True)
class Directions:
    """Two directions in weight space, what they are, and for PCA the share of the path's variance they hold."""

    kind: str  # RANDOM or PCA
    d1: np.ndarray
    d2: np.ndarray
    explained: tuple[float, float] | None = None  # PCA: each direction's fraction of the variance


def filter_normalised(net: Net, params: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One random direction with Li et al.'s normalisation: each row of each W scaled to that row's norm in
    `params`, biases 0. A neuron whose weights are all 0 (the zeros initialisation) has no scale to keep: its row
    gets norm 1, so the plane still moves it."""
    d = rng.standard_normal(len(params))
    for start, n_out, n_in in net.layers():
        w_end = start + n_out * n_in
        rows = d[start:w_end].reshape(n_out, n_in)
        own = np.linalg.norm(params[start:w_end].reshape(n_out, n_in), axis=1, keepdims=True)
        size = np.linalg.norm(rows, axis=1, keepdims=True)
        d[start:w_end] = (rows / np.where(size > 0, size, 1.0) * np.where(own > 0, own, 1.0)).ravel()
        d[w_end:w_end + n_out] = 0.0
    return d


def random_directions(net: Net, params: np.ndarray, seed: int = 0) -> Directions:
    rng = np.random.default_rng(seed)
    return Directions(RANDOM, filter_normalised(net, params, rng), filter_normalised(net, params, rng))


def pca_directions(path: np.ndarray, origin: np.ndarray) -> Directions | None:
    """The top two principal directions (unit vectors) of the path's weights (T, P) taken from `origin` (the
    current weights), with the fraction of the path's variance each explains; None for a path of fewer than three
    distinct points (no plane to speak of)."""
    M = np.asarray(path, dtype=np.float64) - origin
    M = M - M.mean(axis=0)
    if len(M) < 3 or not np.isfinite(M).all():
        return None
    _, s, vt = np.linalg.svd(M, full_matrices=False)
    total = float((s ** 2).sum())
    if total <= 0 or len(s) < 2 or s[1] <= 1e-12 * s[0]:
        return None
    d1, d2 = vt[0], vt[1]
    # NOTE: an eigenvector's sign is arbitrary; point the first along the run's progress (start -> now).
    progress = origin - path[0]
    if d1 @ progress < 0:
        d1 = -d1
    return Directions(PCA, d1, d2, (float(s[0] ** 2 / total), float(s[1] ** 2 / total)))
