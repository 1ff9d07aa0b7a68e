// The boxes' saved bytes (components/frontend/graph_view/saves.js): a full run's data brings them; a fragment's rerun
// of the same program (numbers only) keeps the last ones, another program's does not, and each box gets its number.
import assert from "node:assert/strict";
import { test } from "node:test";

import { keepSaves, markSaves } from "../../components/frontend/graph_view/saves.js";

test("a rerun of the same program keeps the saves; another program's data does not", () => {
  const full = { key: "p", saves: { 3: 24 } };
  assert.deepEqual(keepSaves({ key: "p", values: {} }, full).saves, { 3: 24 });
  assert.equal(keepSaves({ key: "q" }, full).saves, undefined);
  assert.deepEqual(keepSaves({ key: "p", saves: { 3: 8 } }, full).saves, { 3: 8 }, "new saves win");
  assert.equal(keepSaves({ key: "p" }, undefined).saves, undefined);
});

test("each box named in the saves carries them as data-saves", () => {
  const box = () => ({ g: { dataset: {} } });
  const drawing = { boxes: new Map([["3", box()], ["4", box()]]) };
  markSaves(drawing, { 3: 24 });
  assert.equal(drawing.boxes.get("3").g.dataset.saves, "24");
  assert.equal(drawing.boxes.get("4").g.dataset.saves, undefined, "a leaf's backward keeps nothing: no number");
  markSaves(drawing, undefined);
  assert.equal(drawing.boxes.get("3").g.dataset.saves, "24");
});
