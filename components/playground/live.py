"""The Playground's live fragment: one tick of the run (explorer/playground/controller.py `Playground.tick`) and its
frames in the live view. While playing it is the page's only timer (every `Playground.interval`), so each rerun does
the tick and one message, and reruns the whole page only when something outside the live view must change."""

from __future__ import annotations

import streamlit as st

from components.live_view import live_view
from explorer.playground import keys
from explorer.playground.controller import Playground

ss = st.session_state


def live(pg: Playground) -> None:
    """The body of the page's live fragment."""
    if pg.settled:  # Pause went back to the step on screen: the downloads' names and the step graph follow
        pg.settled = False
        st.rerun(scope="app")
    was_playing, words = pg.playing, pg.store_message
    frames = pg.tick()
    if st.query_params.get("run") != pg.run_id:  # the run went on under a new id (server/run_store.py)
        st.query_params["run"] = pg.run_id
    # NOTE: diverged: the timer stops and the page says why. The store's words changed (a tick's save failed, or
    # worked again): the page's warning follows (components/playground/store_status.py has no timer while playing).
    if (was_playing and not pg.playing) or pg.store_message != words:
        st.rerun(scope="app")
    data = pg.view_data(frames, full=ss.pop(keys.FULL, False), replay=ss.get(keys.REPLAY) and not pg.playing,
                        graph=ss[keys.GRAPH])
    live_view(data, key=keys.VIEW, on_need=lambda: ss.update({keys.FULL: True}), on_painted=pg.settle_told,
              on_graph=lambda seen: setattr(pg, "graph_seen", seen))
