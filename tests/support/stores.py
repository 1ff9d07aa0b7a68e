"""The stores tests share (pytest fixtures, loaded by tests/conftest.py): a redis-server of the tests' own, and one
store per backend."""

import os
import shutil
import signal
import subprocess
import time

import pytest

from server.run_store import MemoryRunStore, RedisRunStore, SQLiteRunStore


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    """A redis-server of the test's own, on a Unix socket (no port to find), stopped by its PID."""
    try:
        import redis
    except ImportError:
        redis = None
    missing = [what for what, there in (("redis-server (apt-get install -y redis-server)",
                                         shutil.which("redis-server")),
                                        ("the redis package (pip install -r requirements.txt)", redis)) if not there]
    if missing:
        if os.environ.get("CI"):  # .ci/run installs both: a missing one must not pass silently
            pytest.fail(f"missing: {', '.join(missing)}", pytrace=False)
        pytest.skip(f"missing: {', '.join(missing)}")
    folder = tmp_path_factory.mktemp("redis")
    sock = folder / "redis.sock"
    process = subprocess.Popen(
        ["redis-server", "--port", "0", "--unixsocket", str(sock), "--save", "", "--appendonly", "no",
         "--dir", str(folder)],
        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True,
    )
    client = redis.Redis(unix_socket_path=str(sock))
    for _ in range(200):  # until it answers (or has exited)
        if process.poll() is not None:
            pytest.fail(f"redis-server exited with code {process.returncode}")
        try:
            if sock.exists() and client.ping():
                break
        except redis.exceptions.ConnectionError:
            pass
        time.sleep(0.05)
    else:
        process.kill()
        pytest.fail("redis-server did not answer")
    yield f"unix://{sock}?db=0"
    client.close()
    os.kill(process.pid, signal.SIGKILL)
    process.wait()


@pytest.fixture(params=["memory", "sqlite", "redis"])
def make_store(request, tmp_path):
    made = []

    def make(**kwargs):
        if request.param == "memory":
            store = MemoryRunStore(**kwargs)
        elif request.param == "sqlite":
            store = SQLiteRunStore(tmp_path / "runs.sqlite3", **kwargs)
        else:
            url = request.getfixturevalue("redis_url")
            store = RedisRunStore(url, prefix=f"test:{request.node.name}:{len(made)}:", **kwargs)
        made.append(store)
        return store

    yield make
    for store in made:
        store.close()
