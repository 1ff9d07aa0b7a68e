"""Settings declared once, as `Setting` rows, and the one codec that reads and writes them in a URL.

A page's settings are a frozen dataclass whose fields are declared with `setting(...)` (TensorFlow Playground's
`State` idea): label, widget, range, how a value is written as text. From those rows come the widgets, the link
(`settings_query` writes it, `read_query` reads it: a value past its range is clamped, one that cannot be read is
refused, and each is said in words), and what a change restarts. The Playground (explorer/playground/settings.py),
the depth lab (explorer/depth_lab/lab.py) and the optimiser race (explorer/race/setup.py) each declare theirs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from explorer.numbers import number_from_link
from explorer.words import clip_text


class PartlyRead(ValueError):
    """What `Setting.reads` raises for a link's text with parts it cannot read: ``value`` is what could be read (the
    codec uses it; None if nothing could) and ``problems`` what could not, each in words (the codec says each)."""

    def __init__(self, value, problems: list[str]):
        super().__init__("; ".join(problems))
        self.value, self.problems = value, list(problems)


@dataclass(frozen=True)
class Setting:
    """One setting: how it is shown, which values it takes, how it reads and writes the URL.

    kind: the widget: "select", "slider", "select_slider", "number", "text" or "multiselect".
    choices: the allowed values (or a function of the task, for settings that depend on it).
    lo, hi, step: the range of a slider or number box; URL values are clamped into it and rounded to the step.
    restarts: changing it starts a new run (else it applies live).
    reads, writes, checks: for a value that is not one number or choice (a list of widths, a point, a list of
    optimisers): text -> value (raising ValueError, or PartlyRead, saying what is wrong), value -> text, and
    value -> None (raising ValueError if the value is not allowed). A "text" setting without ``reads`` is its text.
    """

    label: str
    kind: str
    section: str = ""  # where the widget sits ("Data", "Network", "Training"), where a page groups them
    restarts: bool = True
    choices: tuple | Callable[[str], tuple] | None = None
    lo: float | None = None
    hi: float | None = None
    step: float | None = None
    help: str = ""
    fmt: str | None = None  # the widget's number format ("percent", ...)
    reads: Callable[[str], Any] | None = None
    writes: Callable[[Any], str] | None = None
    checks: Callable[[Any], None] | None = None
    name: str = ""  # the field and URL key; filled in from the field (see `rows`)

    def options(self, task: str) -> tuple:
        return self.choices(task) if callable(self.choices) else tuple(self.choices or ())

    # --- values to and from text (the URL)
    def text(self, value) -> str:
        if self.writes is not None:
            return self.writes(value)
        if self.kind == "multiselect":
            return ",".join(value) if value else "-"
        return str(value)

    def parse(self, text: str):
        """The value a URL's text stands for; ValueError if it is not one of this setting's kind."""
        if self.reads is not None:
            return self.reads(text)
        if self.kind == "multiselect":
            return () if text in ("", "-") else tuple(text.split(","))
        if self.kind in ("select", "text"):
            return text
        number = number_from_link(text)  # ValueError("not a number"): ASCII digits only
        if not math.isfinite(number):
            raise ValueError("not a finite number")
        whole = self.kind == "select_slider" and all(isinstance(o, int) for o in self.options(""))
        if whole or isinstance(self.step, int):
            if not number.is_integer():
                raise ValueError("not a whole number")
            return int(number)
        return number

    def shown(self, value) -> str:
        """A value as a message quotes it."""
        return self.text(value) if value != () else "none"

    def check(self, value, task: str) -> None:
        """Raise ValueError naming the setting if `value` is outside what its widget allows."""
        if self.checks is not None:
            self.checks(value)
        elif self.kind == "text":
            return
        elif self.kind == "multiselect":
            allowed = self.options(task)
            unknown = [v for v in value if v not in allowed]
            if unknown:
                raise ValueError(
                    f"{self.label.lower()} {unknown} do not apply to {task}; choose from {', '.join(allowed)}"
                )
        elif self.kind in ("select", "select_slider"):
            allowed = self.options(task)
            if value not in allowed:
                raise ValueError(
                    f"{self.label.lower()} {clip_text(str(value))!r} is not one of {', '.join(map(str, allowed))}"
                )
        elif not (isinstance(value, (int, float)) and self.lo <= value <= self.hi):
            raise ValueError(f"{self.label.lower()} must be between {self.lo:g} and {self.hi:g}, got {value}")

    def coerce(self, value, task: str) -> tuple[Any, str | None]:
        """A URL value brought within range: (value, None) if it was fine, (nearest allowed value,
        why) if it was clamped or rounded; raises ValueError if there is no sensible neighbour."""
        if self.kind in ("slider", "number"):
            near = min(max(value, self.lo), self.hi)
            near = self.lo + round((near - self.lo) / self.step) * self.step
            near = int(near) if isinstance(self.step, int) else round(near, 10)
            if near == value:
                return near, None
            if value > self.hi:
                return near, f"above the largest {self.text(near)}"
            if value < self.lo:
                return near, f"below the smallest {self.text(near)}"
            return near, f"between steps of {self.step:g}"
        if self.kind == "select_slider":
            allowed = self.options(task)
            if value in allowed:
                return value, None
            numeric = [a for a in allowed if a > 0]
            near = min(numeric, key=lambda a: abs(math.log(a) - math.log(value))) if value > 0 else min(allowed)
            if value > max(allowed):
                return max(allowed), f"above the largest {self.text(max(allowed))}"
            return near, f"not one of the choices; the nearest is {self.text(near)}"
        self.check(value, task)
        return value, None


def setting(default, label: str, kind: str, section: str = "", **options) -> Any:
    """A settings dataclass's field declared with its Setting."""
    return field(default=default, metadata={"setting": Setting(label=label, kind=kind, section=section, **options)})


