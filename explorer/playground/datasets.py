"""Toy data sets for the Training Playground: generators, train/test split, CSV in and out."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from explorer.numbers import fmt_number

Generator = Callable[[int, float, int], tuple[np.ndarray, np.ndarray]]

MAX_CSV_ROWS = 5000
#: A points file is refused before it is read past this size (5,000 points written with 17 digits: ~350 KB).
MAX_CSV_BYTES = 1024 * 1024
MAX_CLASSES = 10
# A coordinate column is rescaled by its spread: both bounds keep that spread a normal float.
_LARGEST_COORDINATE = 1e300
_SMALLEST_SPREAD = 1e-300


# ---------------------------------------------------------------- classification
# Every generator: (n, noise, seed) -> (X float64 (n, 2), y int64 (n,)). Points lie roughly in
# [-2, 2]²; `noise` is the standard deviation of Gaussian jitter in those units (0 = none).


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def _split_counts(n: int, k: int) -> list[int]:
    """n points shared as evenly as possible between k classes."""
    return [n // k + (1 if i < n % k else 0) for i in range(k)]


def two_moons(n: int, noise: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = _rng(seed)
    n0, n1 = _split_counts(n, 2)
    t0 = rng.uniform(0.0, math.pi, n0)
    t1 = rng.uniform(0.0, math.pi, n1)
    upper = np.column_stack([np.cos(t0), np.sin(t0)])
    lower = np.column_stack([1.0 - np.cos(t1), 0.5 - np.sin(t1)])
    X = np.vstack([upper, lower]) - np.array([0.5, 0.25])
    X = X * 1.6 + rng.normal(0.0, noise, (n, 2))
    y = np.concatenate([np.zeros(n0, np.int64), np.ones(n1, np.int64)])
    return _shuffle(X, y, rng)


def circles(n: int, noise: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = _rng(seed)
    n0, n1 = _split_counts(n, 2)
    r_inner = rng.uniform(0.0, 0.8, n0)
    r_outer = rng.uniform(1.3, 1.9, n1)
    radius = np.concatenate([r_inner, r_outer])
    angle = rng.uniform(0.0, 2 * math.pi, n)
    X = np.column_stack([radius * np.cos(angle), radius * np.sin(angle)])
    X = X + rng.normal(0.0, noise, (n, 2))
    y = np.concatenate([np.zeros(n0, np.int64), np.ones(n1, np.int64)])
    return _shuffle(X, y, rng)


def xor(n: int, noise: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = _rng(seed)
    X = rng.uniform(-1.9, 1.9, (n, 2))
    # NOTE: push points a little away from the axes so the four quadrants are separable at noise 0.
    X = X + np.sign(X) * 0.1
    y = ((X[:, 0] > 0) != (X[:, 1] > 0)).astype(np.int64)
    X = X + rng.normal(0.0, noise, (n, 2))
    return X, y


def spiral(n: int, noise: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = _rng(seed)
    counts = _split_counts(n, 2)
    parts, labels = [], []
    for label, count in enumerate(counts):
        t = np.sqrt(rng.uniform(0.0, 1.0, count)) * 1.75 * 2 * math.pi
        radius = t / (1.75 * 2 * math.pi) * 1.9
        phase = label * math.pi
        parts.append(np.column_stack([radius * np.cos(t + phase), radius * np.sin(t + phase)]))
        labels.append(np.full(count, label, np.int64))
    X = np.vstack(parts) + rng.normal(0.0, noise, (n, 2))
    return _shuffle(X, np.concatenate(labels), rng)


def _blobs(n: int, noise: float, seed: int, centres: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    rng = _rng(seed)
    counts = _split_counts(n, len(centres))
    spread = 0.35 + noise
    X = np.vstack([rng.normal(c, spread, (k, 2)) for c, k in zip(centres, counts, strict=True)])
    y = np.concatenate([np.full(k, i, np.int64) for i, k in enumerate(counts)])
    return _shuffle(X, y, rng)


def gaussian_blobs(n: int, noise: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    return _blobs(n, noise, seed, np.array([[-1.0, -0.9], [1.0, 0.9]]))


def three_blobs(n: int, noise: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    angles = np.array([90.0, 210.0, 330.0]) * math.pi / 180
    centres = 1.15 * np.column_stack([np.cos(angles), np.sin(angles)])
    return _blobs(n, noise, seed, centres)


# -------------------------------------------------------------------- regression
# (n, noise, seed) -> (X float64 (n, 1), y float64 (n,)).


def sine(n: int, noise: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = _rng(seed)
    x = rng.uniform(-math.pi, math.pi, n)
    y = np.sin(x) + rng.normal(0.0, noise, n)
    return x[:, None], y


def noisy_cubic(n: int, noise: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = _rng(seed)
    x = rng.uniform(-2.0, 2.0, n)
    y = 0.25 * x**3 - 0.5 * x + rng.normal(0.0, noise, n)
    return x[:, None], y


def _shuffle(X: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    order = rng.permutation(len(y))
    return X[order], y[order]


CLASSIFICATION: dict[str, Generator] = {
    "two moons": two_moons,
    "circles": circles,
    "xor": xor,
    "spiral": spiral,
    "gaussian blobs": gaussian_blobs,
    "three blobs": three_blobs,
}
REGRESSION: dict[str, Generator] = {
    "sine": sine,
    "noisy cubic": noisy_cubic,
}
DATASETS: dict[str, Generator] = {**CLASSIFICATION, **REGRESSION}
UPLOADED = "uploaded CSV"


def task_of(name: str) -> str:
    """'classification' or 'regression' for a registered data set name."""
    if name in CLASSIFICATION:
        return "classification"
    if name in REGRESSION:
        return "regression"
    raise KeyError(f"unknown data set {name!r}; choose one of {', '.join(DATASETS)}")


def generate(name: str, n: int, noise: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    if name not in DATASETS:
        raise KeyError(f"unknown data set {name!r}; choose one of {', '.join(DATASETS)}")
    if n < 4:
        raise ValueError(f"need at least 4 points, got n={n}")
    return DATASETS[name](n, noise, seed)


# ------------------------------------------------------------------------- split


@dataclass(frozen=True)
class Split:
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray


def train_test_split(X: np.ndarray, y: np.ndarray, test_fraction: float, seed: int) -> Split:
    """Shuffle with `seed` and hold out `test_fraction` of the points (at least one each side)."""
    if not 0.0 <= test_fraction < 1.0:
        raise ValueError(f"test_fraction must be in [0, 1), got {test_fraction}")
    n = len(y)
    order = np.random.default_rng(seed + 7919).permutation(n)
    n_test = round(n * test_fraction)
    if test_fraction > 0:
        n_test = min(max(n_test, 1), n - 1)
    test, train = order[:n_test], order[n_test:]
    return Split(X[train], y[train], X[test], y[test])


# --------------------------------------------------------------------------- CSV


class CSVError(ValueError):
    """A bad uploaded file; `.line` is the 1-based line number (0 when not about one line)."""

    def __init__(self, message: str, line: int = 0):
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line


HEADERS = {"classification": ("x1", "x2", "label"), "regression": ("x", "y")}


def _quote(text: str, limit: int = 40) -> str:
    """A value from the file as a message quotes it: stripped, and cut short if long."""
    text = text.strip()
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def _number(text: str, line: int, column: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise CSVError(f"{column} is {_quote(text)}, which is not a number", line) from None
    if not math.isfinite(value):
        raise CSVError(f"{column} is {_quote(text)}; only finite numbers are allowed", line)
    return value


def parse_csv(text: str | bytes, task: str) -> tuple[np.ndarray, np.ndarray]:
    """Read points from CSV text: `x1,x2,label` for classification, `x,y` for regression.

    A header line naming those columns is optional. Class labels may be any integers; they are
    renumbered 0..k-1 in sorted order. Raises CSVError naming the line and what is wrong.
    """
    if task not in HEADERS:
        raise ValueError(f"task must be 'classification' or 'regression', got {task!r}")
    size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8", "replace"))
    if size > MAX_CSV_BYTES:
        raise CSVError(f"the file is {size / 1024 / 1024:,.1f} MB; a points file may be at most "
                       f"{MAX_CSV_BYTES // 1024 // 1024} MB ({MAX_CSV_ROWS:,} points)")
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as err:
            raise CSVError(f"the file is not UTF-8 text ({err.reason} at byte {err.start})") from None
    header = HEADERS[task]
    width = len(header)
    rows: list[list[float]] = []
    # NOTE: newline=None reads any line ending: \n, \r\n, and old Macs' \r alone (one line to the csv module,
    # which refused it as "new-line character seen in unquoted field").
    reader = csv.reader(io.StringIO(text, newline=None))
    line_no = 0
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            break
        except csv.Error as err:  # e.g. a field over the csv module's 131,072-character limit
            raise CSVError(f"this is not readable as CSV ({err})", reader.line_num) from None
        line_no = reader.line_num
        if not fields or all(not f.strip() for f in fields):
            continue
        if len(fields) != width:
            raise CSVError(
                f"expected {width} values ({', '.join(header)}), found {len(fields)}",
                line_no,
            )
        if not rows and not _looks_numeric(fields[0]):
            names = tuple(f.strip().lower() for f in fields)
            if names != header:
                raise CSVError(
                    f"header is {_quote(', '.join(fields))}; expected {', '.join(header)} (or no header, just numbers)",
                    line_no,
                )
            continue
        rows.append([_number(f, line_no, name) for f, name in zip(fields, header, strict=True)])
        if task == "classification" and not rows[-1][2].is_integer():
            raise CSVError(f"label is {_quote(fields[2])}; labels must be whole numbers", line_no)
        if len(rows) > MAX_CSV_ROWS:
            raise CSVError(f"too many points: at most {MAX_CSV_ROWS} are allowed", line_no)
    if len(rows) < 4:
        raise CSVError(f"need at least 4 points, found {len(rows)}")
    data = np.array(rows, dtype=np.float64)
    for column, name in enumerate(header[:2]):
        check_scale(data[:, column], name)
    if task == "regression":
        return data[:, :1], data[:, 1]
    classes, y = np.unique(data[:, 2].astype(np.int64), return_inverse=True)
    if len(classes) < 2:
        raise CSVError(f"all points have label {classes[0]}; need at least two classes")
    if len(classes) > MAX_CLASSES:
        raise CSVError(f"{len(classes)} different labels; at most {MAX_CLASSES} classes are allowed")
    return data[:, :2], y.astype(np.int64)


def check_scale(values: np.ndarray, name: str) -> None:
    """The playground rescales each coordinate by its spread (max − min), so the spread must be a
    normal float: values near ±1e308 overflow it (inf) and values like 1e-320 make it subnormal
    (the picture would be all NaN). A column of one repeated value is fine."""
    low, high = float(values.min()), float(values.max())
    if max(abs(low), abs(high)) > _LARGEST_COORDINATE:
        raise CSVError(
            f"the {name} values reach {fmt_number(high if abs(high) >= abs(low) else low)}; coordinates up to "
            f"±{fmt_number(_LARGEST_COORDINATE)} can be rescaled. Divide the column by a large factor"
        )
    spread = high - low
    if 0 < spread < _SMALLEST_SPREAD:
        raise CSVError(
            f"the {name} values differ by only {fmt_number(spread)}, too little to rescale (the spread must be at "
            f"least {fmt_number(_SMALLEST_SPREAD)}). Multiply the column by a large factor"
        )


def _looks_numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def to_csv(X: np.ndarray, y: np.ndarray, task: str) -> str:
    """The points as CSV text with a header; `parse_csv` reads it back."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HEADERS[task])
    if task == "regression":
        for x, target in zip(X[:, 0], y, strict=True):
            writer.writerow([f"{x:.6g}", f"{target:.6g}"])
    else:
        for (x1, x2), label in zip(X, y, strict=True):
            writer.writerow([f"{x1:.6g}", f"{x2:.6g}", int(label)])
    return out.getvalue()
