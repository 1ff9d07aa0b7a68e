"""The Training Playground page under AppTest while its run store (a real redis-server) fails: what the learner
reads, and the page trying again until the store works (issue 28). Each `at.run()` runs the page's fragments
once (their timers never fire in AppTest); the store's back-off runs on the wall clock, so a test reruns the
page until what it waits for shows, never for a fixed time."""

import time

import pytest
from streamlit.testing.v1 import AppTest

import server.run_store as run_store
from explorer.playground.controller import Playground
from explorer.playground.settings import TrainConfig
from server.run_store import RedisRunStore
from tests.support import apptest
from tests.support.helpers import ROOT
from tests.support.store_faults import WAIT_SECONDS, RedisServer, step_of

PAGE = "pages/playground.py"


@pytest.fixture
def redis_store(tmp_path, monkeypatch):
    """A redis-server kept as deploy/redis.conf says (so a restart keeps the runs), and the server's store in it."""
    server = RedisServer(tmp_path, str(ROOT / "deploy" / "redis.conf")).start()
    store = RedisRunStore(server.url)
    monkeypatch.setattr(run_store, "_runs", store)  # the store every page of this process uses
    yield server, store
    store.close()
    server.kill()


def open_page(query: dict | None = None) -> AppTest:
    return apptest.open_page(PAGE, query)


def warnings(at) -> list[str]:
    return [w.value for w in at.warning]


def rerun_until(at, done) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not done(at):
        assert time.monotonic() < deadline, warnings(at)
        time.sleep(0.1)
        at.run()
        assert not at.exception, at.exception


def test_the_page_says_its_run_is_not_saved_and_saves_it_once_the_store_works(redis_store):
    server, store = redis_store
    at = open_page()
    server.kill()
    next(b for b in at.button if b.label == "Step").click().run()
    pg: Playground = at.session_state["pg"]
    [said] = warnings(at)
    assert said.startswith("The run store cannot be written: Redis at ")
    assert said.endswith("; this run is kept in this page until it can be")
    assert pg.state.step == 1
    server.start()
    rerun_until(at, lambda at: not warnings(at))
    assert step_of(store.get(pg.run_id)) == 1


def test_a_link_opened_while_the_store_is_down_waits_for_its_run_and_opens_it(redis_store):
    server, store = redis_store
    owner = Playground(TrainConfig(hidden=(4,), activation="relu"), store=store, user="ann")
    for _ in range(3):
        owner.step_once()
    link = owner.run_id
    server.kill()
    at = open_page({"run": link})
    [said] = warnings(at)
    assert said.startswith("The run store cannot be read: Redis at ") and link in said
    assert at.query_params["run"] in (link, [link])  # a reload asks for the same run
    server.start()
    rerun_until(at, lambda at: not warnings(at))
    pg: Playground = at.session_state["pg"]
    assert pg.waiting_for is None and pg.state.step == 3  # the link's run (another learner's: a copy of it)
    assert at.session_state["pg_activation"] == "relu" and at.session_state["pg_hidden"] == "4"
    assert not at.exception
