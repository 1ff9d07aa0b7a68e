"""Hostile inputs in a real headless Chromium: crafted model files through the Playground's own file uploader,
and the issue's poke link on both program pages, each answered by a message (what is wrong, what is allowed),
never a traceback, the page usable after. The whole corpus runs through AppTest in tests/pages/test_hostile.py."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from tests.support import hostile_corpus as corpus

from .helpers import GRAPH, app_exception, click_button, open_page, wait_live_step
from .server import REPO_ROOT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

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
    wait_live_step(page, 1)
    assert app_exception(page) is None


@pytest.mark.parametrize("path", ["/", "/stepper"])
def test_the_issues_poke_link_says_what_is_allowed(page, app_url, path):
    query = urlencode({"program": corpus.MICROGRAD, "poke": "a=-1e308,b=1e308"})
    open_page(page, f"{app_url}{path}?{query}")
    warning = page.locator('[data-testid="stAlert"]').filter(has_text="a=-1e308")
    warning.first.wait_for(timeout=60_000)
    assert "from -1,000,000 to 1,000,000" in warning.first.inner_text()
    assert app_exception(page) is None


def test_the_server_serves_the_browser_code_and_none_of_its_python(page, app_url):
    """The components' code is served as one tree by URL: that tree is components/frontend/ (browser code only),
    so no link reaches the components' Python beside it or the server's, however it is spelled."""
    loaded: list[str] = []
    page.on("response", lambda r: loaded.append(r.url) if "/component/" in r.url and r.ok else None)
    open_page(page, app_url)
    page.locator(GRAPH).first.wait_for(timeout=60_000)
    entry = next(url for url in loaded if url.endswith("/graph_view/graph_view.js"))
    code = entry.removesuffix("graph_view/graph_view.js")  # the tree's URL, ".../component/<name>/"
    assert page.request.get(code + "web/format.js").ok, "the shared toolbox is served"
    # Each path, and the file it would be were it served (a URL with ".." is resolved by the client first; the
    # server answers a path it has no file for with the app's page, 200, which is not the file).
    for path, file in (("session.py", "components/common/session.py"),
                       ("graph_view/__init__.py", "components/graph_view/__init__.py"),
                       ("../common/session.py", "components/common/session.py"),
                       ("..%2fcommon%2fsession.py", "components/common/session.py"),
                       ("%2e%2e/common/assets.py", "components/common/assets.py"), ("../../app.py", "app.py"),
                       ("..%2f..%2fapp.py", "app.py"), ("../../server/sandbox.py", "server/sandbox.py")):
        response = page.request.get(code + path)
        head = (REPO_ROOT / file).read_text(encoding="utf-8")[:120]
        assert not (response.ok and head in response.text()), (path, response.status)
