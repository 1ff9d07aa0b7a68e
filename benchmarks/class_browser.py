"""benchmarks/class_load.py --browsers N: a class in real headless Chromium through the balancer, measured.

    python benchmarks/class_load.py --browsers 30            # 30 learners, 2 processes behind HAProxy, SQLite

Two Streamlit processes behind HAProxy (deploy/classroom.py: cookie stickiness) share one run store (a SQLite
file here, or --store). The class is opened and its practice exercise posted through the store; the teacher's
dashboard is open in a browser context of its own (its fragment reads the class every 1.5 s); N learners, each a
context of one Chromium (its own cookies: its own learner), join through the Class page and open the exercise
from it. Then:
1. burst: every learner hands in a wrong answer at once (Ctrl+Enter in the Practice page's editor);
2. spread: each hands in the right answer, one after another over --seconds.
Printed: page response (Ctrl+Enter to the page showing that answer's verdict, handed in) p50/p95/max for each
phase; hand-in to dashboard staleness (from a page showing its right answer to the teacher's page counting it:
the dashboard's exact count for b reaching that hand-in's rank) p50/p95/max; the pages that never showed their last
answer checked (within 300 s); each server process's CPU (% of one
core) over the spread phase; how the learners spread over the processes; the load average (the machine is shared:
rerun on a quiet one for a figure to quote).

Every learner whose last answer never showed (or showed and was then lost) is listed, each with what its page shows
(the editor's last line, its version and texts sent, the URL's answer, the verdict, Streamlit's status), what the
store keeps for them, and what its browser said: console errors and warnings, failed requests, closed websockets,
with the time since the start. A learner that could not join is listed with why, and the others go on.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
import urllib.parse

from benchmarks import load as base
from deploy.classroom import Classroom, free_ports
from explorer.classes import room
from server.run_store import open_store
from tests.browser.server import launch_chromium

PROGRAM = "b = tensor([1.0, 2.0])\nloss = (b * b).sum()"
EDITOR = ".st-key-practice_editor textarea"
VERDICT_JS = """() => {
  const row = document.querySelector('[data-testid="practice-row"][data-name="b"]');
  const said = [...document.querySelectorAll('[data-testid="stCaptionContainer"]')]
    .some((c) => c.innerText.startsWith("Handed in to"));
  return row && said ? row.dataset.maxdiff : null;
}"""
STATE_JS = """() => {
  const box = document.querySelector('textarea[data-testid="practice-editor"]');
  const row = document.querySelector('[data-testid="practice-row"][data-name="b"]');
  const status = document.querySelector('[data-testid="stStatusWidget"]');
  const said = [...document.querySelectorAll('[data-testid="stCaptionContainer"]')].map((c) => c.innerText)
    .filter((t) => t.startsWith("Handed in") || t.startsWith("Your answers wait"));
  return {editor: box ? box.value.split("\\n").pop() : null, version: box && box.dataset.version,
          sent: box && box.dataset.sent, url: (new URLSearchParams(location.search).get("answers") || "")
          .split("\\n").pop(), verdict: row && row.dataset.verdict, maxdiff: row && row.dataset.maxdiff,
          said, status: status ? status.innerText : ""};
}"""
COUNTS_JS = """() => {
  const row = document.querySelector('[data-testid="class-tensor"][data-name="b"]');
  return row ? [+row.dataset.exact, +row.dataset.wrong] : null;
}"""


def answer(k: int) -> str:
    return f"dloss = ones(loss.shape)\ndt1 = dloss * ones(t1.shape)\ndb = {k} * dt1 * b"


def _pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def _figures(values: list[float]) -> str:
    if not values:
        return "none"
    return (f"p50 {statistics.median(values) * 1000:.0f} ms, p95 {_pct(values, 0.95) * 1000:.0f} ms, "
            f"max {max(values) * 1000:.0f} ms (n={len(values)})")


class Learner:
    def __init__(self, browser, url: str, code: str, name: str, t0: float):
        self.name, self.t0 = name, t0
        self.said: list[str] = []  # what the browser said: console errors, failed requests, closed websockets
        self.context = browser.new_context(viewport={"width": 1280, "height": 800})
        self.page = self.context.new_page()
        self.page.on("console", lambda m: m.type in ("error", "warning") and self._note(f"console {m.type}: {m.text}"))
        self.page.on("pageerror", lambda err: self._note(f"page error: {err}"))
        self.page.on("requestfailed", lambda r: self._note(f"request failed: {r.url[:80]} ({r.failure})"))
        self.page.on("websocket", lambda ws: ws.on("close", lambda *_: self._note(f"websocket closed: {ws.url[:60]}")))
        self.page.goto(f"{url}/class?{urllib.parse.urlencode({'code': code})}", timeout=120_000)
        self.page.get_by_label("Your name, as the teacher will see it (a pseudonym is fine)").fill(name)
        self.page.get_by_role("button", name="Join", exact=True).click()
        link = self.page.get_by_role("link", name="Open the exercise")
        link.wait_for(timeout=120_000)
        self.page.goto(link.get_attribute("href"), timeout=120_000)
        self.page.locator(EDITOR).wait_for(timeout=120_000)
        self.sent_at = self.shown_at = None
        self.k = None

    def _note(self, what: str) -> None:
        self.said.append(f"{time.monotonic() - self.t0:.1f} s {what[:240]}")

    def state(self) -> dict:
        """What the page shows now (STATE_JS), or why it could not be read."""
        try:
            return self.page.evaluate(STATE_JS)
        except Exception as err:  # noqa: BLE001 - a page that died is reported, not raised
            return {"unreadable": str(err)[:200]}

    @property
    def server(self) -> str:
        return {c["name"]: c["value"] for c in self.context.cookies()}.get("SERVERID", "")

    def send(self, k: int) -> None:
        self.k, self.sent_at, self.shown_at = k, time.monotonic(), None
        box = self.page.locator(EDITOR)
        box.fill(answer(k))
        box.press("Control+Enter")

    def shows(self) -> bool:
        """Whether the page shows its last answer's verdict, handed in."""
        try:
            shown = self.page.evaluate(VERDICT_JS)
        except Exception:  # noqa: BLE001 - a page that died shows nothing
            return False
        return shown is not None and abs(float(shown) - abs(self.k - 2) * 2.0) < 1e-9

    def poll(self) -> bool:
        if self.shown_at is None and self.shows():
            self.shown_at = time.monotonic()
        return self.shown_at is not None


