// The optimiser race, drawn in the browser from the numbers the server computed once (an ES module).
//
// data: {key, grid: {x, y, box, xs, ys, zs, log}, start: [x, y], paths: [{id, title, x, y, loss, rules, arith,
// stopped}]}. Play advances the shown step locally (no server run per frame): each path is drawn up to it
// over the contour, the loss of each against the step beside it, and the chosen optimiser's arithmetic for
// that step as arrows from the point before it, with its numbers. A click or a drag on the contour moves the
// start point (sent to the server as the trigger "start": the race is run again from there).
//
// Hooks for tests: the root's data-testid="optimiser-race" and data-steps (the step shown), one [data-path]
// per optimiser with data-loss (its loss at the step shown, or its last if it stopped before), data-frames
// (pictures drawn so far: the benchmark's frame counter). data.axes (optional): the Hessian's eigen-directions at
// the start point, [{dir: [dx, dy], lambda}], drawn through it as dashed axes, one [data-eigen-axis] each.

import { addStyle, el, svg } from "../../web/dom.js";
import { mix, rgb, theme } from "../../web/theme.js";
import { formatNumber } from "../../web/format.js";

const PATH_COLOURS = ["#e8590c", "#1c7ed6", "#2b8a3e", "#c2255c", "#7048e8", "#8d5524"];
const ARROW_COLOURS = { g: "#e03131", d: "#f08c00", v: "#1971c2", u: "#6741d9", m: "#0c8599", sv: "#868e96" };
const ARROW_NAMES = { g: "g", d: "d", v: "v", u: "u", m: "m̂", sv: "√v̂", step: "step" };
const LEVELS = 20; // contour levels over the surface's range (log(loss) where it spans many orders)
const SECONDS = 8; // a race plays in about this long at 1×, whatever its number of steps

const CSS = `
.race { font-family: var(--st-font, sans-serif); color: var(--st-text-color, #31333f); container-type: inline-size; }
.race-bar { display: flex; align-items: center; gap: 8px; margin-bottom: 6px; flex-wrap: wrap; }
.race-bar button, .race-bar select, .race-legend button { font: inherit; font-size: 0.85rem; color: inherit;
  background: var(--st-secondary-background-color, #f0f2f6); border: 1px solid var(--st-border-color, rgba(49,51,63,0.2));
  border-radius: 6px; padding: 3px 10px; cursor: pointer; }
.race-bar button.race-play { min-width: 70px; font-weight: 600; }
.race-bar input[type=range] { flex: 1; min-width: 120px; accent-color: var(--st-primary-color, #ff4b4b); }
.race-bar .race-count { font-size: 0.85rem; min-width: 110px; font-variant-numeric: tabular-nums; }
.race-body { display: grid; grid-template-columns: minmax(0, 1.15fr) minmax(0, 1fr); gap: 10px; }
@container (max-width: 560px) { .race-body { grid-template-columns: 1fr; } }
.race-plane, .race-loss { width: 100%; }
.race-plane { aspect-ratio: 1 / 1; max-height: 480px; touch-action: none; position: relative; }
.race-loss { position: relative; }
.race-surface, .race-loss-plot, .race-overlay { position: absolute; inset: 0; width: 100%; height: 100%; }
.race-overlay { pointer-events: none; overflow: visible; }
.race-overlay text { font-size: 12px; font-weight: 600; paint-order: stroke; stroke-width: 3px; stroke-linejoin: round; }
.race-loss { height: 190px; }
.race-legend { list-style: none; margin: 4px 0; padding: 0; font-size: 0.82rem; }
.race-legend li { margin: 2px 0; }
.race-legend button { width: 100%; text-align: left; display: grid; grid-template-columns: 14px 1fr auto;
  gap: 6px; align-items: center; padding: 2px 8px; background: transparent; border-color: transparent; }
.race-legend button[aria-pressed=true] { border-color: var(--st-border-color, rgba(49,51,63,0.3));
  background: var(--st-secondary-background-color, #f0f2f6); }
.race-swatch { width: 12px; height: 4px; border-radius: 2px; }
.race-loss-value { font-variant-numeric: tabular-nums; }
.race-stopped { font-size: 0.75rem; color: var(--st-orange-text-color, #c2410c); padding: 0 8px 0 28px; }
.race-arith { font-size: 0.8rem; border-top: 1px solid var(--st-border-color, rgba(49,51,63,0.2)); padding-top: 4px; }
.race-arith h4 { font-size: 0.82rem; margin: 2px 0 4px; font-weight: 600; }
.race-arith p { margin: 1px 0; font-family: 'Source Code Pro', monospace; font-size: 0.74rem; line-height: 1.35;
  overflow-wrap: anywhere; }
.race-arith p span.key { display: inline-block; width: 10px; height: 3px; margin-right: 5px; vertical-align: middle; }
.race-note { font-size: 0.75rem; opacity: 0.75; margin-top: 2px; }
`;

