"""Numbers and arrays as the app writes them: one place for the digits, the summaries, the shapes and dtypes,
and the numbers sent to the browser's pictures. Plain NumPy (no Streamlit, no drawing)."""

from __future__ import annotations

import math

import numpy as np

#: Arrays with at most this many elements are shown in full; larger ones are summarised.
SMALL = 12
#: Numbers per printed line in a node's value rows.
PER_LINE = 6
_SPARK = "▁▂▃▄▅▆▇█"


# ----------------------------------------------------------------------------- one number, a small array

_FOUR = "{:.4g}".format


def fmt_number(value: float) -> str:
    """Four significant digits, no '-0' (nan and inf print as such)."""
    text = _FOUR(value)
    return "0" if text == "-0" else text


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def power_of_ten(value: float) -> str:
    """A positive number as its nearest power of ten in words' form: 3e-12 -> '10⁻¹²', 0.5 -> '10⁰'."""
    return "10" + str(round(math.log10(value))).translate(_SUPERSCRIPT)


def plain_number(value: float) -> str:
    """A number for a sentence: two significant digits, and very large or small ones as 3.2×10⁻²⁰."""
    if value == 0 or not math.isfinite(value) or 1e-3 <= abs(value) < 1e4:
        text = f"{value:.2g}"
        text = f"{float(text):,.0f}" if "e" in text and math.isfinite(value) else text  # 1.2e+03 -> 1,200
        return "0" if text == "-0" else text
    mantissa, exponent = f"{value:.1e}".split("e")
    return f"{mantissa}×10{str(int(exponent)).translate(_SUPERSCRIPT)}"


def _cells(values: list) -> list[str]:
    cells = list(map(_FOUR, values))
    if "-0" in cells:
        cells = ["0" if c == "-0" else c for c in cells]
    return cells


def format_array(array: np.ndarray) -> list[str]:
    """A small array as printed lines, e.g. ``['[[1, 2],', ' [3, 4]]']``."""
    array = np.asarray(array)
    if array.ndim == 0:
        return [fmt_number(array.item())]
    if array.size == 0:  # (0,), (0, 3): one line, as NumPy prints it
        return ["[]"]
    if array.ndim == 1 and array.shape[0] <= PER_LINE:  # the common case, kept fast
        return ["[" + ", ".join(_cells(array.tolist())) + "]"]
    rows = array.reshape(-1, array.shape[-1]) if array.ndim > 1 else array.reshape(1, -1)
    nested = array.ndim > 1
    lines: list[str] = []
    for r, row in enumerate(rows.tolist()):
        cells = _cells(row)
        chunks = [", ".join(cells[i : i + PER_LINE]) for i in range(0, max(len(cells), 1), PER_LINE)]
        for c, chunk in enumerate(chunks):
            if nested:
                open_ = ("[[" if r == 0 else " [") if c == 0 else "  "
            else:
                open_ = "[" if c == 0 else " "
            close = "]" if c == len(chunks) - 1 else ","
            if nested and c == len(chunks) - 1:
                close += "]" if r == len(rows) - 1 else ","
            lines.append(open_ + chunk + close)
    return lines


def summarise(array: np.ndarray) -> dict[str, float]:
    """mean, min, max and the L2 norm of an array (computed in float64)."""
    a = np.asarray(array, dtype=np.float64).ravel()
    return {
        "mean": float(a.sum()) / a.size if a.size else float("nan"),
        "min": float(a.min()) if a.size else float("nan"),
        "max": float(a.max()) if a.size else float("nan"),
        "norm": math.sqrt(float(np.dot(a, a))),
    }


def shape_text(shape: tuple[int, ...]) -> str:
    """A shape as the app prints it: "scalar", "(3,)", "(2, 3)"."""
    if len(shape) == 0:
        return "scalar"
    if len(shape) == 1:
        return f"({shape[0]},)"
    return "(" + ", ".join(str(s) for s in shape) + ")"


def shape_dtype_text(shape: tuple[int, ...], dtype) -> str:
    """A shape, and the dtype where it is not the default float64: "(3,) int64", "scalar bool", "(2, 3)"."""
    text = shape_text(tuple(shape))
    return text if not dtype or str(dtype) == "float64" else f"{text} {dtype}"


# ----------------------------------------------------------------------------- summaries of larger arrays


