"""Autograd Explorer: the entry point that routes to the pages in pages/."""

from pathlib import Path

# NOTE: imported for its side effect. Plotly's validators pick pandas up from sys.modules; when two
# sessions build their first figure at once, one could see a half-imported pandas ("partially
# initialized module 'pandas' has no attribute 'Series"). Every session runs this file before its
# page, so importing pandas here, under Python's import lock, completes it before any page's figure.
import pandas  # noqa: F401
import streamlit as st

import autograd

# NOTE: app.py calls st.navigation, so Streamlit ignores pages/ as an old-style multipage folder
# (checked on 1.67.0: a fresh server's first request to /stepper or /playground shows only these
# titles; tests/browser/test_navigation_browser.py samples the sidebar to keep it so).
# The favicon is a local file: a Material page icon would make the browser fetch one from the internet.
FAVICON = str(Path(__file__).parent / "static" / "favicon.png")

PRESENTED = ("", "stepper")  # the url paths of the pages a lecture shows on a projector

autograd.tune_malloc()  # keeps freed NumPy buffers for reuse between training steps (see autograd/_memory.py)
st.set_page_config(page_title="Autograd Explorer", page_icon=FAVICON, layout="wide")

pages = [
    st.Page(
        "pages/explorer.py", title="Expression Explorer", icon=":material/functions:", default=True
    ),
    st.Page(
        "pages/stepper.py", title="Backward Stepper", icon=":material/step_over:", url_path="stepper"
    ),
    st.Page("pages/practice.py", title="Practice", icon=":material/edit_note:", url_path="practice"),
    st.Page(
        "pages/playground.py",
        title="Training Playground",
        icon=":material/model_training:",
        url_path="playground",
    ),
    st.Page("pages/optimiser_race.py", title="Optimiser race", icon=":material/speed:", url_path="optimiser_race"),
    st.Page("pages/depth_lab.py", title="Initialisation & depth", icon=":material/layers:", url_path="depth_lab"),
    st.Page("pages/class.py", title="Class", icon=":material/school:", url_path="class"),
]
page = st.navigation(pages, position="hidden")
# A lesson's pages open with the sidebar collapsed (only the page links are in it): at 1280x800 its 300 px
# left the graph 482 px wide (issue 29). Their sliders sit beside the editor, or in the Stepper's drawer.
if page.url_path in PRESENTED:
    st.set_page_config(initial_sidebar_state="collapsed")
# NOTE: the sidebar's links are drawn here rather than by Streamlit's own navigation menu, which
# .streamlit/config.toml switches off (client.showSidebarNavigation): on a fresh server's first
# request Streamlit's old pages/ mode fills that menu with file names for a moment (see
# components/common/entry.py); these links show the titles from the first paint.
with st.sidebar:
    for listed in pages:
        st.page_link(listed)
page.run()
