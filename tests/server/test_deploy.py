"""deploy/: HAProxy's configuration as the launcher writes it, and the launcher starting and stopping a class."""

import os
import signal
import subprocess
import sys
import urllib.request

import psutil

from deploy.classroom import CONFIG, haproxy_config, healthy
from tests.support.helpers import ROOT, program_or_skip


def _need_haproxy():
    program_or_skip("haproxy", "haproxy", "the classroom's balancer tests")


def test_the_config_keeps_each_browser_on_its_process_and_its_websocket_open(tmp_path):
    _need_haproxy()
    text = haproxy_config("127.0.0.1", 9000, [9101, 9102, 9103])
    assert "    bind 127.0.0.1:9000\n" in text
    assert [line.split()[2] for line in text.splitlines() if line.startswith("    server ")] == [
        "127.0.0.1:9101", "127.0.0.1:9102", "127.0.0.1:9103"]
    assert "cookie SERVERID insert indirect nocache" in text
    assert "option httpchk GET /_stcore/health" in text
    tunnel = next(line.split()[-1] for line in text.splitlines() if line.strip().startswith("timeout tunnel"))
    assert tunnel.endswith("h") and int(tunnel[:-1]) >= 1  # a lesson's websocket is not cut
    path = tmp_path / "haproxy.cfg"
    path.write_text(text)
    for cfg in (path, CONFIG):
        done = subprocess.run(["haproxy", "-c", "-f", str(cfg)], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stdout + done.stderr


def test_the_launcher_starts_a_class_and_stops_every_process_it_started(tmp_path):
    _need_haproxy()
    from deploy.classroom import free_ports

    port = free_ports(1)[0]
    env = {**os.environ, "AUTOGRAD_EXPLORER_RUNS": f"sqlite:///{tmp_path}/runs.sqlite3"}
    launcher = subprocess.Popen(
        [sys.executable, "-m", "deploy.classroom", "--processes", "1", "--port", str(port), "--host", "127.0.0.1",
         "--logs", str(tmp_path / "logs")],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )
    try:
        line = launcher.stdout.readline()  # printed once the class answers (or the launcher's error)
        assert line.startswith("Class open at http://127.0.0.1:"), line + launcher.stdout.read()
        started = psutil.Process(launcher.pid).children(recursive=True)
        names = " ".join(" ".join(p.cmdline()) for p in started)
        assert "haproxy" in names and "streamlit" in names
        url = f"http://127.0.0.1:{port}"
        assert healthy(url)
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=10) as response:
            assert "SERVERID=s1" in response.headers.get("Set-Cookie", "") + str(response.headers.get_all("Set-Cookie"))
        launcher.send_signal(signal.SIGTERM)
        assert launcher.wait(timeout=60) == 0
        gone, alive = psutil.wait_procs(started, timeout=30)
        assert alive == []
    finally:
        if launcher.poll() is None:
            os.killpg(launcher.pid, signal.SIGKILL)
            launcher.wait()
