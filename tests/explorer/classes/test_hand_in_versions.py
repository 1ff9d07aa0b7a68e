"""A learner's hand-ins ordered by their version (issue 31): the browser's time of the text sent, past the session's
last; the store keeps the newest whichever process writes or replays one, and a new session starts after it."""

import math

import pytest

from explorer.classes import room
from server.run_store import SQLiteRunStore
from tests.support.clock import Clock


def test_a_version_is_the_browsers_time_of_the_text_in_microseconds_and_past_the_sessions_last():
    assert room.next_version(None, 1_700_000_000_123.0) == 1_700_000_000_123_000
    assert room.next_version(1_700_000_000_123_000, 1_700_000_000_123.0) == 1_700_000_000_123_001  # a hint, no text
    assert room.next_version(5, 2.0) == 2_000  # a later send
    assert room.next_version(9_000, 2.0) == 9_001  # a browser clock set back never goes below the session's last


@pytest.mark.parametrize("stamp", [None, "soon", math.nan, math.inf, -1.0, 1e20, [1]])
def test_a_stamp_that_is_not_a_time_counts_as_none(stamp):
    assert room.next_version(41, stamp) == 42
    assert room.next_version(None, stamp) == 1


def test_hand_ins_two_processes_kept_while_the_store_was_down_leave_the_newest_and_a_new_session_starts_after_it(
        tmp_path):
    clock = Clock(1_000_000.0)
    a, b = (SQLiteRunStore(tmp_path / "runs.sqlite3", clock=clock) for _ in range(2))
    made = room.open_class(a, "c")
    info = room.find(a, made.code, who="t")
    you = room.join(a, info, "ann-browser", "Ann")
    older, newer = room.next_version(None, 5_000.0), room.next_version(None, 9_000.0)
    broken = {"on": True}

    def unreachable(real):
        def put(*args, **kwargs):
            if broken["on"]:
                raise OSError("the store is unreachable")
            return real(*args, **kwargs)
        return put

    for store in (a, b):
        store._put_many = unreachable(store._put_many)
    room.hand_in(a, info, "ann-browser", {"rows": {"b": {"verdict": "wrong"}}}, joined=you, version=older)
    room.hand_in(b, info, "ann-browser", {"rows": {"b": {"verdict": "exact"}}}, joined=you, version=newer)
    broken["on"] = False
    clock.now += 60  # past the back-off
    len(b), len(a)  # each writes what waits in it (if its writer has not), the newer first
    other = SQLiteRunStore(tmp_path / "runs.sqlite3", clock=clock)  # read as a third process does
    assert room.work_of(other, info)["ann-browser"]["rows"] == {"b": {"verdict": "exact"}}
    other.close()
    assert room.handed_version(a, info, "ann-browser") == newer
    assert room.handed_version(a, info, "bob-browser") == 0
    a.close(), b.close()