def _join(browser, url: str, code: str, name: str, t0: float, failed: list) -> Learner | None:
    try:
        return Learner(browser, url, code, name, t0)
    except Exception as err:  # noqa: BLE001 - one learner that cannot join is reported; the others go on
        failed.append((name, str(err).splitlines()[0][:200]))
        return None


def _stored(store, info) -> dict[str, str]:
    """Each learner's answer for b as the store keeps it (the last line and its verdict), by display name."""
    try:
        work = room.work_of(store, info)
        names = {one.learner: one.name for one in room.learners(store, info, work, {})}
    except Exception as err:  # noqa: BLE001 - the report says it could not read the store
        return {"?": f"the store could not be read: {err}"}
    out = {}
    for key, record in work.items():
        row = (record.get("rows") or {}).get("b") or {}
        last = ((row.get("answer") or "").splitlines() or [""])[-1]
        out[names.get(key, key)] = f"{last!r} ({row.get('verdict')}, version {record.get('v')})"
    return out


def _report(learners: list[Learner], store, info) -> list[str]:
    """A line per learner whose last answer is not shown now (never shown, or shown and then lost)."""
    stored = _stored(store, info)
    lines = []
    for one in learners:
        if one.shows():
            continue
        what = "never showed" if one.shown_at is None else "showed, then was lost"
        lines.append(f"  {one.name} (process {one.server or '?'}): its answer {what}; the page: {one.state()}; "
                     f"the store: {stored.get(one.name, 'nothing')}; the browser said: "
                     f"{one.said[-8:] if one.said else 'nothing'}")
    return lines


def _wait_all(learners: list[Learner], teacher, limit: float, samples: list) -> None:
    end = time.monotonic() + limit
    while time.monotonic() < end and not all(one.poll() for one in learners):
        teacher.wait_for_timeout(100)
        samples.append((time.monotonic(), teacher.evaluate(COUNTS_JS)))


