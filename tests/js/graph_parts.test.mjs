// components/frontend/graph_view/parts.js: a part's toggle shows only where the DOT has a cell of that part (the
// backward as a graph has no grad cells: its grads are boxes): run with `node --test tests/js/`.
import assert from "node:assert/strict";
import { test } from "node:test";

import { GRADS_ARE_BOXES, partsIn, showParts } from "../../components/frontend/graph_view/parts.js";

const FORWARD = '  n0 [label=<<table><tr><td id="n0.d">1</td></tr><tr><td id="n0.g">2</td></tr><tr><td id="n0.s">(3,)</td></tr></table>>, id="n0", class="kind-input"];';
const BACKWARD = '  n0 [label=<<table><tr><td id="n0.d">1</td></tr><tr><td id="n0.s">(3,)</td></tr></table>>, id="n0", class="kind-input order-1"];\n'
  + '  n4 [label=<<table><tr><td id="n4.d">1</td></tr></table>>, id="n4", class="kind-grad order-2"];';

function buttons() {
  const group = { title: "" };
  return Object.fromEntries(["data", "grad", "shape"].map((p) => [p, { hidden: false, parentElement: group }]));
}

test("the parts a DOT has cells of", () => {
  assert.deepEqual(partsIn(FORWARD), ["data", "grad", "shape"]);
  assert.deepEqual(partsIn(BACKWARD), ["data", "shape"]);
  assert.deepEqual(partsIn('n12 [label=<<td id="n12.g">'), ["grad"]);
  assert.deepEqual(partsIn(""), []);
});

test("the backward's grad toggle is hidden and the group says where the grads are; the forward's all shown", () => {
  const b = buttons();
  showParts(b, BACKWARD);
  assert.deepEqual(Object.values(b).map((x) => x.hidden), [false, true, false]);
  assert.equal(b.data.parentElement.title, GRADS_ARE_BOXES);
  showParts(b, FORWARD);
  assert.deepEqual(Object.values(b).map((x) => x.hidden), [false, false, false]);
  assert.equal(b.data.parentElement.title, "");
});

test("a forward graph with no grad cells (nothing requires grad) hides grad with no word about backward boxes", () => {
  const b = buttons();
  showParts(b, FORWARD.replace('<tr><td id="n0.g">2</td></tr>', ""));
  assert.equal(b.grad.hidden, true);
  assert.equal(b.data.parentElement.title, "");
});
