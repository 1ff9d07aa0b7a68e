// Numbers as the app writes them, in the browser: one format shared with explorer/numbers.py (pure, no DOM).
/**
 * THE NUMBER FORMAT (the same text in explorer/numbers.py; the cases both are checked against are
 * tests/support/number_format.json, read by pytest and by `node --test tests/js/`):
 *
 * formatNumber(x) — a number in a box, a tile, a tooltip or a sentence:
 * - four significant digits, rounded half to even on the double's exact value (1234.5 -> "1234",
 *   1235.5 -> "1236", 0.00012345 -> "1.234e-4" since that double lies below the tie), trailing zeros dropped;
 * - plain from 0.001 up to 9999 (after rounding: 9999.5 -> "1e4"), so a plain number never shows a digit that
 *   is not significant and never needs a thousands separator (there are none);
 * - otherwise an exponent, written as a program would take it back: "1.235e4", "-2.5e-7", "1e300", "1e-300";
 * - zero and -0 are "0"; infinities "inf" and "-inf"; nan "nan" (as Python and NumPy print them). In JS, null
 *   and undefined (a JSON gap: explorer.numbers.json_numbers sends nan and ±inf as null) are "nan" too.
 *
 * formatShort(x) — the named variant for a cramped spot (a heatmap cell a few characters wide; the hover and the
 * lines around it give formatNumber): the same rules with two significant digits, plain from 0.001 up to 99 (after
 * rounding: 99.5 -> "1e2", 120 -> "1.2e2"), so "0.42", "-3.1", "1.2e4", "5e-7". JS only: no Python view draws it.
 *
 * formatCount(n) — an exact count (elements, operations), not a measurement: every digit, grouped by thousands with
 * commas ("1,234,567"), as Python's f"{n:,}" writes counts.
 *
 * formatPercent(fraction) — a fraction as a percentage (0.35 -> "35%"):
 * - three significant digits ("99.6%", "33.3%", "0.25%"), whole percents from 1000% ("1234%");
 * - a floor and a ceiling instead of noise: below 0.01% (not 0) "<0.01%" (">-0.01%" below zero), above
 *   99999% "more than 99999%" ("less than -99999%"); inf likewise; 0 and -0 "0%"; nan "nan".
 *
 * ticks(lo, hi, count) — axis ticks: the multiples of one nice step (1, 2 or 5 × a power of ten) within
 * [lo, hi]: the smallest such step of at least (hi - lo) / (count + 1) that gives at most count + 1 ticks, i.e.
 * about count intervals (lo and hi in either order; count below 1 is 1). Each tick is the decimal k × step
 * parsed as a number (0.3, not 0.30000000000000004), so Python and JS give the same numbers. lo == hi gives
 * [lo]; a non-finite end gives []; a range too narrow for its magnitude (hi - lo below 1e-14 × (count + 1)
 * × the larger of |lo| and |hi|) gives [lo, hi]. At the very ends of the doubles (a step past 1e308) the step
 * is 1e308: ticks(-1.7e308, 1.7e308, 1) is [-1e308, 0, 1e308]. A tick's label is formatNumber(tick).
 */

/** The sign, the `significant` digits and the decimal exponent of a finite non-zero x, rounded half to even. */
function digitsOf(x, significant) {
  const negative = x < 0;
  const a = Math.abs(x);
  const [mantissa, power] = a.toExponential(significant - 1).split("e");
  let digits = mantissa.replace(".", "");
  const exponent = Number(power);
  // NOTE: toExponential rounds an exact tie up (1234.5 -> 1.235e+3), Python to even (1.234e+03). A tie is a
  // decimal with one more digit, a 5, that the double equals exactly: checked exactly with BigInt arithmetic.
  const last = Number(digits[digits.length - 1]);
  if (last % 2 === 1 && isExactTie(a, BigInt(digits), exponent - significant + 1)) {
    digits = String(BigInt(digits) - 1n);  // odd, so never 10…0: the length stays
  }
  return { negative, digits, exponent };
}

/** Whether a is exactly (n - 1/2) × 10^scale (the point halfway below the rounded n × 10^scale). */
function isExactTie(a, n, scale) {
  const { mantissa, power } = binary(a);  // a = mantissa × 2^power exactly
  // a == (2n - 1) × 10^scale / 2  <=>  2 × mantissa × 2^power == (2n - 1) × 10^scale
  let left = 2n * mantissa;
  let right = 2n * n - 1n;
  if (power >= 0) left <<= BigInt(power);
  else right <<= BigInt(-power);
  if (scale >= 0) right *= 10n ** BigInt(scale);
  else left *= 10n ** BigInt(-scale);
  return left === right;
}

function binary(a) {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, a);
  const high = view.getUint32(0);
  const low = view.getUint32(4);
  const biased = (high >>> 20) & 0x7ff;
  let mantissa = (BigInt(high & 0xfffff) << 32n) | BigInt(low);
  if (biased === 0) return { mantissa, power: -1074 };  // subnormal
  mantissa |= 1n << 52n;
  return { mantissa, power: biased - 1075 };
}

