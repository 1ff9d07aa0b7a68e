// The poke pictures' arithmetic (components/frontend/poke/plot.js) in Node: marching squares, contour chains, levels,
// the arrow's room, ticks and the y range.
import assert from "node:assert/strict";
import { test } from "node:test";

import { contourChains, contourLevels, contourSegments, roomAlong, shownRange, stepped } from "../../components/frontend/poke/plot.js";

// contourChains joins segments in pixels (ends equal to 0.1 px): as the plot does, 300 px a side.
const pixels = (segments) => segments.map((seg) => seg.map(([x, y]) => [300 * x, 300 * (1 - y)]));

const grid = (n, f) => {
  const xs = Array.from({ length: n }, (_, i) => i / (n - 1));
  const zs = [];
  for (const y of xs) for (const x of xs) zs.push(f(x, y));
  return { xs, ys: xs, zs };
};

test("marching squares: the level set of z = x is the vertical line at that level", () => {
  const { xs, ys, zs } = grid(5, (x) => x);
  const segments = contourSegments(xs, ys, zs, 0.6);
  assert.equal(segments.length, 4); // one per row of cells
  for (const seg of segments) for (const [x] of seg) assert.ok(Math.abs(x - 0.6) < 1e-12);
  const chains = contourChains(pixels(segments));
  assert.equal(chains.length, 1);
  assert.equal(chains[0].closed, false);
  assert.ok(Math.abs(chains[0].length - 300) < 1e-9);
});

test("marching squares: a bump's level set joins into one closed loop; a missing corner cuts no line", () => {
  const { xs, ys, zs } = grid(21, (x, y) => -((x - 0.5) ** 2 + (y - 0.5) ** 2));
  const chains = contourChains(pixels(contourSegments(xs, ys, zs, -0.0441))); // the circle of radius 0.21
  assert.equal(chains.length, 1);
  assert.equal(chains[0].closed, true);
  assert.ok(Math.abs(chains[0].length - 300 * 2 * Math.PI * 0.21) < 3, String(chains[0].length));
  const holed = zs.map((z, i) => (i === 0 ? null : z));
  assert.equal(contourSegments(xs, ys, holed, -0.45).length, contourSegments(xs, ys, zs, -0.45).length - 1);
});

test("levels are the quantiles; the arrow's room stops at the plot's edge", () => {
  assert.deepEqual(contourLevels([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 10), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.equal(roomAlong(50, 50, 1, 0, 0, 0, 100), 50);
  assert.equal(roomAlong(90, 50, 0, -1, 0, 0, 100), 50);
  assert.equal(roomAlong(120, 50, 1, 0, 0, 0, 100), 0);
});

test("a slider's step is kept; the range keeps the point and drops a pole", () => {
  assert.equal(stepped(0.1 + 0.2, 0.1), 0.3);
  const values = Array.from({ length: 100 }, (_, i) => i / 99);
  values[50] = 1e12;
  const [lo, hi] = shownRange(values, 5);
  assert.ok(lo < 0 && hi > 5 && hi < 6, `${lo}..${hi}`);
});
