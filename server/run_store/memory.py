"""The run store in this process's memory only (lost on restart): for tests and a single process."""

from __future__ import annotations

import threading
from collections import OrderedDict

from server.cache import ByteCache
from server.run_store.base import GONE_KEPT, OLDER, SAVED, TAKEN, TOO_BIG, Opened, RunStore, _Record, supersedes


class MemoryRunStore(RunStore):
    """This process only (lost on restart): the server's byte-bounded LRU, with a share per learner."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._gone: OrderedDict[str, str] = OrderedDict()  # evicted run id -> why, the last GONE_KEPT
        # table -> key -> (value, expires_at, version)
        self._tables: dict[str, dict[str, tuple[bytes, float, int | None]]] = {}
        self._tables_lock = threading.Lock()
        self._lru = ByteCache(self.max_bytes, max_item=self.max_run_bytes, idle_seconds=None,
                              group_budget=self.user_bytes, fair=True, on_evict=self._evicted)

    def _evicted(self, run_id, why):
        self._gone[run_id] = why
        self._gone.move_to_end(run_id)
        while len(self._gone) > GONE_KEPT:
            self._gone.popitem(last=False)

    def _save(self, run_id, blob, user, holder, lease_until, replaces):
        with self._lru.lock:
            record = self._lru.peek(run_id)
            if record is not None and record.holder not in (holder, replaces):
                return TAKEN
            kept = self._lru.put(run_id, _Record(blob, user, holder, lease_until), len(blob), group=user)
            self._gone.pop(run_id, None)
            return SAVED if kept else TOO_BIG

    def _open(self, run_id, user, holder, now):
        with self._lru.lock:
            record = self._lru.get(run_id)
            if record is None:
                return None
            if self._keeps(record, user):
                return Opened(record.blob, owned=False)
            self._lru.put(run_id, _Record(record.blob, user, holder, 0.0), len(record.blob), group=user)
            return Opened(record.blob, owned=True)

    def _get(self, run_id):
        record = self._lru.peek(run_id)
        return None if record is None else record.blob

    def _why(self, run_id):
        return self._gone.get(run_id), None

    def _latest(self, user):
        with self._lru.lock:
            return next((run_id for run_id in reversed(self._lru.lru_keys())
                         if self._lru.peek(run_id).user == user), None)

    def _put(self, table, key, value, expires_at, now, version=None):
        with self._tables_lock:
            self._expire(now)
            rows = self._tables.setdefault(table, {})
            there = rows.get(key)
            if there is not None and not supersedes(version, there[2]):
                return OLDER
            rows[key] = (value, expires_at, version)
        return SAVED

    def _records(self, table, now):
        with self._tables_lock:
            return {key: value for key, (value, until, _) in self._tables.get(table, {}).items() if until > now}

    def _record(self, table, key, now):
        with self._tables_lock:
            value, until, _ = self._tables.get(table, {}).get(key, (None, 0.0, None))
            return value if until > now else None

    def _count_up(self, table, key, expires_at, now):
        with self._tables_lock:
            self._expire(now)
            rows = self._tables.setdefault(table, {})
            value, until, _ = rows.get(key, (b"0", expires_at, None))
            rows[key] = (str(int(value) + 1).encode(), until, None)
            return int(rows[key][0])

    def _expire(self, now):
        for table in list(self._tables):
            rows = self._tables[table]
            for key in [key for key, (_, until, _) in rows.items() if until <= now]:
                del rows[key]
            if not rows:
                del self._tables[table]

    def _size(self):
        return self._lru.nbytes

    def _user_size(self, user):
        return self._lru.group_nbytes(user)

    def _count(self):
        return len(self._lru)
