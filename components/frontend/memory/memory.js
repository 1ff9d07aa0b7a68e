// The memory of a step (the Explorer's Memory tab, the Playground's step graph): the bytes held after each step of
// forward → backward (→ the optimiser step) for each account, the peaks marked, and a slider over the steps.
// Scrubbing it (the slider, or the pointer over the plot) lights the tensors the tape holds at that step on the
// graph view that shows the same program: a window event MEMORY_EVENT {key (the graph's data.key), saves
// (box id -> bytes its backward keeps), alive (box ids, or null: nothing lit)}, heard by graph_view.js.
//
// data = components/program/memory.py's payload: {key, labels, backward_from, lines: [{name, label, bytes, peak,
// peak_step, steps (drawn: no_grad has no backward)}], alive: {box id: [start, end)}, saves, scrub (the account scrubbed), title}.
// Hooks: [data-testid="tape-memory"] with data-peak-bytes (this engine's peak: what tracemalloc measures),
// data-peak-bytes-tape, data-peak-bytes-no-grad, data-peak-bytes-checkpointed, data-step ('' until scrubbed),
// data-alive (boxes lit); each line path.tm-line[data-line=<name>], each peak circle.tm-peak[data-line=<name>].

import { el, svg } from "../web/dom.js";
import { formatCount, formatNumber } from "../web/format.js";

export const MEMORY_EVENT = "graph-view:memory";
const DRAWN_EVENT = "graph-view:drawn"; // a graph view drew a program (it may have mounted after this view told it)
const WIDTH = [300, 640]; // the plot's width in its units = its pixels, within these bounds (so text stays 12 px)
const H = 200;
const M = { left: 62, right: 10, top: 12, bottom: 26 };

/** The box ids alive at `step`: those whose [start, end) holds it. */
export function aliveAt(alive, step) {
  return Object.keys(alive).filter((id) => alive[id][0] <= step && step < alive[id][1]);
}

/** "1,234 B" below 10,000 bytes (an exact count: formatCount), else KB or MB in the one number format. */
export function bytesText(n) {
  if (n < 10000) return `${formatCount(n)} B`;
  if (n < 1e7) return `${formatNumber(n / 1024)} KB`;
  return `${formatNumber(n / 1048576)} MB`;
}

class MemoryView {
  constructor(parent) {
    this.root = el("div", { class: "tm", "data-testid": "tape-memory", "data-step": "", "data-alive": "0" });
    this.title = el("div", { class: "tm-title" });
    this.plot = svg("svg", { class: "tm-plot", role: "img" });
    this.W = 480;
    this.slider = el("input", { type: "range", class: "tm-slider", min: "0", max: "0", value: "0",
      "aria-label": "Step of forward and backward" });
    this.readout = el("div", { class: "tm-readout", "aria-live": "polite" });
    this.legend = el("div", { class: "tm-legend" });
    this.root.append(this.title, this.plot, this.slider, this.readout, this.legend);
    parent.replaceChildren(this.root);
    this.slider.addEventListener("input", () => this.scrub(Number(this.slider.value)));
    this.alive = null;
    this.onDrawn = (e) => {
      if (!this.root.isConnected) window.removeEventListener(DRAWN_EVENT, this.onDrawn);
      else if (this.data && e.detail && e.detail.key === this.data.key) this.tell(this.alive);
    };
    window.addEventListener(DRAWN_EVENT, this.onDrawn);
    // Gone from the page (its tab closed, its drawer's panel off): nothing stays lit on the graph.
    this.gone = new MutationObserver(() => {
      if (this.root.isConnected) return;
      this.gone.disconnect();
      window.removeEventListener(DRAWN_EVENT, this.onDrawn);
      if (this.data && this.alive !== null) this.tell(null);
    });
    this.gone.observe(document.body, { childList: true, subtree: true });
    this.plot.addEventListener("pointermove", (e) => {
      const box = this.plot.getBoundingClientRect();
      const x = ((e.clientX - box.left) / box.width) * this.W;
      const n = this.data ? this.data.labels.length : 0;
      if (n) this.scrub(Math.max(0, Math.min(n - 1, Math.round(this.xToStep(x)))));
    });
  }

  show(data) {
    const same = this.data && this.data.key === data.key && this.data.labels.length === data.labels.length;
    this.data = data;
    const byName = Object.fromEntries(data.lines.map((l) => [l.name, l]));
    const peak = (name) => String(byName[name] ? byName[name].peak : 0);
    Object.assign(this.root.dataset, {
      peakBytes: peak("engine"), peakBytesTape: peak("tape"), peakBytesNoGrad: peak("no_grad"),
      peakBytesCheckpointed: peak("checkpointed"), steps: String(data.labels.length),
    });
    this.title.textContent = data.title || "";
    this.slider.max = String(Math.max(0, data.labels.length - 1));
    this.draw();
    if (same && this.root.dataset.step !== "") this.scrub(Number(this.root.dataset.step));
    else {
      this.root.dataset.step = "";
      this.readout.textContent = "Move the slider (or the pointer over the plot) to light what the tape holds.";
      this.tell(null);
    }
  }

