"""`pip install .` gives the engine and its language, so an exported script runs outside a checkout."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from autograd.expr import evaluate, to_python
from explorer.program import presets

ROOT = Path(__file__).parent.parent


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The project's wheel, built from pyproject.toml and installed into a folder of its own."""
    tmp = tmp_path_factory.mktemp("install")
    source = tmp / "source"  # a copy, so the build leaves nothing in the checkout
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".*", "__pycache__", "test-artifacts", "build"))
    wheels = tmp / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheels),
         str(source)],
        check=True, cwd=tmp,
    )
    (wheel,) = wheels.glob("autograd_explorer-*.whl")
    target = tmp / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        check=True, cwd=tmp,
    )
    return target


def test_the_wheel_holds_the_engine_and_the_language_only(installed):
    packages = {p.name for p in installed.iterdir() if p.is_dir() and not p.name.endswith(".dist-info")}
    assert {"autograd", "language"} <= packages
    assert not packages & {"explorer", "components", "pages", "tests", "benchmarks"}


def test_an_exported_script_runs_outside_the_checkout(installed, tmp_path):
    text = presets.program(presets.DEFAULT)
    script = tmp_path / "program.py"
    script.write_text(to_python(text) + "\nimport autograd, json\nprint(json.dumps(autograd.__file__))\n")
    # NOTE: -I keeps the current directory and PYTHON* variables off sys.path; the installed folder
    # and NumPy's are the only places the script can import from.
    numpy_site = str(Path(np.__file__).parent.parent)
    code = f"import sys; sys.path[:0] = [{str(installed)!r}, {numpy_site!r}]; exec(open({str(script)!r}).read())"
    run = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.strip().splitlines()
    assert json.loads(lines[-1]).startswith(str(installed)), "the script must use the installed engine"
    result = evaluate(text)
    result.output.backward()
    assert lines[0] == f"output = {result.output.data.tolist()}"
    for name, value in result.inputs.items():
        assert f"{name}.grad = {value.grad.tolist()}" in lines