class Race {
  constructor(parent) {
    addStyle("race-view-style", CSS);
    this.play = el("button", { class: "race-play", type: "button", onclick: () => this.toggle() }, "Play");
    this.back = el("button", { type: "button", title: "One step back", onclick: () => this.nudge(-1) }, "‹");
    this.next = el("button", { type: "button", title: "One step on", onclick: () => this.nudge(1) }, "›");
    this.slider = el("input", { type: "range", min: 0, max: 1, value: 0, step: 1, "aria-label": "Step shown",
      oninput: () => { this.stop(); this.show(Number(this.slider.value)); } });
    this.count = el("span", { class: "race-count" });
    this.speed = el("select", { "aria-label": "Speed" },
      ...[0.25, 0.5, 1, 2, 4].map((s) => el("option", { value: s, selected: s === 1 }, `${s}×`)));
    // NOTE: Plotly draws what stays (the contour, the axes, the hover); what moves each frame (paths, arrows, the
    // loss lines) is an SVG over each plot, placed with Plotly's own axis mapping. Restyling Plotly traces each
    // frame cost 250 ms a frame in headless Chromium here (benchmarks/race.py); moving SVG points costs < 1 ms.
    this.surface = el("div", { class: "race-surface" });
    this.overlay = svg("svg", { class: "race-overlay" });
    this.plane = el("div", { class: "race-plane" }, this.surface, this.overlay);
    this.lossPlot = el("div", { class: "race-loss-plot" });
    this.lossOverlay = svg("svg", { class: "race-overlay" });
    this.loss = el("div", { class: "race-loss" }, this.lossPlot, this.lossOverlay);
    this.legend = el("ul", { class: "race-legend" });
    this.arith = el("div", { class: "race-arith", "aria-live": "polite" });
    this.note = el("div", { class: "race-note" });
    this.root = el("div", { class: "race", "data-testid": "optimiser-race", "data-steps": 0, "data-frames": 0 },
      el("div", { class: "race-bar" }, this.play, this.back, this.next, this.slider, this.count, this.speed),
      el("div", { class: "race-body" },
        el("div", {}, this.plane, this.note),
        el("div", {}, this.loss, this.legend, this.arith)));
    parent.replaceChildren(this.root);
    this.k = 0;
    this.chosen = 0;
    this.frames = 0;
    this.timer = null;
    this.observer = new ResizeObserver(() => {
      if (!this.ready) return;
      Promise.all([this.surface, this.lossPlot].map((gd) => window.Plotly.Plots.resize(gd))).then(() => this.place());
    });
    this.observer.observe(this.root);
    this.themeTimer = setInterval(() => {
      if (this.data && theme(this.root).key !== this.theme.key) this.draw();
    }, 1000);
    this.listen();
  }

  update(data, setTrigger) {
    this.setTrigger = setTrigger;
    if (data.key === this.key) return;
    const again = this.playAfterStart;
    this.playAfterStart = false;
    this.key = data.key;
    this.data = data;
    this.n = Math.max(0, ...data.paths.map((p) => p.x.length - 1));
    this.k = 0;
    this.chosen = Math.min(this.chosen, data.paths.length - 1);
    this.dragged = null;
    this.stop();
    this.draw();
    if (again) this.toggle();
  }

  // ------------------------------------------------------------------ drawing

