"""The Playground's painted frames, checked from outside: the checksum the live view writes in data-sum
(components/frontend/live_view/static/pacing.js `checksum`) of a run's weights, and the weights of the
default run at any step, trained here as the server trains it."""

from __future__ import annotations

import numpy as np

from explorer.playground import training
from explorer.playground.settings import TrainConfig


def checksum(params: np.ndarray) -> str:
    """FNV-1a (32 bits) of the weights as little-endian float64 bytes, as 8 hex digits."""
    h = 0x811C9DC5
    for byte in np.ascontiguousarray(params, dtype="<f8").tobytes():
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return f"{h:08x}"


class Run:
    """A run trained alongside the browser's: `sum_at(step)` is the checksum of its weights at that step.
    A frame every `every` steps, as the server trains a run at that speed (the steps between frames
    are one call of `training.step`, which matters for nothing but the curves)."""

    def __init__(self, config: TrainConfig | None = None):
        self.state = training.new_state(config or TrainConfig())
        self.sums = {0: checksum(training.flat_params(self.state))}

    def sum_at(self, step: int) -> str:
        while self.state.step < step:
            training.step(self.state, 1)
            self.sums[self.state.step] = checksum(training.flat_params(self.state))
        return self.sums[step]
