"""components/common/st_internals.py: the private Streamlit names the app uses are all in the installed Streamlit, a
Streamlit without one fails in that one place with a message naming it, and no other file of the app imports
Streamlit's internals."""

import re
from importlib import import_module
from types import SimpleNamespace

import pytest
import streamlit

from components.common import st_internals
from tests.support.helpers import ROOT


def test_every_internal_name_is_in_the_installed_streamlit():
    found = st_internals.check()
    assert set(found) == {name for _, name in st_internals.NAMES}
    from streamlit.runtime import Runtime

    assert st_internals.Runtime is Runtime, "Streamlit's own objects, re-exported"
    assert streamlit.__version__ == st_internals.PINNED, "the pin this module was read against"


def test_the_pin_is_requirements_txt_s():
    assert f"streamlit=={st_internals.PINNED}" in (ROOT / "requirements.txt").read_text().split()


def without(module: str, name: str):
    """A module lookup in which ``module`` lacks ``name`` (as a later Streamlit might)."""

    def lookup(wanted: str):
        real = import_module(wanted)
        if wanted != module:
            return real
        return SimpleNamespace(**{k: v for k, v in vars(real).items() if k != name})

    return lookup


def test_a_missing_name_is_one_clear_error_naming_it_and_the_versions(monkeypatch):
    monkeypatch.setattr(st_internals, "import_module", without("streamlit.runtime", "Runtime"))
    with pytest.raises(st_internals.StreamlitInternalsError) as raised:
        st_internals.check()
    message = str(raised.value)
    assert "streamlit.runtime.Runtime" in message
    assert f"Streamlit {streamlit.__version__} is installed" in message
    assert f"streamlit=={st_internals.PINNED}" in message and "components/common/st_internals.py" in message
    assert isinstance(raised.value, ImportError), "an import that fails, as a missing module would"


def test_a_missing_attribute_and_a_missing_option_are_named_too(monkeypatch):
    class PagesManager:  # a later Streamlit's, without the old pages-folder switch
        pass

    lookup = without("streamlit.runtime.pages_manager", "PagesManager")

    def patched(wanted: str):
        module = lookup(wanted)
        if wanted == "streamlit.runtime.pages_manager":
            module.PagesManager = PagesManager
        if wanted == "streamlit.config":
            def get_option(key):
                if key == "runner.postScriptGC":
                    raise RuntimeError(f'Config key "{key}" not defined.')
                return module.get_option(key)

            return SimpleNamespace(get_option=get_option)
        return module

    monkeypatch.setattr(st_internals, "import_module", patched)
    with pytest.raises(st_internals.StreamlitInternalsError) as raised:
        st_internals.check()
    message = str(raised.value)
    assert "PagesManager.uses_pages_directory" in message and "config option runner.postScriptGC" in message
    assert "Runtime" not in message.split("lacks:")[1], "only what is missing"


def test_a_private_attribute_a_constructor_no_longer_sets_is_named(monkeypatch):
    class MemorySessionStorage:
        def __init__(self):
            self._entries = {}  # renamed: the reaper's chain would break

    lookup = without("streamlit.runtime.memory_session_storage", "MemorySessionStorage")

    def patched(wanted: str):
        module = lookup(wanted)
        if wanted == "streamlit.runtime.memory_session_storage":
            module.MemorySessionStorage = MemorySessionStorage
        return module

    monkeypatch.setattr(st_internals, "import_module", patched)
    with pytest.raises(st_internals.StreamlitInternalsError, match=r"MemorySessionStorage\(\)\._cache"):
        st_internals.check()


INTERNAL = re.compile(r"^\s*(from|import)\s+streamlit\.(runtime|web|elements|proto)\b", re.M)


def test_no_other_file_of_the_app_touches_streamlit_s_internals():
    folders = ("pages", "components", "explorer", "server")
    files = [ROOT / "app.py", *(p for d in folders for p in (ROOT / d).rglob("*.py"))]
    private = re.compile(r"\._session_(mgr|storage)\b|\._cache\.expire")  # the reaper's chain, in st_internals only
    touching = [str(p.relative_to(ROOT)) for p in files if p.name != "st_internals.py"
                and (INTERNAL.search(text := p.read_text()) or private.search(text))]
    assert touching == []
