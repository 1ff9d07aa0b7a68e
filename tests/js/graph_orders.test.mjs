// components/frontend/graph_view/orders.js: each drawn box's data-order from its DOT class order-<n> (the backward as a
// graph, explorer/program/backward_view.py), "1" for a box without one (the forward graph): run with `node --test tests/js/`.
import assert from "node:assert/strict";
import { test } from "node:test";

import { markOrders } from "../../components/frontend/graph_view/orders.js";

const box = (cls) => ({ g: { dataset: {}, getAttribute: (name) => (name === "class" ? cls : null) } });

test("a box's order comes from its class, and a box without one is the forward's", () => {
  const boxes = new Map([["0", box("node kind-input order-1")], ["5", box("node kind-backward order-2")],
    ["7", box("node kind-grad order-3")], ["9", box("node kind-op")], ["11", box(null)]]);
  markOrders({ boxes });
  assert.deepEqual([...boxes.values()].map((b) => b.g.dataset.order), ["1", "2", "3", "1", "1"]);
});

test("an order-like word inside another class does not count", () => {
  const boxes = new Map([["1", box("node reorder-2 kind-op")]]);
  markOrders({ boxes });
  assert.equal(boxes.get("1").g.dataset.order, "1");
});
