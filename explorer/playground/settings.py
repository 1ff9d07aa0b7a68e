"""The Training Playground's settings, each declared once: label, widget, range, URL key, restart.

`TrainConfig` is the typed settings object (TensorFlow Playground's `State` idea). Each of its
fields carries a `Setting` in its metadata, and that one declaration drives everything else:
the sidebar's widgets (components/playground/settings_form.py), the URL (`to_query` / `from_query`, which
clamps or ignores what the widgets would refuse), the restart toast (`changed_settings`), the
run's identity (`TrainConfig.run_key`) and the list of widget keys kept across pages.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from typing import Any

from explorer.playground import catalogue, datasets
from explorer.words import clip_text

MAX_LAYERS = 8
MAX_WIDTH = 64
LEARNING_RATES = (0.0001, 0.0003, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
L2_VALUES = (0.0, 0.0001, 0.0003, 0.001, 0.003, 0.01, 0.03, 0.1)
BATCH_SIZES = (1, 4, 8, 16, 32, 64, 128, 0)  # 0 = the full batch
SPEEDS = (1, 2, 5, 10, 25, 50, 100, 250, 1000)  # training steps per second of wall clock
SLOW_MOTION = 5  # at this speed or slower every step is its own picture


def parse_hidden(text: str) -> tuple[int, ...]:
    """'8, 8' -> (8, 8); '' or '0' -> () (no hidden layer). Raises ValueError saying what is wrong."""
    text = text.strip()
    if text in ("", "0", "-"):
        return ()
    widths = []
    for part in text.replace(";", ",").replace(" ", ",").split(","):
        if not part:
            continue
        if not part.isdigit():
            raise ValueError(
                f"hidden layer widths are whole numbers separated by commas; {clip_text(part)!r} is not one"
            )
        widths.append(int(part))
    _check_hidden(tuple(widths))
    return tuple(widths)


def _check_hidden(widths: tuple[int, ...]) -> None:
    if len(widths) > MAX_LAYERS:
        raise ValueError(f"at most {MAX_LAYERS} hidden layers, got {len(widths)}")
    bad = [w for w in widths if not 1 <= w <= MAX_WIDTH]
    if bad:
        raise ValueError(f"each hidden layer has 1 to {MAX_WIDTH} neurons; got {bad[0]}")


# ------------------------------------------------------------------------------ the table


@dataclass(frozen=True)
class Setting:
    """One setting: how it is shown, which values it takes, how it reads and writes the URL.

    kind: the widget: "select", "slider", "select_slider", "number", "text" or "multiselect".
    choices: the allowed values (or a function of the task, for settings that depend on it).
    lo, hi, step: the range of a slider or number box; URL values are clamped into it and
    rounded to the step. restarts: changing it starts a new run (else it applies live).
    """

    label: str
    kind: str
    section: str  # where the widget sits: "Data", "Network" or "Training"
    restarts: bool = True
    choices: tuple | Callable[[str], tuple] | None = None
    lo: float | None = None
    hi: float | None = None
    step: float | None = None
    help: str = ""
    fmt: str | None = None  # the widget's number format ("percent", ...)
    name: str = ""  # the TrainConfig field and URL key; filled in from the field

    def options(self, task: str) -> tuple:
        return self.choices(task) if callable(self.choices) else tuple(self.choices or ())

    # --- values to and from text (the URL, the hidden-layers text box)
    def text(self, value) -> str:
        if self.name == "hidden":
            return ",".join(str(w) for w in value) if value else "-"
        if self.kind == "multiselect":
            return ",".join(value) if value else "-"
        return str(value)

    def parse(self, text: str):
        """The value a URL's text stands for; ValueError if it is not one of this setting's kind."""
        if self.name == "hidden":
            try:
                return () if text in ("", "-") else tuple(int(t) for t in text.split(","))
            except ValueError:
                raise ValueError("not whole numbers separated by commas") from None
        if self.kind == "multiselect":
            return () if text in ("", "-") else tuple(text.split(","))
        if self.kind == "select":
            return text
        try:
            number = float(text)
        except ValueError:
            raise ValueError("not a number") from None
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
        if self.name == "hidden":
            _check_hidden(value)
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


def settings_query(config, rows) -> dict[str, str]:
    """``config``'s settings (one per row) as URL parameters (st.query_params is a str -> str mapping)."""
    return {s.name: s.text(getattr(config, s.name)) for s in rows}


def read_query(rows, params, task: str = "", *, skip=(), kept: Callable[[str], Any] | None = None):
    """What a URL's ``params`` say for each of ``rows``, never raising: (values, refused, problems). A value past a
    row's range is clamped into it and a problem says so. One it cannot read is refused: with ``kept`` (a name ->
    the value kept instead) the problem says what was kept, in order with the others; without, it is returned in
    ``refused`` as (name, what is wrong), for the caller to say once it knows. Rows named in ``skip`` are left out.
    The one reading of settings from a link: the Playground's and the depth lab's."""
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


def setting(default, label: str, kind: str, section: str, **options) -> Any:
    """A TrainConfig field declared with its Setting."""
    return field(default=default, metadata={"setting": Setting(label=label, kind=kind, section=section, **options)})


