"""The run store's shared records (what a class keeps), in each backend: written once, read by every process,
expired by the store's clock, counted up in one step, kept in the process while the store cannot be written."""

import sqlite3
import threading
import time

import pytest

from server.run_store import KEPT, SAVED, TOO_BIG, SQLiteRunStore
from server.run_store.base import RECORD_BYTES
from tests.support.clock import Clock


def test_a_record_is_replaced_in_place_and_read_back_by_table(make_store):
    store = make_store()
    assert store.put("class:a", "ann", b"1", expires_at=store.clock() + 60) == SAVED
    assert store.put("class:a", "ann", b"2", expires_at=store.clock() + 60) == SAVED
    assert store.put("class:a", "bob", b"3", expires_at=store.clock() + 60) == SAVED
    assert store.put("class:b", "ann", b"4", expires_at=store.clock() + 60) == SAVED
    assert store.records("class:a") == {"ann": b"2", "bob": b"3"}
    assert store.records("class:b") == {"ann": b"4"}
    assert store.records("class:c") == {}


def test_a_table_and_a_key_cannot_spell_another_record(make_store):
    store = make_store()
    store.put("ab", "c", b"x", expires_at=store.clock() + 60)
    store.put("a", "bc", b"y", expires_at=store.clock() + 60)
    assert store.records("ab") == {"c": b"x"} and store.records("a") == {"bc": b"y"}


def test_a_record_over_the_bound_is_refused(make_store):
    store = make_store()
    assert store.put("t", "k", b"x" * (RECORD_BYTES + 1), expires_at=store.clock() + 60) == TOO_BIG
    assert store.records("t") == {}


def test_records_expire_by_the_stores_clock(make_store):
    clock = Clock(1_000.0)
    store = make_store(clock=clock)
    store.put("t", "short", b"s", expires_at=1_010.0)
    store.put("t", "long", b"l", expires_at=1_100.0)
    clock.now = 1_009.0
    assert set(store.records("t")) == {"short", "long"}
    clock.now = 1_010.0
    assert store.records("t") == {"long": b"l"}
    clock.now = 1_200.0
    assert store.records("t") == {}


def test_a_counter_counts_up_in_one_step_from_many_threads(make_store):
    store = make_store()
    until = store.clock() + 60

    def count():
        for _ in range(25):
            store.count_up("fails", "who", expires_at=until)

    threads = [threading.Thread(target=count) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert store.count_up("fails", "who", expires_at=until) == 101
    assert store.count_up("fails", "other", expires_at=until) == 1


def test_a_counter_starts_again_once_it_expired(make_store):
    clock = Clock(50.0)
    store = make_store(clock=clock)
    assert [store.count_up("fails", "who", expires_at=60.0) for _ in range(3)] == [1, 2, 3]
    clock.now = 61.0
    assert store.count_up("fails", "who", expires_at=120.0) == 1


def test_two_processes_share_one_sqlite_file(tmp_path):
    first, second = SQLiteRunStore(tmp_path / "runs.sqlite3"), SQLiteRunStore(tmp_path / "runs.sqlite3")
    first.put("class:x", "ann", b"answers", expires_at=first.clock() + 60)
    assert second.records("class:x") == {"ann": b"answers"}
    first.close(), second.close()


def test_a_record_put_while_the_store_cannot_be_written_waits_here_and_is_written_first_by_the_next_call(tmp_path):
    clock = Clock(0.0)
    store = SQLiteRunStore(tmp_path / "runs.sqlite3", clock=clock)
    store.put("class:x", "ann", b"old", expires_at=3600.0)
    broken = {"on": True}
    real_write = store._write

    def write(work):  # the file refuses writes, as a full or read-only disk does
        if broken["on"]:
            raise sqlite3.OperationalError("attempt to write a readonly database")
        return real_write(work)

    store._write = write
    assert store.put("class:x", "ann", b"new", expires_at=3600.0) == KEPT
    assert store.kept_here == 1 and store.problem is not None
    broken["on"] = False
    clock.now = 10.0  # past the back-off
    other = SQLiteRunStore(tmp_path / "runs.sqlite3", clock=clock)
    assert other.records("class:x") == {"ann": b"old"}  # not written yet: it waits in the first process
    assert store.records("class:x") == {"ann": b"new"}  # which reads its own (a read writes nothing)
    assert store.size == 0  # the first call that writes, writes what waits first
    assert other.records("class:x") == {"ann": b"new"} and store.kept_here == 0
    store.close(), other.close()


@pytest.mark.parametrize("kind", ["sqlite"])
def test_records_and_runs_live_in_one_file(tmp_path, kind):
    store = SQLiteRunStore(tmp_path / "runs.sqlite3")
    store.save("aaaaaaaaaaaa", b"run", user="u", holder="h")
    store.put("class:x", "ann", b"answers", expires_at=store.clock() + 60)
    assert store.get("aaaaaaaaaaaa") == b"run" and len(store) == 1 and store.size == 3
    store.close()


def test_the_latest_run_of_a_learner_is_the_one_they_used_last(make_store):
    store = make_store()
    assert store.latest("ann") is None
    store.save("aaaaaaaaaaaa", b"1", user="ann", holder="h1")
    store.save("bbbbbbbbbbbb", b"2", user="ann", holder="h2")
    store.save("cccccccccccc", b"3", user="bob", holder="h3")
    assert store.latest("ann") == "bbbbbbbbbbbb" and store.latest("bob") == "cccccccccccc"
    store.open("aaaaaaaaaaaa", user="ann", holder="h4")
    assert store.latest("ann") == "aaaaaaaaaaaa"


def test_records_handed_over_by_many_threads_are_written_together(make_store, tmp_path):
    store = make_store()
    writes = []
    real = store._put_many
    store._put_many = lambda records, now: (writes.append(len(records)), real(records, now))
    until = store.clock() + 60
    threads = [threading.Thread(target=lambda i=i: store.hand_over("class:x", f"l{i}", b"w", expires_at=until))
               for i in range(50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    deadline = time.monotonic() + 30
    while store.kept_here and time.monotonic() < deadline:  # the writer gathers them
        time.sleep(0.01)
    assert sum(writes) == 50 and len(writes) < 10, writes
    assert len(store.records("class:x")) == 50 and store.kept_here == 0