def rows(cls) -> tuple[Setting, ...]:
    """The Setting rows of a settings dataclass, in field order, each named after its field."""
    return tuple(replace(f.metadata["setting"], name=f.name) for f in fields(cls) if "setting" in f.metadata)


def settings_query(config, rows) -> dict[str, str]:
    """``config``'s settings (one per row) as URL parameters (st.query_params is a str -> str mapping)."""
    return {s.name: s.text(getattr(config, s.name)) for s in rows}


def read_query(rows, params: Mapping, task: str = "", *, skip=(), kept: Callable[[str], Any] | None = None):
    """What a URL's ``params`` say for each of ``rows``, never raising: (values, refused, problems). A value past a
    row's range is clamped into it and a problem says so. One it cannot read is refused: with ``kept`` (a name ->
    the value kept instead) the problem says what was kept, in order with the others; without, it is returned in
    ``refused`` as (name, what is wrong), for the caller to say once it knows. A text read in part (PartlyRead)
    gives the part read, and a problem for each part not. Rows named in ``skip`` are left out.
    The one reading of settings from a link: the Playground's, the depth lab's and the race's."""
    values: dict[str, Any] = {}
    refused: list[tuple[str, str]] = []
    problems: list[str] = []
    for s in rows:
        if s.name not in params or s.name in skip:
            continue
        text = str(params[s.name])
        shown = f"{s.name}={clip_text(text)!r}"
        try:
            value, why = s.coerce(s.parse(text), task)
        except PartlyRead as part:
            said = [f"{s.name}: {clip_text(p, 160)}" for p in part.problems]
            if part.value is not None:
                values[s.name] = part.value
            elif kept is not None:
                said[-1] += f"; kept {s.shown(kept(s.name))}"
            else:
                refused.append((s.name, "; ".join(said)))
                said = []
            problems += said
            continue
        except ValueError as err:
            wrong = f"{shown} is not valid ({clip_text(str(err), 160)})"
            if kept is None:
                refused.append((s.name, wrong))
            else:
                problems.append(f"{wrong}; kept {s.shown(kept(s.name))}")
            continue
        if why:
            problems.append(f"{shown} is {why}: using {s.shown(value)}")
        values[s.name] = value
    return values, refused, problems
