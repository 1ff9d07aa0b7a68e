"""The run store's interface and the rules every backend keeps: one id per run, who may continue it, the
bounds, and the guard around every call (a store that fails never takes a page or a process down)."""

from __future__ import annotations

import logging
import re
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from server.cache import ByteCache

RUN_ID = re.compile(r"^[A-Za-z0-9_-]{8,32}$")
MB = 1_000_000
SAVED, TAKEN, TOO_BIG = "saved", "taken", "too big"  # what a save did
KEPT = "kept here"  # ... or: the store could not be written, the snapshot waits in this process (see `save`)
LEASE_SECONDS = 5.0  # a playing page's save records that it plays until this much after it (not a hold on it)
RETRY_FIRST, RETRY_MOST = 0.25, 5.0  # seconds before the store is tried again after a failure, doubling
PENDING_BYTES = 64 * MB  # snapshots this process keeps while the store cannot be written, at most
GONE_KEPT = 10_000  # ids of the runs evicted last that a store remembers, and why (for true words)
RECORD_BYTES = 256_000  # one shared record (a class's, see `put`) at most
PENDING_RECORD_BYTES = 16 * MB  # records this process keeps while the store cannot be written, at most
GATHER_SECONDS = 0.05  # a record handed over waits this long for others, to be written with them in one step
QUEUED = "queued"  # what hand_over did: the record waits in this process for its writer (see `hand_over`)
OLDER = "older"  # what a put did: the store has a newer version of the record, kept (see `put`)

log = logging.getLogger("server.run_store")


def new_run_id() -> str:
    return secrets.token_urlsafe(9)  # 12 URL-safe characters, 72 random bits


def supersedes(version: int | None, than: int | None) -> bool:
    """Whether a record of ``version`` replaces one of version ``than`` (see `RunStore.put`): always when either has
    none, else only when it is greater (the same version twice is one record, written once)."""
    return version is None or than is None or version > than


class StoreDown(Exception):
    """The store could not be asked or written just now; ``str()`` says why, in words a learner can read."""


@dataclass(frozen=True)
class Opened:
    """A stored run as ``open`` found it: its snapshot, and whether the opener now holds it (else it
    is another learner's run: continue a copy under a new id)."""

    blob: bytes
    owned: bool


@dataclass(frozen=True)
class _Record:
    blob: bytes
    user: str
    holder: str
    lease_until: float


@dataclass(frozen=True)
class _Pending:
    """A save the store could not take yet. ``replaces``: the holder the store last had for the run (a page of
    this process that opened the run meanwhile holds it now, and its save may replace that holder's)."""

    blob: bytes
    user: str
    holder: str
    lease_until: float
    replaces: str