  draw() {
    const { data } = this;
    const t = (this.theme = theme(this.root));
    const Plotly = window.Plotly;
    const grid = data.grid;
    const nx = grid.xs.length;
    const raw = [];
    for (let i = 0; i < grid.ys.length; i++) raw.push(grid.zs.slice(i * nx, (i + 1) * nx));
    const finite = grid.zs.filter((v) => v !== null);
    const low = Math.min(...finite), high = Math.max(...finite);
    // NOTE: a floor of 1/100 of the range under log(loss): at 1e-6 (and still at 1e-3) the grid's samples of
    // Rosenbrock's narrow valley floor (each just off the curve) fell through the lowest levels one by one, a chain
    // of small closed ovals along its arm; the star marks the minimum
    const tiny = Math.max((high - low) * 1e-2, 1e-12);
    const z = grid.log ? raw.map((row) => row.map((v) => (v === null ? null : Math.log10(v - low + tiny)))) : raw;
    const zs = z.flat().filter((v) => v !== null && Number.isFinite(v));
    const zLow = Math.min(...zs), zHigh = Math.max(...zs);
    const size = (zHigh - zLow) / LEVELS || 1; // levels evenly spaced over the surface's own range
    const valley = t.dark ? [110, 140, 210] : [60, 90, 170];
    const colorscale = [0, 0.25, 0.5, 0.75, 1].map((s) => [s, rgb(mix(valley, t.bg, 0.12 + 0.88 * Math.sqrt(s)))]);
    const paths = data.paths;
    const contour = [{
      type: "contour", x: grid.xs, y: grid.ys, z, customdata: raw, colorscale, showscale: false, autocontour: false,
      contours: { coloring: "fill", showlines: true, start: zLow + size / 2, end: zHigh, size },
      line: { color: rgb(t.text, 0.18), width: 0.6, smoothing: 1.2 },
      hovertemplate: `${grid.x} %{x:.3g}, ${grid.y} %{y:.3g}<br>loss %{customdata:.4g}<extra></extra>`,
    }];
    const minima = grid.minima || [];
    if (minima.length) { // a star at each of the surface's minima
      contour.push({ type: "scatter", mode: "markers", x: minima.map((m) => m[0]), y: minima.map((m) => m[1]),
        marker: { symbol: "star", size: 15, color: "#fab005", line: { color: rgb(t.text), width: 1 } },
        hovertemplate: `minimum: ${grid.x} %{x:.3g}, ${grid.y} %{y:.3g}<extra></extra>` });
    }
    const font = { color: rgb(t.text), family: t.font, size: 12 };
    const axis = (title, range) => ({ title: { text: title, standoff: 4 }, range, zeroline: false, automargin: false,
      showgrid: false, ticks: "outside", ticklen: 3, color: rgb(t.text, 0.8), fixedrange: true });
    const planeLayout = {
      margin: { l: 44, r: 8, t: 8, b: 38 }, paper_bgcolor: "rgba(0,0,0,0)", plot_bgcolor: rgb(t.bg), font,
      xaxis: axis(grid.x, grid.box[0]), yaxis: { ...axis(grid.y, grid.box[1]), scaleanchor: "x" },
      dragmode: false, showlegend: false, hovermode: "closest",
      hoverlabel: { bgcolor: rgb(t.bg), font: { color: rgb(t.text) } },
    };
    const config = { displayModeBar: false, responsive: false, doubleClick: false, scrollZoom: false };
    const drawn = [Plotly.react(this.surface, contour, planeLayout, config).then((gd) => {
      // the page's placeholder (components/race), shown until this first drawing
      for (const e of document.querySelectorAll('[data-testid="race-waiting"]')) e.hidden = true;
      return gd;
    })];
    // the loss of each against the step; log scale when every loss is positive
    const losses = paths.flatMap((p) => p.loss).filter((v) => v !== null);
    const positive = losses.length > 0 && losses.every((v) => v > 0);
    const lo = Math.min(...losses), hi = Math.max(...losses);
    const yRange = positive ? [Math.log10(lo) - 0.2, Math.log10(hi) + 0.2] : [lo - (hi - lo) * 0.05 - 1e-9, hi + (hi - lo) * 0.05 + 1e-9];
    // every loss, invisible: the axes and the hover (step, loss) for the lines the overlay draws
    const lossTraces = paths.map((p) => ({ type: "scatter", mode: "lines", x: p.loss.map((_, i) => i), y: p.loss,
      name: p.title, line: { color: "rgba(0,0,0,0)", width: 6 },
      hovertemplate: `${p.title}<br>step %{x}: loss %{y:.4g}<extra></extra>` }));
    const lossLayout = {
      margin: { l: 52, r: 8, t: 6, b: 34 }, paper_bgcolor: "rgba(0,0,0,0)", plot_bgcolor: "rgba(0,0,0,0)", font,
      xaxis: { ...axis("step", [0, Math.max(this.n, 1)]), showgrid: true, gridcolor: rgb(t.text, 0.08) },
      yaxis: { ...axis(positive ? "loss (log scale)" : "loss", yRange), type: positive ? "log" : "linear",
        dtick: positive ? Math.max(1, Math.ceil((yRange[1] - yRange[0]) / 5)) : undefined,  // ~5 labels: every n decades
        showgrid: true, gridcolor: rgb(t.text, 0.08), exponentformat: "power" },
      showlegend: false, hovermode: "closest",
    };
    drawn.push(Plotly.react(this.lossPlot, lossTraces, lossLayout, config).then(() => {
      if (this.lossPlot.__raceHover) return;
      this.lossPlot.__raceHover = true;
      // the hover reads every loss; one past the step shown would tell the race's end before it is played
      this.lossPlot.on("plotly_hover", (event) => {
        if (event.points.every((point) => point.x > this.k)) Plotly.Fx.unhover(this.lossPlot);
      });
    }));
    this.legend.replaceChildren(...paths.map((p, i) => {
      const value = el("span", { class: "race-loss-value" });
      const button = el("button", { type: "button", "aria-pressed": i === this.chosen, title: "Show this optimiser's arithmetic",
        onclick: () => { this.chosen = i; this.show(this.k); } },
      el("span", { class: "race-swatch", style: `background:${PATH_COLOURS[i % PATH_COLOURS.length]}` }),
      el("span", {}, p.title), value);
      const row = el("li", { "data-path": p.id, "data-loss": "" }, button);
      if (p.stopped) row.append(el("div", { class: "race-stopped" }, `Stopped: ${p.stopped}.`));
      return row;
    }));
    this.slider.max = this.n;
    this.overlay.replaceChildren();
    this.lossOverlay.replaceChildren();
    this.ready = false;
    const key = this.key;
    Promise.all(drawn).then(() => {
      if (key !== this.key) return;
      this.ready = true;
      this.place();
    });
  }

