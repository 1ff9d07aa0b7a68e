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
  process, a link opened later) unless another learner's page is playing it right now (its lease,
  renewed by each save while playing, has not run out): then the opener continues a copy, a fork.

Bounds, the same in every backend: at most ``max_bytes`` in all, ``max_run_bytes`` a run, and
``user_bytes`` a learner. Past a learner's share the learner's own least recently used runs go
first; past the whole bound, anyone's.

Where: ``AUTOGRAD_EXPLORER_RUNS`` = ``sqlite:///abs/path.sqlite3`` | ``redis://host:6379/0`` |
``memory`` (this process only); unset, ``runs.sqlite3`` in the data folder
(``AUTOGRAD_EXPLORER_DATA``, else ``$XDG_DATA_HOME/autograd-explorer``, else
``~/.local/share/autograd-explorer``).
"""

from __future__ import annotations

import os
import re
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from server.cache import ByteCache

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


class MemoryRunStore(RunStore):
    """This process only (lost on restart): the server's byte-bounded LRU, with a share per learner."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._lru = ByteCache(self.max_bytes, max_item=self.max_run_bytes, idle_seconds=None,
                              group_budget=self.user_bytes)

    def _save(self, run_id, blob, user, holder, lease_until):
        with self._lru.lock:
            record = self._lru.peek(run_id)
            if record is not None and record.holder != holder:
                return TAKEN
            kept = self._lru.put(run_id, _Record(blob, user, holder, lease_until), len(blob), group=user)
            return SAVED if kept else TOO_BIG

    def _open(self, run_id, user, holder, now):
        with self._lru.lock:
            record = self._lru.get(run_id)
            if record is None:
                return None
            if self._keeps(record, user, holder, now):
                return Opened(record.blob, owned=False)
            self._lru.put(run_id, _Record(record.blob, user, holder, 0.0), len(record.blob), group=user)
            return Opened(record.blob, owned=True)

    def _get(self, run_id):
        record = self._lru.peek(run_id)
        return None if record is None else record.blob

    @property
    def size(self) -> int:
        return self._lru.nbytes

    def user_size(self, user: str) -> int:
        return self._lru.group_nbytes(user)

    def __len__(self) -> int:
        return len(self._lru)


