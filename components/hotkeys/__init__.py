"""Keyboard shortcuts for a page's buttons: a tiny `st.components.v2` component.

`hotkeys({"ArrowRight": "Next"})` makes → click the button labelled "Next" in the main area, if it
is enabled; see hotkeys.js for which key presses are left alone (typing, sliders, modifiers).
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

_component = st.components.v2.component(
    "components.hotkeys",
    js=(Path(__file__).parent / "hotkeys.js").read_text(encoding="utf-8"),
)


def hotkeys(keys: dict[str, str], *, key: str) -> None:
    """Map `KeyboardEvent.key` names to the labels of the buttons they press while this page is open."""
    _component(key=key, data={"keys": keys}, height=0)
