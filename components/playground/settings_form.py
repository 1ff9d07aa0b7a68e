"""The Training Playground's sidebar widgets, made from its settings table.

Each `Setting` of explorer/playground/settings.py becomes one widget under the key `pg_<name>`
with its label, range or choices, format and help; `read` turns the widgets back into a
`TrainConfig`. `keep` and `restore` carry the widgets' values across the other pages.
"""

from __future__ import annotations

import streamlit as st

from explorer import keys as page_keys
from explorer.playground import datasets, keys
from explorer.playground.keys import setting as key
from explorer.playground.settings import DEFAULT_VALUES, SETTINGS, SLOW_MOTION, TrainConfig
from explorer.settings import Setting

ss = st.session_state
def _to_widget(s: Setting, value):
    if s.name == "hidden":
        return ", ".join(str(w) for w in value)
    return list(value) if s.kind == "multiselect" else value


def load(config: TrainConfig) -> None:
    """Set every widget to the config's value (before the widgets are drawn)."""
    for s in SETTINGS:
        ss[key(s.name)] = _to_widget(s, getattr(config, s.name))
        if callable(s.choices):
            ss[keys.choices_for(s.name)] = config.task


def keep() -> None:
    # NOTE: Streamlit deletes a widget's state when a run does not draw the widget, as happens on
    # every other page; a copy under another name brings the settings back when the user returns.
    for s in SETTINGS:
        if key(s.name) in ss:
            ss[page_keys.kept(key(s.name))] = ss[key(s.name)]


def restore() -> None:
    for s in SETTINGS:
        if key(s.name) not in ss and page_keys.kept(key(s.name)) in ss:
            ss[key(s.name)] = ss[page_keys.kept(key(s.name))]


def _format(s: Setting, upload_label: str):
    if s.name == "batch_size":
        return lambda b: "full" if b == 0 else str(b)
    if s.name == "speed":
        return lambda v: f"{v} (slow motion)" if v <= SLOW_MOTION else str(v)
    if s.name == "dataset":
        return lambda n: f"{n} ({datasets.task_of(n)})" if n in datasets.DATASETS else upload_label
    return lambda v: f"{v:g}" if isinstance(v, float) else str(v)


def draw(section: str, task: str, *, upload_label: str = "", disabled: tuple[str, ...] = ()) -> None:
    """The widgets of one section, for data of this task (some choices depend on it); with an
    `upload_label` the data sets include the uploaded points, shown under that label."""
    for s in SETTINGS:
        if s.section != section:
            continue
        k = key(s.name)
        options = s.options(task) + ((datasets.UPLOADED,) if s.name == "dataset" and upload_label else ())
        if callable(s.choices) and ss.get(keys.choices_for(s.name)) != task:
            # NOTE: a setting whose choices depend on the task starts from its default for a new task.
            default = DEFAULT_VALUES[s.name]
            fits = all(v in options for v in (default if s.kind == "multiselect" else [default]))
            ss[k] = _to_widget(s, default if fits else options[0])
            ss[keys.choices_for(s.name)] = task
        if options and s.kind in ("select", "select_slider") and ss.get(k) not in options:
            ss[k] = options[0]
        widget(s, options, _format(s, upload_label), key=k, disabled=s.name in disabled)


def widget(s: Setting, options: tuple, format_func=str, **common) -> None:
    """The one widget of a setting (its kind, label, range or choices, help), under `common`'s key."""
    common["help"] = s.help or None
    if s.kind == "select":
        st.selectbox(s.label, options, format_func=format_func, **common)
    elif s.kind == "select_slider":
        st.select_slider(s.label, options, format_func=format_func, **common)
    elif s.kind == "multiselect":
        st.multiselect(s.label, options, **common)
    elif s.kind == "slider":
        st.slider(s.label, s.lo, s.hi, step=s.step, format=s.fmt, **common)
    elif s.kind == "number":
        st.number_input(s.label, s.lo, s.hi, step=s.step, **common)
    else:
        st.text_input(s.label, **common)


def read(task: str) -> TrainConfig:
    """The widgets' settings as a config; ValueError says what is wrong (a typo in the widths)."""
    values = {}
    for s in SETTINGS:
        value = ss[key(s.name)]
        if s.kind == "text":
            value = s.parse(value)  # the widths as typed: read as a link's text is
        elif s.kind == "multiselect":
            value = tuple(value)
        values[s.name] = value
    if values["dataset"] == datasets.UPLOADED:
        values["task"] = task
    return TrainConfig(**values)
