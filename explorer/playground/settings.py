"""The Training Playground's settings, each declared once: label, widget, range, URL key, restart.

`TrainConfig` is the typed settings object (TensorFlow Playground's `State` idea). Each of its fields carries a
`Setting` (explorer/settings.py, the one codec) in its metadata, and that one declaration drives everything else:
the sidebar's widgets (components/playground/settings_form.py), the URL (`to_query` / `from_query`, which
clamps or ignores what the widgets would refuse), the restart toast (`changed_settings`), the
run's identity (`TrainConfig.run_key`) and the list of widget keys kept across pages.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from explorer.playground import catalogue, datasets
from explorer.settings import Setting, read_query, rows, setting, settings_query
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
        if not (part.isascii() and part.isdigit()):
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


def hidden_text(widths: tuple[int, ...]) -> str:
    """(8, 8) -> '8,8' as a link writes it; () -> '-' (no hidden layer)."""
    return ",".join(str(w) for w in widths) if widths else "-"


# ------------------------------------------------------------------------------ the table


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
        reads=parse_hidden,
        writes=hidden_text,
        checks=_check_hidden,
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


SETTINGS: tuple[Setting, ...] = rows(TrainConfig)
#: The parameters the Playground reads from its link: its settings and the run id (explorer/links.py checks it).
LINK_PARAMS: tuple[str, ...] = (*(s.name for s in SETTINGS), "run")
SETTING: dict[str, Setting] = {s.name: s for s in SETTINGS}
DEFAULT_VALUES: dict[str, Any] = {s.name: getattr(TrainConfig, s.name) for s in SETTINGS}


def changed_settings(old: TrainConfig, new: TrainConfig) -> list[str]:
    """The labels of the settings whose change makes `new` a new run of `old`."""
    return [s.label.lower() for s in SETTINGS if s.restarts and getattr(old, s.name) != getattr(new, s.name)]
