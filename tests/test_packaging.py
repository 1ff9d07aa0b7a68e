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


def test_the_app_s_requirements_install_the_engine():
    """Issue 29: an exported script failed with ModuleNotFoundError in the app's own environment unless the
    checkout was installed; `pip install -r requirements.txt` now installs it (editable, from the checkout)."""
    lines = [line.split("#")[0].strip() for line in (ROOT / "requirements.txt").read_text().splitlines()]
    assert "-e ." in lines, "requirements.txt installs the checkout's engine and language"


def _run_fresh(installed, script: Path) -> subprocess.CompletedProcess:
    """``script`` run by a fresh interpreter that sees only the installed package and NumPy (as the app's own
    environment does once requirements.txt installed the checkout), from a folder outside the checkout."""
    numpy_site = str(Path(np.__file__).parent.parent)
    code = f"import sys; sys.path[:0] = [{str(installed)!r}, {numpy_site!r}]; exec(open({str(script)!r}).read())"
    return subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, cwd=script.parent,
                          timeout=120)


@pytest.mark.parametrize("name", presets.names())
def test_each_preset_s_export_runs_in_a_fresh_process(installed, tmp_path, name):
    text = presets.program(name)
    script = tmp_path / "program.py"
    script.write_text(to_python(text))
    run = _run_fresh(installed, script)
    assert run.returncode == 0, f"{name}: {run.stderr[-2000:]}"
    assert run.stdout.startswith("output = "), run.stdout[:200]


def test_the_playground_s_training_script_runs_in_a_fresh_process(installed, tmp_path):
    from explorer.playground import model_files, training
    from explorer.playground.settings import TrainConfig

    state = training.new_state(TrainConfig(dataset="xor", batch_size=16))
    training.step(state, 3)
    script = tmp_path / "train.py"
    script.write_text(model_files.to_script(state))
    run = _run_fresh(installed, script)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "step 3: train loss" in run.stdout, run.stdout[-500:]
