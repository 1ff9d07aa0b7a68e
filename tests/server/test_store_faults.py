"""The run store's faults against the real SQLite and a real redis-server: for each, the steps a learner keeps,
the words the learner's page says, and that no server process dies of it (issue 28).

The learners play in a server process of their own (tests/support/store_learners.py) where a fault could take
the process down; the files are made unwritable with ``chattr +i`` (root's writes fail too, and a mapping of a
file that becomes immutable faults with SIGBUS on its next write)."""

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