  xToStep(x) {
    const n = Math.max(1, this.data.labels.length - 1);
    return ((x - M.left) / (this.W - M.left - M.right)) * n;
  }

  draw() {
    const { labels, lines, backward_from: back } = this.data;
    const W = (this.W = Math.round(Math.max(WIDTH[0], Math.min(WIDTH[1], this.root.clientWidth || 480))));
    this.plot.setAttribute("viewBox", `0 0 ${W} ${H}`);
    const n = Math.max(1, labels.length - 1);
    const top = Math.max(1, ...lines.map((l) => l.peak));
    this.x = (i) => M.left + (i / n) * (W - M.left - M.right);
    this.y = (b) => H - M.bottom - (b / top) * (H - M.top - M.bottom);
    const parts = [];
    for (const f of [0, 0.5, 1]) {
      parts.push(svg("line", { class: "tm-grid", x1: M.left, x2: W - M.right, y1: this.y(top * f), y2: this.y(top * f) }));
      parts.push(svg("text", { class: "tm-tick", x: M.left - 6, y: this.y(top * f) + 4, "text-anchor": "end",
        text: bytesText(Math.round(top * f)) }));
    }
    if (back < labels.length) {
      const xb = this.x(back - 0.5);
      parts.push(svg("line", { class: "tm-phase", x1: xb, x2: xb, y1: M.top, y2: H - M.bottom }));
      parts.push(svg("text", { class: "tm-tick", x: xb + 4, y: H - 8, text: "backward →" }));
      parts.push(svg("text", { class: "tm-tick", x: M.left + 2, y: H - 8, text: "forward →" }));
    }
    const opt = labels.findIndex((l) => l.startsWith("optimiser"));
    if (opt > 0) {
      const xo = this.x(opt - 0.5);
      parts.push(svg("line", { class: "tm-phase", x1: xo, x2: xo, y1: M.top, y2: H - M.bottom }));
      // under the plot with the other phases' words (at its top it sat on the peaks' dots), left of its line (the
      // step is the plot's last few points); at the top only where "backward →" takes that place
      const room = back < labels.length ? xo - this.x(back - 0.5) : Infinity;
      parts.push(svg("text", { class: "tm-tick", x: xo - 4, y: room > 150 ? H - 8 : M.top + 10, "text-anchor": "end",
        text: "optimiser →" }));
    }
    for (const line of lines) {
      const d = line.bytes.slice(0, line.steps || line.bytes.length).map((b, i) => `${i ? "L" : "M"}${this.x(i).toFixed(1)},${this.y(b).toFixed(1)}`).join("");
      parts.push(svg("path", { class: `tm-line tm-${line.name}`, "data-line": line.name, d }));
      parts.push(svg("circle", { class: `tm-peak tm-${line.name}`, "data-line": line.name, r: 4,
        cx: this.x(line.peak_step), cy: this.y(line.peak) }, svg("title", { text: `${line.label}: peak ${bytesText(line.peak)}` })));
    }
    this.cursor = svg("line", { class: "tm-cursor", x1: 0, x2: 0, y1: M.top, y2: H - M.bottom, visibility: "hidden" });
    parts.push(this.cursor);
    this.plot.replaceChildren(...parts);
    this.legend.replaceChildren(...lines.map((line) => el("span", { class: "tm-key", "data-line": line.name },
      el("span", { class: `tm-swatch tm-${line.name}` }), `${line.label}: peak ${bytesText(line.peak)}`)));
  }

  scrub(step) {
    const data = this.data;
    if (!data || !data.labels.length) return;
    this.slider.value = String(step);
    this.cursor.setAttribute("x1", this.x(step));
    this.cursor.setAttribute("x2", this.x(step));
    this.cursor.setAttribute("visibility", "visible");
    const ids = aliveAt(data.alive, step);
    const scrubbed = data.lines.find((l) => l.name === data.scrub) || data.lines[0];
    this.readout.textContent = `Step ${step + 1} of ${data.labels.length}, ${data.labels[step]}: ${scrubbed.label} ` +
      `holds ${bytesText(scrubbed.bytes[step])} in ${ids.length} tensors (lit on the graph).`;
    this.root.dataset.step = String(step);
    this.root.dataset.alive = String(ids.length);
    this.tell(ids);
  }

  tell(ids) {
    this.alive = ids;
    window.dispatchEvent(new CustomEvent(MEMORY_EVENT, { detail: { key: this.data.key, saves: this.data.saves, alive: ids } }));
  }
}

export default function (component) {
  const { data, parentElement } = component;
  let view = parentElement.__memoryView;
  if (!view || !view.root.isConnected) {
    view = new MemoryView(parentElement);
    parentElement.__memoryView = view;
  }
  view.show(typeof data === "string" ? JSON.parse(data) : data);
  return undefined;
}
