// The memory timeline's pure parts (components/frontend/memory/memory.js) in Node: which boxes are alive at a step,
// and bytes as the plot's ticks and legend write them.
import assert from "node:assert/strict";
import { test } from "node:test";

import { aliveAt, bytesText } from "../../components/frontend/memory/memory.js";

test("a box is alive from the step that makes it up to, not including, its end", () => {
  const alive = { 0: [0, 5], 1: [1, 3], 2: [2, 6] };
  assert.deepEqual(aliveAt(alive, 0), ["0"]);
  assert.deepEqual(aliveAt(alive, 2), ["0", "1", "2"]);
  assert.deepEqual(aliveAt(alive, 3), ["0", "2"]);
  assert.deepEqual(aliveAt(alive, 5), ["2"]);
  assert.deepEqual(aliveAt(alive, 6), []);
});

test("bytes: exact counts below 10,000, then KB and MB in the one number format", () => {
  assert.equal(bytesText(0), "0 B");
  assert.equal(bytesText(7272), "7,272 B");
  assert.equal(bytesText(20480), "20 KB");
  assert.equal(bytesText(123456), "120.6 KB");
  assert.equal(bytesText(3 * 1048576), "3072 KB");
  assert.equal(bytesText(30 * 1048576), "30 MB");
});
