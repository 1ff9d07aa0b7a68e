"""The Memory tab's cost on the server: explorer.program.memory.program_memory (the program run plain and
checkpointed through autograd.checkpoint, both backpropagated, and the four accounts) on every preset, the largest
with k = 1, 2 and 16; the Playground step's (explorer.playground.step_memory: the step, and again checkpointed
every k layers through autograd.checkpoint) on the default and the largest network; then the tab's first opening on the
largest presets through the app's sandbox (a worker process), as the page asks for it, and the JSON it sends.

Run: python benchmarks/memory_tab.py [--repeat 5]

Figures depend on the machine's load: record them with `uptime` and the command that made them.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.cost_tab import timed  # noqa: E402  (best wall and CPU seconds over repeats)
from explorer.playground import step_memory, training  # noqa: E402
from explorer.playground.settings import TrainConfig  # noqa: E402
from explorer.program import presets  # noqa: E402
from explorer.program.memory import payload, program_memory  # noqa: E402
from language import compile_program  # noqa: E402
from server.sandbox import Sandbox  # noqa: E402


def nodes(text: str) -> int:
    return compile_program(text).costs.nodes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    program_memory(presets.program(presets.DEFAULT))  # imports
    for name in presets.names():
        text = presets.program(name)
        wall, cpu = timed(program_memory, text, (), 2, repeat=args.repeat)
        print(f"in-process  {wall * 1e3:7.1f} ms wall {cpu * 1e3:7.1f} ms CPU  program_memory k=2  {name} "
              f"({nodes(text)} nodes)")
    most_nodes = max(presets.names(), key=lambda name: nodes(presets.program(name)))
    biggest = max(presets.names(), key=lambda name: program_memory(presets.program(name)).peak("engine"))
    for name in dict.fromkeys((most_nodes, biggest)):
        for every in (1, 16):
            wall, cpu = timed(program_memory, presets.program(name), (), every, repeat=args.repeat)
            print(f"in-process  {wall * 1e3:7.1f} ms wall {cpu * 1e3:7.1f} ms CPU  program_memory k={every}  {name}")
    state = training.new_state(TrainConfig())
    wall, cpu = timed(step_memory.step_memory, state, repeat=args.repeat)
    print(f"in-process  {wall * 1e3:7.1f} ms wall {cpu * 1e3:7.1f} ms CPU  step_memory (the Playground's default step)")
    for every in (1, 3):
        wall, cpu = timed(step_memory.step_memory, state, every, repeat=args.repeat)
        print(f"in-process  {wall * 1e3:7.1f} ms wall {cpu * 1e3:7.1f} ms CPU  step_memory k={every} layers")
    big = training.new_state(TrainConfig(hidden=(64,) * 8))
    for every in (1, 3):
        wall, cpu = timed(step_memory.step_memory, big, every, repeat=args.repeat)
        print(f"in-process  {wall * 1e3:7.1f} ms wall {cpu * 1e3:7.1f} ms CPU  step_memory k={every} layers, the "
              "largest network (8 hidden layers of 64)")
    shown = program_memory(presets.program(biggest))
    print(f"payload     {len(json.dumps(payload(shown, 'k'))):,} bytes of JSON for {biggest}")
    sandbox = Sandbox()
    try:
        sandbox.run(program_memory, presets.program(presets.DEFAULT), (), 1)  # the workers started
        for name in dict.fromkeys((most_nodes, biggest)):
            for every in (2, 3):
                t0 = time.perf_counter()
                sandbox.run(program_memory, presets.program(name), (), every)
                print(f"sandbox     {(time.perf_counter() - t0) * 1e3:7.1f} ms wall  the tab on {name}, k={every}, "
                      "first call (not cached)")
        t0 = time.perf_counter()
        sandbox.run(program_memory, presets.program(biggest), (), 2)
        print(f"sandbox     {(time.perf_counter() - t0) * 1e3:7.1f} ms wall  the same, cached")
    finally:
        sandbox.close()
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
