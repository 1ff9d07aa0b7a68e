"""The run store's faults against the real SQLite and a real redis-server: for each, the steps a learner keeps,
the words the learner's page says, and that no server process dies of it (issue 28).

The learners play in a server process of their own (tests/support/store_learners.py) where a fault could take
the process down; the files are made unwritable with ``chattr +i`` (root's writes fail too, and a mapping of a
file that becomes immutable faults with SIGBUS on its next write)."""

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
