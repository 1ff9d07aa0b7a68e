"""A class across machines, in a real headless Chromium: four test hosts on this machine (Linux network namespaces,
tests/support/hosts.py), HAProxy on one, a Streamlit process on each of two others, redis-server on the fourth
behind a link whose latency the test sets (tests/support/slow_link.py). Learners play through the balancer while
each fault happens: an app host's cable pulled, 200 ms of latency to Redis, Redis restarted, the balancer
restarted. Meanwhile two learners of a class hand in Practice answers (the Practice page opened from the class, with
&class=<code>) during each fault. For each, what the learner saw (the longest time without a new picture, the steps
taken back, how long a hand-in waited for its verdict) is measured and written to the artifacts' hosts.json; what
must hold is asserted: every learner's run goes on under its own id, a run loses at most its snapshot interval,
every answer a learner's page said it checked is the one the store (Redis) keeps for them and the teacher's
dashboard counts, and every namespace is gone afterwards."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from deploy.classroom import haproxy_config, healthy, streamlit_command
from explorer.classes import room
from tests.support import hosts as test_hosts
from tests.support.helpers import ROOT
from tests.support.waits import until

from .helpers import (
    LIVE_VIEW,
    app_exception,
    balancer_server,
    click_button,
    fresh_context,
    open_live,
    open_page,
    run_id,
    settled,
)
from .server import CHROMIUM_ARGS, find_chromium, unavailable

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(900)]  # the cluster starts in the first

APP_PORT, LB_PORT, REDIS_PROXY_PORT = 8501, 8500, 6380
STEPS_PER_SECOND = 25  # the Playground's default speed
SNAPSHOT_STEPS = 2 * STEPS_PER_SECOND  # a snapshot a second while playing (controller.SAVE_EVERY), and a tick
DEADLINE = 90.0
FIGURES: dict[str, dict] = {}
PROGRAM = "b = tensor([1.0, 2.0])\nloss = (b * b).sum()"  # the class's practice exercise: tensors loss, t1, b
EDITOR = ".st-key-practice_editor textarea"


class Cluster:
    """The four hosts and the processes on them."""

    def __init__(self, hosts: test_hosts.Hosts, folder, logs):
        self.hosts, self.folder, self.logs = hosts, folder, logs
        self.delay_file = folder / "redis-delay"
        self.delay_file.write_text("0")
        self.processes: dict[str, subprocess.Popen] = {}
        self.url = f"http://{hosts.address('lb')}:{LB_PORT}"

    def _log(self, name: str):
        return open(self.logs / f"{name}.log", "ab")  # noqa: SIM115 - the child holds it open

    def start_redis(self) -> None:
        self.processes["redis"] = self.hosts.run("db", [
            "redis-server", "--port", "6379", "--bind", "127.0.0.1", "--dir", str(self.folder), "--save", "",
            "--appendonly", "yes", "--appendfsync", "everysec"], stdout=self._log("redis"), stderr=subprocess.STDOUT)
        import redis

        client = redis.Redis(host=self.hosts.address("db"), port=REDIS_PROXY_PORT, socket_timeout=2)

        def answers():
            try:
                return client.ping()
            except redis.RedisError:
                return False

        until(answers, "redis-server answering through the link", DEADLINE)
        client.close()

    def start(self) -> None:
        db = self.hosts.address("db")
        self.processes["link"] = self.hosts.run("db", [
            sys.executable, "-m", "tests.support.slow_link", f"{db}:{REDIS_PROXY_PORT}", "127.0.0.1:6379",
            str(self.delay_file)], cwd=ROOT, stdout=self._log("link"), stderr=subprocess.STDOUT)
        self.start_redis()
        env = {**os.environ, "AUTOGRAD_EXPLORER_RUNS": f"redis://{db}:{REDIS_PROXY_PORT}/0"}
        for name in ("app1", "app2"):
            self.processes[name] = self.hosts.run(name, streamlit_command(APP_PORT, self.hosts.address(name)),
                                                  cwd=ROOT, env=env, stdout=self._log(name), stderr=subprocess.STDOUT)
        for name in ("app1", "app2"):
            until(lambda name=name: healthy(self.app_url(name)), f"Streamlit on {name}", DEADLINE)
        self.start_balancer()

    def app_url(self, name: str) -> str:
        return f"http://{self.hosts.address(name)}:{APP_PORT}"

    def start_balancer(self) -> None:
        config = self.folder / "haproxy.cfg"
        config.write_text(haproxy_config(self.hosts.address("lb"), LB_PORT,
                                         [f"{self.hosts.address(n)}:{APP_PORT}" for n in ("app1", "app2")]))
        self.processes["haproxy"] = self.hosts.run("lb", ["haproxy", "-f", str(config), "-db"],
                                                   stdout=self._log("haproxy"), stderr=subprocess.STDOUT)
        until(lambda: healthy(self.url), "HAProxy answering", DEADLINE)

    def stop(self, name: str, sig=signal.SIGKILL) -> None:
        self.hosts.stop(self.processes.pop(name), sig)

    def store(self):
        """The run store the app hosts share, as the test reads it (from the root namespace, through the link)."""
        from server.run_store import RedisRunStore

        return RedisRunStore(f"redis://{self.hosts.address('db')}:{REDIS_PROXY_PORT}/0")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, artifacts):
    why = test_hosts.available() or next((f"{tool} is not installed (.ci/run installs it)"
                                          for tool in ("haproxy", "redis-server") if shutil.which(tool) is None), None)
    if why:
        unavailable(why)
    folder = tmp_path_factory.mktemp("hosts")
    logs = artifacts / "hosts"
    logs.mkdir(parents=True, exist_ok=True)
    hosts = test_hosts.Hosts(["lb", "app1", "app2", "db", "desk"])  # desk: the learners' browser
    with hosts:
        built = Cluster(hosts, folder, logs)
        built.start()
        yield built
    assert test_hosts.Hosts.left_over(hosts.tag) == []
    (artifacts / "hosts.json").write_text(json.dumps(FIGURES, indent=2))
    print("\nacross hosts:", json.dumps(FIGURES, indent=2))


@pytest.fixture(scope="module")
def desk(browser, cluster, tmp_path_factory):
    """The learners' and the teacher's Chromium, on a host of its own (``desk``), driven by the session's Playwright.
    NOTE: a Chromium in this (the root) namespace sees every link the test adds, pulls and mends (the bridge, each
    host's cable) and aborts the loads in flight with net::ERR_NETWORK_CHANGED; a Streamlit page caught loading
    ("Failed to fetch dynamically imported module") never connects: the pages that needed a second try. On its own
    host it sees only its own cable, which no fault touches."""
    folder = tmp_path_factory.mktemp("desk")
    wrapper = folder / "chromium"  # Playwright talks to it over a pipe, which `ip netns exec` passes on
    wrapper.write_text(f'#!/bin/sh\nexec ip netns exec {cluster.hosts.namespace("desk")} {find_chromium()} "$@"\n')
    wrapper.chmod(0o755)
    env = dict(os.environ, XDG_CONFIG_HOME=str(folder / "config"), XDG_CACHE_HOME=str(folder / "cache"))
    chromium = browser.browser_type.launch(executable_path=str(wrapper), args=list(CHROMIUM_ARGS), env=env)
    yield chromium
    chromium.close()


class Learner:
    """One browser context playing the Playground through the balancer, its steps sampled as it plays."""

    def __init__(self, browser, contexts, url: str, artifacts=None):
        self.page = fresh_context(browser, contexts).new_page()
        try:
            open_live(self.page, f"{url}/playground", timeout=DEADLINE * 1000)
        except Exception:
            if artifacts is not None:  # what the learner saw, for the failure's report
                self.page.screenshot(path=str(artifacts / f"hosts-open-failed-{len(contexts)}.png"))
                (artifacts / f"hosts-open-failed-{len(contexts)}.txt").write_text(
                    f"{self.page.url}\n{balancer_server(self.page.context)}\n{self.page.content()[:20000]}")
            raise
        click_button(self.page, "Play")
        self.run = run_id(self.page)
        self.trail: list[tuple[float, int]] = []

    @property
    def server(self) -> str:
        return balancer_server(self.page.context)

    def step(self) -> int:
        try:
            return int(self.page.locator(LIVE_VIEW).first.get_attribute("data-step", timeout=1000) or -1)
        except Exception:  # noqa: BLE001 - reconnecting: no live view for a moment
            return -1

    def sample(self) -> int:
        self.trail.append((time.monotonic(), self.step()))
        return self.trail[-1][1]

    def figures(self, since: int) -> dict:
        """From the samples taken since index ``since``: the longest time without a new step, and the steps the
        page went back (a session that continued from the run store's snapshot)."""
        trail = [(t, s) for t, s in self.trail[since:] if s >= 0]
        frozen, back, top, last_change = 0.0, 0, -1, trail[0][0] if trail else 0.0
        for (_, s0), (t1, s1) in zip(trail, trail[1:], strict=False):
            if s1 != s0:
                frozen = max(frozen, t1 - last_change)
                last_change = t1
            top = max(top, s0)
            if s1 < top:
                back = max(back, top - s1)
        shown = [s for _, s in trail]
        return {"longest_without_a_new_step_s": round(frozen, 2), "steps_taken_back": back,
                "steps": [shown[0], shown[-1]] if shown else [], "samples": len(self.trail) - since}


def watch(learners: list[Learner], seconds: float) -> None:
    """Samples every learner's step, every 50 ms, for ``seconds`` (the pages' events run meanwhile)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        learners[0].page.wait_for_timeout(50)
        for one in learners:
            one.sample()


def watch_until(learners: list[Learner], ok, what: str, seconds: float = DEADLINE) -> None:
    """Samples every learner until ``ok(learner, step)`` holds for each at once."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        watch(learners, 0.2)
        if all(ok(one, one.trail[-1][1]) for one in learners):
            return
    shown = {one.server: one.trail[-1][1] for one in learners}
    pytest.fail(f"{what}: after {seconds:g} s the learners' pages show steps {shown}")


def _learner(browser, contexts, cluster, artifacts) -> Learner:
    """A learner whose page opened. NOTE: once in three runs here, the first page opened after the cable test (a
    learner that leastconn sent to the mended host) did not connect within 90 s; its screenshot and HTML go to the
    artifacts, the try is counted in hosts.json ("pages that needed a second try"), and a second browser opens it.
    Left open in the issue's note: why that page did not connect."""
    try:
        return Learner(browser, contexts, cluster.url, artifacts)
    except Exception:  # noqa: BLE001 - a page that did not open: said in the figures, then tried once more
        FIGURES["pages that needed a second try"] = FIGURES.get("pages that needed a second try", 0) + 1
        return Learner(browser, contexts, cluster.url, artifacts)


@pytest.fixture
def learners(desk, cluster, artifacts):
    contexts = []
    made = [_learner(desk, contexts, cluster, artifacts)]
    made.append(_learner(desk, contexts, cluster, artifacts))  # leastconn: the second goes to the other process
    watch_until(made, lambda one, s: s >= 30, "playing")
    yield made
    for context in contexts:
        context.close()


# ------------------------------------------------------------------------------------ a class's Practice answers
class Student:
    """One browser context of a class: joined under ``name``, on the Practice page opened from the class (every check
    is handed in). Each answer is ``db = k * dt1 * b`` with a new k, so the page's max difference for b (|k - 2| · 2)
    says which answer it checked, and the store's record which one it keeps."""

    def __init__(self, browser, contexts, url: str, code: str, name: str):
        self.name, self.k, self.page = name, 2, fresh_context(browser, contexts).new_page()
        open_page(self.page, f"{url}/class?code={code}", DEADLINE * 1000)
        self.page.get_by_label("Your name, as the teacher will see it (a pseudonym is fine)").fill(name)
        click_button(self.page, "Join")
        link = self.page.get_by_role("link", name="Open the exercise")
        link.wait_for(timeout=DEADLINE * 1000)
        open_page(self.page, link.get_attribute("href"), DEADLINE * 1000)
        settled(lambda: self.page.locator(EDITOR).input_value(), lambda v: v.startswith("dloss"), timeout=DEADLINE)
        self.handed: list[dict] = []  # what the page said it checked and handed in, in order

    @property
    def server(self) -> str:
        return balancer_server(self.page.context)

    @staticmethod
    def answer(k: int) -> str:
        return f"dloss = ones(loss.shape)\ndt1 = dloss * ones(t1.shape)\ndb = {k} * dt1 * b"

    def type(self, k: int | None = None) -> None:
        """Types the next answer (k + 1, or ``k``) and sends it at once (Ctrl+Enter), whatever the connection."""
        self.k = self.k + 1 if k is None else k
        self.sent_at, self.sent_on = time.monotonic(), self.server
        box = self.page.locator(EDITOR)
        box.fill(self.answer(self.k), timeout=DEADLINE * 1000)
        box.press("Control+Enter")

    def shown(self) -> bool:
        """Whether the page shows the verdict of the answer typed last, handed in (noted in ``handed`` once)."""
        if self.handed and self.handed[-1]["k"] == self.k:
            return True
        try:
            maxdiff, said = self.page.evaluate("""() => [
                document.querySelector('[data-testid="practice-row"][data-name="b"]')?.dataset.maxdiff,
                [...document.querySelectorAll('[data-testid="stCaptionContainer"]')]
                    .some((c) => c.innerText.startsWith("Handed in to"))]""")
        except Exception:  # noqa: BLE001 - the page is between two documents: not shown yet
            return False
        expected = abs(self.k - 2) * 2.0
        if not said or maxdiff is None or abs(float(maxdiff or 0) - expected) > 1e-9:
            return False
        self.handed.append({"k": self.k, "answer": self.answer(self.k), "waited_s": round(
            time.monotonic() - self.sent_at, 2), "sent_on": self.sent_on, "shown_on": self.server})
        return True


def hand_in(students: list[Student], learners: list[Learner], what: str) -> list[dict]:
    """Every student types a new answer now; the learners' steps are sampled until each student's page shows its
    verdict handed in (at most DEADLINE). Returns what each page said (and how long it waited)."""
    for one in students:
        one.type()
    end = time.monotonic() + DEADLINE
    while time.monotonic() < end and not all(one.shown() for one in students):
        watch(learners, 0.2) if learners else students[0].page.wait_for_timeout(200)
    waiting = [one.name for one in students if not one.shown()]
    assert not waiting, f"{what}: {waiting}'s page did not show its answer checked within {DEADLINE:g} s"
    return [one.handed[-1] for one in students]


def kept(cluster, code: str) -> dict[str, str]:
    """Each learner's answer for b as the store keeps it, by display name."""
    store = cluster.store()
    try:
        info = room.find(store, code, who="the test")
        names = {one.learner: one.name for one in room.learners(store, info)}
        return {names.get(key, key): work["rows"]["b"]["answer"] for key, work in room.work_of(store, info).items()}
    finally:
        store.close()


def counted(cluster, lesson, what: str) -> None:
    """Waits until the store keeps, for every student, the answer their page said it checked last."""
    expected = {one.name: one.handed[-1]["answer"].split("\n")[-1] for one in lesson["students"]}
    until(lambda: kept(cluster, lesson["code"]) == expected,
          f"{what}: the store keeping {expected} (it keeps {kept(cluster, lesson['code'])})", DEADLINE)


def _student(browser, contexts, url: str, code: str, name: str) -> Student:
    """A student whose pages opened. NOTE: as _learner's, a first page through the balancer once did not connect
    within 90 s (in a whole-suite run on a loaded machine; not reproduced alone): counted in hosts.json ("pages that
    needed a second try"), then a second browser context joins under a name of its own (the first may have joined)."""
    try:
        return Student(browser, contexts, url, code, name)
    except Exception:  # noqa: BLE001 - a page that did not open: said in the figures, then tried once more
        FIGURES["pages that needed a second try"] = FIGURES.get("pages that needed a second try", 0) + 1
        return Student(browser, contexts, url, code, f"{name}2")


@pytest.fixture(scope="module")
def lesson(desk, cluster):
    """A class with a practice exercise posted (by the test, in the store) and two learners on its Practice page
    (leastconn: one on each app host), and their answers handed in before any fault."""
    store = cluster.store()
    try:
        made = room.open_class(store, "Across hosts")
        info = room.find(store, made.code, who="the test")
        room.post(store, info, room.Post("practice", "The square's gradient", program=PROGRAM))
    finally:
        store.close()
    contexts: list = []
    students = [_student(desk, contexts, cluster.url, made.code, name) for name in ("Ann", "Bob")]
    hand_in(students, [], "before the faults")
    found = {"code": made.code, "key": made.key, "students": students}
    counted(cluster, found, "before the faults")
    yield found
    for context in contexts:
        context.close()


def _hand_ins(figures: list[dict]) -> dict:
    return {f"{one['sent_on']}->{one['shown_on']}": one["waited_s"] for one in figures}


def test_latency_to_redis_slows_no_learners_picture(cluster, learners, lesson):
    marks = [len(one.trail) for one in learners]
    before = {id(one): one.trail[-1][1] for one in learners}
    cluster.delay_file.write_text("0.1")  # each way: 200 ms a round trip
    try:
        watch(learners, 2.0)
        said = hand_in(lesson["students"], learners, "with latency")
        watch_until(learners, lambda one, s: s >= before[id(one)] + 3 * STEPS_PER_SECOND, "playing with latency")
    finally:
        cluster.delay_file.write_text("0")
    FIGURES["latency 200 ms to Redis"] = {one.server: one.figures(m) for one, m in zip(learners, marks, strict=True)}
    FIGURES["latency 200 ms to Redis"]["hand-in waited s"] = _hand_ins(said)
    for one in learners:
        assert run_id(one.page) == one.run and app_exception(one.page) is None
    counted(cluster, lesson, "with latency")


def test_redis_restarted_loses_no_learners_steps(cluster, learners, lesson):
    marks = [len(one.trail) for one in learners]
    cluster.stop("redis", signal.SIGTERM)  # a restart: its append-only file written
    starts = {id(one): one.trail[-1][1] for one in learners}
    watch(learners, 1.0)
    said = hand_in(lesson["students"], learners, "Redis down")
    watch_until(learners, lambda one, s: s >= starts[id(one)] + STEPS_PER_SECOND, "playing while Redis is down")
    cluster.start_redis()
    watch(learners, 6.0)  # the store is tried again after its back-off (at most 5 s) and the kept snapshots written
    FIGURES["Redis restarted"] = {one.server: one.figures(m) for one, m in zip(learners, marks, strict=True)}
    FIGURES["Redis restarted"]["hand-in waited s"] = _hand_ins(said)
    counted(cluster, lesson, "Redis restarted")
    for one in learners:
        shown = one.trail[-1][1]
        one.page.reload(wait_until="domcontentloaded")
        watch_until([one], lambda one, s: s >= 0, "the reloaded page")
        back = one.trail[-1][1]
        assert run_id(one.page) == one.run
        assert back >= shown - SNAPSHOT_STEPS - 5 * STEPS_PER_SECOND, (back, shown)  # kept, then written
        assert app_exception(one.page) is None


def test_the_balancer_restarted_brings_each_learner_back_to_their_session(cluster, learners, lesson):
    marks = [len(one.trail) for one in learners]
    servers = [one.server for one in learners]
    cluster.stop("haproxy")
    for one in lesson["students"]:
        one.type()  # sent while no balancer answers
    watch(learners, 1.0)
    cluster.start_balancer()
    starts = {id(one): one.trail[-1][1] for one in learners}
    end = time.monotonic() + DEADLINE
    while time.monotonic() < end and not all(one.shown() for one in lesson["students"]):
        watch(learners, 0.2)
    assert all(one.shown() for one in lesson["students"]), "an answer sent while the balancer was down was not shown"
    watch_until(learners, lambda one, s: s > starts[id(one)] + STEPS_PER_SECOND, "playing again after the restart")
    figures = {one.server: one.figures(m) for one, m in zip(learners, marks, strict=True)}
    FIGURES["HAProxy restarted"] = figures | {"hand-in waited s": _hand_ins(
        [one.handed[-1] for one in lesson["students"]])}
    counted(cluster, lesson, "HAProxy restarted")
    assert [one.server for one in learners] == servers  # the cookie brings each back to their process
    for one in learners:
        assert run_id(one.page) == one.run
        assert figures[one.server]["steps_taken_back"] <= SNAPSHOT_STEPS, figures


# NOTE: the cable test runs after the other faults: a page opened on the mended host afterwards sometimes does not
# show its live view for 90 s (open in the note; with the class's two learners on app2 after the cut,
# leastconn sends both new Playground learners to app1, so it happened in one run of two here).
def test_an_app_hosts_cable_pulled_sends_its_learners_to_the_other_host_from_their_snapshot(cluster, learners,
                                                                                            lesson):
    on_app1 = [one for one in learners if one.server == "s1"]
    assert on_app1, f"no learner on app1: {[one.server for one in learners]}"
    one = on_app1[0]
    mark, at_cut = len(one.trail), one.trail[-1][1]
    cluster.hosts.cut("app1")
    try:
        said = hand_in(lesson["students"], [one], "app1's cable pulled")  # one of them was on app1
        watch_until([one], lambda one, s: s >= 0 and one.server == "s2", "the learner moved to app2")
        watch_until([one], lambda one, s: s > at_cut + STEPS_PER_SECOND, "playing again on app2")
        resumed = one.trail[-1][1]
        counted(cluster, lesson, "app1's cable pulled")  # before the cable is mended: app1 keeps nothing they need
    finally:
        cluster.hosts.mend("app1")
    figures = one.figures(mark)
    FIGURES["app1's cable pulled"] = {"learner on app1": figures, "resumed at step": resumed, "cut at step": at_cut,
                                      "hand-in waited s": _hand_ins(said)}
    assert run_id(one.page) == one.run, "the run went on under another id"
    assert figures["steps_taken_back"] <= SNAPSHOT_STEPS, figures
    assert app_exception(one.page) is None
    until(lambda: healthy(cluster.app_url("app1")), "app1 answering again", DEADLINE)
    watch([one], 3.0)  # whatever app1 kept while it was cut off is written now: it must not replace newer answers
    counted(cluster, lesson, "app1's cable mended")


def test_the_teachers_dashboard_counts_every_answer_handed_in_during_the_faults(desk, cluster, lesson):
    """After the four faults: Ann hands in the right answer, Bob's last wrong one stands; the store keeps each one's
    last answer and the teacher's dashboard (through the balancer) counts them: b exact 1, wrong 1, pending 0."""
    ann, bob = lesson["students"]
    ann.type(2)
    until(ann.shown, "Ann's right answer checked", DEADLINE)
    counted(cluster, lesson, "after the faults")
    contexts: list = []
    try:
        teacher = fresh_context(desk, contexts).new_page()
        open_page(teacher, f"{cluster.url}/class?code={lesson['code']}&key={lesson['key']}", DEADLINE * 1000)
        read = """() => Object.fromEntries([...document.querySelectorAll('[data-testid="class-tensor"]')]
            .map((r) => [r.dataset.name, [+r.dataset.exact, +r.dataset.wrong, +r.dataset.pending]]))"""
        counts = settled(lambda: teacher.evaluate(read), lambda t: t.get("b") == [1, 1, 0], timeout=DEADLINE)
        assert counts["b"] == [1, 1, 0], counts
        assert teacher.locator('[data-testid="class-dashboard"]').get_attribute("data-learners") == "2"
        assert f"db = {bob.k} * dt1 * b" in teacher.locator('[data-testid="class-dashboard"]').inner_text()
    finally:
        for context in contexts:
            context.close()
    FIGURES["hand-ins"] = {one.name: one.handed for one in lesson["students"]}
