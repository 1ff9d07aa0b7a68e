"""Numbers and arrays as the app writes them: one place for the digits, the summaries, the shapes and dtypes,
and the numbers sent to the browser's pictures. Plain NumPy (no Streamlit, no drawing).

THE NUMBER FORMAT (the same text heads components/frontend/web/format.js, its browser twin; the cases both are
checked against are tests/support/number_format.json, read by tests/explorer/test_numbers_format.py and by
`node --test tests/js/`):

fmt_number(x) (format.js formatNumber) — a number in a box, a tile, a tooltip or a sentence:
- four significant digits, rounded half to even on the double's exact value (1234.5 -> "1234", 1235.5 -> "1236",
  0.00012345 -> "1.234e-4" since that double lies below the tie), trailing zeros dropped;
- plain from 0.001 up to 9999 (after rounding: 9999.5 -> "1e4"), so a plain number never shows a digit that is
  not significant and never needs a thousands separator (there are none);
- otherwise an exponent, written as a program would take it back: "1.235e4", "-2.5e-7", "1e300", "1e-300";
- zero and -0 are "0"; infinities "inf" and "-inf"; nan "nan" (as Python and NumPy print them).

fmt_percent(fraction) (formatPercent) — a fraction as a percentage (0.35 -> "35%"):
- three significant digits ("99.6%", "33.3%", "0.25%"), whole percents from 1000% ("1234%");
- a floor and a ceiling instead of noise: below 0.01% (not 0) "<0.01%" (">-0.01%" below zero), above 99999%
  "more than 99999%" ("less than -99999%"); inf likewise; 0 and -0 "0%"; nan "nan".

ticks(lo, hi, count) (ticks) — axis ticks: the multiples of one nice step (1, 2 or 5 × a power of ten) within
[lo, hi]: the smallest such step of at least (hi - lo) / (count + 1) that gives at most count + 1 ticks, i.e.
about count intervals (lo and hi in either order; count below 1 is 1). Each tick is the decimal k × step parsed
as a number (0.3, not 0.30000000000000004), so Python and JS give the same numbers. lo == hi gives [lo]; a
non-finite end gives []; a range too narrow for its magnitude (hi - lo below 1e-14 × (count + 1) × the larger of
|lo| and |hi|) gives [lo, hi]. At the very ends of the doubles (a step past 1e308) the step is 1e308:
ticks(-1.7e308, 1.7e308, 1) is [-1e308, 0, 1e308]. A tick's label is fmt_number(tick).

Not through it, on purpose: numbers the user typed, echoed back (a learning rate in a sentence: as typed, ``:g``);
code the app writes (an exported script, a link: full precision); counts (1,024 inputs) and durations and sizes
with their unit (0.4 s, 12 MB); and the depth lab's prose about orders of magnitude (plain_number: "3.2×10⁻²⁰",
power_of_ten: "10⁻¹²").
"""

from __future__ import annotations

import math
import re
import sys

import numpy as np

#: Arrays with at most this many elements are shown in full; larger ones are summarised.
SMALL = 12
#: Numbers per printed line in a node's value rows.
PER_LINE = 6
#: A compact drawing (explorer/graph/dot.py) prints an array whole if it has at most this many elements on at most
#: COMPACT_LINES lines (the Playground's X of (4, 2)); larger ones as a sparkline and the range, on one line.
COMPACT_WHOLE = 8
COMPACT_LINES = 4
_SPARK = "▁▂▃▄▅▆▇█"
PERCENT_FLOOR = 0.01
PERCENT_CEILING = 99999


# ----------------------------------------------------------------------------- one number, a small array


# --- numbers read from a link: ASCII digits only, as a link writes them (Python's float() and int() also read
# "٣", "³" or "１", and say what they cannot read in their own words: "invalid literal for int() with base 10").
_NUMBER_TEXT = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:inf|infinity|nan)",
                          re.ASCII | re.IGNORECASE)
_WHOLE_TEXT = re.compile(r"[+-]?\d+", re.ASCII)
#: More digits than any whole number the app takes (a step, an index, a seed): such a number reads as this
#: stand-in, which every range then clamps or refuses, instead of Python's 4,300-digit conversion limit.
HUGE_WHOLE = 10**18


