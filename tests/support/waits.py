"""Waiting on a condition, the one way tests wait for what other processes do (never a fixed sleep, never an assert
on how long it took)."""

import time

import pytest


def until(condition, what: str, seconds: float):
    """Polls ``condition`` until it returns something true (returned) or ``seconds`` pass (the test fails, saying
    ``what`` it waited for)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    pytest.fail(f"{what}: not within {seconds:g} s")