def sparkline(array: np.ndarray, width: int = 16) -> str:
    """The flattened array as a row of block characters (bin means); '' if constant or not finite."""
    a = np.asarray(array, dtype=np.float64).ravel()
    n = a.size
    if n == 0:
        return ""
    if n > width:
        edges = np.arange(width + 1) * n // width
        a = np.add.reduceat(a, edges[:-1]) / np.diff(edges)
    values = a.tolist()
    if not math.isfinite(sum(values)):
        return ""
    lo, hi = min(values), max(values)
    if hi - lo <= 1e-12 * max(abs(lo), abs(hi), 1.0):
        return ""  # a flat line says nothing the stats do not
    scale = len(_SPARK) / (hi - lo)
    top = len(_SPARK) - 1
    return "".join(_SPARK[min(int((v - lo) * scale), top)] for v in values)


def value_lines(array: np.ndarray | None, compact: bool = False) -> list[str]:
    """The text lines a box shows for an array, one per line of its cell.

    Small arrays (at most ``SMALL`` elements) in full, larger ones as their statistics and a
    sparkline; ``compact`` puts anything that would take more than one line on one: a sparkline and
    the range. None (no grad yet) is "—". An array's shape alone decides how many lines it takes,
    so the graph view can retext a cell with another array of the same shape.
    """
    if array is None:
        return ["—"]
    array = np.asarray(array)
    if compact and lines_in_full(array) > 1:
        return [_one_line(array)]
    if array.size <= SMALL:
        return format_array(array)
    s = summarise(array)
    stats = (
        f"mean {fmt_number(s['mean'])}  min {fmt_number(s['min'])}  "
        f"max {fmt_number(s['max'])}  ‖·‖ {fmt_number(s['norm'])}"
    )
    return [stats, sparkline(array) or _flat(array)]


def lines_in_full(array: np.ndarray) -> int:
    if array.size == 0:
        return 1
    if array.size > SMALL:
        return 2
    if array.ndim <= 1:
        return 1 if array.size <= PER_LINE else 2
    rows = array.size // max(array.shape[-1], 1)
    return rows * max(1, math.ceil(array.shape[-1] / PER_LINE))


def _one_line(array: np.ndarray) -> str:
    s = summarise(array)
    spark = sparkline(array, width=12)
    if spark:
        return f"{spark}  {fmt_number(s['min'])} … {fmt_number(s['max'])}"
    if s["min"] == s["max"]:
        return f"all {fmt_number(s['min'])}"
    return f"{fmt_number(s['min'])} … {fmt_number(s['max'])}"  # not finite somewhere


def _flat(array: np.ndarray) -> str:
    """A sparkline for an array that has no shape to show: constant (a level line) or not finite."""
    a = np.asarray(array, dtype=np.float64)
    return "▄" * min(a.size, 16) if np.isfinite(a).all() else "not finite"


def array_text(array: np.ndarray | None, limit: int = 64) -> str:
    """An array as text: in full up to ``limit`` elements, else shape and summary statistics."""
    if array is None:
        return "—"
    array = np.asarray(array)
    if array.size <= limit:
        if array.ndim == 0:
            return fmt_number(array.item())
        return np.array2string(
            array,
            precision=4,
            separator=", ",
            suppress_small=True,
            max_line_width=72,
            formatter={"float_kind": fmt_number},
        )
    s = summarise(array)
    return (
        f"shape {tuple(array.shape)}: mean {fmt_number(s['mean'])}, min {fmt_number(s['min'])}, "
        f"max {fmt_number(s['max'])}, norm {fmt_number(s['norm'])}"
    )


def compact(array: np.ndarray | None) -> str:
    """One-line text for table cells: small arrays in full, large ones summarised."""
    if array is None:
        return "—"
    array = np.asarray(array)
    if array.size <= 12:
        return " ".join(line.strip() for line in format_array(array))
    s = summarise(array)
    return f"{tuple(array.shape)} mean {fmt_number(s['mean'])}, norm {fmt_number(s['norm'])}"


def plugged_text(x, operand: bool = True) -> str:
    """A number or small array as it is put into a rule, on one line; a negative operand in parentheses."""
    array = np.asarray(x, dtype=np.float64)
    if array.ndim == 0:
        text = fmt_number(array.item())
        return f"({text})" if operand and text.startswith("-") else text
    return " ".join(line.strip() for line in format_array(array))


# ----------------------------------------------------------------------------- numbers for the browser's pictures


def json_numbers(values, digits: int = 6) -> list[float | None]:
    """Numbers for a picture's JSON, to ``digits`` significant digits (a plot needs no more); nan and ±inf become
    None (JSON has neither; a plot draws a gap)."""
    return [float(f"{v:.{digits}g}") if math.isfinite(v) else None
            for v in np.asarray(values, dtype=np.float64).ravel().tolist()]