def number_from_link(text: str) -> float:
    """A number as a link writes it ("0.03", "-1e-3", "inf"); ValueError("not a number") for anything else. Digits
    past the largest double (a 400-digit number, 1e400) read as the largest double of their sign, so a range
    clamps them as the large finite numbers they are; only "inf" is infinite."""
    text = text.strip()
    if not _NUMBER_TEXT.fullmatch(text):
        raise ValueError("not a number")
    number = float(text)
    if math.isinf(number) and text.lstrip("+-")[:1] in "0123456789.":
        return math.copysign(sys.float_info.max, number)
    return number


def whole_from_link(text: str) -> int:
    """A whole number as a link writes it ("12", "-3"); ValueError("not a whole number") for anything else. Past
    18 digits it reads as ±HUGE_WHOLE (larger than any range here)."""
    text = text.strip()
    if not _WHOLE_TEXT.fullmatch(text):
        raise ValueError("not a whole number")
    digits = text.lstrip("+-").lstrip("0") or "0"
    sign = -1 if text.startswith("-") else 1
    return sign * HUGE_WHOLE if len(digits) > 18 else int(text)


def _digits(a: float, significant: int) -> tuple[str, int]:
    """The significant digits and decimal exponent of a finite a > 0, rounded half to even (exactly: Python's
    formatting rounds the double's exact value)."""
    mantissa, power = f"{a:.{significant - 1}e}".split("e")
    return mantissa.replace(".", ""), int(power)


def _plain(digits: str, exponent: int) -> str:
    """Digits d₁d₂… meaning d₁.d₂… × 10^exponent as plain decimal text, trailing zeros dropped."""
    if exponent >= 0:
        whole, fraction = digits[: exponent + 1].ljust(exponent + 1, "0"), digits[exponent + 1 :]
    else:
        whole, fraction = "0", "0" * (-exponent - 1) + digits
    fraction = fraction.rstrip("0")
    return f"{whole}.{fraction}" if fraction else whole


_FOUR = "{:.4g}".format


def fmt_number(value: float) -> str:
    """Four significant digits, plain from 0.001 to 9999, else "1.235e4"; no '-0' (the format above)."""
    # NOTE: Python's "{:.4g}" already rounds half to even, trims zeros and is plain from 1e-4 to 9999 (after
    # rounding): only its exponent's spelling and the 1e-4 decade differ; this is 5x faster than building digits.
    text = _FOUR(value)
    if "e" in text:
        mantissa, exponent = text.split("e")
        return f"{mantissa}e{int(exponent)}"
    if "0.000" in text:  # the 1e-4 decade: an exponent here
        mantissa, exponent = f"{value:.3e}".split("e")
        return f"{mantissa.rstrip('0').rstrip('.')}e{int(exponent)}"
    return "0" if text == "-0" else text


def fmt_percent(fraction: float) -> str:
    """A fraction as a percentage: 0.35 -> "35%", three significant digits, "<0.01%" and "more than 99999%" at
    the ends (the format above)."""
    f = float(fraction)
    if f != f:
        return "nan"
    if f == 0:
        return "0%"
    p = f * 100
    if not abs(p) <= PERCENT_CEILING:
        return f"more than {PERCENT_CEILING}%" if p > 0 else f"less than -{PERCENT_CEILING}%"
    if abs(p) < PERCENT_FLOOR:
        return f"<{PERCENT_FLOOR}%" if p > 0 else f">-{PERCENT_FLOOR}%"
    sign = "-" if p < 0 else ""
    digits, exponent = _digits(abs(p), 3)
    if exponent < 3:
        return sign + _plain(digits, exponent) + "%"
    return f"{sign}{round(abs(p))}%"  # from 999.5%: whole percents, half to even


def _decimal(m: int, p: int) -> float:
    return float(f"{m}e{p}")


def _span(lo: float, hi: float, m: int, p: int) -> tuple[int, int]:
    """The first and last k with lo <= decimal(k × m, p) <= hi (lo / step alone misses 0.7 in 0.1…0.7)."""
    step = _decimal(m, p)
    first, last = math.ceil(lo / step), math.floor(hi / step)
    if _decimal((first - 1) * m, p) >= lo:
        first -= 1
    elif _decimal(first * m, p) < lo:
        first += 1
    if _decimal((last + 1) * m, p) <= hi:
        last += 1
    elif _decimal(last * m, p) > hi:
        last -= 1
    return first, last


def ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Nice axis ticks within [lo, hi]: multiples of 1, 2 or 5 × 10^p, at most count + 1 of them (the format
    above)."""
    lo, hi = float(lo), float(hi)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return []
    if lo > hi:
        lo, hi = hi, lo
    if lo == hi:
        return [lo + 0.0]
    n = max(1, math.floor(count)) if math.isfinite(count) else 1
    raw = hi / (n + 1) - lo / (n + 1)  # the smallest step tried (no overflow at ±1e308)
    if raw == 0 or max(abs(lo), abs(hi)) / raw > 1e14:
        return [lo + 0.0, hi + 0.0]  # k × m stays an exact integer below this
    m, p = 1, 308
    if raw < _decimal(1, 308):
        p = math.floor(math.log10(raw))  # an estimate, made exact with decimal powers: 10^p <= raw < 10^(p+1)
        while p > -324 and _decimal(1, p) > raw:
            p -= 1
        while _decimal(1, p + 1) <= raw:
            p += 1

        def many(c: int, q: int) -> int:
            first, last = _span(lo, hi, c, q)
            return last - first + 1

        while _decimal(m, p) < raw or many(m, p) > n + 1:
            m, p = (1, p + 1) if m == 5 else (2 if m == 1 else 5, p)
    first, last = _span(lo, hi, m, p)
    return [_decimal(k * m, p) + 0.0 for k in range(first, last + 1)]


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
    return list(map(fmt_number, values))


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


def shape_literal(shape) -> str:
    """A shape as Python writes it: "()", "(3,)", "(2, 3)" (``ones(3,)`` reads it; shape_text says "scalar")."""
    shape = tuple(int(s) for s in shape)
    if len(shape) == 1:
        return f"({shape[0]},)"
    return "(" + ", ".join(str(s) for s in shape) + ")"


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
    sparkline; ``compact`` puts anything bigger that would take more than one line on one: a sparkline
    and the range (``summarised_in_compact``). None (no grad yet) is "—". An array's shape alone decides how
    many lines it takes, so the graph view can retext a cell with another array of the same shape.
    """
    if array is None:
        return ["—"]
    array = np.asarray(array)
    if compact and summarised_in_compact(array):
        return [_one_line(array)]
    if array.size <= SMALL:
        return format_array(array)
    s = summarise(array)
    stats = (
        f"mean {fmt_number(s['mean'])}  min {fmt_number(s['min'])}  "
        f"max {fmt_number(s['max'])}  ‖·‖ {fmt_number(s['norm'])}"
    )
    return [stats, sparkline(array) or _flat(array)]


def summarised_in_compact(array: np.ndarray) -> bool:
    """Whether a compact drawing prints ``array`` as one line (a sparkline and the range) rather than whole: it
    takes more than one line and is bigger than COMPACT_WHOLE elements or COMPACT_LINES lines (its shape decides)."""
    lines = lines_in_full(array)
    return lines > 1 and (array.size > COMPACT_WHOLE or lines > COMPACT_LINES)


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


def finite_or_none(value: float | None) -> float | None:
    """A number for the browser's JSON at full precision: nan, ±inf and None become None (JSON has no nan or inf)."""
    return float(value) if value is not None and math.isfinite(value) else None


def json_numbers(values, digits: int = 6) -> list[float | None]:
    """Numbers for a picture's JSON, to ``digits`` significant digits (a plot needs no more); nan and ±inf become
    None (JSON has neither; a plot draws a gap)."""
    # NOTE: json_number's rule, inline: a surface's 10,000 numbers would pay a call each
    return [float(f"{v:.{digits}g}") if math.isfinite(v) else None
            for v in np.asarray(values, dtype=np.float64).ravel().tolist()]


def json_number(value: float, digits: int = 6) -> float | None:
    """One number as json_numbers gives it, without its NumPy detour (for a few numbers at a time: a live frame's)."""
    v = float(value)
    return float(f"{v:.{digits}g}") if math.isfinite(v) else None
