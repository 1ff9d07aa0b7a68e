"""The run store in one SQLite file that every server process on the machine shares."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

from server.run_store import sqlite_repair as repair
from server.run_store.base import GONE_KEPT, OLDER, SAVED, TAKEN, Opened, RunStore, _Record, log

# NOTE: a rollback journal, not WAL. WAL keeps its index in a file every process maps (-shm), and a write to
# that mapping once the file is unwritable (chattr +i, a read-only remount) is a SIGBUS that ends the whole
# server process, every learner's session with it (seen: issue 28). A rollback journal is read and written
# with read() and write() only (mmap_size 0), so an unwritable file is an error a call returns. PERSIST keeps
# the journal file between transactions (its header zeroed), so a commit creates and deletes no file.
JOURNAL = "PERSIST"

# A record's write in one statement: a new one, or one replacing a live record only if it has no version or an older
# one (or none of its own); the WHERE of the upsert reads the stored row and writes it in the same step.
UPSERT_RECORD = (
    "INSERT INTO records (tab, key, value, expires, version) VALUES (?, ?, ?, ?, ?) "
    "ON CONFLICT (tab, key) DO UPDATE SET value = excluded.value, expires = excluded.expires, "
    "version = excluded.version WHERE excluded.version IS NULL OR records.version IS NULL "
    "OR records.version < excluded.version OR records.expires <= ?"
)


class SQLiteRunStore(RunStore):
    """One SQLite file (rollback journal, see JOURNAL) that every process on the machine shares; it outlives them all.

    Each write is one ``BEGIN IMMEDIATE`` transaction (the write lock taken first, so two processes
    never both read and then both try to write), and a writer waits up to ``busy_seconds`` for
    another's. Least recently used is by wall-clock time of use, kept per run.

    The connection is dropped after any error and opened again by the next call the guard lets through:
    SQLite opens a file it cannot write read-only and keeps it so, so a connection made while the file
    was unwritable would never write again.

    The file is watched (server/run_store/sqlite_repair.py). Before each call: is the path still the file this
    connection has open (its inode)? If it was deleted or replaced, the store goes on in the file now there (a
    fresh one if none), carrying over the runs its old connection can still read. At the first connection and
    after an error: ``PRAGMA quick_check``; a damaged file (that, or an error saying so) is moved aside as
    ``<name>.damaged-<time>`` with one log line, and a fresh one started with the runs still readable. Either
    way ``meta`` keeps what happened, for the words of a link whose run was lost.
    """

    faults = (sqlite3.Error, OSError)

    SCHEMA = """
    CREATE TABLE IF NOT EXISTS runs (
        id TEXT PRIMARY KEY,
        learner TEXT NOT NULL,
        holder TEXT NOT NULL,
        lease_until REAL NOT NULL,
        used REAL NOT NULL,
        size INTEGER NOT NULL,
        snapshot BLOB NOT NULL
    );
    CREATE INDEX IF NOT EXISTS runs_used ON runs (used);
    CREATE INDEX IF NOT EXISTS runs_user ON runs (learner, used);
    CREATE TABLE IF NOT EXISTS gone (id TEXT PRIMARY KEY, why TEXT NOT NULL, at REAL NOT NULL);
    CREATE INDEX IF NOT EXISTS gone_at ON gone (at);
    CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS records (
        tab TEXT NOT NULL,
        key TEXT NOT NULL,
        value BLOB NOT NULL,
        expires REAL NOT NULL,
        version INTEGER,
        PRIMARY KEY (tab, key)
    );
    CREATE INDEX IF NOT EXISTS records_expires ON records (expires);
    """

    def __init__(self, path: str | Path, *args, busy_seconds: float = 30.0, **kwargs):
        super().__init__(*args, **kwargs)
        self.path = Path(path)
        self.where = str(self.path)
        self.busy_seconds = busy_seconds
        self._lock = threading.RLock()  # one connection per process, used by one thread at a time
        self._db: sqlite3.Connection | None = None
        self._identity: repair.Identity | None = None  # the file self._db has open
        self._checked = False  # quick_check passed since the last error

    def _connect(self) -> sqlite3.Connection:
        if self._db is not None and repair.identity(self.path) != self._identity:
            self._moved()
        if self._db is None:
            db = self._open_file()
            if not self._checked:
                found = repair.damage(db)
                if found is not None:
                    db.close()
                    self._repair(found)
                    return self._db
                self._checked = True
            self._db = db
        return self._db

    def _open_file(self) -> sqlite3.Connection:
        """A connection to the file at the path (created if there is none), its schema made."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=self.busy_seconds, isolation_level=None, check_same_thread=False)
        try:
            db.execute(f"PRAGMA busy_timeout = {int(self.busy_seconds * 1000)}")
            db.execute("PRAGMA mmap_size = 0")  # read() and write(), never a mapping of the file
            mode = db.execute(f"PRAGMA journal_mode = {JOURNAL}").fetchone()[0]
            if mode.lower() != JOURNAL.lower():
                log.warning("run store %s: still journal_mode=%s (another process has it open in that mode: "
                            "restart every server process); a file made unwritable may then crash this one",
                            self.path, mode)
            db.execute("PRAGMA synchronous = NORMAL")
            db.execute("PRAGMA journal_size_limit = 67108864")  # the journal shrinks back to 64 MB
            db.executescript(self.SCHEMA)
            self._add_versions(db)
            db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('since', ?)", (repr(self.clock()),))
        except BaseException:
            db.close()
            raise
        self._identity = repair.identity(self.path)
        return db

    @staticmethod
    def _add_versions(db: sqlite3.Connection) -> None:
        """A file made before records had versions gets the column (each such record then has none: any versioned
        write replaces it). Another process adding it at the same moment is no error."""
        if any(row[1] == "version" for row in db.execute("PRAGMA table_info(records)")):
            return
        try:
            db.execute("ALTER TABLE records ADD COLUMN version INTEGER")
        except sqlite3.OperationalError as err:
            if "duplicate column" not in str(err):
                raise

    def _moved(self) -> None:
        """The path no longer names the file this connection has open (deleted, or another put in its place):
        go on in the file there now, with the runs the old connection can still read."""
        old, mark, gone = self._db, self._identity, repair.identity(self.path) is None
        self._db = None
        try:
            new = self._open_file()
            carried = repair.carry(old, new, mark, self.clock())
            if carried is not None and gone:
                self._note(new, "was deleted")
        finally:
            with contextlib.suppress(sqlite3.Error):
                old.close()
        self._db, self._checked = new, True
        if carried is not None:
            log.warning("run store %s: the file was %s while in use; this process carried the %d runs it could "
                        "still read into the file there now", self.path, "deleted" if gone else "replaced", carried)

    def _repair(self, found: str) -> None:
        """The file at the path is damaged: move it aside and start a fresh one with the runs still readable
        (one process does it; the others, waiting for it, then find the fresh file)."""
        self.close()
        damaged = repair.identity(self.path)
        try:
            self._replace_damaged(damaged, found)
        except OSError as err:
            raise OSError(f"the file is damaged ({found}) and cannot be moved aside: {err}") from err

    def _replace_damaged(self, damaged: repair.Identity | None, found: str) -> None:
        with repair.repairing(self.path):
            if damaged is None or repair.identity(self.path) != damaged:  # another process repaired it
                self._db, self._checked = self._open_file(), True
                return
            aside = repair.move_aside(self.path)
            new = self._open_file()
            source = repair.read_only(aside)
            try:
                total = len(repair.readable_ids(source))
                carried = repair.carry(source, new, damaged, self.clock())
            finally:
                source.close()
            self._note(new, "was damaged")
            self._db, self._checked = new, True
        log.warning("run store %s was damaged (%s): moved it aside to %s and started a fresh one, carrying over "
                    "the %d runs that read back whole of the %d it could list", self.path, found, aside.name,
                    carried or 0, total)

    def _note(self, db: sqlite3.Connection, what: str) -> None:
        """Keeps what happened to the store's file, for the words of a link whose run it lost."""
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.clock()))
        db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('history', ?)",
                   (f"the run store {what} and started again at {when}",))

    def _run(self, work: Callable[[sqlite3.Connection], object]):
        """``work`` on the connection; once more after repairing a file that an error says is damaged."""
        with self._lock:
            try:
                return work(self._connect())
            except sqlite3.DatabaseError as err:
                if not repair.is_damage(err):
                    raise
                self._repair(str(err))
                return work(self._connect())

    def _write(self, work: Callable[[sqlite3.Connection], object]):
        def transaction(db):
            db.execute("BEGIN IMMEDIATE")
            try:
                result = work(db)
            except BaseException:
                with contextlib.suppress(sqlite3.Error):  # after an I/O error SQLite may have rolled back itself
                    db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
            return result

        return self._run(transaction)

    def _save(self, run_id, blob, user, holder, lease_until, replaces):
        def work(db):
            row = db.execute("SELECT holder FROM runs WHERE id = ?", (run_id,)).fetchone()
            if row is not None and row[0] not in (holder, replaces):
                return TAKEN
            db.execute(
                "INSERT OR REPLACE INTO runs (id, learner, holder, lease_until, used, size, snapshot) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (run_id, user, holder, lease_until, self.clock(), len(blob), blob),
            )
            db.execute("DELETE FROM gone WHERE id = ?", (run_id,))
            self._evict(db, run_id, user)
            return SAVED

        return self._write(work)

    def _evict(self, db: sqlite3.Connection, keep: str, user: str) -> None:
        """Never ``keep``. Past the learner's share, their own least recently used runs; past the whole bound,
        the least recently used run of the learner holding the most bytes (ties: whose last use is oldest)."""
        (total,) = db.execute("SELECT COALESCE(SUM(size), 0) FROM runs WHERE learner = ?", (user,)).fetchone()
        if total > self.user_bytes:
            for run_id, size in db.execute("SELECT id, size FROM runs WHERE learner = ? AND id != ? ORDER BY used",
                                           (user, keep)).fetchall():
                self._drop(db, run_id, "share")
                total -= size
                if total <= self.user_bytes:
                    break
        (total,) = db.execute("SELECT COALESCE(SUM(size), 0) FROM runs").fetchone()
        if total <= self.max_bytes:
            return
        learners = {learner: [held, last] for learner, held, last in db.execute(
            "SELECT learner, SUM(size), MAX(used) FROM runs GROUP BY learner HAVING SUM(id != ?) > 0", (keep,))}
        while total > self.max_bytes and learners:
            learner = max(learners, key=lambda k: (learners[k][0], -learners[k][1]))
            victim = db.execute("SELECT id, size FROM runs WHERE learner = ? AND id != ? ORDER BY used LIMIT 1",
                                (learner, keep)).fetchone()
            if victim is None:
                del learners[learner]
                continue
            self._drop(db, victim[0], "room")
            total -= victim[1]
            learners[learner][0] -= victim[1]

    def _drop(self, db: sqlite3.Connection, run_id: str, why: str) -> None:
        """Evicts a run, noting why (the last GONE_KEPT evictions are kept)."""
        now = self.clock()
        db.execute("DELETE FROM runs WHERE id = ?", (run_id,))
        noted = db.execute("INSERT OR REPLACE INTO gone (id, why, at) VALUES (?, ?, ?)", (run_id, why, now)).lastrowid
        if noted % 1000 == 0:  # now and then, the notes past the last GONE_KEPT go
            db.execute("DELETE FROM gone WHERE at < (SELECT at FROM gone ORDER BY at DESC LIMIT 1 OFFSET ?)",
                       (GONE_KEPT,))

    def _open(self, run_id, user, holder, now):
        def work(db):
            row = db.execute("SELECT snapshot, learner, holder, lease_until FROM runs WHERE id = ?",
                             (run_id,)).fetchone()
            if row is None:
                return None
            record = _Record(bytes(row[0]), row[1], row[2], row[3])
            if self._keeps(record, user):
                db.execute("UPDATE runs SET used = ? WHERE id = ?", (now, run_id))
                return Opened(record.blob, owned=False)
            db.execute("UPDATE runs SET learner = ?, holder = ?, lease_until = 0, used = ? WHERE id = ?",
                       (user, holder, now, run_id))
            self._evict(db, run_id, user)
            return Opened(record.blob, owned=True)

        return self._write(work)

    def _get(self, run_id):
        row = self._run(lambda db: db.execute("SELECT snapshot FROM runs WHERE id = ?", (run_id,)).fetchone())
        return None if row is None else bytes(row[0])

    def _why(self, run_id):
        def read(db):
            why = db.execute("SELECT why FROM gone WHERE id = ?", (run_id,)).fetchone()
            history = db.execute("SELECT value FROM meta WHERE key = 'history'").fetchone()
            return (why and why[0]), (history and history[0])

        return self._run(read)

    def _put(self, table, key, value, expires_at, now, version=None):
        def work(db):
            db.execute("DELETE FROM records WHERE expires <= ?", (now,))
            written = db.execute(UPSERT_RECORD, (table, key, value, expires_at, version, now)).rowcount
            return SAVED if written else OLDER

        return self._write(work)

    def _put_many(self, records, now):
        def work(db):
            db.execute("DELETE FROM records WHERE expires <= ?", (now,))
            db.executemany(UPSERT_RECORD, [(table, key, value, ends, version, now)
                                           for (table, key), (value, ends, version) in records.items()])

        self._write(work)

    def _records(self, table, now):
        rows = self._run(lambda db: db.execute("SELECT key, value FROM records WHERE tab = ? AND expires > ?",
                                               (table, now)).fetchall())
        # NOTE: a counter (count_up) is an INTEGER in SQLite; every other record is a BLOB.
        return {key: str(value).encode() if isinstance(value, int | str) else bytes(value) for key, value in rows}

    def _record(self, table, key, now):
        row = self._run(lambda db: db.execute("SELECT value FROM records WHERE tab = ? AND key = ? AND expires > ?",
                                              (table, key, now)).fetchone())
        return None if row is None else (str(row[0]).encode() if isinstance(row[0], int | str) else bytes(row[0]))

    def _count_up(self, table, key, expires_at, now):
        def work(db):
            db.execute("DELETE FROM records WHERE expires <= ?", (now,))
            db.execute("INSERT INTO records (tab, key, value, expires) VALUES (?, ?, 1, ?) "
                       "ON CONFLICT (tab, key) DO UPDATE SET value = CAST(value AS INTEGER) + 1",
                       (table, key, expires_at))
            (count,) = db.execute("SELECT value FROM records WHERE tab = ? AND key = ?", (table, key)).fetchone()
            return int(count)

        return self._write(work)

    def _latest(self, user):
        row = self._run(lambda db: db.execute("SELECT id FROM runs WHERE learner = ? ORDER BY used DESC LIMIT 1",
                                              (user,)).fetchone())
        return None if row is None else row[0]

    def _scalar(self, sql: str, args: tuple = ()) -> int:
        return int(self._run(lambda db: db.execute(sql, args).fetchone()[0]))

    def _size(self):
        return self._scalar("SELECT COALESCE(SUM(size), 0) FROM runs")

    def _user_size(self, user):
        return self._scalar("SELECT COALESCE(SUM(size), 0) FROM runs WHERE learner = ?", (user,))

    def _count(self):
        return self._scalar("SELECT COUNT(*) FROM runs")

    def _reset(self) -> None:
        with self._lock:
            self.close()
            self._checked = False  # the next connection checks the file first

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                with contextlib.suppress(sqlite3.Error):
                    self._db.close()
                self._db = None
