"""Gradient health of a network's layers after one training step: norms, update ratio, dead and saturated units.

Per Linear layer (its weight matrix W, shape (out, in)):
- grad norm ‖∂L/∂W‖ and weight norm ‖W‖ (Frobenius), after the step;
- update ratio ‖ΔW‖/‖W‖: how much this one step changed the weights, relative to their size
  (about 1e-3 is the usual healthy rate; much larger and training is unstable, much smaller and it
  crawls);
- dead: the fraction of the layer's ReLU units that output 0 on every point of the step's batch
  (relu'(0) = 0, so no gradient reaches their weights from this batch);
- saturated: the fraction of tanh / sigmoid units that sit on a flat tail — |tanh| > 0.99, or
  sigmoid below 0.01 or above 0.99 — on every point of the batch.
A layer in trouble gets a one-line reason in words (a change "more than 1000× their size", weights "no
longer finite", never a 40-digit percentage); `trouble` is '' for a healthy layer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from explorer.numbers import fmt_number, fmt_percent

SATURATED_TANH = 0.99  # |tanh(z)| above this: the slope 1 − tanh² is below 0.02
SATURATED_SIGMOID = 0.01  # sigmoid(z) within this of 0 or 1: the slope is below 0.0099
# When a layer is marked as in trouble.
TROUBLE_FRACTION = 0.5  # half or more of its units dead or saturated
RATIO_TOO_HIGH = 0.1  # one step changes the weights by a tenth of their size or more
RATIO_TOO_LOW = 1e-6  # the weights hardly move
RATIO_CEILING = 1000.0  # beyond this many times their size, the text says "more than 1000×"
GRAD_VANISHED = 1e-9


@dataclass(frozen=True)
class LayerHealth:
    """One Linear layer after a step. `dead` / `saturated` are None where they do not apply
    (the output layer, and activations that have no dead or flat region)."""

    grad_norm: float
    weight_norm: float
    update_ratio: float
    dead: float | None
    saturated: float | None
    trouble: str = ""


# NOTE: a training step measures these for every layer (the live view paints each step's health), so they skip
# NumPy's Python wrappers: np.add.reduce(·, axis=None) is what np.sum runs, math.sqrt rounds as np.sqrt does, and a
# count of columns over their number is the mean of booleans: the same numbers, bit for bit, in half the time.
_sum = np.add.reduce


def norm(a: np.ndarray | None) -> float:
    return math.sqrt(_sum(a * a, axis=None)) if a is not None else 0.0


def _fraction_of_columns(every_row: np.ndarray) -> float:
    """The share of True among a row of per-column booleans (np.mean of them)."""
    return np.count_nonzero(every_row) / every_row.size if every_row.size else float("nan")


def dead_fraction(hidden: np.ndarray) -> float:
    """Fraction of ReLU units (columns of the batch's outputs (N, width)) that are 0 on every row."""
    return _fraction_of_columns((hidden <= 0.0).all(axis=0))


def saturated_fraction(hidden: np.ndarray, activation: str) -> float:
    """Fraction of tanh / sigmoid units (columns) on a flat tail for every row of the batch."""
    if activation == "tanh":
        flat = np.abs(hidden) > SATURATED_TANH
    else:
        flat = (hidden < SATURATED_SIGMOID) | (hidden > 1.0 - SATURATED_SIGMOID)
    return _fraction_of_columns(flat.all(axis=0))


def layer_health(
    weights: Sequence[np.ndarray],
    grads: Sequence[np.ndarray | None],
    before: Sequence[np.ndarray],
    hidden: Sequence[np.ndarray],
    activation: str,
) -> tuple[LayerHealth, ...]:
    """Health of each layer after a step: `weights` now, their `grads`, the weights `before` the
    update, and `hidden`, each hidden layer's activations on the batch (one fewer than weights)."""
    rows = []
    for i, (w, g, w0) in enumerate(zip(weights, grads, before, strict=True)):
        size = norm(w0)
        ratio = norm(w - w0) / size if size > 0 else float("inf")
        dead = saturated = None
        if i < len(hidden):
            if activation == "relu":
                dead = dead_fraction(hidden[i])
            elif activation in ("tanh", "sigmoid"):
                saturated = saturated_fraction(hidden[i], activation)
        grad = norm(g)
        finite = bool(np.isfinite(w).all() and np.isfinite(w0).all())
        trouble = _trouble(grad, ratio, dead, saturated, activation) if finite else NOT_FINITE
        rows.append(LayerHealth(grad, norm(w), ratio, dead, saturated, trouble))
    return tuple(rows)


NOT_FINITE = "its weights are no longer finite numbers (inf or nan): the learning rate is too high"


def change_in_words(ratio: float) -> str:
    """‖ΔW‖/‖W‖ said for a person: '35% of their size', '12× their size', 'more than 1000× their size'
    (a diverging run's ratio reaches 1e40 and more: no one reads a 41-digit percentage)."""
    if not np.isfinite(ratio) or ratio > RATIO_CEILING:
        return f"more than {RATIO_CEILING:.0f}× their size"
    if ratio >= 10:
        return f"{fmt_number(round(ratio))}× their size"
    return f"{fmt_percent(ratio)} of their size"


def _trouble(grad: float, ratio: float, dead: float | None, saturated: float | None, activation: str) -> str:
    if dead is not None and dead >= TROUBLE_FRACTION:
        return f"{fmt_percent(dead)} of its ReLUs are dead: 0 on every point, so no gradient reaches their weights"
    if saturated is not None and saturated >= TROUBLE_FRACTION:
        return (f"{fmt_percent(saturated)} of its {activation} units are saturated: flat there, so their gradients "
                "vanish")
    if not ratio < RATIO_TOO_HIGH:  # NaN included
        return f"one step changes its weights by {change_in_words(ratio)}: the learning rate is too high"
    if grad < GRAD_VANISHED:
        return "no gradient reaches it: its weights have stopped learning"
    if ratio < RATIO_TOO_LOW:
        return f"its weights hardly move ({fmt_number(ratio)} of their size per step): raise the learning rate"
    return ""