class RunStore:
    """The bounds, the ownership rules, the guard and the interface; the backends below keep the records.

    The guard: a backend error of the kinds in ``faults`` never leaves a call. The backend drops its
    connection (it reconnects on the next call), ``problem`` says in words what failed, and for a while
    (RETRY_FIRST seconds, doubling to RETRY_MOST) calls do not try the backend at all. Meanwhile a save is
    KEPT: its snapshot waits in this process (at most PENDING_BYTES in all) and is written by the first
    call that works again; ``open`` of such a run finds it here (a reload that reaches this process keeps
    its run), ``open`` of any other run raises StoreDown. One log line when the store fails, one when it
    works again.
    """

    faults: tuple[type[BaseException], ...] = ()  # the backend's errors that mean "not now"
    where = "the run store"  # what the words name

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
        self.clock = clock  # wall clock: times of use are compared across processes and machines
        self.problem: str | None = None  # what failed, while the store fails
        self._failures = 0
        self._retry_at = 0.0
        self._state = threading.Lock()
        self._pending_lock = threading.RLock()  # a run's pending save and its flush are one step
        self._pending = ByteCache(PENDING_BYTES, max_item=self.max_run_bytes, idle_seconds=None)
        # (table, key) -> (value, expires_at, version): records put while the store could not be written, in order
        self._pending_records: dict[tuple[str, str], tuple[bytes, float, int | None]] = {}
        self._handed_over = threading.Event()  # records wait for the writer
        self._writer: threading.Thread | None = None

    # ------------------------------------------------------------------ the interface
    def save(self, run_id: str, blob: bytes, *, user: str, holder: str, live: bool = False) -> str:
        """Keep ``blob`` as the run's latest snapshot: SAVED; TAKEN (another page holds the run now: nothing
        written); TOO_BIG (nothing written); KEPT (the store cannot be written now: ``problem`` says why, and
        the snapshot is written as soon as a call works). ``live``: the holder is playing it."""
        if len(blob) > self.max_run_bytes:
            return TOO_BIG
        lease_until = self.clock() + self.lease_seconds if live else 0.0
        with self._pending_lock:
            pending = self._pending.peek(run_id)
            if pending is not None and pending.holder != holder:
                return TAKEN  # a page of this process opened the run while the store could not be written
            replaces = holder if pending is None else pending.replaces
            self._pending.pop(run_id)
            try:
                return self._call(lambda: self._save(run_id, blob, user, holder, lease_until, replaces))
            except StoreDown:
                self._pending.put(run_id, _Pending(blob, user, holder, lease_until, replaces), len(blob))
                return KEPT

    def open(self, run_id: str, *, user: str, holder: str) -> Opened | None:
        """The run under ``run_id`` (None if the store does not have it), held by ``holder`` from now on if
        ``user`` is the learner it belongs to; anyone else gets a copy to continue under a new id. Raises
        StoreDown if the store cannot be asked now (and this process does not have the run)."""
        if not isinstance(run_id, str) or not RUN_ID.match(run_id):
            return None
        with self._pending_lock:
            try:
                return self._call(lambda: self._open(run_id, user, holder, self.clock()))
            except StoreDown:
                pending = self._pending.peek(run_id)
                if pending is None:
                    raise
            if pending.user != user:
                return Opened(pending.blob, owned=False)
            self._pending.put(run_id, replace(pending, holder=holder), len(pending.blob))
            return Opened(pending.blob, owned=True)

    def get(self, run_id: str) -> bytes | None:
        """The snapshot under ``run_id`` without taking the run, or None (StoreDown if it cannot be asked)."""
        if not isinstance(run_id, str) or not RUN_ID.match(run_id):
            return None
        pending = self._pending.peek(run_id)
        if pending is not None:
            return pending.blob
        return self._call(lambda: self._get(run_id))

    def why_missing(self, run_id: str) -> str | None:
        """Why the store has no run under ``run_id`` (after ``open`` gave None), as a clause the page can say; None
        when it knows no reason (a mistyped link, another server's, or a store started again it was not told of)."""
        try:
            why, history = self._call(lambda: self._why(run_id))
        except StoreDown as err:
            return f"the run store cannot say why: {err}"
        if why == "room":
            return (f"the run store was full ({self.max_bytes / MB:g} MB) and made room for newer runs: the learner "
                    "holding the most loses their least recently used run first")
        if why == "share":
            return f"its learner's newer runs took its place: each learner keeps at most {self.user_bytes / MB:g} MB"
        if why == "damaged":
            return f"{history or 'the run store was damaged and started again'}, and this run could not be read back"
        if history:
            return f"{history}: a run saved before then may have been lost"
        return None

    # ------------------------------------------------------------------ shared records
    # What a class keeps (explorer/classes/): small records under (table, key), each with the wall-clock time it
    # expires, in the same store as the runs, so every process (and machine) behind the balancer sees them.
    def put(self, table: str, key: str, value: bytes, *, expires_at: float, version: int | None = None) -> str:
        """Keeps ``value`` under (table, key) until ``expires_at``, replacing what was there: SAVED; OLDER (the store
        has a newer ``version`` of it: kept, nothing written); TOO_BIG (over RECORD_BYTES: nothing written); KEPT (the
        store cannot be written now: the record waits in this process and is written, before anything else, by the
        first call that works). Raises StoreDown only when this process already keeps PENDING_RECORD_BYTES of records
        for the store.

        ``version``: a whole number that grows with each newer value of the record, whichever process or machine
        writes it (a class's hand-ins: microseconds of the learner's browser clock, explorer/classes/room.py). A record
        with a version replaces a live one only if that one has none or a smaller one, in one atomic step in every
        backend: records kept here while the store was down, replayed by several processes in any order, leave the
        newest; the same record twice is written once. Without a version a put always replaces."""
        if len(value) > RECORD_BYTES:
            return TOO_BIG
        with self._pending_lock:
            waiting = self._pending_records.get((table, key))
            if waiting is None or supersedes(version, waiting[2]):
                self._pending_records.pop((table, key), None)
            try:
                return self._call(lambda: self._put(table, key, value, expires_at, self.clock(), version))
            except StoreDown:
                if not self._wait_here(table, key, value, expires_at, version):
                    raise
                return KEPT

    def hand_over(self, table: str, key: str, value: bytes, *, expires_at: float, version: int | None = None) -> str:
        """As ``put``, but the write is this process's writer's: the record waits here (read by this process at
        once) and is written within GATHER_SECONDS, with every record handed over meanwhile, in one transaction
        (while the store cannot be written, as soon as it can). QUEUED or TOO_BIG; StoreDown only when this process
        already keeps PENDING_RECORD_BYTES of records. Many learners' hand-ins cost the store one write, not one
        each: 4 processes of 50 learners waited 1-8 s for SQLite's write lock one write at a time. ``version``: as
        ``put`` (an older one than the store's, or than one waiting here, is not written)."""
        if len(value) > RECORD_BYTES:
            return TOO_BIG
        with self._pending_lock:
            if not self._wait_here(table, key, value, expires_at, version):
                raise StoreDown(self.problem or "this process keeps as many records as it can for the run store")
            if self._writer is None:
                self._writer = threading.Thread(target=self._write_handed_over, name="run-store-writer", daemon=True)
                self._writer.start()
        self._handed_over.set()
        return QUEUED

    def _wait_here(self, table: str, key: str, value: bytes, expires_at: float, version: int | None = None) -> bool:
        """Keeps the record in this process for the store, if the records kept here leave room for it (at most
        PENDING_RECORD_BYTES); False if not. One waiting here with a newer version stays (True: nothing to keep).
        Called holding _pending_lock."""
        waiting = self._pending_records.get((table, key))
        if waiting is not None and not supersedes(version, waiting[2]):
            return True
        held = sum(len(v) for v, _, _ in self._pending_records.values())
        if held + len(value) > PENDING_RECORD_BYTES:
            return False
        self._pending_records[(table, key)] = (value, expires_at, version)
        return True

    def _write_handed_over(self) -> None:
        """The writer: waits for records handed over, gathers them a moment, writes them in one step; while the
        store fails, tries again after its back-off."""
        while True:
            self._handed_over.wait()
            time.sleep(GATHER_SECONDS)
            self._handed_over.clear()
            try:
                self._call(lambda: None)  # the guard writes what waits first
            except StoreDown:
                time.sleep(RETRY_FIRST)
                self._handed_over.set()
            except Exception:  # noqa: BLE001 - the writer must outlive a bug; the records wait for the next try
                log.exception("run store %s: writing the records handed over failed", self.where)
                time.sleep(RETRY_MOST)
                self._handed_over.set()

    def records(self, table: str) -> dict[str, bytes]:
        """Every record of ``table`` not yet expired, by key, this process's own that wait for the writer
        included; StoreDown if the store cannot be asked now."""
        found = self._call(lambda: self._records(table, self.clock()), records=False)
        now = self.clock()
        with self._pending_lock:
            found.update({key: value for (tab, key), (value, ends, _) in self._pending_records.items()
                          if tab == table and ends > now})
        return found

    def record(self, table: str, key: str) -> bytes | None:
        """The record under (table, key) if it has not expired (this process's own waiting for the writer
        included), else None; StoreDown if the store cannot be asked."""
        with self._pending_lock:
            waiting = self._pending_records.get((table, key))
        if waiting is not None and waiting[1] > self.clock():
            return waiting[0]
        return self._call(lambda: self._record(table, key, self.clock()), records=False)

    def count_up(self, table: str, key: str, *, expires_at: float) -> int:
        """Adds one to the counter under (table, key), started at 0 and kept until ``expires_at`` (set when it is
        made), and returns it: one step, whichever process counts. StoreDown if the store cannot be written."""
        return self._call(lambda: self._count_up(table, key, expires_at, self.clock()))

    def latest(self, user: str) -> str | None:
        """The id of the run ``user`` used last (saved or opened), or None; StoreDown if the store cannot be asked."""
        return self._call(lambda: self._latest(user))

    @property
    def size(self) -> int:
        """Bytes of snapshots held."""
        return self._call(self._size)

    def user_size(self, user: str) -> int:
        return self._call(lambda: self._user_size(user))

    def __len__(self) -> int:
        return self._call(self._count)

    @property
    def kept_here(self) -> int:
        """Snapshots and records waiting in this process for the store to take them."""
        return len(self._pending) + len(self._pending_records)

    def close(self) -> None:
        """Lets go of connections (the store works again if used after)."""

    @staticmethod
    def _keeps(record: _Record, user: str) -> bool:
        """Whether the run stays with its learner when ``user`` opens it: always, unless ``user`` is that
        learner (a reload, another tab, another process). Playing or paused makes no difference: a link
        someone else opens is a fork, and the owner's link goes on showing the owner's run."""
        return record.user != user

    # ------------------------------------------------------------------ the guard
    def _call(self, work: Callable[[], object], records: bool = True):
        """``work()`` on the backend, after the saves waiting here (and the records, unless ``records`` is False: a
        read of records sees those waiting without writing them, which is the writer's job); StoreDown instead of a
        backend's error."""
        with self._state:
            if self.problem is not None and self.clock() < self._retry_at:
                raise StoreDown(self.problem)
        try:
            self._flush(records)
            result = work()
        except self.faults as err:
            raise self._failed(err) from err
        if self.problem is not None:
            self._recovered()
        return result

    def _flush(self, records: bool = True) -> None:
        """Writes the snapshots and (if ``records``) the records kept here (each is dropped once the store
        answers it)."""
        if records and self._pending_records:
            with self._pending_lock:
                waiting = dict(self._pending_records)
            # NOTE: written outside the lock (a hand-over meanwhile waits for nothing), then dropped here unless a
            # newer value was handed over for the same record while they were written.
            self._put_many(waiting, self.clock())
            with self._pending_lock:
                for where, record in waiting.items():
                    if self._pending_records.get(where) is record:
                        del self._pending_records[where]
        if not len(self._pending):
            return
        with self._pending_lock:
            for run_id in self._pending.lru_keys():
                pending = self._pending.peek(run_id)
                if pending is not None:
                    self._save(run_id, pending.blob, pending.user, pending.holder, pending.lease_until,
                               pending.replaces)
                    self._pending.pop(run_id)

    def _failed(self, err: BaseException) -> StoreDown:
        words = self._describe(err)
        with self._state:
            first = self.problem is None
            self.problem = words
            self._failures += 1
            wait = min(RETRY_MOST, RETRY_FIRST * 2 ** (self._failures - 1))
            self._retry_at = self.clock() + wait
        try:
            self._reset()
        except Exception as reset_err:  # noqa: BLE001 - a connection that cannot even be closed is dropped
            log.debug("run store %s: dropping its connection failed: %r", self.where, reset_err)
        if first:
            log.warning("run store %s cannot be used: %s. Runs stay in their pages and are saved once it works; "
                        "trying again every %g s at most", self.where, words, RETRY_MOST)
        else:
            log.debug("run store %s still fails: %s", self.where, words)
        return StoreDown(words)

    def _recovered(self) -> None:
        with self._state:
            if self.problem is None:
                return
            self.problem, self._failures = None, 0
        log.warning("run store %s works again", self.where)

    def _describe(self, err: BaseException) -> str:
        """What failed, for the learner and the log."""
        return f"{self.where}: {str(err).rstrip('.') or type(err).__name__}"

    # ------------------------------------------------------------------ the backends' part
    def _save(self, run_id: str, blob: bytes, user: str, holder: str, lease_until: float, replaces: str) -> str:
        """Write the run unless a page other than ``holder`` (or ``replaces``, whom it took it from) holds it."""
        raise NotImplementedError

    def _open(self, run_id: str, user: str, holder: str, now: float) -> Opened | None:
        raise NotImplementedError

    def _get(self, run_id: str) -> bytes | None:
        raise NotImplementedError

    def _why(self, run_id: str) -> tuple[str | None, str | None]:
        """Why the run left, if the store noted it ("room", "share", "damaged"), and what last happened to the
        store as a whole ("the run store ... and started again at ..."), if anything."""
        raise NotImplementedError

    def _put(self, table: str, key: str, value: bytes, expires_at: float, now: float,
             version: int | None = None) -> str:
        """Write the record (SAVED) unless the store has a live one of a newer or the same ``version`` (OLDER: see
        `put`), in one atomic step; drop the records that expired by ``now`` while at it."""
        raise NotImplementedError

    def _put_many(self, records: dict[tuple[str, str], tuple[bytes, float, int | None]], now: float) -> None:
        """Writes every record of ``records`` ((table, key) -> (value, expires_at, version)), each as ``_put`` would;
        a backend does it in one step."""
        for (table, key), (value, expires_at, version) in records.items():
            self._put(table, key, value, expires_at, now, version)

    def _records(self, table: str, now: float) -> dict[str, bytes]:
        raise NotImplementedError

    def _record(self, table: str, key: str, now: float) -> bytes | None:
        raise NotImplementedError

    def _count_up(self, table: str, key: str, expires_at: float, now: float) -> int:
        raise NotImplementedError

    def _latest(self, user: str) -> str | None:
        raise NotImplementedError

    def _size(self) -> int:
        raise NotImplementedError

    def _user_size(self, user: str) -> int:
        raise NotImplementedError

    def _count(self) -> int:
        raise NotImplementedError

    def _reset(self) -> None:
        """Drops the backend's connection after an error: the next call connects afresh."""
