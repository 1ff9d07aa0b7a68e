// The backward as a graph (issue 32): each drawn box says which pass made it, data-order="1" (the forward), "2" (the
// backward) or "3" (the backward of the backward), read from its DOT class order-<n> (explorer/program/backward_view.py);
// a box without one is the forward's. graph_view.js calls markOrders on each drawing it installs.

export function markOrders(drawing) {
  for (const box of drawing.boxes.values()) {
    const match = /\border-(\d)\b/.exec(box.g.getAttribute("class") || "");
    box.g.dataset.order = match ? match[1] : "1";
  }
}