@dataclass(frozen=True)
class TrainConfig:
    """Everything that defines a run, one field per setting. Changing a setting marked
    `restarts` means a new run; the others (learning rate, L2, speed) apply to the run live."""

    dataset: str = setting(
        "two moons", "Data set", "select", "Data", choices=tuple(datasets.DATASETS), help="The points to learn from."
    )
    noise: float = setting(0.2, "Noise", "slider", "Data", lo=0.0, hi=1.0, step=0.05)
    n: int = setting(200, "Points", "slider", "Data", lo=20, hi=1000, step=10)
    test_fraction: float = setting(
        0.3,
        "Test split",
        "slider",
        "Data",
        lo=0.0,
        hi=0.8,
        step=0.05,
        fmt="percent",
        help="The share of the points held out to measure how well the model generalises.",
    )
    hidden: tuple[int, ...] = setting(
        (8, 8),
        "Hidden layer widths",
        "text",
        "Network",
        help=f"Comma-separated, e.g. 8, 8 — up to {MAX_LAYERS} layers of {MAX_WIDTH}.",
    )
    activation: str = setting("tanh", "Activation", "select", "Network", choices=tuple(catalogue.ACTIVATIONS))
    init: str = setting(
        catalogue.DEFAULT_INIT, "Initialisation", "select", "Network", choices=tuple(catalogue.INITS),
        help="How the first weights are drawn (from the seed). With zeros every neuron of a layer is the same, "
        "and stays the same.",
    )
    features: tuple[str, ...] = setting(
        (),
        "Extra input features",
        "multiselect",
        "Network",
        choices=lambda task: tuple(catalogue.features_for(task)),
        help="Computed from the coordinates and fed to the network beside them.",
    )
    loss: str = setting(
        "cross-entropy",
        "Loss",
        "select",
        "Training",
        choices=catalogue.loss_names,
        help="Cross-entropy or squared error on the probabilities: compare how each learns.",
    )
    optimizer: str = setting("SGD", "Optimiser", "select", "Training", choices=tuple(catalogue.OPTIMIZERS))
    lr: float = setting(
        0.1, "Learning rate", "select_slider", "Training", restarts=False, choices=LEARNING_RATES,
        help="Changes take effect without a restart.",
    )
    l2: float = setting(
        0.0, "L2 (weight decay)", "select_slider", "Training", restarts=False, choices=L2_VALUES,
        help="Changes take effect without a restart.",
    )
    batch_size: int = setting(16, "Batch size", "select_slider", "Training", choices=BATCH_SIZES)
    seed: int = setting(
        2, "Seed", "number", "Data", lo=0, hi=10_000, step=1, help="Draws the points and the first weights."
    )
    speed: int = setting(
        25,
        "Speed (steps per second)",
        "select_slider",
        "Training",
        restarts=False,
        choices=SPEEDS,
        help=f"Training steps per second of wall clock while playing; {SLOW_MOTION} or fewer is slow motion, "
        "where every step is drawn.",
    )
    task: str = ""  # "" = from the data set; set only for uploaded data

    def __post_init__(self):
        if self.dataset not in datasets.DATASETS and self.dataset != datasets.UPLOADED:
            names = ", ".join(datasets.DATASETS)
            raise ValueError(f"unknown data set {clip_text(self.dataset)!r}; choose one of {names}")
        task = self.task or (datasets.task_of(self.dataset) if self.dataset in datasets.DATASETS else "")
        if task not in ("classification", "regression"):
            raise ValueError("uploaded data needs task='classification' or 'regression'")
        object.__setattr__(self, "task", task)
        object.__setattr__(self, "hidden", tuple(int(h) for h in self.hidden))
        object.__setattr__(self, "features", tuple(self.features))
        if self.loss not in catalogue.loss_names(task) and self.loss == DEFAULT_VALUES["loss"]:
            object.__setattr__(self, "loss", catalogue.loss_names(task)[0])  # the default is per task
        for s in SETTINGS:
            if s.name != "dataset":
                s.check(getattr(self, s.name), task)

    def run_key(self) -> tuple:
        """What identifies a run: every setting that restarts it, and the task."""
        return (*(getattr(self, s.name) for s in SETTINGS if s.restarts), self.task)

    def to_query(self) -> dict[str, str]:
        """The settings as URL parameters (st.query_params is a str -> str mapping)."""
        return settings_query(self, SETTINGS)

    @classmethod
    def from_query(cls, params: dict[str, str], *, task: str = "") -> tuple[TrainConfig, list[str]]:
        """A config from URL parameters, never raising: values outside a widget's range are clamped
        to it, values it cannot show are ignored, and each is reported in the list of problems.
        `task` is given for uploaded data (dataset=uploaded CSV), whose task the name cannot tell."""
        values: dict = {}
        dataset = str(params.get("dataset", cls.dataset))
        if dataset == datasets.UPLOADED and task in ("classification", "regression"):
            values.update(dataset=dataset, task=task)
        else:
            task = datasets.task_of(dataset) if dataset in datasets.DATASETS else datasets.task_of(cls.dataset)
        read, refused, problems = read_query(SETTINGS, params, task, skip=tuple(values))  # the kept values: below
        values.update(read)
        try:
            config = cls(**values)
        except ValueError:
            # Keep the valid part: apply the values one at a time, reporting each one refused.
            config = cls(**{k: values[k] for k in ("dataset", "task") if values.get("task")})
            for name, value in values.items():
                try:
                    config = replace(config, **{name: value})
                except ValueError as err:
                    refused.append((name, clip_text(str(err), 160)))
        problems += [f"{why}; kept {SETTING[name].shown(getattr(config, name))}" for name, why in refused]
        return config, problems


SETTINGS: tuple[Setting, ...] = tuple(
    replace(f.metadata["setting"], name=f.name) for f in fields(TrainConfig) if "setting" in f.metadata
)
SETTING: dict[str, Setting] = {s.name: s for s in SETTINGS}
DEFAULT_VALUES: dict[str, Any] = {s.name: getattr(TrainConfig, s.name) for s in SETTINGS}


def changed_settings(old: TrainConfig, new: TrainConfig) -> list[str]:
    """The labels of the settings whose change makes `new` a new run of `old`."""
    return [s.label.lower() for s in SETTINGS if s.restarts and getattr(old, s.name) != getattr(new, s.name)]
