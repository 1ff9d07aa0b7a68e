"""Fake clocks: one that ticks a second per reading (timed builds), one a test sets by hand."""

import itertools


def ticking():
    """A clock that advances one second per reading: every measured build takes exactly one second."""
    counter = itertools.count()
    return lambda: float(next(counter))


class Clock:
    """A clock a test sets by hand: reads ``now`` (seconds) until the test moves it."""

    def __init__(self, now: float = 0.0):
        self.now = now

    def __call__(self) -> float:
        return self.now