class SQLiteRunStore(RunStore):
    """One SQLite file (WAL) that every process on the machine shares; it outlives them all.

    Each write is one ``BEGIN IMMEDIATE`` transaction (the write lock taken first, so two processes
    never both read and then both try to write), and a writer waits up to ``busy_seconds`` for
    another's. Least recently used is by wall-clock time of use, kept per run.
    """

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
    """

    def __init__(self, path: str | Path, *args, busy_seconds: float = 30.0, **kwargs):
        super().__init__(*args, **kwargs)
        self.path = Path(path)
        self.busy_seconds = busy_seconds
        self._lock = threading.Lock()  # one connection per process, used by one thread at a time
        self._db: sqlite3.Connection | None = None

    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, timeout=self.busy_seconds, isolation_level=None, check_same_thread=False)
            db.execute(f"PRAGMA busy_timeout = {int(self.busy_seconds * 1000)}")
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")  # WAL: a power cut may lose the last saves, never the file
            db.execute("PRAGMA journal_size_limit = 67108864")  # the WAL file shrinks back to 64 MB
            db.executescript(self.SCHEMA)
            self._db = db
        return self._db

    def _write(self, work: Callable[[sqlite3.Connection], object]):
        with self._lock:
            db = self._connect()
            db.execute("BEGIN IMMEDIATE")
            try:
                result = work(db)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
            return result

    def _save(self, run_id, blob, user, holder, lease_until):
        def work(db):
            row = db.execute("SELECT holder FROM runs WHERE id = ?", (run_id,)).fetchone()
            if row is not None and row[0] != holder:
                return TAKEN
            db.execute(
                "INSERT OR REPLACE INTO runs (id, learner, holder, lease_until, used, size, snapshot) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (run_id, user, holder, lease_until, self.clock(), len(blob), blob),
            )
            self._evict(db, run_id, user)
            return SAVED

        return self._write(work)

    def _evict(self, db: sqlite3.Connection, keep: str, user: str) -> None:
        """The learner's own oldest runs past their share, then anyone's past the bound; never ``keep``."""
        for where, args, bound in (("learner = ? AND ", (user,), self.user_bytes), ("", (), self.max_bytes)):
            (total,) = db.execute(f"SELECT COALESCE(SUM(size), 0) FROM runs WHERE {where}1", args).fetchone()
            if total <= bound:
                continue
            oldest = db.execute(f"SELECT id, size FROM runs WHERE {where}id != ? ORDER BY used", (*args, keep))
            doomed = []
            for run_id, size in oldest:
                doomed.append((run_id,))
                total -= size
                if total <= bound:
                    break
            db.executemany("DELETE FROM runs WHERE id = ?", doomed)

    def _open(self, run_id, user, holder, now):
        def work(db):
            row = db.execute("SELECT snapshot, learner, holder, lease_until FROM runs WHERE id = ?",
                             (run_id,)).fetchone()
            if row is None:
                return None
            record = _Record(bytes(row[0]), row[1], row[2], row[3])
            if self._keeps(record, user, holder, now):
                db.execute("UPDATE runs SET used = ? WHERE id = ?", (now, run_id))
                return Opened(record.blob, owned=False)
            db.execute("UPDATE runs SET learner = ?, holder = ?, lease_until = 0, used = ? WHERE id = ?",
                       (user, holder, now, run_id))
            self._evict(db, run_id, user)
            return Opened(record.blob, owned=True)

        return self._write(work)

    def _get(self, run_id):
        with self._lock:
            row = self._connect().execute("SELECT snapshot FROM runs WHERE id = ?", (run_id,)).fetchone()
        return None if row is None else bytes(row[0])

    def _scalar(self, sql: str, args: tuple = ()) -> int:
        with self._lock:
            return int(self._connect().execute(sql, args).fetchone()[0])

    @property
    def size(self) -> int:
        return self._scalar("SELECT COALESCE(SUM(size), 0) FROM runs")

    def user_size(self, user: str) -> int:
        return self._scalar("SELECT COALESCE(SUM(size), 0) FROM runs WHERE learner = ?", (user,))

    def __len__(self) -> int:
        return self._scalar("SELECT COUNT(*) FROM runs")

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None


# NOTE: each Redis call below is one Lua script, which Redis runs atomically: the check of the holder
# and the write, or the write and the evictions, cannot interleave with another process's.
# Keys: <p>run:<id> (hash: snapshot user holder lease size), <p>used (sorted set: id by time of use),
# <p>user:<user> (sorted set: the learner's ids by time of use), <p>bytes and <p>ubytes:<user> (counters).
_LUA_DROP = """
local function drop(p, id)
    local key = p .. 'run:' .. id
    local size = tonumber(redis.call('HGET', key, 'size') or '0')
    local user = redis.call('HGET', key, 'user')
    if user then
        redis.call('ZREM', p .. 'user:' .. user, id)
        redis.call('DECRBY', p .. 'ubytes:' .. user, size)
    end
    redis.call('ZREM', p .. 'used', id)
    redis.call('DECRBY', p .. 'bytes', size)
    redis.call('DEL', key)
end
local function oldest(zset, keep)
    for _, id in ipairs(redis.call('ZRANGE', zset, 0, 1)) do
        if id ~= keep then return id end
    end
    return nil
end
local function evict(p, keep, user, user_bytes, max_bytes)
    local ukey = p .. 'user:' .. user
    while tonumber(redis.call('GET', p .. 'ubytes:' .. user) or '0') > user_bytes do
        local victim = oldest(ukey, keep)
        if not victim then break end
        drop(p, victim)
    end
    while tonumber(redis.call('GET', p .. 'bytes') or '0') > max_bytes do
        local victim = oldest(p .. 'used', keep)
        if not victim then break end
        drop(p, victim)
    end
