"""The browser code's Node tests (tests/js/, `node --test`) as part of the one pytest command: they run where
Node is installed; without it they are skipped, except under CI (env CI set), where a missing Node fails."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_node_tests_pass():
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI"):
            pytest.fail("node is not installed, and CI must run tests/js (Debian: apt-get install nodejs)")
        pytest.skip("node is not installed (Debian: apt-get install nodejs); tests/js did not run")
    done = subprocess.run([node, "--test", "tests/js/"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout and "# pass 0" not in done.stdout
