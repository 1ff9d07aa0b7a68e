"""What the Playground's learner is told of the run store: a warning while their run is not being saved (or the
link's run cannot be opened yet), and a timer that tries the store again until it works."""

from __future__ import annotations

import streamlit as st

from components.playground import settings_form as form
from explorer.playground.controller import RETRY_EVERY, Playground
from explorer.words import markdown_safe


def store_status(pg: Playground) -> None:
    """The store's words for this page, rerun every RETRY_EVERY seconds while playing (a tick's save may fail or
    work again) or while the store fails (then, paused, it tries the store itself: `Playground.retry_store`)."""
    every = RETRY_EVERY if pg.playing or pg.store_message else None

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
