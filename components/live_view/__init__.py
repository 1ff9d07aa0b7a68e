"""The Training Playground's live view: one `st.components.v2` component that draws every panel.

The server sends numbers (explorer/playground/controller.py `Playground.view_data`: a frame's weights,
metrics and layer health; the network's layout and the points on full page runs), and the
browser draws the boundary, the network with a picture in each neuron, the curves and the
gradient health from them, in place, in the active theme's colours. The wire format: PROTOCOL.md
beside the view in components/frontend/live_view/: static/live_view.js and a module per panel in static/panels/.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import streamlit as st

from components.common.assets import module_loader

# NOTE: a v2 component's inline JS travels with every update of the element (it is part of the
# element's message), and the view's code is ~60 KB: sent 5 times a second it was 90 % of the
# bytes. So the inline part is a loader of a few hundred bytes (components.common.assets.module_loader); the
# code itself is served as ES modules, fetched once per page: static/live_view.js and what it imports.
_component = st.components.v2.component(
    "components.live_view",
    js=module_loader("live_view/static/live_view.js"),
)


def live_view(data: dict, *, key: str, on_need: Callable[[], None], on_painted: Callable[[dict], None],
              on_graph: Callable[[bool], None]) -> None:
    """Show `data` in the live view mounted under `key`, updating it in place if it is there.
    `on_need` runs when the browser asks for the run's layout (it missed the message with it); `on_painted`
    with {run, step} when, paused, it shows an earlier step than the run's (the frames still on their way);
    `on_graph` with whether the step graph's panel is on screen, when that changes (PROTOCOL.md)."""

    def told(name: str):  # a trigger's value, in its callback
        return st.session_state[key].get(name)

    # NOTE: the data goes as its JSON's UTF-8 bytes (the view parses them): a dict Streamlit writes as JSON twice
    # (once with its keys sorted, for the element's identity) and hashes; bytes it only hashes. ~35 KB a second.
    payload = json.dumps(data, separators=(",", ":")).encode()
    _component(key=key, data=payload, on_need_change=on_need,
               on_painted_change=lambda: on_painted(told("painted")),
               on_graph_change=lambda: on_graph(told("graph") is not False))
