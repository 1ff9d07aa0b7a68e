"""The pages' way to evaluate a user's program: in the sandbox (server/sandbox.py), stopped when the
session that asked goes away or reruns.

    analysis = session.sandboxed(check.analyse_program, program)

One sandbox serves the whole server (its worker processes and its byte-bounded cache are shared
by every session, like ``st.cache_resource``). While a script waits for its evaluation it checks,
every 50 ms, what Streamlit would check at its next ``st.*`` call: a closed tab (the session is
stopped) or a rerun (a widget changed). Then it leaves the evaluation, raising Streamlit's own
stop or rerun exception exactly as an ``st.*`` call would; the sandbox kills the work once nobody
has waited for it for half a second (a rerun that wants the same program picks it up again).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import streamlit as st

from components.common.st_internals import (
    RerunException,
    Runtime,
    ScriptRequestType,
    StopException,
    expire_closed_sessions,
    get_script_run_ctx,
)
from explorer.program import errors
from explorer.words import markdown_safe
from server.sandbox import Limits, Sandbox, SandboxError

REAP_PERIOD = 15.0  # seconds between looks for closed sessions whose reconnect time (TTL) has passed


@st.cache_resource(show_spinner=False)
def sandbox() -> Sandbox:
    """The server's sandbox: two worker processes (this machine has two cores), started on first use.
    Starts the reaper of closed sessions too (see reap_closed_sessions)."""
    threading.Thread(target=reap_closed_sessions, name="session-reaper", daemon=True).start()
    return Sandbox(limits())


def limits() -> Limits:
    """The sandbox's limits; a server can set them with AUTOGRAD_SANDBOX_MEMORY_MB and
    AUTOGRAD_SANDBOX_CPU_SECONDS (the browser tests use a small memory limit)."""
    default = Limits()
    return replace(
        default,
        memory_mb=int(os.environ.get("AUTOGRAD_SANDBOX_MEMORY_MB", default.memory_mb)),
        cpu_seconds=float(os.environ.get("AUTOGRAD_SANDBOX_CPU_SECONDS", default.cpu_seconds)),
    )


def sandboxed(fn: Callable, *args: Any) -> Any:
    """``fn(*args)`` evaluated in the sandbox for this session (cached, limited, cancelled with the session)."""
    return sandbox().run(fn, *args, cancelled=_session_watcher())


def show_failure(exc: Exception, program: str = "", into=None) -> None:
    """The one way a page shows work that failed (a program's error, a sandbox limit, a busy server): its
    message, led by its line and column when it has them, never a traceback; with ``program``, the line with
    a caret under the column. ``into``: the container to write in (default: where the page is)."""
    message, caret = errors.error_report(program, exc)
    place = into if into is not None else st
    place.error(markdown_safe(message), icon=":material/error:")
    if caret and program:
        place.code(caret, language=None)


@contextlib.contextmanager
def failures_shown(program: str = "", *, stop: bool = False, into=None):
    """Runs a block of a page that evaluates in the sandbox: a failure in it is shown (show_failure) and the
    rest of the block is skipped; with ``stop`` the page's run ends there. Streamlit's own stop and rerun
    pass through (they are not Exceptions). Every sandboxed call a page makes is inside one of these."""
    try:
        yield
    except Exception as exc:  # noqa: BLE001 - whatever went wrong, the user gets words, not a traceback
        show_failure(exc, program, into)
        if stop:
            st.stop()


def message_only(body: Callable) -> Callable:
    """``body`` (a page's body or fragment) with an evaluation that did not finish shown as its message alone:
    a worker killed by any cause (the kernel's OOM killer's signal 9, a limit of memory, CPU or time) is an
    st.error saying so, never a traceback; what the page drew before it (the program's editor) stays."""

    @functools.wraps(body)
    def shown(*args: Any, **kwargs: Any) -> Any:
        try:
            return body(*args, **kwargs)
        except SandboxError as exc:
            show_failure(exc)
            return None

    return shown


def _session_watcher() -> Callable[[], bool] | None:
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None or ctx.script_requests is None:
        return None  # bare Python (a benchmark, a test): nothing can cancel
    requests, session_id = ctx.script_requests, ctx.session_id

    def cancelled() -> bool:
        # NOTE: the same check an st.* call makes (ScriptRunner._maybe_handle_execution_control_request):
        # a request taken here is acted on here, so a rerun is never lost.
        request = requests.on_scriptrunner_yield()
        if request is not None:
            if request.type == ScriptRequestType.RERUN:
                raise RerunException(request.rerun_data)
            raise StopException()
        return Runtime.exists() and not Runtime.instance().is_active_session(session_id)

    return cancelled


def reap_closed_sessions() -> None:
    """Forever: drops closed sessions once their reconnect time (``server.disconnectedSessionTTL``) is over.

    NOTE: Streamlit keeps a closed tab's session for reconnecting, in a TTL cache that only forgets
    an entry when it is next touched, so a closed session (its page's variables, results included,
    kept alive by its widget callbacks) stayed in memory until some other session connected: five
    closed tabs of 144 MB programs held +656 MB for good. Asking that cache to expire its entries
    every 15 s lets the memory go 2 to 2.25 minutes after the tab closed. This reaches into
    Streamlit 1.67's internals (components/common/st_internals.py); if they change, the reaper logs once and stops.
    One closed session can outlive this: the runtime's event loop keeps the last session it
    looked at in a local variable until it next looks at one (any tab's activity frees it).
    """
    while True:
        time.sleep(REAP_PERIOD)
        try:
            expired = expire_closed_sessions()
        except Exception as exc:  # noqa: BLE001 - another Streamlit: keep serving, say so once
            logging.getLogger(__name__).warning("closed sessions are not reaped: %r", exc)
            return
        if expired:
            gc.collect()  # a session is a web of objects that refer to each other
