// The live view's gradient health panel: per layer the weight gradient's and the weights' norms, the update
// ratio, dead or saturated units, and what looks wrong.

import { addEl } from "../canvas.js";
import { formatNumber, formatPercent } from "../../../web/format.js";

export default {
  place: "side",
  build(s, parent) {
    const healthBox = addEl("div", "lv-panel", parent, { "data-panel": "health" });
    const healthTitle = addEl("div", "lv-title", healthBox);
    healthTitle.textContent = "Gradient health per layer";
    healthTitle.title =
      "‖∂L/∂W‖: size of the weight gradient. Δ/W: how much the last step changed the weights relative to their size " +
      "(about 1e-3 is healthy). Dead: ReLUs that output 0 on every point of the batch. Saturated: tanh/sigmoid units " +
      "on a flat tail for every point of the batch.";
    s.dom.health = addEl("div", "lv-health", healthBox);
  },
  paint: (s, frame) => paintHealth(s, frame),
};

function paintHealth(s, frame) {
  const box = s.dom.health;
  const sizes = s.model.sizes;
  if (box.dataset.run !== s.run) {
    box.textContent = "";
    box.dataset.run = s.run;
    for (const h of ["layer", "‖∂L/∂W‖", "‖W‖", "Δ/W per step", s.model.activation === "relu" ? "dead" : "saturated"])
      addEl("span", "hd", box).textContent = h;
    s.healthRows = sizes.slice(1).map((n, l) => {
      const row = addEl("div", "lv-hrow", box, { "data-layer": String(l + 1) });
      const cells = [0, 1, 2, 3, 4].map(() => addEl("span", null, row));
      cells[0].textContent = `W${l + 1} ${sizes[l]}→${n}`;
      const why = addEl("div", "lv-why", box, { "data-why": String(l + 1) });
      return { row, cells, why };
    });
  }
  const applies = s.model.activation === "relu" || s.model.activation === "tanh" || s.model.activation === "sigmoid";
  s.healthRows.forEach((r, l) => {
    const h = frame.h[l];
    const set = (k, v) => { r.row.dataset[k] = v === null || v === undefined ? "" : String(v); };
    if (!h) {
      for (const c of r.cells.slice(1)) c.textContent = "—";
      for (const k of ["gradNorm", "weightNorm", "updateRatio", "dead", "saturated", "trouble"]) set(k, "");
      r.why.textContent = "";
      r.row.classList.remove("trouble");
      return;
    }
    const [grad, weight, ratio, dead, saturated, trouble] = h;
    set("gradNorm", grad);
    set("weightNorm", weight);
    set("updateRatio", ratio);
    set("dead", dead);
    set("saturated", saturated);
    set("trouble", trouble);
    r.cells[1].textContent = formatNumber(grad);
    r.cells[2].textContent = formatNumber(weight);
    r.cells[3].textContent = formatNumber(ratio);
    const frac = dead !== null ? dead : saturated;
    r.cells[4].textContent = frac === null || frac === undefined ? (applies ? "—" : "n/a") : formatPercent(frac);
    r.cells[4].title = applies ? "" : `${s.model.activation} has no dead or flat region`;
    r.row.classList.toggle("trouble", Boolean(trouble));
    r.why.textContent = trouble ? `⚠ W${l + 1}: ${trouble}` : "";
  });
}
