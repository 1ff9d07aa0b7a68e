"""The server's one least-recently-used store bounded by bytes (and, optionally, idle time and shares).

Streamlit's ``st.cache_data`` bounds a cache by its number of entries and gives every hit an
unpickled copy, so five 10-million-number programs that differ by a comment held 2.5 GB. This
cache holds each result once (callers share the object, so results must not be mutated), counts
the bytes the caller says it holds, evicts the least recently used entry past ``budget`` bytes,
refuses an entry larger than ``max_item`` bytes, and drops entries unused for ``idle_seconds``,
so memory goes back once the tabs that wanted a result are closed.

The run store's memory backend (server/run_store/) is the same LRU with no idle limit and a
share per group: an entry may name its group (a learner), and a group past ``group_budget`` bytes
gives up its own least recently used entries first, so that no group pushes another's out; with
``fair``, past the whole budget the group holding the most bytes gives up its entries first.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

_MISSING = object()


class ByteCache:
    """A thread-safe LRU cache whose entries carry a size in bytes, expire when idle (unless
    ``idle_seconds`` is None) and may belong to a group with a budget of its own."""

    def __init__(
        self,
        budget: int,
        *,
        max_item: int | None = None,
        idle_seconds: float | None = 90.0,
        group_budget: int | None = None,
        fair: bool = False,
        on_evict: Callable[[Hashable, str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        if budget <= 0:
            raise ValueError(f"a cache budget must be positive, got {budget}")
        self.budget = budget
        self.max_item = budget if max_item is None else min(max_item, budget)
        self.group_budget = budget if group_budget is None else min(group_budget, budget)
        self.max_item = min(self.max_item, self.group_budget)
        self.idle_seconds = idle_seconds
        self.fair = fair
        self._on_evict = on_evict  # told (key, "share" | "room") of each entry put() pushes out
        self._clock = clock
        self._lock = threading.RLock()
        # key -> (value, bytes, used, group)
        self._entries: OrderedDict[Hashable, tuple[Any, int, float, Hashable]] = OrderedDict()
        self._bytes = 0
        self._group_bytes: dict[Hashable, int] = {}

    @property
    def lock(self) -> threading.RLock:
        """Held by every call; a caller holds it to read and then write an entry as one step."""
        return self._lock

    def group_nbytes(self, group: Hashable) -> int:
        """Bytes held now by the entries of ``group``."""
        return self._group_bytes.get(group, 0)

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
            value, size, _, group = entry
            self._entries[key] = (value, size, self._clock(), group)
            self._entries.move_to_end(key)
            return value

    def peek(self, key: Hashable, default: Any = None) -> Any:
        """The value under ``key`` without marking it used, else ``default``."""
        with self._lock:
            entry = self._entries.get(key, _MISSING)
            return default if entry is _MISSING else entry[0]

    def put(self, key: Hashable, value: Any, nbytes: int, *, group: Hashable = None) -> bool:
        """Stores ``value`` as holding ``nbytes`` in ``group``; False (and nothing stored) if it is over
        ``max_item``. Past its group's budget, the group's least recently used entries go first; past
        the whole budget, anyone's."""
        if nbytes > self.max_item:
            return False
        with self._lock:
            self._drop(key)
            self._entries[key] = (value, nbytes, self._clock(), group)
            self._bytes += nbytes
            self._group_bytes[group] = self._group_bytes.get(group, 0) + nbytes
            if self._group_bytes[group] > self.group_budget:
                for other in [k for k, entry in self._entries.items() if entry[3] == group and k != key]:
                    self._evict(other, "share")
                    if self._group_bytes[group] <= self.group_budget:
                        break
            while self._bytes > self.budget:
                self._evict(self._fairest(key) if self.fair else next(iter(self._entries)), "room")
            self._expire()
            return key in self._entries

    def lru_keys(self) -> list[Hashable]:
        """The keys held now, least recently used first."""
        with self._lock:
            return list(self._entries)

    def pop(self, key: Hashable) -> None:
        """Forgets ``key`` (if held)."""
        with self._lock:
            self._drop(key)

    def sweep(self) -> int:
        """Drops the entries idle for longer than ``idle_seconds``; returns how many went."""
        with self._lock:
            return self._expire()

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0
            self._group_bytes.clear()

    def _evict(self, key: Hashable, why: str) -> None:
        self._drop(key)
        if self._on_evict is not None:
            self._on_evict(key, why)

    def _fairest(self, keep: Hashable) -> Hashable:
        """Past the whole budget with ``fair``: the least recently used entry of the group holding the most bytes
        (ties: the group whose last use is oldest), never ``keep`` (which fits the budget alone)."""
        oldest, last = {}, {}
        for k, (_, _, used, group) in self._entries.items():  # least recently used first
            if k != keep:
                oldest.setdefault(group, k)
            last[group] = used
        return oldest[max(oldest, key=lambda g: (self._group_bytes[g], -last[g]))]

    def _expire(self) -> int:
        if self.idle_seconds is None:
            return 0
        limit = self._clock() - self.idle_seconds
        stale = [key for key, (_, _, used, _) in self._entries.items() if used < limit]
        for key in stale:
            self._drop(key)
        return len(stale)

    def _drop(self, key: Hashable) -> None:
        entry = self._entries.pop(key, None)
        if entry is not None:
            self._bytes -= entry[1]
            left = self._group_bytes[entry[3]] - entry[1]
            if left:
                self._group_bytes[entry[3]] = left
            else:
                del self._group_bytes[entry[3]]
