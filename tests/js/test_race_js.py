"""The race view prints numbers with components/frontend/web/format.js `formatNumber`, which prints what
explorer.numbers.fmt_number prints, case by case, run in Node (the browser's numbers and the server's side by side)."""

import json
import shutil
import subprocess

import pytest

from components.common.assets import CODE_DIR
from explorer.numbers import fmt_number

COMPONENTS = CODE_DIR
FORMAT = COMPONENTS / "web" / "format.js"
RACE = COMPONENTS / "race" / "static" / "race.js"
CASES = [0.0, -0.0, 1.0, -155.0, 12.5, 0.1, 0.0001234567, 0.00001234, -1e-8, 12345.6, 9999.5, 9999.4, 1.00004,
         123.456, 1235.5, 0.00012345, 2.5e300, -3.75e-300, 1e16, 0.5, 1234.5, 6.384e-16,
         float("inf"), float("-inf"), float("nan")]


def test_the_race_view_formats_with_the_shared_format():
    text = RACE.read_text(encoding="utf-8")
    assert 'import { formatNumber } from "../../web/format.js";' in text
    assert not (RACE.parent / "numbers.js").exists()


def test_format_number_prints_as_fmt_number():
    node = shutil.which("node")
    if node is None:  # NOTE: .ci/run does not install Node yet (its owner is asked to add nodejs)
        pytest.skip("node is not installed (Debian: apt-get install nodejs)")
    values = json.dumps([v if v == v and abs(v) != float("inf") else str(v) for v in CASES])
    script = (f"import({json.dumps(FORMAT.as_uri())}).then(({{ formatNumber }}) => console.log(JSON.stringify("
              f"{values}.map((v) => formatNumber(typeof v === 'string' ? Number(v.replace('inf', 'Infinity')) : v)))))")
    done = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [fmt_number(v) for v in CASES]
