"""README.md's promises: its commands are the ones CI runs, and its engine example runs as written."""

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()

INSTALL_AND_RUN = "pip install -r requirements.txt && streamlit run app.py"
TEST_COMMAND = "python -m pytest"
QUICK_LOOP = 'python -m pytest -m "not slow"'


def test_readme_states_the_two_commands():
    assert INSTALL_AND_RUN in README
    assert f"pip install -r requirements-dev.txt && {TEST_COMMAND}" in README


def test_the_quick_loop_leaves_out_every_browser_test_and_the_timeout_is_the_one_said():
    assert QUICK_LOOP in README
    pytest_settings = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert any(marker.startswith("slow:") for marker in pytest_settings["markers"])
    assert f"after {pytest_settings['timeout']} s (pytest-timeout" in README
    # every browser module is marked slow as a whole, so the quick loop starts no Chromium
    unmarked = []
    for module in sorted((ROOT / "tests" / "browser").glob("test_*.py")):
        marks = [ast.unparse(node.value) for node in ast.parse(module.read_text()).body
                 if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "pytestmark" for t in node.targets)]
        if not any("pytest.mark.slow" in mark for mark in marks):
            unmarked.append(module.name)
    assert unmarked == [], f"browser modules without pytest.mark.slow in their pytestmark: {unmarked}"


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert TEST_COMMAND in [line.strip() for line in ci], ".ci/run must run exactly the README's test command"


def test_requirements_are_pinned():
    for name in ("requirements.txt", "requirements-dev.txt"):
        for line in (ROOT / name).read_text().splitlines():
            line = line.strip()
            if line and not line.startswith(("#", "-r")) and line != "-e .":  # -e .: this checkout itself
                assert "==" in line, f"{name}: {line!r} is not pinned"


def test_engine_example_runs_as_written(tmp_path):
    snippet = re.findall(r"```python\n(.*?)```", README, re.S)[0]
    script = tmp_path / "readme_example.py"
    script.write_text(snippet)
    done = subprocess.run(
        [sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "4.0 -4.0 -4.0"
    final_loss = float(lines[1].split()[-1])
    assert final_loss < 0.1, f"the sine fit should converge, got loss {final_loss}"
