"""Hostile model files (tests/support/hostile_corpus.py) loaded by explorer/playground/model_files.py, each in a
fresh process: its peak RSS growth, CPU seconds and what it says.

    python benchmarks/model_files.py                                   # this checkout
    python benchmarks/model_files.py --app-dir /work/main --app-dir .  # before and after, side by side

The files are made once by this checkout's corpus; each is loaded by a child process of the checkout named,
with the same Python, as the Playground's upload does (model_files.load(name, bytes)). RSS is the child's peak
(ru_maxrss) over its RSS once the file is read in (a good model's load, the first rows, costs ~55 MB of
imports and a network); CPU is its user + system time spent in load().
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

CHILD = r"""
import json, os, resource, sys
import psutil
try:
    from explorer.playground import model_files
except ImportError:  # a checkout from before explorer/ had rooms
    from explorer import model_io as model_files
path, name = sys.argv[1], sys.argv[2]
data = open(path, "rb").read()
before = psutil.Process().memory_info().rss
cpu = sum(os.times()[:2])
try:
    model_files.load(name, data)
    said = "accepted"
except model_files.ModelFileError as err:
    said = "ModelFileError: " + str(err)
except BaseException as err:
    said = "TRACEBACK " + type(err).__name__ + ": " + str(err)
cpu = sum(os.times()[:2]) - cpu
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"peak_growth_mb": round(max(peak - before, 0) / 2**20, 1), "cpu_s": round(cpu, 3),
                  "says": said[:160]}))
"""


def measure(app_dir: Path, path: Path, name: str, timeout: float) -> dict:
    env = dict(os.environ, PYTHONPATH=str(app_dir))
    try:
        done = subprocess.run([sys.executable, "-c", CHILD, str(path), name], cwd=app_dir, env=env,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"says": f"still loading after {timeout:g} s (killed)"}
    if done.returncode:
        return {"says": f"the process died (exit {done.returncode}): {done.stderr.strip()[-160:]}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--app-dir", action="append", type=Path, help="a checkout (repeat to compare)")
    parser.add_argument("--only", action="append", help="file names to load (default: all)")
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args(argv)
    from tests.support import hostile_corpus

    dirs = [d.resolve() for d in (args.app_dir or [REPO_ROOT])]
    print("command:", " ".join([Path(sys.executable).name, *sys.argv]), "| load average:", os.getloadavg())
    with tempfile.TemporaryDirectory(prefix="autograd-files-") as tmp:
        rows = []
        good = [("good.npz", hostile_corpus.good_npz(), ""), ("good.json", hostile_corpus.good_json(), "")]
        for name, data, _ in good + hostile_corpus.files():
            if args.only and name not in args.only:
                continue
            path = Path(tmp) / name
            path.write_bytes(data)
            rows.append((name, len(data), {str(d): measure(d, path, name, args.timeout) for d in dirs}))
    for name, size, results in rows:
        print(f"\n{name} ({size:,} bytes)")
        for label, r in results.items():
            figures = f"+{r['peak_growth_mb']} MB, {r['cpu_s']} s CPU" if "cpu_s" in r else "-"
            print(f"  {label}: {figures}: {r['says'][:140]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
