"""The run store's faults against the real SQLite and a real redis-server: for each, the steps a learner keeps,
the words the learner's page says, and that no server process dies of it (issue 28).

The learners play in a server process of their own (tests/support/store_learners.py) where a fault could take
the process down; the files are made unwritable with ``chattr +i`` (root's writes fail too, and a mapping of a
file that becomes immutable faults with SIGBUS on its next write)."""

import logging
import random

import pytest

from explorer.playground.controller import Playground
from explorer.playground.settings import TrainConfig
from server.run_store import RedisRunStore, SQLiteRunStore
from tests.support.clock import Clock
from tests.support.helpers import ROOT
from tests.support.store_faults import (
    NOBODY,
    Learners,
    RedisServer,
    files_of,
    folder,
    need_root,
    step_of,
    unwritable,
)

CANNOT_WRITE = "The run store cannot be written: "
CANNOT_READ = "The run store cannot be read: "
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


def journal(path) -> list:
    """The file SQLite writes beside the database at every transaction: WAL's mapped index (-shm) or the journal."""
    return [p for p in files_of(path) if p.name.endswith(("-shm", "-journal"))]


@pytest.mark.parametrize("which", [files_of, journal], ids=["every file", "the journal"])
@pytest.mark.parametrize("user", ["root", "nobody"])
def test_files_made_unwritable_while_learners_play_take_no_process_down(user, which):
    need_root()
    with folder(NOBODY if user == "nobody" else 0) as where:
        path = where / "runs.sqlite3"
        with Learners(f"sqlite:///{path}", 3, as_nobody=user == "nobody") as learners:
            before = learners.until(lambda r: all(s and s > 0 for s in saved_steps(path, [x["run"] for x in r])),
                                    what="saved")
            with unwritable(*which(path)):
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


