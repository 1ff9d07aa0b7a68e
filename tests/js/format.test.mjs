// components/frontend/web/format.js against the shared table tests/support/number_format.json (pytest checks explorer/numbers.py
// against the same rows): run with `node --test tests/js/`.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { URL } from "node:url";

import { formatCount, formatNumber, formatPercent, formatShort, ticks } from "../../components/frontend/web/format.js";

const TABLE = JSON.parse(readFileSync(new URL("../support/number_format.json", import.meta.url), "utf8"));
const SPECIAL = { inf: Infinity, "-inf": -Infinity, nan: NaN, "-0": -0 };
const value = (v) => (typeof v === "string" ? SPECIAL[v] : v);

test("the table has cases for each function", () => {
  assert.ok(TABLE.number.length + TABLE.percent.length + TABLE.ticks.length >= 60);
});

for (const [v, text, note] of TABLE.number) {
  test(`formatNumber(${v}) is ${text}${note ? ` (${note})` : ""}`, () => {
    assert.equal(formatNumber(value(v)), text);
  });
}

for (const [v, text, note] of TABLE.percent) {
  test(`formatPercent(${v}) is ${text}${note ? ` (${note})` : ""}`, () => {
    assert.equal(formatPercent(value(v)), text);
  });
}

for (const [lo, hi, count, expected, note] of TABLE.ticks) {
  test(`ticks(${lo}, ${hi}, ${count}) is [${expected}]${note ? ` (${note})` : ""}`, () => {
    const got = ticks(value(lo), value(hi), count);
    assert.deepEqual(got, expected);
    assert.ok(got.every((t) => !Object.is(t, -0)), "no -0 tick");
  });
}

test("a JSON gap (null, as json_numbers sends nan and ±inf) prints as nan", () => {
  assert.equal(formatNumber(null), "nan");
  assert.equal(formatNumber(undefined), "nan");
  assert.equal(formatPercent(null), "nan");
});

test("every exact four-digit tie rounds to even, as Python does", () => {
  // n + 0.5 for n = 1000…9999 are exact doubles: Python's "{:.4g}" keeps the even neighbour
  for (let n = 1000; n < 10000; n += 1) {
    const expected = n % 2 === 0 ? n : n + 1;
    const text = formatNumber(n + 0.5);
    assert.equal(text, expected === 10000 ? "1e4" : String(expected), `${n}.5`);
  }
});

test("formatShort, the cramped variant: two significant digits, plain from 0.001 to 99", () => {
  const cases = [
    [0, "0"], [-0, "0"], [0.42, "0.42"], [-3.14159, "-3.1"], [12.5, "12"], [13.5, "14"], [99.4, "99"],
    [99.5, "1e2"], [120, "1.2e2"], [12345.678, "1.2e4"], [0.001, "0.001"], [0.00123, "0.0012"],
    [0.000999, "0.001"], [0.00094, "9.4e-4"], [5e-7, "5e-7"], [Infinity, "inf"], [-Infinity, "-inf"], [NaN, "nan"], [null, "nan"],
  ];
  for (const [v, text] of cases) assert.equal(formatShort(v), text, String(v));
});

test("formatCount writes an exact count with every digit, grouped by thousands (Python's f\"{n:,}\")", () => {
  assert.equal(formatCount(0), "0");
  assert.equal(formatCount(999), "999");
  assert.equal(formatCount(1234567), "1,234,567");
  assert.equal(formatCount(12345678901), "12,345,678,901");
});
