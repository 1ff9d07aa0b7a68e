"""The server settings shipped in .streamlit/config.toml, which `streamlit run app.py` reads."""

import tomllib

from streamlit.testing.v1 import AppTest

from tests.support.helpers import ROOT

CONFIG = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())


def test_no_full_garbage_collection_after_every_rerun():
    # Streamlit's default gc.collect(2) after each (fragment) run froze eight playing learners.
    assert CONFIG["runner"]["postScriptGC"] is False


def test_the_server_stays_local_and_quiet():
    assert CONFIG["browser"]["gatherUsageStats"] is False
    assert CONFIG["server"]["headless"] is True


def test_the_toolbar_has_no_deploy_button():
    assert CONFIG["client"]["toolbarMode"] == "viewer"


def test_streamlits_own_page_menu_is_off_and_app_py_draws_the_links():
    # Streamlit's menu would show file names on a fresh server's first request (components/common/entry.py).
    assert CONFIG["client"]["showSidebarNavigation"] is False
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception
    assert [link.proto.label for link in at.sidebar.get("page_link")] == [
        "Expression Explorer", "Backward Stepper", "Practice", "Training Playground", "Optimiser race",
        "Initialisation & depth", "Class",
    ]


def test_an_upload_over_what_any_page_takes_is_refused_before_it_is_sent():
    # Streamlit holds an upload whole in the server's memory; its default lets one file be 200 MB.
    from explorer.playground import model_files

    limit = CONFIG["server"]["maxUploadSize"] * 1024 * 1024
    assert model_files.MAX_FILE_BYTES <= limit <= 16 * 1024 * 1024
