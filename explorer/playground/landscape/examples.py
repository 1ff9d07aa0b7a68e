"""What each training point pulls on: its own gradient (net.per_example, from one backward), how much of it
falls on each layer, and how well a batch of a given size points where the full data's gradient points."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.playground.landscape.net import PerExample

DRAWS = 64  # random batches drawn per batch size


@dataclass(frozen=True)
class Agreement:
    """cos(batch gradient, full-data gradient) for random batches of one size: the mean and the spread."""

    size: int
    mean: float
    low: float  # the 10th percentile
    high: float  # the 90th


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    return float(a @ b / (na * nb)) if na > 0 and nb > 0 else float("nan")


def agreement(each: PerExample, sizes, seed: int = 0, draws: int = DRAWS) -> list[Agreement]:
    """For each batch size (0 or ≥ N: the full batch), the cosine between the gradient of random batches drawn
    without replacement (as the Playground draws them) and the full-data gradient."""
    n = len(each.losses)
    full = each.batch_grad
    rng = np.random.default_rng(seed)
    out = []
    for size in sizes:
        size = int(size)
        if size <= 0 or size >= n:
            out.append(Agreement(n, 1.0, 1.0, 1.0))
            continue
        picks = np.argsort(rng.random((draws, n)), axis=1)[:, :size]  # `draws` batches without replacement
        batch = np.stack([each.mean_grad(rows) for rows in picks])  # (draws, P)
        cos = batch @ full / (np.linalg.norm(batch, axis=1) * np.linalg.norm(full) + 1e-300)
        out.append(Agreement(size, float(cos.mean()), float(np.quantile(cos, 0.1)), float(np.quantile(cos, 0.9))))
    return out


def pull(each: PerExample, i: int) -> list[tuple[str, float, float]]:
    """Point i's pull on each layer: (layer, the norm of its gradient on that layer's W and b, that layer's share
    of the point's whole gradient norm²)."""
    norms = each.layer_norms()[i]
    total = float(norms @ norms)
    return [(name, float(size), float(size * size / total) if total > 0 else 0.0)
            for name, size in zip((f"layer {k + 1}" for k in range(len(norms))), norms)]
