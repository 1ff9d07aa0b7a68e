// The graph view's DOT for a choice of parts (components/frontend/graph_view/drawing.js): a compact drawing's one-row
// box (explorer/graph/dot.py's _one_row_label) hides a part by its cells and keeps its title; the labels below are
// what to_dot writes for micrograd's c = a + b with every part, and with each left out.
import assert from "node:assert/strict";
import { test } from "node:test";

import { dotFor } from "../../components/frontend/graph_view/drawing.js";

const TABLE = '<table border="0" cellborder="0" cellspacing="0" cellpadding="1"><tr>';
const TITLE = '<td id="n2.t" align="left"><b>c</b> = add</td>';
const DATA = '<td width="4"></td><td id="n2.d" tooltip="c.data" align="left"><font color="#1d4ed8">-2</font></td>';
const GRAD = '<td align="left"><font color="#b91c1c"> grad</font></td><td width="4"></td>'
  + '<td id="n2.g" tooltip="c.grad" align="left"><font color="#b91c1c">-27.77</font></td>';
const box = (...cells) => `digraph autograd {\n  graph [rankdir=TB];\n  n2 [label=<${TABLE}${cells.join("")}</tr></table>>, id="n2"];\n}\n`;

test("a one-row box keeps its title and the parts shown", () => {
  const full = box(TITLE, DATA, GRAD);
  assert.equal(dotFor(full, ["data", "grad", "shape"], "TB"), full);
  assert.equal(dotFor(full, ["data", "shape"], "TB"), box(TITLE, DATA));
  assert.equal(dotFor(full, ["grad"], "TB"), box(TITLE, GRAD));
  assert.equal(dotFor(full, [], "LR"), box(TITLE).replace("rankdir=TB", "rankdir=LR"));
});

test("a box of rows still loses the rows of the parts hidden", () => {
  const rows = '<<table><tr><td colspan="2"><b>x</b></td></tr><tr><td>data</td><td id="n0.d">1</td></tr>'
    + '<tr><td>grad</td><td id="n0.g">2</td></tr></table>>';
  assert.equal(dotFor(rows, ["data"], "TB"), '<<table><tr><td colspan="2"><b>x</b></td></tr><tr><td>data</td><td id="n0.d">1</td></tr></table>>');
});
