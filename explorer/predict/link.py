"""Predict in the Stepper's URL: ``&predict=on``, one Setting row read and written by the settings codec."""

from __future__ import annotations

from explorer.settings import Setting, read_query, settings_query

ROW = Setting(label="Predict", kind="select", choices=("on", "off"), name="predict",
              help="Before Next plays a backward step, say what each parent will receive: checked, then it plays.")
PARAM = ROW.name


class _On:
    def __init__(self, on: bool):
        self.predict = "on" if on else "off"


def from_link(params) -> tuple[bool | None, list[str]]:
    """(on, problems) from a link's parameters: None when the link does not say; what it got wrong, in words."""
    values, _, problems = read_query((ROW,), params, kept=lambda name: "off")
    if PARAM in values:
        return values[PARAM] == "on", problems
    return (False if problems else None), problems


def to_link(on: bool) -> dict[str, str]:
    """The URL's parameters for Predict: ``predict=on``, nothing when it is off."""
    return settings_query(_On(on), (ROW,)) if on else {}
