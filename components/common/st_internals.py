"""Every private Streamlit name the app uses, imported here alone and checked at import against the pinned version.

    from components.common.st_internals import Runtime, get_script_run_ctx

Streamlit's public API does not offer what a few of the app's parts need: leaving a sandboxed evaluation
the way an st.* call leaves a script (components/common/session.py), knowing a fragment's rerun from a whole run
(components/graph_view), turning the old pages-folder mode off (components/common/entry.py), and letting closed
sessions go (session.py's reaper), plus two hidden config options (.streamlit/config.toml). These names can
change in any release, so requirements.txt pins Streamlit, and importing this module checks that each one is
there: a Streamlit without them stops the app at its first import with one message naming each missing
name, the installed version and the pinned one, instead of failing later somewhere inside a page.
"""

from __future__ import annotations

import dataclasses
from importlib import import_module

PINNED = "1.67.0"  # requirements.txt: the version these names were read from

#: (module, name): imported from Streamlit, re-exported here.
NAMES = (
    ("streamlit.runtime", "Runtime"),
    ("streamlit.runtime.scriptrunner_utils.exceptions", "RerunException"),
    ("streamlit.runtime.scriptrunner_utils.exceptions", "StopException"),
    ("streamlit.runtime.scriptrunner_utils.script_requests", "ScriptRequestType"),
    ("streamlit.runtime.scriptrunner_utils.script_requests", "ScriptRequests"),
    ("streamlit.runtime.scriptrunner_utils.script_requests", "ScriptRequest"),
    ("streamlit.runtime.scriptrunner_utils.script_run_context", "get_script_run_ctx"),
    ("streamlit.runtime.scriptrunner_utils.script_run_context", "ScriptRunContext"),
    ("streamlit.runtime.pages_manager", "PagesManager"),
    ("streamlit.runtime.websocket_session_manager", "WebsocketSessionManager"),
    ("streamlit.runtime.memory_session_storage", "MemorySessionStorage"),
)

#: (name above, attribute): what the app reads or calls on them (a dataclass's field counts).
ATTRIBUTES = (
    ("Runtime", "exists"),
    ("Runtime", "instance"),
    ("Runtime", "is_active_session"),
    ("ScriptRequestType", "RERUN"),
    ("ScriptRequests", "on_scriptrunner_yield"),
    ("ScriptRequest", "type"),
    ("ScriptRequest", "rerun_data"),
    ("ScriptRunContext", "script_requests"),
    ("ScriptRunContext", "session_id"),
    ("ScriptRunContext", "fragment_ids_this_run"),
    ("PagesManager", "uses_pages_directory"),
)

#: (name above, attribute its __init__ sets): the chain Runtime -> sessions -> their storage's TTL cache that
#: expire_closed_sessions walks (instance attributes: found among the names the constructor's code stores).
SET_IN_INIT = (
    ("Runtime", "_session_mgr"),
    ("WebsocketSessionManager", "_session_storage"),
    ("MemorySessionStorage", "_cache"),
)

#: Hidden config options .streamlit/config.toml sets (not in `streamlit config show`).
OPTIONS = ("global.maxCachedMessageAge", "runner.postScriptGC")


class StreamlitInternalsError(ImportError):
    """The installed Streamlit lacks names the app uses (see components/common/st_internals.py)."""


def _has(obj, attribute: str) -> bool:
    if hasattr(obj, attribute):
        return True
    return dataclasses.is_dataclass(obj) and attribute in {f.name for f in dataclasses.fields(obj)}


def _sets(cls, attribute: str) -> bool:
    init = getattr(cls, "__init__", None)
    return attribute in getattr(getattr(init, "__code__", None), "co_names", ())


def check() -> dict:
    """{name: object} for NAMES, once every name, attribute and option above is found in the installed Streamlit;
    raises StreamlitInternalsError naming each one missing, the installed version and the pinned one."""
    found: dict = {}
    missing: list[str] = []
    for module, name in NAMES:
        try:
            found[name] = getattr(import_module(module), name)
        except (ImportError, AttributeError):
            missing.append(f"{module}.{name}")
    for name, attribute in ATTRIBUTES:
        if name in found and not _has(found[name], attribute):
            missing.append(f"{name}.{attribute}")
    for name, attribute in SET_IN_INIT:
        if name in found and not _sets(found[name], attribute):
            missing.append(f"{name}().{attribute}")
    try:
        config = import_module("streamlit.config")
    except ImportError:
        config = None
    for option in OPTIONS:
        try:
            config.get_option(option)
        except Exception:  # noqa: BLE001 - RuntimeError for an unknown key, whatever else another version raises
            missing.append(f"config option {option}")
    if missing:
        try:
            installed = import_module("streamlit").__version__
        except (ImportError, AttributeError):
            installed = "(not importable)"
        raise StreamlitInternalsError(
            f"Streamlit {installed} is installed, but this app uses Streamlit internals read from "
            f"streamlit=={PINNED} (requirements.txt) that it lacks: {', '.join(missing)}. "
            f"Install streamlit=={PINNED} (pip install -r requirements.txt), or port components/common/st_internals.py "
            "to the new version.")
    return found


_found = check()
Runtime = _found["Runtime"]
RerunException = _found["RerunException"]
StopException = _found["StopException"]
ScriptRequestType = _found["ScriptRequestType"]
get_script_run_ctx = _found["get_script_run_ctx"]
PagesManager = _found["PagesManager"]


def in_fragment_rerun() -> bool:
    """Whether this script run is a fragment's rerun (a dragged slider's, a timer's), not a whole run of the page."""
    ctx = get_script_run_ctx(suppress_warning=True)
    return bool(ctx is not None and ctx.fragment_ids_this_run)


def expire_closed_sessions() -> int:
    """Asks the runtime's store of closed sessions to drop those whose reconnect time has passed (Streamlit forgets
    one only when it is next touched); how many it dropped. See session.reap_closed_sessions."""
    return len(Runtime.instance()._session_mgr._session_storage._cache.expire())
