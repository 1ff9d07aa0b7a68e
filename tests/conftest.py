"""Every test run keeps its runs in a SQLite file of its own (never the user's data folder); the stores' fixtures."""

import os
import shutil
import tempfile

pytest_plugins = ["tests.support.stores"]  # redis_url, make_store: a real store per backend

_DATA = tempfile.mkdtemp(prefix="autograd-explorer-test-data-")


def pytest_configure(config):
    # NOTE: set before the app is imported and inherited by the servers the browser tests start.
    os.environ.setdefault("AUTOGRAD_EXPLORER_DATA", _DATA)
    os.environ.setdefault("AUTOGRAD_EXPLORER_RUNS", f"sqlite:///{_DATA}/runs.sqlite3")


def pytest_unconfigure(config):
    shutil.rmtree(_DATA, ignore_errors=True)
