"""Playground runs kept on the server by run id, so a reload or a reconnect finds its run again.

A browser session of Streamlit ends with the page (F5) or after its disconnect TTL, and its
session state goes with it. The playground therefore saves each run's latest snapshot here,
under a random run id that it also writes into the page's URL; a new session whose URL names a
stored run continues it. The store is bounded by bytes (least recently used runs go first) and
process-wide, shared by every session (the ids are unguessable, so a run is found only through
its own link). Snapshots are pickles made by this process, never read from users.
"""

from __future__ import annotations

import pickle
import re
import secrets
import threading
from collections import OrderedDict

RUN_ID = re.compile(r"^[A-Za-z0-9_-]{8,32}$")


def new_run_id() -> str:
    return secrets.token_urlsafe(9)  # 12 URL-safe characters, 72 random bits


class RunStore:
    """Snapshots by run id, at most `max_bytes` in all and `max_run_bytes` each."""

    def __init__(self, max_bytes: int = 256_000_000, max_run_bytes: int = 32_000_000):
        self.max_bytes = max_bytes
        self.max_run_bytes = max_run_bytes
        self._blobs: OrderedDict[str, bytes] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def put(self, run_id: str, obj) -> bool:
        """Keep a snapshot of `obj` under `run_id`; False (and nothing kept) if it is too big."""
        blob = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        with self._lock:
            self._drop(run_id)
            if len(blob) > self.max_run_bytes:
                return False
            self._blobs[run_id] = blob
            self._size += len(blob)
            while self._size > self.max_bytes:
                self._drop(next(iter(self._blobs)))
        return True

    def get(self, run_id: str):
        """A fresh copy of the snapshot under `run_id`, or None."""
        if not isinstance(run_id, str) or not RUN_ID.match(run_id):
            return None
        with self._lock:
            blob = self._blobs.get(run_id)
            if blob is None:
                return None
            self._blobs.move_to_end(run_id)
        return pickle.loads(blob)

    def _drop(self, run_id: str) -> None:
        blob = self._blobs.pop(run_id, None)
        if blob is not None:
            self._size -= len(blob)

    @property
    def size(self) -> int:
        return self._size

    def __len__(self) -> int:
        return len(self._blobs)


RUNS = RunStore()  # the app's store: one per server process
