// The Explorer's interventions on its graph (issue 33): each box intervened on (data.interventions: {box id: {kind,
// badge, name}}, explorer/program/intervene.py's on_boxes) gets data-intervention="<kind>", the class "intervened"
// (a distinct outline, graph_view.css) and its badge, a short label across its top border ("set 0.5", "detached");
// a detached box's outgoing edges are drawn cut, as an edge into a program's own x.detach() is (class "cut",
// data-cut="true"). graph_view.js calls markInterventions on every repaint; it changes the drawing only when the
// marks do, and takes off the marks of interventions removed.

import { svg } from "../web/dom.js";

const BADGE_FONT = 11; // layout units, beside the boxes' 12-13
const BADGE_PAD = 3;

function shapeOf(g) {
  return g.querySelector(":scope > path, :scope > polygon");
}

// Which box (or tag standing for one) each edge leaves, by where Graphviz starts its path: on its tail's border.
function edgeTails(drawing) {
  if (drawing.tails) return drawing.tails;
  const boxes = [];
  for (const g of drawing.svg.querySelectorAll("g.node")) {
    const key = g.dataset.node !== undefined ? g.dataset.node : g.dataset.ref;
    const shape = shapeOf(g);
    if (key !== undefined && shape) boxes.push({ key, b: shape.getBBox() });
  }
  drawing.tails = drawing.edges.map((edge) => {
    const path = edge.g.querySelector(":scope > path");
    const m = path && /M\s*(-?[\d.]+)[,\s]+(-?[\d.]+)/.exec(path.getAttribute("d") || "");
    if (!m) return null;
    const x = Number(m[1]), y = Number(m[2]);
    let best = null, dist = 4; // layout units: a path starts on its tail's border
    for (const { key, b } of boxes) {
      const dx = Math.max(b.x - x, 0, x - b.x - b.width), dy = Math.max(b.y - y, 0, y - b.y - b.height);
      const d = Math.hypot(dx, dy);
      if (d < dist) [best, dist] = [key, d];
    }
    return best;
  });
  return drawing.tails;
}

function badge(g, text) {
  const shape = shapeOf(g);
  if (!shape) return;
  const b = shape.getBBox();
  const label = svg("text", {
    "font-size": BADGE_FONT, "text-anchor": "end", x: b.x + b.width - BADGE_PAD - 4, y: b.y + BADGE_FONT / 2 - 1,
    text,
  });
  const rect = svg("rect");
  g.appendChild(svg("g", { class: "gv-badge" }, rect, label));
  const w = label.getComputedTextLength();
  rect.setAttribute("x", String(b.x + b.width - w - 2 * BADGE_PAD - 4));
  rect.setAttribute("y", String(b.y - BADGE_FONT / 2 - 2));
  rect.setAttribute("width", String(w + 2 * BADGE_PAD));
  rect.setAttribute("height", String(BADGE_FONT + 4));
  rect.setAttribute("rx", "3");
}

export function markInterventions(drawing, marks) {
  const wanted = marks && Object.keys(marks).length ? marks : null;
  const key = wanted ? JSON.stringify(wanted) : "";
  if ((drawing.marked || "") === key) return;
  drawing.marked = key;
  for (const g of drawing.svg.querySelectorAll("g.gv-badge")) g.remove();
  for (const box of drawing.boxes.values()) {
    box.g.classList.remove("intervened");
    delete box.g.dataset.intervention;
  }
  for (const edge of drawing.edges) {
    if (edge.g.dataset.intervention !== "detach") continue;
    for (const t of edge.g.querySelectorAll("text.gv-cut-label")) t.remove();
    edge.g.classList.remove("cut");
    delete edge.g.dataset.cut;
    delete edge.g.dataset.intervention;
  }
  if (!wanted) return;
  const detached = new Set();
  for (const [id, mark] of Object.entries(wanted)) {
    const box = drawing.boxes.get(id);
    if (!box) continue; // not drawn (a summarised graph)
    box.g.classList.add("intervened");
    box.g.dataset.intervention = mark.kind;
    badge(box.g, mark.badge);
    if (mark.kind === "detach") detached.add(id);
  }
  if (!detached.size) return;
  const tails = edgeTails(drawing);
  drawing.edges.forEach((edge, i) => {
    if (!detached.has(tails[i]) || edge.g.dataset.cut === "true") return;
    edge.g.classList.add("cut");
    edge.g.dataset.cut = "true";
    edge.g.dataset.intervention = "detach";
    const path = edge.g.querySelector(":scope > path");
    const at = path.getPointAtLength(path.getTotalLength() * 0.3); // near its tail: Graphviz puts the slot's word mid-way
    const label = svg("text", { class: "gv-cut-label", x: at.x - 14, y: at.y + 4, "font-size": 12, text: "✂" });
    edge.g.appendChild(label);
  });
}
