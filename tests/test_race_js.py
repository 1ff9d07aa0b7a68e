"""The race view's number format (components/race/static/numbers.js `num`) prints what explorer.numbers.fmt_number
prints, case by case, run in Node (the browser's numbers and the server's printed arithmetic side by side)."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from explorer.numbers import fmt_number

DOM = Path(__file__).resolve().parent.parent / "components" / "race" / "static" / "numbers.js"
CASES = [0.0, -0.0, 1.0, -155.0, 12.5, 0.1, 0.0001234567, 0.00001234, -1e-8, 12345.6, 9999.5, 9999.4, 1.00004,
         123.456, 1235.5, 0.00012345, 2.5e300, -3.75e-300, 1e16, 0.5, 1234.5, 6.384e-16,
         float("inf"), float("-inf"), float("nan")]


# NOTE: fmt_number now follows the one number format (explorer/numbers.py, components/web/format.js); the race's
# num() is replaced by format.js's formatNumber once the race view can import components/web by URL (the ES
# modules change serves components/web/). Strict: it fails as soon as the two agree again, to drop this mark.
@pytest.mark.xfail(strict=True, reason="race's num() still prints Python's old '{:.4g}' (1.235e+04, not 1.235e4)")
def test_num_prints_as_fmt_number():
    node = shutil.which("node")
    if node is None:  # NOTE: .ci/run does not install Node yet (its owner is asked to add nodejs)
        pytest.skip("node is not installed (Debian: apt-get install nodejs)")
    values = json.dumps([v if v == v and abs(v) != float("inf") else str(v) for v in CASES])
    script = (f"import({json.dumps(DOM.as_uri())}).then(({{ num }}) => console.log(JSON.stringify("
              f"{values}.map((v) => num(typeof v === 'string' ? Number(v.replace('inf', 'Infinity')) : v)))))")
    done = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [fmt_number(v) for v in CASES]
