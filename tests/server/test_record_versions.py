"""A record written only if newer, in each backend (the real SQLite, a real redis-server, memory): records that two
processes kept while the store was down, replayed in either order, leave the newer one; the same record twice is
written once; a newer one replaces an older one; the compare and the write are one step (issue 31)."""

import contextlib
import random
import sqlite3
import threading

import pytest

from server.run_store import KEPT, OLDER, SAVED, MemoryRunStore, RedisRunStore, SQLiteRunStore
from tests.support.clock import Clock

TABLE = "class:abc:work"


@pytest.fixture(params=["memory", "sqlite", "redis"])
def two_processes(request, tmp_path):
    """make(clock) -> two stores as two server processes see one store: one SQLite file, one Redis prefix (memory has
    no second process: the same store twice)."""
    made = []

    def make(clock):
        if request.param == "memory":
            one = MemoryRunStore(clock=clock)
            one.faults = (OSError,)  # as the other backends' errors: what `down` raises is "not now"
            pair = (one, one)
        elif request.param == "sqlite":
            pair = tuple(SQLiteRunStore(tmp_path / "runs.sqlite3", clock=clock) for _ in range(2))
        else:
            url = request.getfixturevalue("redis_url")
            pair = tuple(RedisRunStore(url, prefix=f"test:{request.node.name}:", clock=clock) for _ in range(2))
        made.extend(pair)
        return pair

    yield make
    for store in made:
        store.close()


@contextlib.contextmanager
def down(*stores):
    """The store cannot be written from these processes (as a pulled cable or a read-only disk): every write fails."""
    def fail(*args, **kwargs):
        raise OSError("the store is unreachable")

    stores = list(dict.fromkeys(stores))  # memory's two processes are one store
    for store in stores:
        store._put = store._put_many = fail
    try:
        yield
    finally:
        for store in stores:
            del store._put, store._put_many  # the backend's own again


def written(store) -> None:
    """A call that writes what waits in the process first (any call but a read of records does)."""
    len(store)


@pytest.mark.parametrize("first", ["the newer", "the older"])
def test_records_two_processes_kept_while_the_store_was_down_leave_the_newer_whichever_is_written_first(
        two_processes, first):
    clock = Clock(1_000.0)
    a, b = two_processes(clock)
    ends = clock.now + 3600
    with down(a, b):
        assert a.put(TABLE, "ann", b"wrong", expires_at=ends, version=1_000_001) == KEPT  # on process A
        assert b.put(TABLE, "ann", b"right", expires_at=ends, version=1_000_002) == KEPT  # later, on process B
    clock.now += 60  # past the back-off: the next call tries the store
    for store in (b, a) if first == "the newer" else (a, b):
        written(store)
    assert a.kept_here == 0 and b.kept_here == 0
    assert a.records(TABLE) == {"ann": b"right"} and b.record(TABLE, "ann") == b"right"


def test_records_handed_over_while_down_are_replayed_by_the_writers_and_the_newer_stays(two_processes):
    clock = Clock(1_000.0)
    a, b = two_processes(clock)
    ends = clock.now + 3600
    with down(a, b):
        b.hand_over(TABLE, "ann", b"right", expires_at=ends, version=20)
        a.hand_over(TABLE, "ann", b"wrong", expires_at=ends, version=10)
        # NOTE: each process's writer may try while it is down; the records wait in their processes either way.
    clock.now += 60  # past any back-off
    written(b)
    written(a)
    assert a.record(TABLE, "ann") == b"right" and b.records(TABLE) == {"ann": b"right"}


def test_the_same_record_twice_is_written_once(two_processes):
    clock = Clock(1_000.0)
    a, b = two_processes(clock)
    ends = clock.now + 3600
    assert a.put(TABLE, "ann", b"answers", expires_at=ends, version=7) == SAVED
    assert b.put(TABLE, "ann", b"answers", expires_at=ends, version=7) == OLDER
    assert b.put(TABLE, "ann", b"another text, the same version", expires_at=ends, version=7) == OLDER
    assert a.records(TABLE) == {"ann": b"answers"}


