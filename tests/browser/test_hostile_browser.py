"""Hostile inputs in a real headless Chromium: crafted model files through the Playground's own file uploader,
and the issue's poke link on both program pages, each answered by a message (what is wrong, what is allowed),
never a traceback, the page usable after. The whole corpus runs through AppTest in tests/test_hostile.py."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from tests import hostile_corpus as corpus

from .helpers import app_exception, click_button, open_page
from .test_playground_browser import _wait_step

pytestmark = pytest.mark.browser

LV = '[data-testid="live-view"]'
UPLOADED = ("forged-shape.npz", "zip-bomb.npz", "pickled-object-array.npz", "labels-200000.json",
            "labels-negative.json", "truncated.npz")


def test_hostile_model_files_through_the_real_uploader_are_refused_with_their_reason(page, app_url, tmp_path):
    open_page(page, f"{app_url}/playground")
    page.locator(LV).wait_for()
    page.get_by_text("Weights and data").click()
    uploader = page.locator(".st-key-pg_model_file input[type=file]")
    files = {name: (data, says) for name, data, says in corpus.files() if name in UPLOADED}
    assert len(files) == len(UPLOADED)
    for name, (data, says) in files.items():
        path = tmp_path / name
        path.write_bytes(data)
        uploader.set_input_files(str(path))
        error = page.locator('[data-testid="stExpander"] [data-testid="stAlert"]').filter(has_text=name)
        error.wait_for(timeout=60_000)
        text = error.inner_text()
        assert says in text.replace("\\", ""), (name, text)
        assert app_exception(page) is None and "Traceback" not in text, name
    click_button(page, "Step")  # the page is usable: the run the uploads left alone trains on
    _wait_step(page, 1)
    assert app_exception(page) is None


@pytest.mark.parametrize("path", ["/", "/stepper"])
def test_the_issues_poke_link_says_what_is_allowed(page, app_url, path):
    query = urlencode({"program": corpus.MICROGRAD, "poke": "a=-1e308,b=1e308"})
    open_page(page, f"{app_url}{path}?{query}")
    warning = page.locator('[data-testid="stAlert"]').filter(has_text="a=-1e308")
    warning.first.wait_for(timeout=60_000)
    assert "from -1,000,000 to 1,000,000" in warning.first.inner_text()
    assert app_exception(page) is None
