"""A class in each real store (memory, SQLite, redis-server): codes and keys, isolation, bounds, tries, expiry,
and work handed in by one process read by another."""

import time

import pytest

from explorer.classes import room
from explorer.classes.room import ClassRefused, Post
from server.run_store import QUEUED, SAVED, SQLiteRunStore
from tests.support.clock import Clock
from tests.support.waits import until


@pytest.fixture
def store(make_store):
    return make_store(clock=Clock(1_000_000.0))


def test_a_class_has_a_72_bit_code_and_a_secret_key_kept_only_as_its_hash(store):
    made = room.open_class(store, "Backprop, week 3")
    assert room.CODE.match(made.code) and room.KEY.match(made.key) and made.code != made.key
    info = room.find(store, made.code, who="teacher")
    assert info.name == "Backprop, week 3" and info.ends == store.clock() + room.DAY
    assert made.key not in str(store.records("classes"))  # a copy of the store does not give the key away
    assert room.as_teacher(store, made.code, made.key, who="teacher") == info
    codes = {room.new_code() for _ in range(1000)}
    assert len(codes) == 1000


def test_a_learner_sees_what_the_teacher_posted_and_hands_in_work(store):
    made = room.open_class(store, "c")
    teacher = room.as_teacher(store, made.code, made.key, who="t")
    assert room.post(store, teacher, Post("practice", "A bias", program="b = tensor([1.0, 2.0])")) == SAVED
    info = room.find(store, made.code, who="ann-browser")
    you = room.join(store, info, "ann-browser", "  Ann \n")
    assert you.name == "Ann"
    assert room.posted(store, info).program == "b = tensor([1.0, 2.0])"
    work = {"rows": {"dloss": {"verdict": "exact", "answer": "dloss = ones"}}}
    assert room.hand_in(store, info, "ann-browser", work) == QUEUED
    assert room.work_of(store, info)["ann-browser"]["rows"] == work["rows"]


def test_isolation_another_class_a_guessed_key_and_a_learner_at_the_dashboard(store):
    ours, theirs = room.open_class(store, "ours"), room.open_class(store, "theirs")
    ann = room.find(store, ours.code, who="ann")
    room.join(store, ann, "ann", "Ann")
    room.hand_in(store, ann, "ann", {"rows": {"dx": {"verdict": "wrong", "answer": "dx = 1"}}})
    other = room.find(store, theirs.code, who="bob")
    assert room.work_of(store, other) == {} and room.learners(store, other) == []
    with pytest.raises(ClassRefused, match="not the teacher's key"):
        room.as_teacher(store, ours.code, theirs.key, who="bob")  # another class's key
    with pytest.raises(ClassRefused, match="not the teacher's key"):
        room.as_teacher(store, ours.code, room.new_key(), who="bob")  # a guessed one
    with pytest.raises(ClassRefused, match="not the teacher's key"):
        room.as_teacher(store, ours.code, "", who="ann")  # a learner opening the dashboard
    with pytest.raises(ClassRefused, match="join the class first"):
        room.hand_in(store, other, "ann", {"rows": {}})  # Ann never joined theirs


def test_wrong_codes_and_keys_are_limited_per_learner_and_the_limit_ends(store):
    made = room.open_class(store, "c")
    for _ in range(room.MAX_TRIES):
        with pytest.raises(ClassRefused, match="no class has this code"):
            room.find(store, room.new_code(), who="mallory")
    with pytest.raises(ClassRefused, match="wait a minute"):
        room.find(store, made.code, who="mallory")  # even the right code, now
    assert room.find(store, made.code, who="ann").code == made.code  # others are not held up
    store.clock.now += room.TRY_WINDOW + 1
    assert room.find(store, made.code, who="mallory").code == made.code


def test_names_are_unique_in_a_class_and_made_safe(store):
    info = room.find(store, room.open_class(store, "c").code, who="x")
    room.join(store, info, "a", "Ann")
    with pytest.raises(ClassRefused, match="already called"):
        room.join(store, info, "b", "ann")
    assert room.join(store, info, "a", "Ann B").name == "Ann B"  # a learner may change their own
    assert room.join(store, info, "c", "\x1b[31mEve\u202e" + "e" * 100).name == "[31mEve" + "e" * 33
    with pytest.raises(ClassRefused, match="type a name"):
        room.join(store, info, "d", " \n\t")


