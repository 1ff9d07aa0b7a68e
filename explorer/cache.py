"""A cache bounded by bytes and by idle time, for results that sessions share.

Streamlit's ``st.cache_data`` bounds a cache by its number of entries and gives every hit an
unpickled copy, so five 10-million-number programs that differ by a comment held 2.5 GB. This
cache holds each result once (callers share the object, so results must not be mutated), counts
the bytes the caller says it holds, evicts the least recently used entry past ``budget`` bytes,
refuses an entry larger than ``max_item`` bytes, and drops entries unused for ``idle_seconds``,
so memory goes back once the tabs that wanted a result are closed.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

_MISSING = object()


class ByteCache:
    """A thread-safe LRU cache whose entries carry a size in bytes and expire when idle."""

    def __init__(
        self,
        budget: int,
        *,
        max_item: int | None = None,
        idle_seconds: float = 90.0,
        clock: Callable[[], float] = time.monotonic,
    ):
        if budget <= 0:
            raise ValueError(f"a cache budget must be positive, got {budget}")
        self.budget = budget
        self.max_item = budget if max_item is None else min(max_item, budget)
        self.idle_seconds = idle_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._entries: OrderedDict[Hashable, tuple[Any, int, float]] = OrderedDict()  # key -> (value, bytes, used)
        self._bytes = 0

    @property
    def nbytes(self) -> int:
        """Bytes held now (as the callers declared them)."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: Hashable, default: Any = None) -> Any:
        """The value stored under ``key`` (marking it used now), else ``default``."""
        with self._lock:
            self._expire()
            entry = self._entries.get(key, _MISSING)
            if entry is _MISSING:
                return default
            value, size, _ = entry
            self._entries[key] = (value, size, self._clock())
            self._entries.move_to_end(key)
            return value

    def put(self, key: Hashable, value: Any, nbytes: int) -> bool:
        """Stores ``value`` as holding ``nbytes``; False (and nothing stored) if it is over ``max_item``."""
        if nbytes > self.max_item:
            return False
        with self._lock:
            self._drop(key)
            self._entries[key] = (value, nbytes, self._clock())
            self._bytes += nbytes
            while self._bytes > self.budget:
                self._drop(next(iter(self._entries)))
            self._expire()
            return key in self._entries

    def sweep(self) -> int:
        """Drops the entries idle for longer than ``idle_seconds``; returns how many went."""
        with self._lock:
            return self._expire()

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0

    def _expire(self) -> int:
        limit = self._clock() - self.idle_seconds
        stale = [key for key, (_, _, used) in self._entries.items() if used < limit]
        for key in stale:
            self._drop(key)
        return len(stale)

    def _drop(self, key: Hashable) -> None:
        entry = self._entries.pop(key, None)
        if entry is not None:
            self._bytes -= entry[1]
