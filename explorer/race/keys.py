"""The optimiser race's session keys, declared once: see explorer/keys.py."""

from __future__ import annotations

SETUP = "race_setup"  # the race's setup.Setup
VERSION = "race_version"  # grows when the setup is set other than by a widget: the widgets are made anew
EDITOR = "race_program"  # the own program's text area
VIEW = "race_view"


def widget(name: str, version: int) -> str:
    """A setup widget, made anew (with the setup's value) each time VERSION grows."""
    return f"race_{name}_{version}"
