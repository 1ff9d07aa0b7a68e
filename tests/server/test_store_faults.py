"""The run store's faults against the real SQLite and a real redis-server: for each, the steps a learner keeps,
the words the learner's page says, and that no server process dies of it (issue 28).

The learners play in a server process of their own (tests/support/store_learners.py) where a fault could take
the process down; the files are made unwritable with ``chattr +i`` (root's writes fail too, and a mapping of a
file that becomes immutable faults with SIGBUS on its next write)."""

import logging
import random

import pytest

from server.run_store import SQLiteRunStore
from tests.support.store_faults import NOBODY, Learners, files_of, folder, need_root, step_of, unwritable

CANNOT_WRITE = "The run store cannot be written: "
KEPT_IN_PAGE = "; this run is kept in this page until it can be"


def saved_steps(path, runs) -> list[int | None]:
    """The step each run is at in the store, read as another process reads it."""
    store = SQLiteRunStore(path)
    try:
        return [step_of(store.get(run)) for run in runs]
    finally:
        store.close()


def all_saved(path):
    """A report in which no page says anything of the store and every page's step is the stored one."""
    def done(report):
        return all(r["words"] is None for r in report) and saved_steps(path, [r["run"] for r in report]) == [
            r["step"] for r in report]
    return done


@pytest.mark.parametrize("user", ["root", "nobody"])
def test_files_made_unwritable_while_learners_play_take_no_process_down(user):
    need_root()
    with folder(NOBODY if user == "nobody" else 0) as where:
        path = where / "runs.sqlite3"
        with Learners(f"sqlite:///{path}", 3, as_nobody=user == "nobody") as learners:
            before = learners.until(lambda r: all(s and s > 0 for s in saved_steps(path, [x["run"] for x in r])),
                                    what="saved")
            with unwritable(*files_of(path)):
                during = learners.send("tick 10")  # 2 s of each page's clock: two saves each
                during = learners.until(lambda r: all(x["words"] for x in r), what="said")
                assert [r["run"] for r in during] == [r["run"] for r in before]  # the same runs, still playing
                assert all(d["step"] > b["step"] for d, b in zip(during, before, strict=True))
                for r in during:
                    assert r["words"].startswith(CANNOT_WRITE) and r["words"].endswith(KEPT_IN_PAGE), r["words"]
                    assert str(path) in r["words"]
            learners.until(all_saved(path), what="saved again once writable")
            after = learners.send("pause")
            assert [r["run"] for r in after] == [r["run"] for r in before]
            assert saved_steps(path, [r["run"] for r in after]) == [r["step"] for r in after]  # every step kept
            assert all(r["words"] is None for r in after)


def test_a_process_that_opened_the_store_while_it_was_unwritable_writes_once_it_is_writable_again():
    need_root()
    with folder() as where:
        path = where / "runs.sqlite3"
        first = SQLiteRunStore(path)
        assert first.save("runrunrun001", b"x", user="a", holder="b") == "saved"
        first.close()
        with unwritable(*files_of(path)):
            learners = Learners(f"sqlite:///{path}", 2)
            report = learners.until(lambda r: all(x["words"] for x in r), what="said")
            assert all(r["words"].startswith(CANNOT_WRITE) and r["step"] > 0 for r in report)
        with learners:
            learners.until(all_saved(path), what="saved once writable")


def test_a_store_made_read_only_for_its_user_writes_again_once_it_is_writable():
    need_root()
    with folder(NOBODY) as where:
        path = where / "runs.sqlite3"
        with Learners(f"sqlite:///{path}", 1, as_nobody=True) as learners:
            learners.until(all_saved(path), what="saved")
        for p in files_of(path):
            p.chmod(0o444)
        with Learners(f"sqlite:///{path}", 2, as_nobody=True) as learners:
            report = learners.until(lambda r: all(x["words"] for x in r), what="said")
            assert all(r["words"].startswith(CANNOT_WRITE) and "readonly" in r["words"] for r in report)
            for p in files_of(path):
                p.chmod(0o644)
            learners.until(all_saved(path), what="saved once writable")


