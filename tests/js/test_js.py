"""The browser code's Node tests (tests/js/, `node --test`) as part of the one pytest command: they run where
Node is installed; without it they are skipped, except under CI (env CI set), where a missing Node fails."""

import subprocess

from tests.support.helpers import ROOT, node_or_skip


def test_node_tests_pass():
    node = node_or_skip("tests/js")
    done = subprocess.run([node, "--test", "tests/js/"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout and "# pass 0" not in done.stdout
