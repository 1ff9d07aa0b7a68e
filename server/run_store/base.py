"""The run store's interface and the rules every backend keeps (one id per run, who may continue it, the bounds)."""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

RUN_ID = re.compile(r"^[A-Za-z0-9_-]{8,32}$")
MB = 1_000_000
SAVED, TAKEN, TOO_BIG = "saved", "taken", "too big"  # what a save did
LEASE_SECONDS = 5.0  # a playing page's hold on its run outlives its last save by this much


def new_run_id() -> str:
    return secrets.token_urlsafe(9)  # 12 URL-safe characters, 72 random bits


@dataclass(frozen=True)
class Opened:
    """A stored run as ``open`` found it: its snapshot, and whether the opener now holds it (else it
    is another learner's run, playing now: continue a copy under a new id)."""

    blob: bytes
    owned: bool


@dataclass(frozen=True)
class _Record:
    blob: bytes
    user: str
    holder: str
    lease_until: float


class RunStore:
    """The bounds, the ownership rules and the interface; the backends below keep the records."""

    def __init__(
        self,
        max_bytes: int = 256 * MB,
        max_run_bytes: int = 32 * MB,
        user_bytes: int = 64 * MB,
        *,
        lease_seconds: float = LEASE_SECONDS,
        clock: Callable[[], float] = time.time,
    ):
        self.max_bytes = max_bytes
        self.user_bytes = min(user_bytes, max_bytes)
        self.max_run_bytes = min(max_run_bytes, self.user_bytes)
        self.lease_seconds = lease_seconds
        self.clock = clock  # wall clock: leases are compared across processes and machines

    def save(self, run_id: str, blob: bytes, *, user: str, holder: str, live: bool = False) -> str:
        """Keep ``blob`` as the run's latest snapshot: SAVED, TAKEN (another page holds the run now:
        nothing written) or TOO_BIG (nothing written). ``live``: the holder is playing it."""
        if len(blob) > self.max_run_bytes:
            return TOO_BIG
        lease_until = self.clock() + self.lease_seconds if live else 0.0
        return self._save(run_id, blob, user, holder, lease_until)

    def open(self, run_id: str, *, user: str, holder: str) -> Opened | None:
        """The run under ``run_id`` (None if the store does not have it), held by ``holder`` from now
        on unless another learner's page is playing it."""
        if not isinstance(run_id, str) or not RUN_ID.match(run_id):
            return None
        return self._open(run_id, user, holder, self.clock())

    def get(self, run_id: str) -> bytes | None:
        """The snapshot under ``run_id`` without taking the run, or None."""
        if not isinstance(run_id, str) or not RUN_ID.match(run_id):
            return None
        return self._get(run_id)

    @staticmethod
    def _keeps(record: _Record, user: str, holder: str, now: float) -> bool:
        """Whether the run stays with its holder when ``holder`` of ``user`` opens it."""
        return record.holder != holder and record.user != user and record.lease_until > now

    # The backends' part.
    def _save(self, run_id: str, blob: bytes, user: str, holder: str, lease_until: float) -> str:
        raise NotImplementedError

    def _open(self, run_id: str, user: str, holder: str, now: float) -> Opened | None:
        raise NotImplementedError

    def _get(self, run_id: str) -> bytes | None:
        raise NotImplementedError

    @property
    def size(self) -> int:
        """Bytes of snapshots held."""
        raise NotImplementedError

    def user_size(self, user: str) -> int:
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError

    def close(self) -> None:
        """Lets go of connections (the store works again if used after)."""
