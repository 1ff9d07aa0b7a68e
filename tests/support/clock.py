"""A fake clock for timed builds: each reading is one second later."""

import itertools


def ticking():
    """A clock that advances one second per reading: every measured build takes exactly one second."""
    counter = itertools.count()
    return lambda: float(next(counter))
