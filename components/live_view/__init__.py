"""The Training Playground's live view: one `st.components.v2` component that draws every panel.

The server sends numbers (explorer/playground.py `Playground.view_data`: a frame's weights,
metrics and layer health; the network's layout and the points on full page runs), and the
browser draws the boundary, the network with a picture in each neuron, the curves and the
gradient health from them, in place, in the active theme's colours. See live_view.js.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import streamlit as st

_HERE = Path(__file__).parent
# NOTE: live_math.js holds the pure functions (the network's forward pass, ticks, number formats);
# it goes first so that live_view.js, an ES module, sees them. The browser test loads it alone.
MATH_JS = (_HERE / "live_math.js").read_text(encoding="utf-8")

_component = st.components.v2.component(
    "components.live_view",
    js=MATH_JS + "\n" + (_HERE / "live_view.js").read_text(encoding="utf-8"),
)


def live_view(data: dict, *, key: str, on_need: Callable[[], None]) -> None:
    """Show `data` in the live view mounted under `key`, updating it in place if it is there.
    `on_need` runs when the browser asks for the run's layout (it missed the message with it)."""
    _component(key=key, data=data, on_need_change=on_need)
