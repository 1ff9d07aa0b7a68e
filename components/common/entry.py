"""Every page runs inside app.py's st.navigation, even on a fresh server's very first request."""

from __future__ import annotations

import streamlit as st

from components.common.st_internals import PagesManager


def through_app() -> None:
    """Hand a page that Streamlit ran on its own over to app.py; a no-op once app.py has run.

    NOTE: Streamlit 1.67 decides once per process, at its first session, whether the app uses the old
    `pages/` folder mode: a `pages/` folder beside the entry point says yes until a script calls
    st.navigation. So the very first request of a fresh server to /stepper runs pages/stepper.py
    directly, without app.py (no page config, file names in the sidebar), and a first request to a
    URL without such a file gets a "Page not found" dialog. Each page is named by its URL path, so
    that first request finds its file, and calls this first: it turns the old mode off, as
    st.navigation would have, and reruns, which runs app.py for the same URL (page hashes come
    from the URL path alone, so the rerun lands on the same page).
    """
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()
