"""Hostile links against a real server: a program over the memory limit gets a clear message and the
server stays up; closing a tab kills the evaluation it was waiting for; the 1,100-input program's
check stops at its budget and says how far it got; a program too long for a link stays out of it.

The server here runs with a 160 MB memory limit per evaluation (AUTOGRAD_SANDBOX_MEMORY_MB), so a
program the language accepts is over it however well the language predicts sizes; psutil reads the
server's process tree.
"""

from __future__ import annotations

import os
import time
import urllib.parse
import urllib.request
from pathlib import Path

import psutil
import pytest

from benchmarks.load import many_inputs_program
from server.sandbox import IDLE_NAME

from .helpers import APP, app_exception, main_text, open_page, wait_for_idle, wait_for_text
from .server import start_streamlit

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# 8 million numbers and their grads (and the Stepper's record of 7 steps): inside every limit the language
# predicts (measured: it accepts this for both pages), over the 160 MB a worker may use here.
OVER_LIMIT = "x = randn(1000, 1000)\ny = (x * x * x * x * x * x * x).sum()"
ALERT = '[data-testid="stAlert"]'
# ~4 s of CPU in one worker (evaluate and to_python each do 1e9 multiply-adds, backward 2e9) and none of
# it bound by the wall clock, as the gradient check is: closing the tab is what must stop it.
CPU_BOUND = "W = randn(1000, 1000)\nx = randn(1000, 1000)\ny = (W @ x).sum()"
#: The tasks the pages give the sandbox, by function name (a worker's process name while it runs one, cut to the
#: 15 bytes Linux keeps of a process name).
TASKS = tuple(name[:15] for name in (
    "explorer_run", "stepper_run", "step_program", "analyse_program", "inspect_node", "node_jacobian", "element_of",
    "drag_run", "stepper_drag_run", "step_jacobians", "sliders", "curve", "surface", "to_svg", "program_cost",
    "lab_cost", "lab_counts"))


def server_with(artifacts, **env: str):
    """A Streamlit server started with these environment variables (the rest of the suite's left as they were)."""
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        return start_streamlit("app.py", log_dir=artifacts)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name)
            else:
                os.environ[name] = value


@pytest.fixture(scope="module")
def small_server(artifacts):
    server = server_with(artifacts, AUTOGRAD_SANDBOX_MEMORY_MB="160")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def patient_server(artifacts):
    """A server whose gradient check may take 20 s (and an evaluation 60 s of CPU), with the default memory limit:
    a page load's evaluation of CPU_BOUND then runs for ~15 s, far longer than a closed tab takes to be noticed,
    and no limit ends it first. (On the small server it ran into its 160 MB now and then, ending as an error
    with the worker idle: the test failed in 2 of 4 CI runs, and once more with the 20-s check.)"""
    server = server_with(artifacts, AUTOGRAD_CHECK_SECONDS="20", AUTOGRAD_SANDBOX_CPU_SECONDS="60")
    yield server
    server.stop()


def link(server, path: str, program: str) -> str:
    return f"{server.url}{path}?{urllib.parse.urlencode({'program': program})}"


def tree(server) -> list[psutil.Process]:
    root = psutil.Process(server.process.pid)
    return [root, *root.children(recursive=True)]


def rss(server) -> int:
    return sum(p.memory_info().rss for p in tree(server))


def healthy(server) -> bool:
    with urllib.request.urlopen(f"{server.url}/_stcore/health", timeout=10) as response:
        return response.status == 200


