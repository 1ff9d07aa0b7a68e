"""Instructions per step, counted by valgrind's callgrind: figures that do not move with the machine's load.

Run: python benchmarks/instructions.py [--root PATH]
Timings on a shared machine swing by ±50 %; instruction counts, with address randomisation off, one BLAS
thread and the garbage collector off, repeat to the instruction. They are not time (NumPy's C code runs
more instructions per cycle than the interpreter), but a change that saves instructions saves time.
Each figure is (count after N runs − count after 0 runs) / N, so start-up and imports cancel out.
`--root` measures another checkout of the engine with this checkout's benchmark cases.
"""

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Runs one case `n` times in a fresh interpreter (the code callgrind counts).
# NOTE: torch is kept out (cases.py imports it for its oracle column): its import is ~5e9 instructions and
# varies between runs by ~1e8, which swamped the difference of two counts this subtracts.
PROBE = """
import gc, importlib.util, sys
sys.modules["torch"] = None
sys.path.insert(0, {engine!r})
gc.disable()
spec = importlib.util.spec_from_file_location("cases", {cases!r})
cases = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cases)
case, impl, n = {case!r}, {impl!r}, {n}
if case == "chain":
    f = cases.chain_impls()[impl]
elif case == "modes":
    f = cases.chain_modes_impls()[impl]
else:
    f = cases.playground_impls(case)[impl]
for _ in range(n):
    f()
"""


def count(engine: Path, case: str, impl: str, n: int) -> int:
    code = PROBE.format(engine=str(engine), cases=str(ROOT / "benchmarks" / "cases.py"), case=case, impl=impl, n=n)
    env = {**os.environ, "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    run = subprocess.run(
        ["setarch", os.uname().machine, "-R", "valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
         sys.executable, "-c", code],
        capture_output=True, text=True, env=env, check=True,
    )
    line = next(line for line in run.stderr.splitlines() if "Collected" in line)
    return int(line.split()[-1])


def per_run(engine: Path, case: str, impl: str, n: int) -> float:
    return (count(engine, case, impl, n) - count(engine, case, impl, 0)) / n


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose autograd/ is measured")
    args = parser.parse_args()
    if not shutil.which("valgrind") or not shutil.which("setarch"):
        print("valgrind (and setarch) are needed: apt-get install -y valgrind")
        return
    print(f"instructions per run, engine from {args.root}")
    for case, label, n in (("chain", "1,000-op chain, fwd + bwd", 20), ("sgd", "playground step, SGD", 200),
                           ("adam", "playground step, Adam", 200)):
        engine, numpy = per_run(args.root, case, "engine", n), per_run(args.root, case, "numpy", n)
        print(f"{label:28s} engine {engine:12,.0f} | numpy {numpy:12,.0f} | ratio {engine / numpy:.2f}")
    if (args.root / "autograd" / "func.py").exists():  # forward mode against reverse mode on the same chain
        counts = {impl: per_run(args.root, "modes", impl, 20)
                  for impl in ("engine JVP", "engine VJP", "numpy JVP", "numpy VJP")}
        for mode in ("JVP", "VJP"):
            engine, numpy = counts[f"engine {mode}"], counts[f"numpy {mode}"]
            print(f"{'1,000-op chain, ' + mode:28s} engine {engine:12,.0f} | numpy {numpy:12,.0f} | "
                  f"ratio {engine / numpy:.2f}")
        print(f"{'engine JVP / VJP':28s} {counts['engine JVP'] / counts['engine VJP']:.2f}")


if __name__ == "__main__":
    main()