  /** The overlays' fixed parts, placed by the plots' axes (after a draw or a resize): each path's points in
   * pixels, the clip to the plot area, the elements the frames move. */
  place() {
    const t = this.theme;
    const paths = this.data.paths;
    const scale = (gd) => {
      const { xaxis: xa, yaxis: ya } = gd._fullLayout;
      return { x: (v) => xa._offset + xa.c2p(v), y: (v) => ya._offset + ya.c2p(v),
        box: [xa._offset, ya._offset, xa._length, ya._length], xa, ya };
    };
    const plane = (this.planeScale = scale(this.surface));
    const loss = scale(this.lossPlot);
    const clip = (id, [x, y, w, h]) => svg("clipPath", { id }, svg("rect", { x, y, width: w, height: h }));
    const uid = (this.uid = this.uid || Math.random().toString(36).slice(2, 8));
    const colours = [...Object.values(ARROW_COLOURS), rgb(t.text)];
    const heads = colours.map((c, i) => svg("marker", { id: `race-head-${uid}-${i}`, viewBox: "0 0 10 10", refX: 9,
      refY: 5, markerWidth: 9, markerHeight: 9, markerUnits: "userSpaceOnUse", orient: "auto-start-reverse" }, svg("path", { d: "M0,0 L10,5 L0,10 z", fill: c })));
    this.headOf = Object.fromEntries(colours.map((c, i) => [c, `url(#race-head-${uid}-${i})`]));
    const group = svg("g", { "clip-path": `url(#race-clip-${uid})` });
    this.lines = paths.map((p, i) => group.appendChild(svg("polyline", { "data-path-line": p.id, fill: "none",
      stroke: PATH_COLOURS[i % PATH_COLOURS.length], "stroke-width": 2.2, "stroke-linejoin": "round" })));
    this.pixels = paths.map((p) => p.x.map((x, j) => `${plane.x(x).toFixed(1)},${plane.y(p.y[j]).toFixed(1)}`));
    this.heads = paths.map((p, i) => group.appendChild(svg("circle", { r: 4.5, fill: PATH_COLOURS[i % PATH_COLOURS.length],
      stroke: rgb(t.bg), "stroke-width": 1.5 })));
    const [[bx0, bx1], [by0, by1]] = this.data.grid.box;
    const reach = 0.18 * Math.min(bx1 - bx0, by1 - by0);
    const [sx, sy] = this.data.start;
    (this.data.axes || []).forEach((a, i) => {
      const [dx, dy] = a.dir.map((v) => v * reach);
      group.appendChild(svg("line", { "data-eigen-axis": i, "data-lambda": a.lambda, x1: plane.x(sx - dx),
        y1: plane.y(sy - dy), x2: plane.x(sx + dx), y2: plane.y(sy + dy), stroke: rgb(t.text, i ? 0.45 : 0.8),
        "stroke-width": 1.5, "stroke-dasharray": "5 4" }));
      group.appendChild(svg("text", { x: plane.x(sx + dx) + 4, y: plane.y(sy + dy) - 4, fill: rgb(t.text, 0.8),
        stroke: rgb(t.bg, 0.85), "paint-order": "stroke", "font-size": 11 }, `λ = ${formatNumber(a.lambda)}`));
    });
    this.startMark = group.appendChild(svg("circle", { "data-start": "", r: 6.5, fill: "none", stroke: rgb(t.text),
      "stroke-width": 2.5 }));
    this.arrowGroup = group.appendChild(svg("g", {}));
    this.overlay.replaceChildren(svg("defs", {}, clip(`race-clip-${uid}`, plane.box), ...heads), group);
    const lossGroup = svg("g", { "clip-path": `url(#race-lclip-${uid})` });
    const positive = this.lossPlot._fullLayout.yaxis.type === "log";
    this.lossPixels = paths.map((p) => p.loss.map((v, j) => (v === null || (positive && v <= 0) ? null
      : `${loss.x(j).toFixed(1)},${loss.y(v).toFixed(1)}`)));
    this.lossLines = paths.map((p, i) => lossGroup.appendChild(svg("polyline", { fill: "none",
      stroke: PATH_COLOURS[i % PATH_COLOURS.length], "stroke-width": 2 })));
    this.cursor = lossGroup.appendChild(svg("line", { y1: loss.box[1], y2: loss.box[1] + loss.box[3],
      stroke: rgb(t.text, 0.35), "stroke-dasharray": "2 3" }));
    this.lossScale = loss;
    this.lossOverlay.replaceChildren(svg("defs", {}, clip(`race-lclip-${uid}`, loss.box)), lossGroup);
    this.show(this.k);
  }

