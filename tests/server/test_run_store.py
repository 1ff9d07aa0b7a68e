"""The run store in each backend (memory, a real SQLite file, a real redis-server): bounds, shares, ownership."""

import multiprocessing
import sqlite3

import pytest

from explorer.playground.controller import Playground
from explorer.playground.settings import TrainConfig
from server.run_store import SAVED, TAKEN, TOO_BIG, MemoryRunStore, RedisRunStore, SQLiteRunStore, open_store
from tests.support.clock import Clock
from tests.support.store_faults import step_of

KB = 1000


def test_a_run_is_updated_in_place_and_bounded_by_bytes(make_store):
    store = make_store(max_bytes=50 * KB, max_run_bytes=30 * KB)
    for i in range(5):  # five saves of one run: one record
        assert store.save("aaaaaaaaaaaa", bytes([i]) * 20 * KB, user="a", holder="1") == SAVED
    assert len(store) == 1 and store.size == 20 * KB and store.get("aaaaaaaaaaaa") == bytes([4]) * 20 * KB
    assert store.save("bbbbbbbbbbbb", b"y" * 20 * KB, user="b", holder="2") == SAVED
    assert store.open("aaaaaaaaaaaa", user="a", holder="1").owned  # used again: now b is the least recent
    assert store.save("cccccccccccc", b"z" * 20 * KB, user="c", holder="3") == SAVED
    assert store.get("bbbbbbbbbbbb") is None and store.get("aaaaaaaaaaaa") is not None
    assert store.size <= 50 * KB and len(store) == 2
    assert store.save("dddddddddddd", b"w" * 40 * KB, user="d", holder="4") == TOO_BIG
    assert store.get("dddddddddddd") is None
    assert store.get("../../etc") is None and store.get("short") is None


def test_a_learner_past_their_share_pushes_out_only_their_own_runs(make_store):
    store = make_store(max_bytes=100 * KB, user_bytes=30 * KB)
    assert store.save("annannann001", b"a" * 10 * KB, user="ann", holder="a1") == SAVED
    for i in range(20):  # bob reloads and reloads (each time a new run)
        assert store.save(f"bobbobbob{i:03d}", b"b" * 10 * KB, user="bob", holder=f"b{i}") == SAVED
        assert store.user_size("bob") <= 30 * KB
    assert store.get("annannann001") is not None
    assert [store.get(f"bobbobbob{i:03d}") is not None for i in (16, 17, 18, 19)] == [False, True, True, True]
    assert store.size == 40 * KB and store.user_size("ann") == 10 * KB


def test_a_flood_of_fresh_keys_beside_a_class_pushes_out_only_its_own_runs(make_store):
    # The defaults scaled down a thousandfold: a 256 KB store, 64 KB a learner (issue 28 item 6).
    clock = Clock(1_000_000.0)
    store = make_store(max_bytes=256 * KB, user_bytes=64 * KB, clock=clock)
    class_runs = {f"classrun{i:04d}": bytes([i]) * 12 * KB for i in range(3)}
    for i, (run, blob) in enumerate(class_runs.items()):  # a class's three runs, paused a while ago
        assert store.save(run, blob, user=f"learner{i}", holder=f"tab{i}") == SAVED
    for key in range(5):  # one person with five fresh cookies, each filling its share, again and again
        for n in range(16):
            clock.now += 1.0
            assert store.save(f"flood{key}run{n:03d}", b"f" * 8 * KB, user=f"fresh{key}", holder=f"f{key}{n}") == SAVED
            assert store.size <= 256 * KB
    assert {run: store.get(run) for run in class_runs} == class_runs
    assert all(store.user_size(f"fresh{key}") <= 64 * KB for key in range(5))
    assert store.size > 256 * KB - 8 * KB  # the flood still uses what the class leaves


def test_the_store_says_why_a_run_is_missing_only_when_it_knows(make_store):
    store = make_store(max_bytes=50 * KB, user_bytes=30 * KB)
    for i in range(4):  # ann's fourth run pushes her first out of her share
        assert store.save(f"annruns{i:05d}", b"a" * 10 * KB, user="ann", holder=f"a{i}") == SAVED
    for i in range(3):  # and bob's fill the store: the learner holding the most (ann) makes room
        assert store.save(f"bobruns{i:05d}", b"b" * 10 * KB, user="bob", holder=f"b{i}") == SAVED
    assert store.get("annruns00000") is None and store.get("annruns00001") is None
    assert store.why_missing("annruns00000").startswith("its learner's newer runs took its place")
    assert store.why_missing("annruns00001").startswith("the run store was full (0.05 MB) and made room")
    assert store.why_missing("neverwasarun") is None  # no reason known: none made up
    assert store.save("annruns00001", b"a" * 10 * KB, user="ann", holder="a1") == SAVED  # saved again: not gone
    assert store.why_missing("annruns00001") is None


def test_only_its_learner_takes_a_run_over_anyone_else_gets_a_copy_playing_or_paused(make_store):
    clock = Clock(1_000_000.0)
    store = make_store(clock=clock, lease_seconds=5.0)
    assert store.save("runrunrun001", b"v1", user="ann", holder="tab1", live=True) == SAVED
    # Another learner while ann's tab plays: a copy to fork from; ann keeps her run.
    opened = store.open("runrunrun001", user="bob", holder="tab2")
    assert opened.blob == b"v1" and not opened.owned
    assert store.save("runrunrun001", b"v2", user="ann", holder="tab1") == SAVED  # paused now
    # ... and while it is paused, and long after (her tab closed): still a copy (issue 28 item 7).
    clock.now += 3600.0
    opened = store.open("runrunrun001", user="bob", holder="tab4")
    assert opened.blob == b"v2" and not opened.owned
    assert store.save("runrunrun001", b"bob's", user="bob", holder="tab4") == TAKEN  # nothing written
    # Ann herself (a reload: a new page of the same browser) takes it, playing or not.
    opened = store.open("runrunrun001", user="ann", holder="tab3")
    assert opened.blob == b"v2" and opened.owned
    assert store.save("runrunrun001", b"v3", user="ann", holder="tab1") == TAKEN  # the old page: nothing written
    assert store.get("runrunrun001") == b"v2"
    assert store.save("runrunrun001", b"v4", user="ann", holder="tab3", live=True) == SAVED
    assert store.get("runrunrun001") == b"v4" and store.user_size("ann") == 2 and store.user_size("bob") == 0
    assert store.open("nosuchrun001", user="bob", holder="tab4") is None