def wait_until(condition, timeout: float = 20.0, period: float = 0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(period)
    return condition()


def workers(server) -> list[psutil.Process]:
    return psutil.Process(server.process.pid).children(recursive=True)


def task_of(process: psutil.Process) -> str:
    """What a sandbox worker is doing: the task's function while it runs one (server/sandbox.py names the
    process after it), else ``sandbox-idle``; '' for a process that has gone."""
    try:
        return Path(f"/proc/{process.pid}/comm").read_text().strip()
    except OSError:
        return ""


def idle_workers(server, timeout: float = 60.0) -> list[psutil.Process]:
    """The server's sandbox workers once every one is idle (started and waiting for a task)."""

    def idle():
        found = [p for p in workers(server) if task_of(p) in (IDLE_NAME, *TASKS)]
        return found if found and all(task_of(p) == IDLE_NAME for p in found) else None

    return wait_until(idle, timeout)


def stopped(process: psutil.Process) -> bool:
    """The process has exited (or is a zombie its parent has not reaped yet)."""
    try:
        return not process.is_running() or process.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:  # it exited between the two questions (seen once in CI)
        return True


def worker_in(server, task: str, timeout: float = 60.0) -> psutil.Process | None:
    """A worker running ``task`` (a function's name).

    NOTE: a page load asks for one evaluation of its program (explorer_run: evaluated, differentiated, then its
    gradient check for up to 3 s), then the pictures on demand. A tab closed while a short one is in flight
    leaves nothing to kill (it ends within the sandbox's grace); one in the check has seconds of it left.
    Its name says so whatever the machine's load (a share of a core, measured before, did not:
    with the cores loaded no worker reached it).
    """

    def find():
        return next((p for p in workers(server) if task_of(p) == task), None)

    return wait_until(find, timeout, period=0.02)


@pytest.mark.parametrize("path", ["/", "/stepper"])
def test_a_program_over_the_memory_limit_gets_a_clear_message_and_the_server_stays_up(page, small_server, path):
    start = rss(small_server)
    open_page(page, link(small_server, path, OVER_LIMIT), timeout=60_000)
    wait_for_text(page, "160 MB", timeout=60_000)
    alert = page.locator(ALERT).first.inner_text()
    assert "memory" in alert and "160 MB" in alert and "smaller" in alert, alert
    assert app_exception(page) is None, "a limit is a message, never a traceback"
    assert healthy(small_server)
    assert rss(small_server) - start < 1024**3
    # The page still works: the next program runs.
    page.goto(link(small_server, path, "a = 2.0\nb = a * 3"), wait_until="domcontentloaded")
    wait_for_idle(page, 60_000)
    assert "memory" not in main_text(page)


def test_closing_the_tab_kills_the_evaluation_it_was_waiting_for(browser, page, patient_server):
    open_page(page, link(patient_server, "/", "a = 1.0\nb = a * 2"))  # the sandbox and its workers are up
    assert idle_workers(patient_server), "the server has its worker processes, idle"
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    tab = context.new_page()
    tab.goto(link(patient_server, "/", CPU_BOUND), wait_until="domcontentloaded")
    worker = worker_in(patient_server, "explorer_run")
    assert worker is not None, "the program's check is evaluated in a worker process of the server"
    found = time.monotonic()
    context.close()
    closed = time.monotonic()
    seen = []  # (seconds since the close, the worker's task): what the failure message shows

    def over():
        seen.append((round(time.monotonic() - closed, 2), "stopped" if stopped(worker) else task_of(worker)))
        return seen[-1][1] != "explorer_run"

    # NOTE: the evaluation has ~15 s of check left; stopped within 10 s of the close, it was killed, not finished
    assert wait_until(over, timeout=10)
    timeline = f"closed {closed - found:.2f} s after the worker was found; then {seen[:3]} … {seen[-3:]}"
    assert stopped(worker), f"nobody waits for the evaluation: its worker is stopped, not left to finish ({timeline})"
    assert healthy(patient_server)


def test_the_1100_input_program_answers_with_a_partial_check(page, small_server):
    text = many_inputs_program(tag="partial check")
    open_page(page, link(small_server, "/", text), timeout=90_000)
    wait_for_text(page, "budget", timeout=90_000)
    shown = main_text(page)
    # How many inputs fit in 3 s depends on the machine (none if one evaluation takes over 1.5 s).
    partial = "Checked " in shown and " of 1,091 inputs in " in shown and "marked 'not checked'" in shown
    assert partial or "No input was checked" in shown, shown
    assert app_exception(page) is None


def test_a_program_too_long_for_a_link_stays_out_of_the_address(page, small_server):
    open_page(page, link(small_server, "/", "a = 1.0\nb = a * 2"))
    editor = page.locator(".st-key-explorer_editor textarea")
    editor.fill("a = 2.0\n#" + "😀" * 9_990)
    editor.press("Control+Enter")
    wait_for_text(page, "too long for a link", timeout=60_000)
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)
    assert query["program"] == ["a = 1.0\nb = a * 2"], "the address keeps the last program that fitted"
    assert page.locator(APP).count() == 1 and app_exception(page) is None