def test_bounds_learners_per_class_and_classes_per_store(store, monkeypatch):
    monkeypatch.setattr(room, "MAX_LEARNERS", 3)
    monkeypatch.setattr(room, "MAX_CLASSES", 2)
    info = room.find(store, room.open_class(store, "one").code, who="x")
    for i in range(3):
        room.join(store, info, f"l{i}", f"L{i}")
    with pytest.raises(ClassRefused, match="this class is full: at most 3"):
        room.join(store, info, "l3", "L3")
    room.join(store, info, "l0", "L0 again")  # one who joined may still come back
    room.open_class(store, "two")
    with pytest.raises(ClassRefused, match="at most 2 classes"):
        room.open_class(store, "three")


def test_a_class_and_everything_in_it_ends_with_it(store):
    made = room.open_class(store, "c", days=0.5)
    info = room.find(store, made.code, who="x")
    room.join(store, info, "a", "Ann")
    store.clock.now += 0.5 * room.DAY
    with pytest.raises(ClassRefused, match="no class has this code"):
        room.find(store, made.code, who="x")
    assert room.learners(store, info) == []
    with pytest.raises(ClassRefused, match="from an hour"):
        room.open_class(store, "c", days=30)


def test_work_handed_in_to_one_process_is_read_by_another_and_survives_a_write_failure(tmp_path):
    clock = Clock(0.0)
    first, second = (SQLiteRunStore(tmp_path / "runs.sqlite3", clock=clock) for _ in range(2))
    made = room.open_class(first, "c")
    info = room.find(second, made.code, who="ann")
    room.join(second, info, "ann", "Ann")
    real = second._write
    second._write = lambda work: (_ for _ in ()).throw(__import__("sqlite3").OperationalError("disk I/O error"))
    assert room.hand_in(second, info, "ann", {"rows": {"dx": {"verdict": "exact"}}}) == QUEUED
    deadline = time.monotonic() + 30
    while second.problem is None and time.monotonic() < deadline:  # the writer tried, and the store failed
        time.sleep(0.02)
    assert second.problem is not None and second.kept_here == 1 and room.work_of(first, info) == {}
    second._write = real
    clock.now += 10  # past the back-off: the writer's next try writes what waited
    while room.work_of(first, info) == {} and time.monotonic() < deadline:
        time.sleep(0.02)
    assert room.work_of(first, info)["ann"]["rows"] == {"dx": {"verdict": "exact"}}
    assert room.learners(first, info)[0].name == "Ann"
    first.close(), second.close()


def test_a_learner_found_before_hands_in_while_the_store_can_be_neither_read_nor_written(tmp_path):
    """The Practice page keeps the class and the learner it found: a hand-in then needs no read, so with the store
    down it waits in the process (QUEUED) and is written once the store answers; without them it cannot be."""
    import sqlite3

    from server.run_store import StoreDown

    clock = Clock(0.0)
    first, second = (SQLiteRunStore(tmp_path / "runs.sqlite3", clock=clock) for _ in range(2))
    made = room.open_class(first, "c")
    info = room.find(second, made.code, who="ann")
    you = room.join(second, info, "ann", "Ann")
    real_run, real_write = second._run, second._write

    def down(work):
        raise sqlite3.OperationalError("disk I/O error")

    second._run = second._write = down
    with pytest.raises(StoreDown):
        room.hand_in(second, info, "ann", {"rows": {"dx": {"verdict": "wrong"}}})
    assert room.hand_in(second, info, "ann", {"rows": {"dx": {"verdict": "exact"}}}, joined=you) == QUEUED
    second._run, second._write = real_run, real_write
    clock.now += 10  # past the back-off
    until(lambda: room.work_of(first, info), "the hand-in written once the store answers", 30)
    assert room.work_of(first, info)["ann"]["rows"] == {"dx": {"verdict": "exact"}}
    clock.now = info.ends
    with pytest.raises(ClassRefused, match="ended"):
        room.hand_in(second, info, "ann", {"rows": {}}, joined=you)
    first.close(), second.close()