  /** Everything as of step k: the paths up to it, the losses, the legend's numbers, the chosen one's arithmetic. */
  show(k) {
    const { data } = this;
    k = Math.max(0, Math.min(this.n, Math.round(k)));
    this.k = k;
    if (!this.ready) return;
    const paths = data.paths;
    const plane = this.planeScale;
    paths.forEach((p, i) => {
      const m = Math.min(k, p.x.length - 1);
      this.lines[i].setAttribute("points", this.pixels[i].slice(0, m + 1).join(" "));
      this.lines[i].dataset.points = m + 1;
      this.heads[i].setAttribute("cx", plane.x(p.x[m]));
      this.heads[i].setAttribute("cy", plane.y(p.y[m]));
      this.lossLines[i].setAttribute("points", this.lossPixels[i].slice(0, m + 1).filter((v) => v).join(" "));
    });
    const start = this.dragged || data.start;
    this.startMark.setAttribute("cx", plane.x(start[0]));
    this.startMark.setAttribute("cy", plane.y(start[1]));
    this.startMark.dataset.x = start[0];
    this.startMark.dataset.y = start[1];
    const cx = this.lossScale.x(k);
    this.cursor.setAttribute("x1", cx);
    this.cursor.setAttribute("x2", cx);
    this.arrowGroup.replaceChildren(...this.arrows(k));
    this.legend.querySelectorAll("li").forEach((row, i) => {
      const p = paths[i];
      const m = Math.min(k, p.x.length - 1);
      const loss = p.loss[m];
      row.dataset.loss = loss === null ? "nan" : String(loss);
      row.querySelector(".race-loss-value").textContent = `loss ${formatNumber(loss)}${m < k ? " (stopped)" : ""}`;
      row.querySelector("button").setAttribute("aria-pressed", i === this.chosen);
    });
    this.slider.value = k;
    this.count.textContent = `step ${k} of ${this.n}`;
    this.root.dataset.steps = k;
    this.root.dataset.frames = ++this.frames;
    this.writeArithmetic(k);
  }