# NOTE: the offsets hit a run's pages: the schema's first pages are the tables' and indexes' roots (the shared
# records' table and its two indexes moved every run's pages 3 pages of 4 KB on).
@pytest.mark.parametrize(("count", "offset", "kept"), [(3, 45_056, 2), (200, 2_012_288, 198)],
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
    lost = next(run for run in runs if found[run] is None)
    _, problems = Playground.from_url({"run": lost}, store=store, user="learner1")
    assert len(problems) == 1 and "the run store was damaged and started again at " in problems[0], problems
    assert "could not be read back" in problems[0] and "least recently" not in problems[0]
    store.close()
    assert len([r for r in caplog.records if "was damaged" in r.message]) == 1  # one line
    assert len([p for p in tmp_path.glob("runs.sqlite3.damaged-*") if not p.name.endswith("-journal")]) == 1


def records_leaves(path) -> list[tuple[int, int]]:
    """The shared records table's leaf pages in the file, in order: (byte offset, rows on the page)."""
    import sqlite3

    db = sqlite3.connect(path)
    try:
        size = db.execute("PRAGMA page_size").fetchone()[0]
        return [((page - 1) * size, cells) for page, cells in db.execute(
            "SELECT pageno, ncell FROM dbstat WHERE name = 'records' AND pagetype = 'leaf' ORDER BY pageno")]
    finally:
        db.close()


def test_a_damaged_store_file_carries_the_class_records_and_counters_still_readable(tmp_path):
    """A class's records and counters in a file that is then damaged on one of the records' pages: after the repair
    every record that survives reads back as it was, exactly the damaged page's rows are gone, the counters go on
    from their counts, and records that had expired are not carried."""
    path, clock = tmp_path / "runs.sqlite3", Clock(1_000.0)
    store = SQLiteRunStore(path, clock=clock)
    runs_kept = {f"someruns{i:04d}": random.Random(i).randbytes(5_000) for i in range(3)}
    for run, blob in runs_kept.items():
        assert store.save(run, blob, user="ann", holder=run) == "saved"
    assert store.put("class:old:post", "now", b"ended", expires_at=1_010.0) == "saved"
    for n in range(40):  # counters first: the records' first pages
        for _ in range(3):
            store.count_up("tries", f"browser{n:02d}", expires_at=5_000.0)
    work = {f"learner{n:03d}": random.Random(n).randbytes(1_500) for n in range(120)}
    for learner, value in work.items():
        assert store.put("class:abc:work", learner, value, expires_at=90_000.0) == "saved"
    store.close()
    leaves = records_leaves(path)
    offset, lost = leaves[len(leaves) * 2 // 3]  # a page of learners' work, neither the first nor the last
    assert lost >= 1
    damage(path, offset, size=4_096)

    clock.now = 1_020.0  # the old class's post has expired
    store = SQLiteRunStore(path, clock=clock)
    assert store.put("class:abc:post", "now", b"after the harm", expires_at=90_000.0) == "saved"  # meets the damage
    assert list(tmp_path.glob("runs.sqlite3.damaged-*")), "the file was not repaired"
    found = store.records("class:abc:work")
    assert all(work[learner] == value for learner, value in found.items())  # nothing read back wrong
    assert len(found) == len(work) - lost, (len(found), len(work), lost)
    assert all(store.record("tries", f"browser{n:02d}") == b"3" for n in range(40))
    assert store.count_up("tries", "browser07", expires_at=5_000.0) == 4  # counting goes on
    assert {run: store.get(run) for run in runs_kept} == runs_kept
    assert store.record("class:abc:post", "now") == b"after the harm"
    store.close()
    import sqlite3

    db = sqlite3.connect(path)
    assert db.execute("SELECT count(*) FROM records WHERE tab = 'class:old:post'").fetchone() == (0,)
    db.close()


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




def play(pg, clock, ticks: int) -> None:
    """``ticks`` of the page's live fragment, 0.2 s of its clock apart."""
    for _ in range(ticks):
        clock.now += 0.2
        pg.tick()


@pytest.fixture
def redis_server(tmp_path):
    made = []

    def start(*args):
        server = RedisServer(tmp_path, *args).start()
        made.append(server)
        return server

    yield start
    for server in made:
        server.kill()


def test_redis_down_the_page_keeps_its_run_a_reload_keeps_it_too_and_the_link_is_tried_again(redis_server):
    server = redis_server()
    wall, page = Clock(1_000_000.0), Clock(1_000_000.0)  # the store's back-off runs on ``wall``
    store = RedisRunStore(server.url, clock=wall)
    pg = Playground(TrainConfig(hidden=(4,)), clock=page, store=store, user="ann")
    pg.play()
    play(pg, page, 10)
    link = pg.run_id
    server.kill()  # issue 28 item 4
    play(pg, page, 10)  # a save a second of the page's clock: each kept in this process
    assert pg.run_id == link and pg.playing
    kept = step_of(store.get(link))
    assert kept is not None and kept > 0
    # A reload that reaches this process (the balancer's cookie keeps it there): the same run, the same id.
    again, problems = Playground.from_url({"run": link}, clock=page, store=store, user="ann")
    assert problems == [] and again.run_id == link and again.state.step == kept and again.playing
    assert again.store_message.startswith(CANNOT_WRITE) and again.store_message.endswith(KEPT_IN_PAGE)
    assert f"Redis at {server.url}" in again.store_message
    # A reload that reaches another process, which has no copy: it waits for the same id, and says so.
    other = RedisRunStore(server.url, clock=wall)
    waiting, problems = Playground.from_url({"run": link}, clock=page, store=other, user="ann")
    assert problems == [] and waiting.run_id == link and waiting.waiting_for == link and waiting.state.step == 0
    assert waiting.store_message.startswith(CANNOT_READ) and link in waiting.store_message
    wall.now += 10.0
    assert not waiting.retry_store() and waiting.run_id == link
    server.start()  # back (empty: this Redis keeps no file)
    wall.now += 10.0  # past the back-off
    play(again, page, 5)  # a second of the page's clock: its last tick saves (controller.SAVE_SLACK)
    assert again.store_message is None and again.run_id == link
    saved = step_of(other.get(link))
    assert saved == again.state.step  # every step of the page's, saved again
    wall.now += 10.0
    assert waiting.retry_store()  # the other process's page opens the link's run: its id, its steps
    assert waiting.waiting_for is None and waiting.run_id == link and waiting.state.step == saved and waiting.playing
    assert waiting.store_message is None
    for s in (store, other):
        s.close()


def test_redis_with_the_recommended_persistence_keeps_every_paused_run_through_a_restart(redis_server):
    conf = ROOT / "deploy" / "redis.conf"
    settings = dict(line.split(None, 1) for line in conf.read_text().splitlines() if line and line[0] != "#")
    assert settings["appendonly"] == "yes" and settings["appendfsync"] == "everysec"  # issue 28 item 5
    readme = (ROOT / "README.md").read_text()
    serving = readme[readme.index("## Serving a class"):readme.index("## Run the tests")]
    assert "appendonly yes" in serving and "appendfsync everysec" in serving and "deploy/redis.conf" in serving
    server = redis_server(str(conf))
    store, page = RedisRunStore(server.url), Clock(1_000_000.0)
    pages = [Playground(TrainConfig(hidden=(4,), seed=i), clock=page, store=store, user=f"learner{i}")
             for i in range(5)]
    for i, pg in enumerate(pages):  # five learners' runs, paused at different steps
        for _ in range(i + 1):
            pg.step_once()
    store.close()
    server.kill()  # SIGKILL: nothing written on the way out
    server.start()
    again = RedisRunStore(server.url)
    assert [step_of(again.get(pg.run_id)) for pg in pages] == [1, 2, 3, 4, 5]
    again.close()


def test_a_redis_that_restarted_empty_is_said_so_not_blamed_on_eviction(redis_server):
    server = redis_server()  # Debian's default: no append-only file
    store, page = RedisRunStore(server.url), Clock(1_000_000.0)
    left = Playground(TrainConfig(hidden=(4,)), clock=page, store=store, user="ann")  # paused, tab closed
    left.step_once()
    playing = Playground(TrainConfig(hidden=(4,)), clock=page, store=store, user="bob")
    server.kill()
    server.start()
    playing.step_once()  # the first save after the restart: this process knew the store before
    _, problems = Playground.from_url({"run": left.run_id}, clock=page, store=store, user="ann")
    assert len(problems) == 1 and "the run store (Redis) started again empty at " in problems[0], problems
    assert "least recently" not in problems[0]
    fresh = RedisRunStore(server.url)  # another process, started after: told by the store
    _, problems = Playground.from_url({"run": left.run_id}, clock=page, store=fresh, user="ann")
    assert "started again empty" in problems[0]
    for s in (store, fresh):
        s.close()