def test_a_run_link_someone_else_opens_is_a_fork_and_the_owners_link_keeps_the_owners_run(make_store):
    store, clock = make_store(), Clock(1_000_000.0)
    ann = Playground(TrainConfig(hidden=(4,)), clock=clock, store=store, user="ann")
    for _ in range(3):
        ann.step_once()
    link = ann.run_id  # ann is paused
    bob, problems = Playground.from_url({"run": link}, clock=clock, store=store, user="bob")
    assert problems == [] and bob.run_id != link and bob.state.step == 3  # a copy of ann's run, an id of his own
    for _ in range(5):
        bob.step_once()
    ann.step_once()
    assert ann.run_id == link and step_of(store.get(link)) == 4 and step_of(store.get(bob.run_id)) == 8
    ann.play()  # playing, the same
    carol, _ = Playground.from_url({"run": link}, clock=clock, store=store, user="carol")
    assert carol.run_id not in (link, bob.run_id) and carol.state.step == 4
    again, _ = Playground.from_url({"run": link}, clock=clock, store=store, user="ann")  # ann's bookmark
    assert again.run_id == link and again.state.step == 4 and again.playing


def test_the_sqlite_store_outlives_its_process(tmp_path):
    path = tmp_path / "runs.sqlite3"
    first = open_store(f"sqlite:///{path}")
    assert first.save("runrunrun001", b"snapshot", user="ann", holder="tab1") == SAVED
    first.close()
    again = open_store(f"sqlite:///{path}")
    assert again.get("runrunrun001") == b"snapshot"
    # A rollback journal kept between transactions: no -wal, and no -shm mapped by every process (a write to
    # it once the file is unwritable is a SIGBUS: tests/server/test_store_faults.py).
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs.sqlite3", "runs.sqlite3-journal"]
    again.close()


def test_a_store_file_in_wal_mode_is_moved_to_the_rollback_journal(tmp_path):
    path = tmp_path / "runs.sqlite3"
    store = SQLiteRunStore(path)
    assert store.save("runrunrun001", b"snapshot", user="ann", holder="tab1") == SAVED
    store.close()
    old = sqlite3.connect(path)  # as the store kept it before (WAL)
    assert old.execute("PRAGMA journal_mode = WAL").fetchone()[0] == "wal"
    old.close()
    store = SQLiteRunStore(path)
    assert store.get("runrunrun001") == b"snapshot"
    assert store.save("runrunrun002", b"more", user="ann", holder="tab2") == SAVED
    assert not (tmp_path / "runs.sqlite3-shm").exists() and not (tmp_path / "runs.sqlite3-wal").exists()
    store.close()
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # not WAL in the file


def _save_runs(path: str, worker: int, runs: int, size: int, errors) -> None:
    store = SQLiteRunStore(path, max_bytes=3_000 * KB, user_bytes=1_000 * KB)
    try:
        for i in range(runs):
            run_id = f"w{worker}run{i:05d}"
            for version in range(2):  # saved, then saved again (a run playing)
                assert store.save(run_id, bytes([version]) * size, user=f"learner{i % 7}", holder=run_id) == SAVED
    except Exception as err:  # noqa: BLE001 - reported to the test
        errors.put(repr(err))
    finally:
        store.close()


@pytest.mark.slow  # over 10 s (python -m pytest -m "not slow" leaves it out)
def test_several_processes_save_200_runs_into_one_sqlite_file_within_its_bound(tmp_path):
    path = str(tmp_path / "runs.sqlite3")
    context = multiprocessing.get_context("spawn")
    errors = context.Queue()
    workers = [context.Process(target=_save_runs, args=(path, w, 50, 40 * KB, errors)) for w in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=300)
    assert [w.exitcode for w in workers] == [0, 0, 0, 0]
    found = []
    while not errors.empty():
        found.append(errors.get())
    assert found == []  # no "database is locked", no failed save
    store = SQLiteRunStore(path, max_bytes=3_000 * KB, user_bytes=1_000 * KB)
    assert 0 < store.size <= 3_000 * KB and len(store) == store.size // (40 * KB)
    assert all(store.user_size(f"learner{k}") <= 1_000 * KB for k in range(7))
    store.close()


def test_the_environment_chooses_the_store(tmp_path, monkeypatch, redis_url):
    monkeypatch.setenv("AUTOGRAD_EXPLORER_DATA", str(tmp_path / "data"))
    monkeypatch.delenv("AUTOGRAD_EXPLORER_RUNS", raising=False)
    store = open_store()
    assert isinstance(store, SQLiteRunStore) and store.path == tmp_path / "data" / "runs.sqlite3"
    assert isinstance(open_store("memory"), MemoryRunStore)
    remote = open_store(redis_url)
    assert isinstance(remote, RedisRunStore) and remote.save("runrunrun001", b"x", user="a", holder="b") == SAVED
    remote.close()
    with pytest.raises(ValueError, match="AUTOGRAD_EXPLORER_RUNS"):
        open_store("postgres://somewhere")