  /** The chosen optimiser's step k as arrows from the point before it: the step to scale, the vectors in
   * gradient units (g, v, m̂, √v̂, ...) scaled together to fit. */
  arrows(k) {
    const p = this.data.paths[this.chosen];
    if (!p || k < 1 || k > p.x.length - 1) return [];
    const [x0, y0] = [p.x[k - 1], p.y[k - 1]];
    const box = this.data.grid.box;
    const width = Math.max(box[0][1] - box[0][0], box[1][1] - box[1][0]);
    const vectors = p.rules.map(([key]) => key).filter((key) => key !== "step" && p.arith[key])
      .map((key) => [key, p.arith[key][k - 1].map(Number)]);
    // NOTE: √v̂ is a running size of the gradient, often far longer than g or m̂ late in a race: drawn at the others'
    // scale it would leave them dots, so it gets its own scale when it would be over 0.4 plot widths.
    const norm = (v) => Math.hypot(v[0], v[1]);
    const longest = Math.max(1e-300, ...vectors.filter(([key]) => key !== "sv").map(([, v]) => norm(v)));
    this.scale = (0.22 * width) / longest;
    const sv = vectors.find(([key]) => key === "sv");
    this.svScale = sv && norm(sv[1]) * this.scale > 0.4 * width ? (0.3 * width) / norm(sv[1]) : this.scale;
    const step = p.arith.step[k - 1].map(Number);
    const t = this.theme;
    const out = [], placed = [];
    const plane = this.planeScale;
    const arrow = (key, dx, dy, colour) => {
      if (!(Math.hypot(dx, dy) > 1e-9 * width)) return;
      const [ax, ay, bx, by] = [plane.x(x0), plane.y(y0), plane.x(x0 + dx), plane.y(y0 + dy)];
      out.push(svg("line", { "data-arrow": key, "data-from": `${x0},${y0}`, "data-to": `${x0 + dx},${y0 + dy}`,
        x1: ax, y1: ay, x2: bx, y2: by, stroke: colour, "stroke-width": 2, "marker-end": this.headOf[colour] }));
      // labels of nearly parallel arrows would print over each other: each one near an earlier one moves down a line
      const near = placed.filter(([px, py]) => Math.hypot(px - bx, py - by) < 16).length;
      placed.push([bx, by]);
      out.push(svg("text", { x: bx + (bx >= ax ? 4 : -4), y: by + (by <= ay ? -4 : 12) + 14 * near, fill: colour,
        stroke: rgb(t.bg, 0.85), "text-anchor": bx >= ax ? "start" : "end" }, ARROW_NAMES[key]));
    };
    vectors.forEach(([key, v]) => {
      const scale = key === "sv" ? this.svScale : this.scale;
      arrow(key, v[0] * scale, v[1] * scale, ARROW_COLOURS[key] || rgb(t.text));
    });
    arrow("step", step[0], step[1], rgb(t.text));
    return out;
  }

