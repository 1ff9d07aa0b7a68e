"""Playground runs kept by run id in a store every server process shares: SQLite by default, Redis, or memory.

A browser session of Streamlit ends with the page (F5), its disconnect TTL or its server process,
and its session state goes with it. The playground therefore saves each run's latest snapshot
here, under a random run id that it also writes into the page's URL; a session whose URL names a
stored run continues it. Snapshots are bytes this module never interprets (the playground writes
them in the project's own model format: JSON and arrays, never pickle, so a store other processes
write to cannot run code in this one).

One run id per run, and no one overwrites another's run:
- every save names the learner (``user``: a key of the browser) and the page that holds the run
  (``holder``: one per Playground object); a save by a page that no longer holds its run is
  refused (TAKEN), and that page continues under a new id;
- ``open`` hands the run to the page that asks (the same id: a reload, a reconnect to another
  process, a link opened later) if it is the learner's own; anyone else's link, playing or paused,
  gives them a copy to continue under a new id (a fork), so a link goes on showing its owner's run.

Bounds, the same in every backend: at most ``max_bytes`` in all, ``max_run_bytes`` a run, and
``user_bytes`` a learner. Past a learner's share the learner's own least recently used runs go
first; past the whole bound, those of the learner holding the most bytes (so a flood of new learner
keys pushes out its own runs before anyone else's). Each eviction is noted, so that a link whose run
went can say why (``why_missing``).

Faults: every call is guarded (base.py): a store that fails never raises into the page, says in
words what failed (``problem``), keeps the snapshots it could not write in the process until it can,
and is tried again after a back-off. The SQLite file is checked for its identity and integrity and
started again when deleted or damaged (sqlite_store.py, sqlite_repair.py).

Shared records (a class's, explorer/classes/room.py) may carry a version, and a record is written only over one with
no version or an older one, in one atomic step in each backend (SQLite: one upsert; Redis: one Lua script; memory:
under its lock). "Newer" is the version, never a server's clock: a class's hand-in is versioned by the time the
learner's browser sent its text (µs), the one clock every process and machine the learner reaches reads, and past the
session's previous hand-in. So records that processes kept while the store was down, replayed in any order (or the
same one twice), leave the newest; a process's clock that is off changes nothing.

Where: ``AUTOGRAD_EXPLORER_RUNS`` = ``sqlite:///abs/path.sqlite3`` | ``redis://host:6379/0`` |
``memory`` (this process only); unset, ``runs.sqlite3`` in the data folder
(``AUTOGRAD_EXPLORER_DATA``, else ``$XDG_DATA_HOME/autograd-explorer``, else
``~/.local/share/autograd-explorer``).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from urllib.parse import unquote, urlparse

from server.run_store.base import (
    KEPT,
    LEASE_SECONDS,
    MB,
    OLDER,
    QUEUED,
    RUN_ID,
    SAVED,
    TAKEN,
    TOO_BIG,
    Opened,
    RunStore,
    StoreDown,
    new_run_id,
)
from server.run_store.memory import MemoryRunStore
from server.run_store.redis_store import RedisRunStore
from server.run_store.sqlite_store import SQLiteRunStore

__all__ = [
    "KEPT", "LEASE_SECONDS", "MB", "OLDER", "QUEUED", "RUN_ID", "SAVED", "TAKEN", "TOO_BIG", "MemoryRunStore", "Opened",
    "RedisRunStore", "RunStore", "SQLiteRunStore", "StoreDown", "data_folder", "new_run_id", "open_store", "runs",
]


def data_folder() -> Path:
    """Where the server keeps what outlives it (the runs' SQLite file)."""
    if os.environ.get("AUTOGRAD_EXPLORER_DATA"):
        return Path(os.environ["AUTOGRAD_EXPLORER_DATA"])
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "autograd-explorer"


def open_store(where: str | None = None, **bounds) -> RunStore:
    """The store ``where`` names (see the module's docstring); None reads AUTOGRAD_EXPLORER_RUNS."""
    where = os.environ.get("AUTOGRAD_EXPLORER_RUNS", "") if where is None else where
    if not where:
        return SQLiteRunStore(data_folder() / "runs.sqlite3", **bounds)
    if where == "memory":
        return MemoryRunStore(**bounds)
    url = urlparse(where)
    if url.scheme == "sqlite" and url.path:
        return SQLiteRunStore(unquote(url.path), **bounds)
    if url.scheme in ("redis", "rediss", "unix"):
        return RedisRunStore(where, **bounds)
    raise ValueError(f"AUTOGRAD_EXPLORER_RUNS={where!r}: use sqlite:///path, redis://host:port/db or memory")


_runs: RunStore | None = None
_runs_lock = threading.Lock()


def runs() -> RunStore:
    """The server's store, opened on first use from the environment."""
    global _runs
    with _runs_lock:
        if _runs is None:
            _runs = open_store()
        return _runs
