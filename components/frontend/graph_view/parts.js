// The toolbar's part toggles (data / grad / shape) that have something to hide: a part's toggle shows only where the
// DOT has a cell of that part (n<id>.d / .g / .s, explorer/graph/dot.py). The backward as a graph (issue 32) draws
// every grad as a box of its own, with a data cell and no grad cell, so its "grad" toggle would hide nothing; the
// group's title says where the grads are instead (a DOT with backward boxes, class order-2). graph_view.js calls
// showParts on every data update.

const CELL = { data: "d", grad: "g", shape: "s" };
export const GRADS_ARE_BOXES =
  "Each grad is a box of its own here (an output of the backward's graph): its data is the grad";

export function partsIn(dot) {
  return Object.keys(CELL).filter((part) => new RegExp(`id="n\\d+\\.${CELL[part]}"`).test(dot || ""));
}

export function showParts(buttons, dot) {
  const present = partsIn(dot);
  for (const [part, b] of Object.entries(buttons)) b.hidden = !present.includes(part);
  const group = Object.values(buttons)[0]?.parentElement;
  if (group) group.title = /\border-2\b/.test(dot || "") && !present.includes("grad") ? GRADS_ARE_BOXES : "";
}
