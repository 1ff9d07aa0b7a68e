"""Keep the Backward Stepper's active node in view: a tiny `st.components.v2` component.

The stepper draws its graph inside a scrolling container of fixed height. When the active node
moves, `follow_node.js` scrolls that container (never the page, so the buttons stay put) until
the node's box sits in its middle; a node already in view is left alone.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

_component = st.components.v2.component(
    "components.follow_node",
    js=(Path(__file__).parent / "follow_node.js").read_text(encoding="utf-8"),
)


def follow_node(container_key: str, node_id: int, *, key: str) -> None:
    """Scroll the container made with `st.container(key=container_key)` to node `node_id` of its graph."""
    _component(key=key, data={"scope": f".st-key-{container_key}", "title": f"n{node_id}"}, height=0)