def test_a_store_file_deleted_while_learners_play_is_noticed_and_its_runs_carried_over():
    need_root()
    with folder() as where:
        path = where / "runs.sqlite3"
        left = SQLiteRunStore(path)  # the runs of learners who left, paused: no page holds them
        paused = {f"pausedrun{i:03d}": bytes([i]) * 5000 for i in range(3)}
        for run, blob in paused.items():
            assert left.save(run, blob, user=f"gone{run}", holder=run) == "saved"
        left.close()
        with Learners(f"sqlite:///{path}", 2) as learners:
            before = learners.until(all_saved(path), what="saved")
            path.unlink()  # during class (issue 28 item 8)
            learners.until(lambda r: path.exists(), what="a new file")
            after = learners.until(all_saved(path), what="saved in the new file")
            assert [r["run"] for r in after] == [r["run"] for r in before]
            assert all(r["step"] > b["step"] for r, b in zip(after, before, strict=True))
            learners.send("pause")
            log = learners.stderr()
        store = SQLiteRunStore(path)
        assert {run: store.get(run) for run in paused} == paused  # carried over from the deleted file
        store.close()
        assert log.count("was deleted while in use") == 1, log


def damage(path, offset: int, size: int = 16_384) -> None:
    """``size`` bytes of garbage written over the file at ``offset``."""
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(random.Random(offset).randbytes(size))


def runs_in(path, count: int, size: int = 20_000) -> dict[str, bytes]:
    store = SQLiteRunStore(path)
    runs = {f"someruns{i:04d}": random.Random(i).randbytes(size) for i in range(count)}
    for i, (run, blob) in enumerate(runs.items()):
        assert store.save(run, blob, user=f"learner{i % 7}", holder=run) == "saved"
    store.close()
    return runs


@pytest.mark.parametrize(("count", "offset", "kept"), [(3, 32_768, 2), (200, 2_000_000, 198)],
                         ids=["3 runs, 100 KB", "200 runs, 4.1 MB"])
def test_a_damaged_store_file_is_moved_aside_and_started_again_with_the_runs_still_readable(
        tmp_path, caplog, count, offset, kept):
    path = tmp_path / "runs.sqlite3"
    runs = runs_in(path, count)
    damage(path, offset)  # 16 KB of garbage (issue 28 item 9)
    store = SQLiteRunStore(path)
    with caplog.at_level(logging.WARNING, logger="server.run_store"):
        assert store.save("aftertheharm", b"new", user="ann", holder="tab") == "saved"
    found = {run: store.get(run) for run in runs}
    assert sum(found[run] == blob for run, blob in runs.items()) == kept
    assert all(found[run] in (None, blob) for run, blob in runs.items())  # nothing read back wrong
    assert store.get("aftertheharm") == b"new" and len(store) == kept + 1
    store.close()
    assert len([r for r in caplog.records if "was damaged" in r.message]) == 1  # one line
    assert len([p for p in tmp_path.glob("runs.sqlite3.damaged-*") if not p.name.endswith("-journal")]) == 1


def test_damage_found_while_the_store_is_open_is_repaired_at_once(tmp_path, caplog):
    path = tmp_path / "runs.sqlite3"
    runs = runs_in(path, 200)
    store = SQLiteRunStore(path)
    assert store.get("someruns0000") == runs["someruns0000"]  # open, and checked
    damage(path, 2_000_000)
    with caplog.at_level(logging.WARNING, logger="server.run_store"):
        results = [store.save(f"playing{i:04d}", b"v" * 1000, user="ann", holder="tab") for i in range(3)]
        found = {run: store.get(run) for run in runs}  # reading every run meets the damage
    assert results == ["saved"] * 3 and store.problem is None
    assert sum(found[run] == blob for run, blob in runs.items()) >= 190
    assert all(store.get(f"playing{i:04d}") == b"v" * 1000 for i in range(3))
    assert len([r for r in caplog.records if "was damaged" in r.message]) == 1
    store.close()