  writeArithmetic(k) {
    const p = this.data.paths[this.chosen];
    const { x: gx, y: gy } = this.data.grid;
    if (!p) return;
    const last = p.x.length - 1;
    if (k < 1 || k > last) {
      const why = k > last ? `${p.title} stopped at step ${last}.` : "Press Play, or move the slider to a step, to see its arithmetic.";
      this.arith.replaceChildren(el("h4", {}, p.title), el("p", {}, why));
      this.note.textContent = "Click or drag on the contour plot to move the start point.";
      return;
    }
    const fields = (key) => `(${p.arith[key][k - 1].join(", ")})`;
    const lines = p.rules.map(([key, text]) => el("p", {},
      el("span", { class: "key", style: `background:${key === "step" ? rgb(this.theme.text) : ARROW_COLOURS[key] || "transparent"}` }),
      text.replace(/\{(\w+)\}/g, (_, name) => (p.arith[name] ? fields(name) : `{${name}}`))));
    const from = `(${formatNumber(p.x[k - 1])}, ${formatNumber(p.y[k - 1])})`;
    const to = `(${formatNumber(p.x[k])}, ${formatNumber(p.y[k])})`;
    this.arith.replaceChildren(el("h4", {}, `${p.title}, step ${k} (t = ${k}): ${gx}, ${gy} from ${from} to ${to}`), ...lines);
    const drawn = p.rules.map(([key]) => key).filter((key) => key !== "step" && (key !== "sv" || this.svScale === this.scale));
    const apart = this.svScale !== this.scale ? ` and √v̂ ×${formatNumber(this.svScale)}` : "";
    this.note.textContent = `Arrows from the point before step ${k}: the step to scale; ` +
      `${drawn.map((key) => ARROW_NAMES[key]).join(", ")} ×${formatNumber(this.scale)}${apart} (gradient units). ` +
      "Click or drag on the plot to move the start point.";
  }

  // ------------------------------------------------------------------ playing

  toggle() {
    if (this.timer) return this.stop();
    if (this.k >= this.n) this.show(0);
    this.play.textContent = "Pause";
    let position = this.k, then = performance.now();
    const tick = (now) => {
      const rate = Math.max(12, this.n / SECONDS) * Number(this.speed.value);
      position += (rate * Math.min(now - then, 100)) / 1000;
      then = now;
      const k = Math.min(this.n, Math.floor(position));
      if (k !== this.k) this.show(k);
      if (k >= this.n) return this.stop();
      this.timer = requestAnimationFrame(tick);
    };
    this.timer = requestAnimationFrame(tick);
    return undefined;
  }

  stop() {
    if (this.timer) cancelAnimationFrame(this.timer);
    this.timer = null;
    this.play.textContent = this.k >= this.n && this.n > 0 ? "Replay" : "Play";
  }

  nudge(by) {
    this.stop();
    this.show(this.k + by);
  }

  // ------------------------------------------------------------------ moving the start point

  listen() {
    const at = (event) => {
      const layout = this.surface._fullLayout;
      if (!layout || !layout.xaxis) return null;
      const box = this.surface.getBoundingClientRect();
      const px = event.clientX - box.left - layout._size.l, py = event.clientY - box.top - layout._size.t;
      if (px < 0 || py < 0 || px > layout._size.w || py > layout._size.h) return null;
      return [layout.xaxis.p2c(px), layout.yaxis.p2c(py)];
    };
    this.plane.addEventListener("pointerdown", (event) => {
      const point = at(event);
      if (!point || !this.data) return;
      this.stop();
      this.dragging = true;
      this.plane.setPointerCapture(event.pointerId);
      this.moveStart(point);
    });
    this.plane.addEventListener("pointermove", (event) => {
      if (!this.dragging) return;
      const point = at(event);
      if (point) this.moveStart(point);
    });
    const done = () => {
      if (!this.dragging) return;
      this.dragging = false;
      const [x, y] = this.dragged;
      this.playAfterStart = true;
      if (this.setTrigger) this.setTrigger("start", { x, y });
    };
    this.plane.addEventListener("pointerup", done);
    this.plane.addEventListener("pointercancel", done);
  }

  moveStart(point) {
    this.dragged = point.map((v) => Number(formatNumber(v)));  // the start as it prints
    this.show(0);
  }

  destroy() {
    this.stop();
    clearInterval(this.themeTimer);
    this.observer.disconnect();
    if (window.Plotly) [this.surface, this.lossPlot].forEach((gd) => window.Plotly.purge(gd));
  }
}

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  if (!data || !data.paths) return undefined;
  let view = parentElement.__race;
  if (!view || !view.root.isConnected) view = parentElement.__race = new Race(parentElement);
  view.update(data, setTriggerValue);
  return () => {
    // Streamlit calls this before every update too; let go only once the view has left the page.
    setTimeout(() => {
      if (view.root.isConnected) return;
      view.destroy();
      if (parentElement.__race === view) parentElement.__race = null;
    }, 1000);
  };
}
