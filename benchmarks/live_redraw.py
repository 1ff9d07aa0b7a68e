"""Server-side cost of the live Training Playground: redraws per second and training steps per second.

Run: python benchmarks/live_redraw.py [--seconds S]
A redraw is what the page's live fragment does each time: the 100×100 grid prediction of a
2-16-16-1 MLP, the decision-boundary figure with 200 points, and its JSON (the payload sent to the
browser). Training steps per second is full-batch forward + backward + SGD on the same net.
`measure()` returns the numbers as a dict for benchmarks/run.py.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer import figures, training  # noqa: E402


def _state() -> training.TrainState:
    config = training.TrainConfig(
        dataset="two moons",
        n=200,
        test_fraction=0.0,
        hidden=(16, 16),
        activation="tanh",
        optimizer="SGD",
        lr=0.1,
        batch_size=0,
        seed=0,
    )
    return training.new_state(config)


def _redraw(state: training.TrainState) -> int:
    state._grid_cache = None  # a redraw after training always recomputes the grid
    spec = figures.state_view(state, training.prediction_grid(state), caption=f"step {state.step}")
    return len(figures.to_json(spec))


def _time_per_call(fn, seconds: float) -> float:
    fn()  # warm-up
    times = []
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline or len(times) < 5:
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(seconds: float = 2.0) -> dict:
    state = _state()
    payload = _redraw(state)
    redraw = _time_per_call(lambda: _redraw(state), seconds)
    step = _time_per_call(lambda: training.step(state, 10), seconds)
    return {
        "redraw_ms": redraw * 1e3,
        "redraws_per_second": 1.0 / redraw,
        "payload_bytes": payload,
        "train_steps_per_second": 10 / step,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    args = parser.parse_args()
    r = measure(args.seconds)
    print("Live playground, server side (2-16-16-1 MLP, 100×100 grid, 200 points)")
    print(f"  redraw (grid + figure + JSON): {r['redraw_ms']:.2f} ms  -> {r['redraws_per_second']:.0f} redraws/s")
    print(f"  payload per redraw:            {r['payload_bytes'] / 1024:.1f} KiB")
    print(f"  training (full batch, SGD):    {r['train_steps_per_second']:.0f} steps/s")


if __name__ == "__main__":
    main()
