"""What the Playground's learner is told of the run store: a warning while their run is not being saved (or the
link's run cannot be opened yet), and a timer that tries the store again until it works."""

from __future__ import annotations

import streamlit as st

from components.playground import settings_form as form
from explorer.playground.controller import RETRY_EVERY, Playground
from explorer.words import markdown_safe


def store_status(pg: Playground) -> None:
    """The store's words for this page, rerun every RETRY_EVERY seconds while paused and the store fails (it tries the
    store itself: `Playground.retry_store`). NOTE: no timer while playing: each tick saves, and the live fragment
    reruns the page when the store's words change (components/playground/live.py), so a playing page costs the
    server one rerun a tick, not also one every RETRY_EVERY seconds."""
    every = RETRY_EVERY if pg.store_message and not pg.playing else None

    @st.fragment(run_every=every)
    def status() -> None:
        if not pg.playing and pg.retry_store():
            form.load(pg.config)  # another run now (the link's, opened at last): the widgets take its settings
            st.rerun(scope="app")
        if pg.notice:
            st.warning(markdown_safe(pg.notice), icon=":material/link_off:")
            pg.notice = None
        if pg.store_message:
            st.warning(markdown_safe(pg.store_message), icon=":material/cloud_off:")

    status()
