"""What the SQLite run store does with a file that vanished, was replaced or is damaged: check it, move it aside,
and carry the runs and the shared records (a class's, its counters) still readable into the file that takes its
place."""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

DAMAGED_CODES = (11, 26)  # SQLITE_CORRUPT ("database disk image is malformed"), SQLITE_NOTADB
COMPANIONS = ("-journal", "-wal", "-shm")  # the files SQLite keeps beside a database, which go with it

Identity = tuple[int, int]  # (st_dev, st_ino): which file a path names


def identity(path: Path) -> Identity | None:
    """Which file ``path`` names now (None: no file)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return st.st_dev, st.st_ino


def is_damage(err: BaseException) -> bool:
    """Whether SQLite's error says the file is damaged (not busy, read-only or out of room)."""
    code = getattr(err, "sqlite_errorcode", None)
    return isinstance(err, sqlite3.DatabaseError) and code is not None and code & 0xFF in DAMAGED_CODES


def damage(db: sqlite3.Connection) -> str | None:
    """What ``PRAGMA quick_check`` finds wrong with the file (its first line), None if nothing. Errors other than
    damage (busy, unreadable) are raised: they say nothing of the file's state."""
    try:
        found = db.execute("PRAGMA quick_check(1)").fetchone()[0]
    except sqlite3.DatabaseError as err:
        if is_damage(err):
            return str(err)
        raise
    return None if found == "ok" else "quick_check: " + "; ".join(found.splitlines())


@contextlib.contextmanager
def repairing(path: Path) -> Iterator[None]:
    """Held by the one process that repairs ``path`` (the others wait, then find it repaired)."""
    with open(f"{path}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def move_aside(path: Path) -> Path:
    """Renames the damaged file and its journal to ``<name>.damaged-<time>``; the new name."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 1
    while aside.exists():
        n += 1
        aside = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    os.rename(path, aside)
    for suffix in COMPANIONS:
        with contextlib.suppress(FileNotFoundError):
            os.rename(f"{path}{suffix}", f"{aside}{suffix}")
    return aside


def read_only(path: Path) -> sqlite3.Connection:
    """A connection that reads ``path`` as it lies on disk: no lock, no journal, nothing written."""
    return sqlite3.connect(f"file:{quote(str(path))}?mode=ro&immutable=1", uri=True, isolation_level=None)


def carry(source: sqlite3.Connection, into: sqlite3.Connection, mark: Identity | None, now: float) -> int | None:
    """Copies every run ``source`` can still read into ``into`` (a run already there stays as it is), and every
    shared record not expired by ``now`` (a class's records and counters; one already there stays as it is), in
    one write transaction of ``into``; the run ids it cannot read are noted as lost (``gone``, why 'damaged').
    ``mark``, the old file's identity, is noted too: None is returned, and nothing copied, when another process already
    carried that file over. Returns how many runs were carried.

    NOTE: ``source`` may be a connection to a file that was deleted, which SQLite still names by its old path:
    the journal it would look for is the new file's. Its read transaction is opened while this one holds the new
    file's write lock and has written nothing (so that journal is empty) and held until the copy is done, so it
    never takes the new file's journal for one of its own to roll back.
    """
    key = None if mark is None else f"carried {mark[0]}:{mark[1]}"
    into.execute("BEGIN IMMEDIATE")
    try:
        if key is not None and into.execute("SELECT 1 FROM meta WHERE key = ?", (key,)).fetchone():
            into.execute("COMMIT")
            return None
        with contextlib.suppress(sqlite3.Error):
            source.execute("BEGIN")
        carried = 0
        for run_id in readable_ids(source):
            row = _row(source, run_id)
            if row is None:
                into.execute("INSERT OR IGNORE INTO gone (id, why, at) VALUES (?, 'damaged', ?)", (run_id, now))
                continue
            into.execute("INSERT OR IGNORE INTO runs (id, learner, holder, lease_until, used, size, snapshot) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?)", (run_id, *row))
            carried += 1
        with contextlib.suppress(sqlite3.Error):
            into.executemany("INSERT OR IGNORE INTO gone (id, why, at) VALUES (?, ?, ?)",
                             source.execute("SELECT id, why, at FROM gone").fetchall())
        into.executemany("INSERT OR IGNORE INTO records (tab, key, value, expires) VALUES (?, ?, ?, ?)",
                         readable_records(source, now))
        if key is not None:
            into.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, str(carried)))
        into.execute("COMMIT")
        return carried
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            into.execute("ROLLBACK")
        raise
    finally:
        with contextlib.suppress(sqlite3.Error):
            source.execute("ROLLBACK")


def readable_ids(source: sqlite3.Connection) -> list[str]:
    """The run ids ``source`` can list, by the id index and by the table itself (either may be damaged)."""
    ids: dict[str, None] = {}
    for sql in ("SELECT id FROM runs", "SELECT id FROM runs NOT INDEXED"):
        try:
            for (run_id,) in source.execute(sql):
                ids[run_id] = None
        except sqlite3.Error:
            continue  # what it listed before the damage is kept
    return list(ids)


def readable_records(source: sqlite3.Connection, now: float) -> list[tuple]:
    """The shared records (tab, key, value, expires) ``source`` can still read and that have not expired by ``now``:
    those the table's own scan reaches before any damage, then those its key's index names that the scan did not
    reach, each read by its key (a page of either may be damaged; a file older than the records has none)."""
    found: dict[tuple[str, str], tuple] = {}
    try:
        for tab, key, value, expires in source.execute("SELECT tab, key, value, expires FROM records NOT INDEXED"):
            found[(tab, key)] = (tab, key, value, expires)
    except sqlite3.Error:
        pass  # what it read before the damage is kept
    listed: list[tuple[str, str]] = []
    with contextlib.suppress(sqlite3.Error):
        listed.extend(source.execute("SELECT tab, key FROM records INDEXED BY sqlite_autoindex_records_1"))
    for tab, key in listed:
        if (tab, key) in found:
            continue
        try:
            row = source.execute("SELECT value, expires FROM records INDEXED BY sqlite_autoindex_records_1 "
                                 "WHERE tab = ? AND key = ?", (tab, key)).fetchone()
        except sqlite3.Error:
            continue
        if row is not None:
            found[(tab, key)] = (tab, key, *row)
    return [row for row in found.values() if isinstance(row[3], float | int) and row[3] > now
            and isinstance(row[2], bytes | int)]


def _row(source: sqlite3.Connection, run_id: str) -> tuple | None:
    """The run's record if it reads back whole (its snapshot as long as its size says), else None."""
    for table in ("runs", "runs NOT INDEXED"):
        try:
            row = source.execute(f"SELECT learner, holder, lease_until, used, size, snapshot FROM {table} "
                                 "WHERE id = ?", (run_id,)).fetchone()
        except sqlite3.Error:
            continue
        if row is not None and isinstance(row[5], bytes) and len(row[5]) == row[4]:
            return row
    return None
