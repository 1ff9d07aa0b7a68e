// The live view's grid (components/frontend/live_view/static/grid.js) in Node: three columns, two, one, and what fits.
import assert from "node:assert/strict";
import { test } from "node:test";

import { gridSizes } from "../../components/frontend/live_view/static/grid.js";

const widths = (columns) => columns.split(" ").map((c) => parseFloat(c));

test("wide: three columns that fill the width with two gaps, the square no taller than the window allows", () => {
  for (const width of [960, 1180, 1600]) {
    const g = gridSizes(width, 2000, 2);
    const cols = widths(g.columns);
    assert.equal(cols.length, 3);
    assert.ok(Math.abs(cols[0] + cols[1] + cols[2] + 24 - width) < 1e-9, `${width}: ${g.columns}`);
    assert.ok(cols[2] >= 250 && cols[2] <= 330);
    assert.equal(g.sideRow, false);
    assert.deepEqual(g.size.loss[0], cols[2]);
  }
  const short = gridSizes(1280, 320, 2);
  assert.equal(short.size.boundary[0], 320);
});

test("medium: two columns; the side panels share the row under them equally", () => {
  const two = gridSizes(800, 900, 2), three = gridSizes(800, 900, 3);
  assert.equal(widths(two.columns).length, 2);
  assert.equal(two.sideRow, true);
  assert.equal(two.sideColumn, "1 / -1");
  assert.equal(two.size.loss[0], (800 - 12) / 2);
  assert.equal(three.size.loss[0], (800 - 24) / 3);
});

test("narrow: one column as wide as the view; the network keeps a usable height", () => {
  const g = gridSizes(420, 900, 2);
  assert.equal(g.columns, "420px");
  assert.equal(g.size.network[0], 420);
  assert.ok(g.size.network[1] >= 240 - 20);
  assert.equal(g.size.loss[0], 420);
});