/** Digits d₁d₂… meaning d₁.d₂… × 10^exponent as plain decimal text, trailing zeros dropped. */
function plain(digits, exponent) {
  let whole;
  let fraction;
  if (exponent >= 0) {
    whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, "0");
    fraction = digits.slice(exponent + 1);
  } else {
    whole = "0";
    fraction = "0".repeat(-exponent - 1) + digits;
  }
  fraction = fraction.replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : whole;
}

function nonFinite(x) {
  if (x === null || x === undefined || Number.isNaN(x)) return "nan";
  return x > 0 ? "inf" : "-inf";
}

/** `significant` digits, plain from 0.001 up to 10^significant (exclusive, after rounding), else an exponent. */
function format(value, significant) {
  const x = value === null || value === undefined ? NaN : Number(value);
  if (!Number.isFinite(x)) return nonFinite(x);
  if (x === 0) return "0";
  const { negative, digits, exponent } = digitsOf(x, significant);
  const sign = negative ? "-" : "";
  if (exponent >= -3 && exponent < significant) return sign + plain(digits, exponent);
  return `${sign}${plain(digits, 0)}e${exponent}`;
}

/** A number with four significant digits, plain from 0.001 to 9999, else "1.235e4" (see the format above). */
export function formatNumber(value) {
  return format(value, 4);
}

/** The cramped variant: two significant digits, plain from 0.001 to 99, else "1.2e4" (see the format above). */
export function formatShort(value) {
  return format(value, 2);
}

/** An exact count with every digit, grouped by thousands: 1234567 -> "1,234,567" (see the format above). */
export function formatCount(n) {
  return Number(n).toLocaleString("en-US", { maximumFractionDigits: 0 });
}

export const PERCENT_FLOOR = 0.01;
export const PERCENT_CEILING = 99999;

/** A fraction as a percentage: 0.35 -> "35%", three significant digits, "<0.01%" and "more than 99999%" at the
 * ends (see the format above). */
export function formatPercent(fraction) {
  const f = fraction === null || fraction === undefined ? NaN : Number(fraction);
  if (Number.isNaN(f)) return "nan";
  if (f === 0) return "0%";
  const p = f * 100;
  if (!(Math.abs(p) <= PERCENT_CEILING)) {
    return p > 0 ? `more than ${PERCENT_CEILING}%` : `less than -${PERCENT_CEILING}%`;
  }
  if (Math.abs(p) < PERCENT_FLOOR) return p > 0 ? `<${PERCENT_FLOOR}%` : `>-${PERCENT_FLOOR}%`;
  const sign = p < 0 ? "-" : "";
  const { digits, exponent } = digitsOf(p, 3);
  if (exponent < 3) return sign + plain(digits, exponent) + "%";
  const a = Math.abs(p);  // from 999.5%: whole percents, half to even
  let whole = Math.round(a);
  if (a % 1 === 0.5 && whole % 2 === 1) whole -= 1;
  return `${sign}${whole}%`;
}

const decimal = (m, p) => Number(`${m}e${p}`);

/** Nice axis ticks within [lo, hi]: multiples of 1, 2 or 5 × 10^p, at most count + 1 of them (see above). */
export function ticks(lo, hi, count = 5) {
  lo = Number(lo);
  hi = Number(hi);
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return [];
  if (lo > hi) [lo, hi] = [hi, lo];
  if (lo === hi) return [lo + 0];
  const c = Number(count);
  const n = Number.isFinite(c) ? Math.max(1, Math.floor(c)) : 1;
  const raw = hi / (n + 1) - lo / (n + 1);  // the smallest step tried (no overflow at ±1e308)
  // too narrow for its magnitude: the ends (below this, k × m stays an exact integer)
  if (raw === 0 || Math.max(Math.abs(lo), Math.abs(hi)) / raw > 1e14) return [lo + 0, hi + 0];
  let m = 1;
  let p = 308;
  if (raw < decimal(1, 308)) {
    p = Math.floor(Math.log10(raw));  // an estimate, made exact with decimal powers: 10^p <= raw < 10^(p+1)
    while (p > -324 && decimal(1, p) > raw) p -= 1;
    while (decimal(1, p + 1) <= raw) p += 1;
    const many = (mm, q) => {
      const [a, b] = span(lo, hi, mm, q);
      return b - a + 1;
    };
    for (m = 1; decimal(m, p) < raw || many(m, p) > n + 1;) {
      if (m === 5) [m, p] = [1, p + 1];
      else m = m === 1 ? 2 : 5;
    }
  }
  const [first, last] = span(lo, hi, m, p);
  const out = [];
  for (let k = first; k <= last; k += 1) out.push(decimal(k * m, p) + 0);  // + 0: -0 is 0
  return out;
}

/** The first and last k with lo <= decimal(k × m, p) <= hi (lo / step alone misses 0.7 in 0.1…0.7). */
function span(lo, hi, m, p) {
  const step = decimal(m, p);
  let first = Math.ceil(lo / step);
  let last = Math.floor(hi / step);
  if (decimal((first - 1) * m, p) >= lo) first -= 1;
  else if (decimal(first * m, p) < lo) first += 1;
  if (decimal((last + 1) * m, p) <= hi) last += 1;
  else if (decimal(last * m, p) > hi) last -= 1;
  return [first, last];
}