def run(args) -> None:
    folder = tempfile.mkdtemp(prefix="class-browser-")
    where = args.store or f"sqlite:///{folder}/runs.sqlite3"
    store = open_store(where)
    made = room.open_class(store, "Through the balancer")
    info = room.find(store, made.code, who="bench")
    room.post(store, info, room.Post("practice", "The square", program=PROGRAM))
    port, *backends = free_ports(3)
    classroom = Classroom(processes=2, port=port, host="127.0.0.1", backend_ports=backends,
                          env={"AUTOGRAD_EXPLORER_RUNS": where}, restart=False, log_dir=folder)
    classroom.start()
    from playwright.sync_api import sync_playwright

    try:
        with tempfile.TemporaryDirectory() as profile, sync_playwright() as playwright:
            browser = launch_chromium(playwright, profile)
            teacher = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
            teacher.goto(f"{classroom.url}/class?{urllib.parse.urlencode({'code': made.code, 'key': made.key})}",
                         timeout=120_000)
            t0 = time.monotonic()
            not_joined: list = []
            learners = [one for i in range(args.browsers)
                        if (one := _join(browser, classroom.url, made.code, f"L{i:02d}", t0, not_joined))]
            joined = time.monotonic() - t0
            samples: list = []
            for one in learners:  # 1. the burst: everyone at once, a wrong answer
                one.send(3)
            _wait_all(learners, teacher, 300, samples)
            burst = [one.shown_at - one.sent_at for one in learners if one.shown_at is not None]
            lost_in_burst = _report(learners, store, info)
            trees = [base.Tree(p.pid) for p in classroom.streamlits]
            cpu0, w0 = [t.cpu_seconds() for t in trees], time.monotonic()
            gap = args.seconds / max(1, len(learners))
            for i, one in enumerate(learners):  # 2. spread: one right answer every `gap` seconds
                one.send(2)
                due = w0 + (i + 1) * gap
                while time.monotonic() < due:
                    teacher.wait_for_timeout(100)
                    samples.append((time.monotonic(), teacher.evaluate(COUNTS_JS)))
                    for other in learners[:i + 1]:
                        other.poll()
            _wait_all(learners, teacher, 300, samples)
            wall = time.monotonic() - w0
            cpu = [round(100 * (t.cpu_seconds() - c) / wall, 1) for t, c in zip(trees, cpu0, strict=True)]
            spread = [one.shown_at - one.sent_at for one in learners if one.shown_at is not None]
            end = time.monotonic() + 30  # the dashboard counts the last ones
            while time.monotonic() < end and (samples[-1][1] or [0])[0] < len(learners):
                teacher.wait_for_timeout(100)
                samples.append((time.monotonic(), teacher.evaluate(COUNTS_JS)))
            shown = sorted(one.shown_at for one in learners if one.shown_at is not None)
            stale = []
            for rank, at in enumerate(shown, 1):
                counted = next((t for t, c in samples if c and c[0] >= rank and t >= at), None)
                if counted is not None:
                    stale.append(counted - at)
            servers = [one.server for one in learners]
            lost = _report(learners, store, info)
            browser.close()
    finally:
        classroom.stop()
    print(f"$ python benchmarks/class_load.py --browsers {args.browsers} --seconds {args.seconds:g} "
          f"--store {where.split(':')[0]}")
    print(f"load average at the end: {[round(x, 1) for x in os.getloadavg()]}")
    print(f"learners joined and on the exercise: {len(learners)} in {joined:.0f} s; per process: "
          f"{ {s: servers.count(s) for s in sorted(set(servers))} }")
    print(f"page response, all at once: {_figures(burst)}")
    print(f"page response, spread over {args.seconds:g} s: {_figures(spread)}")
    print(f"hand-in to dashboard staleness: {_figures(stale)}; counted on the dashboard: "
          f"{(samples[-1][1] or [0, 0])[0]} of {len(learners)}")
    print(f"learners that could not join: {not_joined or 'none'}")
    print(f"pages not showing their wrong answer checked after the burst: {len(lost_in_burst) or 'none'}")
    for line in lost_in_burst:
        print(line)
    print(f"pages not showing their last answer checked at the end: {len(lost) or 'none'}")
    for line in lost:
        print(line)
    print(f"server CPU over the spread phase (% of one core, each process): {cpu}")