def test_a_newer_record_replaces_an_older_one_and_an_older_one_is_refused(two_processes):
    clock = Clock(1_000.0)
    a, b = two_processes(clock)
    ends = clock.now + 3600
    assert a.put(TABLE, "ann", b"first", expires_at=ends, version=1) == SAVED
    assert b.put(TABLE, "ann", b"second", expires_at=ends, version=2) == SAVED
    assert a.record(TABLE, "ann") == b"second"
    assert a.put(TABLE, "ann", b"first again", expires_at=ends, version=1) == OLDER
    assert b.records(TABLE) == {"ann": b"second"}
    assert a.put(TABLE, "bob", b"his own", expires_at=ends, version=1) == SAVED  # each record its own versions


def test_a_record_without_a_version_always_replaces_and_any_version_replaces_it(two_processes):
    clock = Clock(1_000.0)
    a, b = two_processes(clock)
    ends = clock.now + 3600
    assert a.put(TABLE, "ann", b"versioned", expires_at=ends, version=50) == SAVED
    assert b.put(TABLE, "ann", b"plain", expires_at=ends) == SAVED
    assert a.put(TABLE, "ann", b"versioned again", expires_at=ends, version=1) == SAVED
    assert b.record(TABLE, "ann") == b"versioned again"


def test_an_expired_record_keeps_no_version(two_processes):
    clock = Clock(1_000.0)
    a, b = two_processes(clock)
    assert a.put(TABLE, "ann", b"last class", expires_at=1_010.0, version=99) == SAVED
    clock.now = 1_020.0
    assert b.put(TABLE, "ann", b"this class", expires_at=5_000.0, version=1) == SAVED
    assert a.records(TABLE) == {"ann": b"this class"}


def test_an_older_record_waiting_in_the_process_gives_way_to_a_newer_one_and_not_the_other_way(two_processes):
    clock = Clock(1_000.0)
    a, _ = two_processes(clock)
    ends = clock.now + 3600
    with down(a):
        assert a.put(TABLE, "ann", b"newer", expires_at=ends, version=2) == KEPT
        assert a.put(TABLE, "ann", b"older", expires_at=ends, version=1) == KEPT
        assert a.kept_here == 1
    clock.now += 60
    assert a.put(TABLE, "ann", b"older still", expires_at=ends, version=0) == OLDER  # the waiting one is written first
    assert a.records(TABLE) == {"ann": b"newer"}


def test_many_threads_of_two_processes_putting_versions_in_any_order_leave_the_greatest(two_processes):
    clock = Clock(1_000.0)
    a, b = two_processes(clock)
    ends = clock.now + 3600
    versions = list(range(1, 121))
    random.Random(31).shuffle(versions)
    shares = [versions[i::6] for i in range(6)]

    def put(store, mine):
        for version in mine:
            store.put(TABLE, "ann", str(version).encode(), expires_at=ends, version=version)

    threads = [threading.Thread(target=put, args=((a, b)[i % 2], mine)) for i, mine in enumerate(shares)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert a.record(TABLE, "ann") == b"120" and b.records(TABLE) == {"ann": b"120"}


def test_a_sqlite_file_made_before_records_had_versions_takes_them(tmp_path):
    path = tmp_path / "runs.sqlite3"
    old = sqlite3.connect(path)
    old.execute("CREATE TABLE records (tab TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL, "
                "expires REAL NOT NULL, PRIMARY KEY (tab, key))")
    old.execute("INSERT INTO records VALUES (?, 'ann', ?, 5000.0)", (TABLE, b"before"))
    old.commit()
    old.close()
    clock = Clock(1_000.0)
    store, other = SQLiteRunStore(path, clock=clock), SQLiteRunStore(path, clock=clock)
    assert store.record(TABLE, "ann") == b"before" and other.record(TABLE, "ann") == b"before"
    assert store.put(TABLE, "ann", b"after", expires_at=5_000.0, version=3) == SAVED
    assert other.put(TABLE, "ann", b"older", expires_at=5_000.0, version=2) == OLDER
    assert other.records(TABLE) == {"ann": b"after"}
    store.close(), other.close()
