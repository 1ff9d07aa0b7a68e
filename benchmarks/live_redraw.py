"""Server-side cost of the live Training Playground: one live update's time and payload, per setting.

Run: python benchmarks/live_redraw.py [--seconds S]
A live update is what the page's fragment does each time while playing: train the steps due for
one tick (explorer/playground/controller.py), record their frames and encode them for the browser (JSON).
The browser draws the pictures, so the server's part is training plus a few kilobytes of numbers.
Printed for the default run and for the largest network (8 × 64, 1,000 points, full batch), with
the step-graph panel open (the page's default: each frame also carries the step graph's texts)
and closed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.playground.controller import Playground
from explorer.playground.settings import TrainConfig
from server.run_store import MemoryRunStore  # noqa: E402

CASES = {
    "defaults (2-8-8-1, 200 points, batch 16, 25 steps/s)": TrainConfig(),
    "largest (8 × 64, 1,000 points, full batch)": TrainConfig(hidden=(64,) * 8, n=1000, batch_size=0, speed=25),
}


class _Clock:
    """Time that moves one tick per call of `tick`, so every update trains one tick's steps."""

    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def measure(config: TrainConfig, seconds: float, graph: bool) -> dict:
    clock = _Clock()
    pg = Playground(config, clock=clock, store=MemoryRunStore())
    pg.play()
    times, sizes, steps, frame_sizes = [], [], [], []
    deadline = time.perf_counter() + seconds
    interval = pg.interval
    while time.perf_counter() < deadline or len(times) < 5:
        clock.now += pg.interval
        start = time.perf_counter()
        before = pg.state.step
        frames = pg.tick()
        data = pg.view_data(frames, full=False, graph=graph)
        text = json.dumps(data)  # as Streamlit sends a component's data
        times.append(time.perf_counter() - start)
        sizes.append(len(text))
        steps.append(pg.state.step - before)
        frame_sizes += [len(json.dumps(f)) for f in data["frames"]]
    return {
        "update_ms": statistics.median(times) * 1e3,
        "payload_bytes": statistics.median(sizes),
        "steps_per_update": statistics.median(steps),
        "frame_bytes": statistics.median(frame_sizes),
        "updates_per_second_of_cpu": 1 / statistics.median(times),
        # the share of a core that playing costs (saves included: every SAVE_EVERY of the run's clock)
        "cpu_percent_of_a_core": 100 * sum(times) / (len(times) * interval),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per case")
    args = parser.parse_args()
    print("Live playground, server side: one live update (train one tick's steps, frames, JSON)")
    for name, config in CASES.items():
        print(f"  {name}")
        for graph in (True, False):
            r = measure(config, args.seconds, graph)
            print(f"    step graph {'open  ' if graph else 'closed'}: {r['update_ms']:.2f} ms per update "
                  f"({r['steps_per_update']:.0f} steps), {r['payload_bytes'] / 1024:.1f} KiB per message, "
                  f"{r['frame_bytes'] / 1024:.2f} KiB per frame, {r['cpu_percent_of_a_core']:.1f} % of a core")


if __name__ == "__main__":
    main()