end
local function take(p, id, user, holder, lease, now)
    -- the run's record (already there, any owner) becomes user's, used now
    local key = p .. 'run:' .. id
    local old_user = redis.call('HGET', key, 'user')
    local size = tonumber(redis.call('HGET', key, 'size') or '0')
    if old_user and old_user ~= user then
        redis.call('ZREM', p .. 'user:' .. old_user, id)
        redis.call('DECRBY', p .. 'ubytes:' .. old_user, size)
        redis.call('INCRBY', p .. 'ubytes:' .. user, size)
    end
    redis.call('HSET', key, 'user', user, 'holder', holder, 'lease', lease)
    redis.call('ZADD', p .. 'user:' .. user, now, id)
    redis.call('ZADD', p .. 'used', now, id)
end
"""
_LUA_SAVE = _LUA_DROP + """
local p, id, blob, user, holder, lease, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7]
local user_bytes, max_bytes = tonumber(ARGV[8]), tonumber(ARGV[9])
local key = p .. 'run:' .. id
local current = redis.call('HGET', key, 'holder')
if current and current ~= holder then return 'taken' end
if current then drop(p, id) end
redis.call('HSET', key, 'snapshot', blob, 'size', #blob, 'user', user, 'holder', holder, 'lease', lease)
redis.call('INCRBY', p .. 'bytes', #blob)
redis.call('INCRBY', p .. 'ubytes:' .. user, #blob)
redis.call('ZADD', p .. 'user:' .. user, now, id)
redis.call('ZADD', p .. 'used', now, id)
evict(p, id, user, user_bytes, max_bytes)
return 'saved'
"""
_LUA_OPEN = _LUA_DROP + """
local p, id, user, holder, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local user_bytes, max_bytes = tonumber(ARGV[6]), tonumber(ARGV[7])
local key = p .. 'run:' .. id
local rec = redis.call('HMGET', key, 'snapshot', 'user', 'holder', 'lease')
if not rec[1] then return nil end
if rec[3] ~= holder and rec[2] ~= user and tonumber(rec[4]) > tonumber(now) then
    redis.call('ZADD', p .. 'used', now, id)
    redis.call('ZADD', p .. 'user:' .. rec[2], now, id)
    return {rec[1], 0}
end
take(p, id, user, holder, 0, now)
evict(p, id, user, user_bytes, max_bytes)
return {rec[1], 1}
"""


class RedisRunStore(RunStore):
    """The same store in Redis, for server processes on several machines (``redis://host:6379/0``).

    Give the runs a Redis of their own or a prefix (``?prefix=``), and do not let Redis evict keys
    itself (``maxmemory-policy noeviction``, Debian's default): this store keeps its own bound.
    """

    def __init__(self, url: str, *args, prefix: str = "autograd-explorer:", **kwargs):
        super().__init__(*args, **kwargs)
        # NOTE: imported here, as only a Redis deployment needs the package (a SQLite one runs without it).
        import redis

        self.url = url
        self.prefix = prefix
        self._redis = redis.Redis.from_url(url)
        self._save_script = self._redis.register_script(_LUA_SAVE)
        self._open_script = self._redis.register_script(_LUA_OPEN)

    def _save(self, run_id, blob, user, holder, lease_until):
        args = [self.prefix, run_id, blob, user, holder, repr(lease_until), repr(self.clock()),
                self.user_bytes, self.max_bytes]
        return self._save_script(args=args).decode()

    def _open(self, run_id, user, holder, now):
        found = self._open_script(args=[self.prefix, run_id, user, holder, repr(now), self.user_bytes, self.max_bytes])
        return None if found is None else Opened(bytes(found[0]), owned=bool(found[1]))

    def _get(self, run_id):
        return self._redis.hget(f"{self.prefix}run:{run_id}", "snapshot")

    @property
    def size(self) -> int:
        return int(self._redis.get(f"{self.prefix}bytes") or 0)

    def user_size(self, user: str) -> int:
        return int(self._redis.get(f"{self.prefix}ubytes:{user}") or 0)

    def __len__(self) -> int:
        return int(self._redis.zcard(f"{self.prefix}used"))

    def close(self) -> None:
        self._redis.close()


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
