// The Training Playground's live view: boundary, network, curves and gradient health in one DOM,
// drawn in the browser from the numbers each frame carries, and updated in place.
//
// Streamlit calls the default export on mount and for every new message with data as built by
// explorer/playground.py `Playground.view_data`:
//   {run, seq, playing, interval, speed, rate, compute, diverged, frames: [{step, m, p, h, g?}],
//    model?: the network's layout and the points (sent on full page runs; model.graph: {key of the
//    step graph's layout, glyphs} when that panel is open),
//    history?: the curves so far, replay?: recorded frames}
// A frame's g (the step graph's texts at that step) is pushed to the graph view below as it is
// painted (window event "graph-view:values"), so the two always show the same step.
// A message's frames are painted one after another, spread over the time until the next message
// is due. Every paint evaluates the network (live_math.js) on a grid and redraws the boundary
// (or fitted curve), the network with each neuron's picture inside its node and its edges
// coloured and sized by weight, the curves and the health rows, all from the same frame.
// Nothing is removed or remounted while playing.
//
// Test hooks: root [data-testid=live-view] with data-frame (+1 per paint), data-step and data-probe
// (the prediction at the middle of the picture); the
// network [data-testid=live-network] with a [data-neuron="L.i"] box per neuron (L = 0 for inputs,
// then the Linear layer it is the output of; i from 1); health rows [data-layer=L] with
// data-grad-norm, data-weight-norm, data-update-ratio, data-dead, data-saturated, data-trouble;
// tiles [data-stat]; the legend's chips [data-class]. If the browser holds no layout for the
// run it is shown (a message was skipped), it asks for one with the trigger "need".

import { el } from "../../web/dom.js";
import { mix, parseColour, rgb, theme as pageTheme } from "../../web/theme.js";
import * as lm from "./live_math.js";

const CLASS_COLOURS = ["#f28e2b", "#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
const POSITIVE = "#1f77b4";
const NEGATIVE = "#f28e2b";
const GRID_BUDGET = 30e6; // multiply-adds per picture of the boundary
const NEURON_RES = 24; // a neuron's picture is at most this many samples a side
const MAX_QUEUE_MESSAGES = 3; // frames of at most this many messages wait to be painted

// --------------------------------------------------------------------------- colours

function readTheme(node) {
  const { bg, text, dark, font } = pageTheme(node);
  const classes = CLASS_COLOURS.map((c) => parseColour(c));
  return {
    key: `${bg}|${text}`,
    bg,
    text,
    dark,
    classes,
    pos: parseColour(POSITIVE),
    neg: parseColour(NEGATIVE),
    grid: rgb(text, 0.12),
    axis: rgb(text, 0.45),
    faint: rgb(text, 0.6),
    outline: rgb(dark ? [255, 255, 255] : [0, 0, 0], 0.55),
    font,
  };
}

// Colours come from tables of LEVELS entries per theme (no allocation per pixel: a paint colours
// tens of thousands of them).
const LEVELS = 256;

function colourTable(theme, key, colourAt) {
  theme.tables = theme.tables || {};
  if (!theme.tables[key]) {
    const t = new Uint8ClampedArray(LEVELS * 3);
    for (let i = 0; i < LEVELS; i++) t.set(colourAt(i / (LEVELS - 1)), i * 3);
    theme.tables[key] = t;
  }
  return theme.tables[key];
}

function divergingTable(theme) {
  // u in [0, 1] stands for v = 2u − 1 in [−1, 1]: orange (negative) .. background .. blue (positive).
  return colourTable(theme, "diverging", (u) => {
    const v = 2 * u - 1;
    return mix(theme.bg, v >= 0 ? theme.pos : theme.neg, Math.abs(v) * 0.85);
  });
}

function classTable(theme, classes, k) {
  // Two classes: index by p(class 1), orange below ½, blue above. More: class k's colour by how sure.
  if (classes === 2) return colourTable(theme, "binary", (p) => mix(theme.bg, theme.classes[p >= 0.5 ? 1 : 0], Math.abs(p - 0.5) * 1.24));
  return colourTable(theme, `class${k}`, (sure) => mix(theme.bg, theme.classes[k % theme.classes.length], 0.08 + sure * 0.55));
}

function setPixel(out, o, tab, u) {
  const i = 3 * Math.round(Math.max(0, Math.min(1, u)) * (LEVELS - 1));
  out[o] = tab[i];
  out[o + 1] = tab[i + 1];
  out[o + 2] = tab[i + 2];
  out[o + 3] = 255;
}

function shadeCell(theme, probs, k, classes, out, o) {
  // A grid cell: the winning class's colour, stronger the surer the model is.
  if (classes === 2) return setPixel(out, o, classTable(theme, 2), probs[k]);
  let best = 0;
  for (let c = 1; c < classes; c++) if (probs[k * classes + c] > probs[k * classes + best]) best = c;
  const sure = (probs[k * classes + best] - 1 / classes) / (1 - 1 / classes);
  setPixel(out, o, classTable(theme, classes, best), sure);
}

// ------------------------------------------------------------------------------ DOM

const CSS = `
.lv { container-type: inline-size; font-family: var(--st-font, sans-serif); color: var(--st-text-color, #31333f);
  font-size: 0.8rem; position: relative; }
.lv * { box-sizing: border-box; }
.lv-stats { display: flex; flex-wrap: wrap; gap: 4px 18px; margin-bottom: 6px; align-items: baseline; }
.lv-stat { display: flex; flex-direction: column; min-width: 72px; }
.lv-stat b { font-size: 1.25rem; font-weight: 600; line-height: 1.35; font-variant-numeric: tabular-nums; }
.lv-stat span { font-size: 0.72rem; opacity: 0.7; }
.lv-status { font-size: 0.75rem; opacity: 0.75; align-self: center; }
.lv-grid { display: grid; gap: 12px; }
.lv-panel { min-width: 0; position: relative; }
.lv-title { font-weight: 600; font-size: 0.82rem; margin: 0 0 2px 0; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.lv canvas { display: block; }
.lv-legend { display: flex; flex-wrap: wrap; gap: 2px 10px; font-size: 0.72rem; margin-top: 2px; }
.lv-legend i { display: inline-block; width: 10px; height: 10px; border-radius: 50%; margin-right: 3px; vertical-align: -1px; }
.lv-legend i.test { border-radius: 0; transform: rotate(45deg) scale(0.8); background: transparent !important; border: 2px solid; }
.lv-net { position: relative; }
.lv-neuron { position: absolute; border-radius: 4px; cursor: pointer; }
.lv-neuron:hover, .lv-neuron.pinned { outline: 2px solid var(--st-primary-color, #ff4b4b); outline-offset: 1px; }
.lv-side { display: flex; flex-direction: column; gap: 8px; min-width: 0; }
.lv-health { display: grid; grid-template-columns: auto repeat(4, minmax(0, 1fr)); gap: 1px 8px; font-size: 0.72rem;
  font-variant-numeric: tabular-nums; align-items: baseline; }
.lv-health .hd { opacity: 0.65; font-size: 0.68rem; white-space: nowrap; }
.lv-hrow { display: contents; }
.lv-hrow > span { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; padding: 1px 0; }
.lv-hrow.trouble > span { color: var(--st-orange-text-color, #c2410c); font-weight: 600; }
.lv-why { grid-column: 1 / -1; font-size: 0.7rem; color: var(--st-orange-text-color, #c2410c);
  background: var(--st-orange-background-color, rgba(255,165,0,0.12)); border-radius: 4px; padding: 1px 6px; }
.lv-why:empty { display: none; }
.lv-replay { display: none; align-items: center; gap: 8px; margin-top: 8px; }
.lv-replay.on { display: flex; }
.lv-replay input { flex: 1; min-width: 80px; accent-color: var(--st-primary-color, #ff4b4b); }
.lv-replay button { font: inherit; color: inherit; background: var(--st-secondary-background-color, #f0f2f6);
  border: 1px solid var(--st-border-color, rgba(49,51,63,0.2)); border-radius: 6px; padding: 2px 10px; cursor: pointer; }
.lv-tip { position: absolute; z-index: 20; pointer-events: none; display: none; padding: 6px 8px; border-radius: 6px;
  background: var(--st-secondary-background-color, #f0f2f6); border: 1px solid var(--st-border-color, rgba(49,51,63,0.2));
  box-shadow: 0 2px 10px rgba(0,0,0,0.18); font-size: 0.72rem; max-width: 300px; }
.lv-tip.on { display: block; }
.lv-tip table { border-collapse: collapse; margin-top: 4px; font-variant-numeric: tabular-nums; }
.lv-tip td { padding: 0 6px 0 0; white-space: nowrap; }
.lv-tip .bar { display: inline-block; height: 8px; vertical-align: middle; border-radius: 2px; }
`;

// A new element of class `cls` (and attributes `attrs`) appended to `parent`.
function addEl(tag, cls, parent, attrs) {
  const node = el(tag, { class: cls, ...attrs });
  if (parent) parent.appendChild(node);
  return node;
}

function build(root) {
  const style = addEl("style", null, root);
  style.textContent = CSS;
  const lv = addEl("div", "lv", root, { "data-testid": "live-view", "data-frame": "0" });
  const stats = addEl("div", "lv-stats", lv);
  const tiles = {};
  for (const [key, label] of [["step", "Step"], ["rate", "Steps/s"], ["train_loss", "Train loss"], ["test_loss", "Test loss"], ["test_acc", "Test accuracy"]]) {
    const box = addEl("div", "lv-stat", stats, { "data-stat": key });
    const value = addEl("b", null, box);
    value.textContent = "—";
    addEl("span", null, box).textContent = label;
    tiles[key] = { box, value };
  }
  const status = addEl("div", "lv-status", stats);
  const grid = addEl("div", "lv-grid", lv);
  const boundary = addEl("div", "lv-panel", grid, { "data-panel": "boundary" });
  const boundaryTitle = addEl("div", "lv-title", boundary);
  const boundaryCanvas = addEl("canvas", null, boundary);
  const legend = addEl("div", "lv-legend", boundary);
  const network = addEl("div", "lv-panel", grid, { "data-testid": "live-network" });
  const networkTitle = addEl("div", "lv-title", network);
  const net = addEl("div", "lv-net", network);
  const netCanvas = addEl("canvas", null, net);
  const netKey = addEl("div", "lv-legend", network, { "data-testid": "live-network-key" });
  const side = addEl("div", "lv-side", grid);
  const curves = addEl("div", "lv-panel", side, { "data-panel": "curves" });
  addEl("div", "lv-title", curves).textContent = "Loss and accuracy";
  const lossCanvas = addEl("canvas", null, curves, { "data-chart": "loss" });
  const accCanvas = addEl("canvas", null, curves, { "data-chart": "accuracy" });
  const healthBox = addEl("div", "lv-panel", side, { "data-panel": "health" });
  const healthTitle = addEl("div", "lv-title", healthBox);
  healthTitle.textContent = "Gradient health per layer";
  healthTitle.title =
    "‖∂L/∂W‖: size of the weight gradient. Δ/W: how much the last step changed the weights relative to their size " +
    "(about 1e-3 is healthy). Dead: ReLUs that output 0 on every point of the batch. Saturated: tanh/sigmoid units " +
    "on a flat tail for every point of the batch.";
  const health = addEl("div", "lv-health", healthBox);
  const replay = addEl("div", "lv-replay", lv);
  const replayButton = addEl("button", null, replay, { type: "button", "data-replay": "play" });
  replayButton.textContent = "▶ Replay";
  const replaySlider = addEl("input", null, replay, { type: "range", min: "0", max: "0", step: "1", "aria-label": "Replay frame" });
  const replayLabel = addEl("span", null, replay, { "data-replay": "label" });
  const tip = addEl("div", "lv-tip", lv);
  return {
    lv, stats, tiles, status, grid, boundary, boundaryTitle, boundaryCanvas, legend, network, networkTitle, net, netCanvas, netKey, side,
    lossCanvas, accCanvas, health, replay, replayButton, replaySlider, replayLabel, tip, neurons: [],
  };
}

// --------------------------------------------------------------------------- layout

function sizeCanvas(canvas, width, height) {
  const ratio = window.devicePixelRatio || 1;
  const w = Math.max(1, Math.round(width)), h = Math.max(1, Math.round(height));
  if (canvas.width !== Math.round(w * ratio) || canvas.height !== Math.round(h * ratio)) {
    canvas.width = Math.round(w * ratio);
    canvas.height = Math.round(h * ratio);
  }
  canvas.style.width = w + "px";
  canvas.style.height = h + "px";
  const ctx = canvas.getContext("2d");
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  return ctx;
}

function layout(s) {
  // Sizes of the panels for the container's width (and, wide, the window's height: the presenter
  // sees boundary, network and curves without scrolling). Three columns when wide, two, or one.
  const width = s.dom.lv.clientWidth || 800;
  const statsH = s.dom.stats.offsetHeight + 6;
  const top = s.dom.lv.getBoundingClientRect().top + window.scrollY;
  const free = Math.max(300, window.innerHeight - top - statsH - 24);
  const gap = 12;
  let side, square, netW, netH, columns;
  if (width >= 960) {
    side = Math.max(250, Math.min(330, width * 0.26));
    square = Math.min(480, free, (width - side - 2 * gap) / 2.1);
    netW = width - side - square - 2 * gap;
    netH = square;
    columns = `${square}px ${netW}px ${side}px`;
  } else if (width >= 600) {
    square = Math.min(440, (width - gap) / 2);
    netW = width - square - gap;
    netH = square;
    side = width;
    columns = `${square}px ${netW}px`;
  } else {
    square = Math.min(width, 480);
    netW = width;
    netH = Math.max(240, Math.min(420, width * 0.85));
    side = width;
    columns = `${width}px`;
  }
  s.dom.grid.style.gridTemplateColumns = columns;
  s.dom.side.style.gridColumn = width >= 960 ? "auto" : "1 / -1";
  s.dom.side.style.flexDirection = width >= 600 && width < 960 ? "row" : "column";
  const sideW = width >= 600 && width < 960 ? (side - gap) / 2 : side;
  for (const child of s.dom.side.children) child.style.flex = width >= 600 && width < 960 ? "1 1 0" : "";
  const titleH = 20;
  s.size = {
    boundary: [square, square - titleH - 18],
    network: [netW, netH - titleH],
    loss: [sideW, width >= 960 ? Math.max(110, square * 0.34) : 160],
    accuracy: [sideW, width >= 960 ? Math.max(80, square * 0.24) : 120],
  };
  s.wide = width;
  s.netLayout = null;
}

// ------------------------------------------------------------------------- painting

function paintBoundary(s, frame, pass) {
  const { model, theme } = s;
  const [W, maxH] = s.size.boundary;
  const m = { l: 34, r: 6, t: 4, b: 24 };
  const [x0, x1] = model.x_range, [y0, y1] = model.y_range;
  let pw = W - m.l - m.r, ph = maxH - m.t - m.b;
  if (model.task !== "regression") {
    const unit = Math.min(pw / (x1 - x0), ph / (y1 - y0)); // one scale for x and y
    pw = unit * (x1 - x0);
    ph = unit * (y1 - y0);
  }
  const H = m.t + ph + m.b; // as tall as the picture needs: the legend follows right below
  const ctx = sizeCanvas(s.dom.boundaryCanvas, W, H);
  ctx.clearRect(0, 0, W, H);
  const ox = m.l + (W - m.l - m.r - pw) / 2, oy = m.t;
  const X = (x) => ox + ((x - x0) / (x1 - x0)) * pw;
  const Y = (y) => oy + ph - ((y - y0) / (y1 - y0)) * ph;
  if (model.task === "regression") {
    paintRegression(ctx, s, pass, X, Y);
  } else {
    const res = pass.res;
    const image = s.scratch(res, res);
    const data = image.ctx.createImageData(res, res);
    for (let r = 0; r < res; r++)
      for (let c = 0; c < res; c++) // row 0 is the bottom of the plot
        shadeCell(theme, pass.out, r * res + c, model.classes, data.data, ((res - 1 - r) * res + c) * 4);
    image.ctx.putImageData(data, 0, 0);
    ctx.imageSmoothingEnabled = true;
    ctx.drawImage(image.canvas, 0, 0, res, res, ox, oy, pw, ph);
    paintPoints(ctx, s, X, Y);
  }
  paintAxes(ctx, theme, ox, oy, pw, ph, [x0, x1], [model.task === "regression" ? model.y_range[0] : y0, model.task === "regression" ? model.y_range[1] : y1],
    model.task === "regression" ? ["x", "y"] : ["x1", "x2"]);
  s.dom.boundary.dataset.step = String(frame.step);
}

function paintPoints(ctx, s, X, Y) {
  const { model, theme } = s;
  const { train, test } = model;
  ctx.lineWidth = 1;
  ctx.strokeStyle = theme.outline;
  for (let i = 0; i < train.x.length; i++) {
    ctx.beginPath();
    ctx.arc(X(train.x[i]), Y(train.y[i]), 3.4, 0, 2 * Math.PI);
    ctx.fillStyle = rgb(theme.classes[train.c[i] % theme.classes.length]);
    ctx.fill();
    ctx.stroke();
  }
  ctx.lineWidth = 2;
  for (let i = 0; i < test.x.length; i++) {
    diamond(ctx, X(test.x[i]), Y(test.y[i]), 4.2);
    ctx.strokeStyle = rgb(theme.classes[test.c[i] % theme.classes.length]);
    ctx.stroke();
  }
}

// A test point's mark: a diamond of half-width r around (x, y), as a path for the caller to stroke.
function diamond(ctx, x, y, r) {
  ctx.beginPath();
  ctx.moveTo(x, y - r);
  ctx.lineTo(x + r, y);
  ctx.lineTo(x, y + r);
  ctx.lineTo(x - r, y);
  ctx.closePath();
}

function paintRegression(ctx, s, pass, X, Y) {
  const { model, theme } = s;
  ctx.save();
  ctx.fillStyle = rgb(theme.classes[1], 0.75);
  for (let i = 0; i < model.train.x.length; i++) {
    ctx.beginPath();
    ctx.arc(X(model.train.x[i]), Y(model.train.y[i]), 3, 0, 2 * Math.PI);
    ctx.fill();
  }
  ctx.strokeStyle = rgb(theme.classes[0]);
  ctx.lineWidth = 2;
  for (let i = 0; i < model.test.x.length; i++) {
    diamond(ctx, X(model.test.x[i]), Y(model.test.y[i]), 4);
    ctx.stroke();
  }
  ctx.restore();
  const [ya, yb] = model.y_range;
  ctx.save();
  ctx.beginPath();
  ctx.rect(X(model.x_range[0]), Y(yb), X(model.x_range[1]) - X(model.x_range[0]), Y(ya) - Y(yb));
  ctx.clip();
  ctx.beginPath();
  for (let i = 0; i < pass.res; i++) {
    const px = X(pass.points[i]), py = Math.max(-1e4, Math.min(1e4, Y(pass.out[i])));
    if (i === 0) ctx.moveTo(px, py);
    else ctx.lineTo(px, py);
  }
  ctx.strokeStyle = rgb(theme.text);
  ctx.lineWidth = 2.5;
  ctx.stroke();
  ctx.restore();
}

function paintAxes(ctx, theme, ox, oy, pw, ph, xr, yr, names) {
  ctx.strokeStyle = theme.axis;
  ctx.lineWidth = 1;
  ctx.strokeRect(ox + 0.5, oy + 0.5, pw - 1, ph - 1);
  ctx.fillStyle = theme.faint;
  ctx.font = `10px ${theme.font}`;
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  for (const v of lm.linearTicks(xr[0], xr[1], Math.max(2, Math.floor(pw / 70)))) {
    const x = ox + ((v - xr[0]) / (xr[1] - xr[0])) * pw;
    ctx.fillRect(x, oy + ph, 1, 3);
    ctx.fillText(lm.number(v, 2), x, oy + ph + 4);
  }
  ctx.textAlign = "right";
  ctx.textBaseline = "middle";
  for (const v of lm.linearTicks(yr[0], yr[1], Math.max(2, Math.floor(ph / 60)))) {
    const y = oy + ph - ((v - yr[0]) / (yr[1] - yr[0])) * ph;
    ctx.fillRect(ox - 3, y, 3, 1);
    ctx.fillText(lm.number(v, 2), ox - 5, y);
  }
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  ctx.fillText(names[0], ox + pw / 2, oy + ph + 13);
  ctx.save();
  ctx.translate(ox - 28, oy + ph / 2);
  ctx.rotate(-Math.PI / 2);
  ctx.textBaseline = "middle";
  ctx.fillText(names[1], 0, 0);
  ctx.restore();
}

// -------------------------------------------------------------------------- network

function networkLayout(s) {
  // Where each neuron sits: columns for inputs, hidden layers and outputs; node size from the
  // widest layer and the space between columns.
  const [W, H] = s.size.network;
  const sizes = s.model.sizes;
  const ctx = s.dom.netCanvas.getContext("2d");
  ctx.font = `12px ${s.theme.font}`;
  const textWidth = (names) => Math.max(0, ...names.map((n) => ctx.measureText(n).width));
  const labelL = Math.min(70, textWidth(s.model.inputs) + 8), labelR = Math.min(90, textWidth(s.model.outputs) + 8);
  const span = Math.max(sizes.length - 1, 1);
  const widest = Math.max(...sizes);
  const node = Math.max(5, Math.min(44, Math.floor(Math.min(((W - labelL - labelR) / span) * 0.5, (H - 8) / (widest * 1.25)))));
  const colGap = (W - labelL - labelR - node) / span; // node boxes run from labelL to W - labelR
  const spacing = Math.min(node * 1.35, (H - 8) / widest);
  const columns = sizes.map((n, l) => {
    const x = labelL + l * colGap;
    const top = (H - (n - 1) * spacing - node) / 2;
    return Array.from({ length: n }, (_, i) => ({ x, y: top + i * spacing, l, i }));
  });
  return { W, H, node, columns };
}

function rebuildNeurons(s) {
  // One absolutely placed box per neuron, over the canvas: the test hook and the hover target.
  const box = s.dom.net;
  for (const n of s.dom.neurons) n.remove();
  s.dom.neurons = [];
  const { node, columns } = s.netLayout;
  for (const col of columns)
    for (const p of col) {
      const d = addEl("div", "lv-neuron", box, { "data-neuron": `${p.l}.${p.i + 1}` });
      Object.assign(d.style, { left: p.x + "px", top: p.y + "px", width: node + "px", height: node + "px" });
      d.addEventListener("mouseenter", () => showNeuron(s, p));
      d.addEventListener("mouseleave", () => { if (!s.pinned) hideTip(s); });
      d.addEventListener("click", (e) => {
        e.stopPropagation();
        const same = s.pinned && s.pinned.l === p.l && s.pinned.i === p.i;
        for (const other of s.dom.neurons) other.classList.remove("pinned");
        s.pinned = same ? null : p;
        if (!same) d.classList.add("pinned");
        if (s.pinned) showNeuron(s, p);
        else hideTip(s);
      });
      s.dom.neurons.push(d);
    }
}

function neuronValues(s, pass, l, i) {
  // A neuron's output at every sample point of the pass: input column, hidden unit or output.
  const sizes = s.model.sizes;
  const width = sizes[l];
  const source = l === 0 ? pass.inputs : l === sizes.length - 1 ? pass.out : pass.hidden[l - 1];
  const count = pass.count;
  const values = new Float64Array(count);
  const stride = l === sizes.length - 1 && (s.model.task === "regression" || width === 1) ? 1 : width;
  for (let k = 0; k < count; k++) values[k] = source[k * stride + (stride === 1 ? 0 : i)];
  return values;
}

function layerScale(s, pass, l) {
  // How values of layer l map to colours: tanh is within ±1, sigmoid within 0..1; else the
  // layer's largest |value| this frame.
  const act = s.model.activation;
  const sizes = s.model.sizes;
  if (l > 0 && l < sizes.length - 1 && act === "tanh") return { centre: 0, half: 1 };
  if (l > 0 && l < sizes.length - 1 && act === "sigmoid") return { centre: 0.5, half: 0.5 };
  if (l === sizes.length - 1 && s.model.task !== "regression") return { centre: 0.5, half: 0.5 };
  const source = l === 0 ? pass.inputs : l === sizes.length - 1 ? pass.out : pass.hidden[l - 1];
  let top = 0;
  for (let k = 0; k < source.length; k++) {
    const a = Math.abs(source[k]);
    if (a > top && Number.isFinite(a)) top = a;
  }
  return { centre: 0, half: top || 1 };
}

function paintNetwork(s, frame, layers, pass) {
  const { theme, model } = s;
  if (!s.netLayout) {
    s.netLayout = networkLayout(s);
    rebuildNeurons(s);
  }
  const { W, H, node, columns } = s.netLayout;
  const ctx = sizeCanvas(s.dom.netCanvas, W, H);
  ctx.clearRect(0, 0, W, H);
  // Edges: bucketed by sign and width so that thousands of them cost a few strokes.
  let top = 0;
  for (const layer of layers) for (let k = 0; k < layer.W.length; k++) top = Math.max(top, Math.abs(layer.W[k]));
  top = top || 1;
  const total = layers.reduce((n, layer) => n + layer.W.length, 0);
  const thin = total > 3000 ? 0.4 : 1;
  const buckets = 6;
  for (let sign = 0; sign < 2; sign++)
    for (let b = 0; b < buckets; b++) {
      ctx.beginPath();
      let any = false;
      layers.forEach((layer, l) => {
        for (let o = 0; o < layer.nOut; o++)
          for (let k = 0; k < layer.nIn; k++) {
            const w = layer.W[o * layer.nIn + k];
            if ((w >= 0) !== (sign === 0) || w === 0) continue;
            if (Math.min(buckets - 1, Math.floor((Math.abs(w) / top) * buckets)) !== b) continue;
            const a = columns[l][k], c = columns[l + 1][o];
            ctx.moveTo(a.x + node, a.y + node / 2);
            ctx.lineTo(c.x, c.y + node / 2);
            any = true;
          }
      });
      if (!any) continue;
      ctx.strokeStyle = rgb(sign === 0 ? theme.pos : theme.neg, (0.18 + (0.7 * (b + 1)) / buckets) * (thin < 1 ? 0.6 : 1));
      ctx.lineWidth = (0.4 + (3.6 * (b + 0.5)) / buckets) * thin;
      ctx.stroke();
    }
  // Each neuron's picture inside its node.
  const res = Math.min(NEURON_RES, pass.pictureRes, Math.max(4, Math.round(node)));
  const atlas = s.scratch(res * columns.reduce((n, c) => Math.max(n, c.length), 0), res * columns.length, "atlas");
  columns.forEach((col, l) => {
    const scale = layerScale(s, pass, l);
    col.forEach((p, i) => {
      const values = neuronValues(s, pass, l, i);
      if (model.task === "regression") paintCurveNode(ctx, theme, values, pass, p, node, scale);
      else paintPictureNode(ctx, atlas, theme, values, pass, p, node, res, scale, l === columns.length - 1 && model.classes > 2 ? i : -1);
    });
  });
  // Node frames and labels.
  ctx.strokeStyle = theme.axis;
  ctx.lineWidth = 1;
  for (const col of columns) for (const p of col) ctx.strokeRect(p.x + 0.5, p.y + 0.5, node - 1, node - 1);
  ctx.fillStyle = theme.faint;
  ctx.font = `${Math.max(9, Math.min(12, node * 0.4))}px ${theme.font}`;
  ctx.textBaseline = "middle";
  ctx.textAlign = "right";
  if (node >= 9 || model.inputs.length <= 8)
    columns[0].forEach((p, i) => ctx.fillText(model.inputs[i], p.x - 4, p.y + node / 2));
  ctx.textAlign = "left";
  const last = columns[columns.length - 1];
  last.forEach((p, i) => ctx.fillText(model.outputs[i], p.x + node + 4, p.y + node / 2));
  s.dom.network.dataset.step = String(frame.step);
  if (s.pinned || s.hovered) showNeuron(s, s.pinned || s.hovered);
}

function paintPictureNode(ctx, atlas, theme, values, pass, p, node, res, scale, classIndex) {
  // A 2-D picture: the neuron's value over the input plane, sampled down to res × res.
  const full = pass.res;
  const tab = divergingTable(theme);
  const data = atlas.ctx.createImageData(res, res);
  for (let r = 0; r < res; r++)
    for (let c = 0; c < res; c++) {
      const gr = Math.min(full - 1, Math.round(((r + 0.5) * full) / res - 0.5));
      const gc = Math.min(full - 1, Math.round(((c + 0.5) * full) / res - 0.5));
      const v = values[gr * full + gc];
      const o = ((res - 1 - r) * res + c) * 4;
      if (classIndex >= 0) setPixel(data.data, o, classTable(theme, 3, classIndex), v);
      else setPixel(data.data, o, tab, 0.5 + (v - scale.centre) / (2 * scale.half));
    }
  atlas.ctx.putImageData(data, 0, 0);
  ctx.imageSmoothingEnabled = node > res;
  ctx.drawImage(atlas.canvas, 0, 0, res, res, p.x, p.y, node, node);
}

function paintCurveNode(ctx, theme, values, pass, p, node, scale) {
  // A 1-D picture (regression): the neuron's value along x.
  ctx.fillStyle = rgb(theme.bg);
  ctx.fillRect(p.x, p.y, node, node);
  ctx.beginPath();
  for (let k = 0; k < pass.count; k++) {
    const x = p.x + (k / Math.max(pass.count - 1, 1)) * node;
    const v = Math.max(-1, Math.min(1, (values[k] - scale.centre) / scale.half));
    const y = p.y + node / 2 - v * (node / 2 - 2);
    if (k === 0) ctx.moveTo(x, y);
    else ctx.lineTo(x, y);
  }
  ctx.strokeStyle = rgb(theme.pos);
  ctx.lineWidth = Math.max(1, node / 20);
  ctx.stroke();
}

// ---------------------------------------------------------------------- hover, tooltips

function tipAt(s, x, y) {
  const tip = s.dom.tip;
  tip.classList.add("on");
  const box = s.dom.lv.getBoundingClientRect();
  const netBox = s.dom.net.getBoundingClientRect();
  let left = netBox.left - box.left + x + 14;
  const top = netBox.top - box.top + y + 8;
  if (left + tip.offsetWidth > box.width) left = Math.max(0, netBox.left - box.left + x - tip.offsetWidth - 14);
  tip.style.left = left + "px";
  tip.style.top = top + "px";
}

function hideTip(s) {
  s.hovered = null;
  s.dom.tip.classList.remove("on");
}

function showNeuron(s, p) {
  // The neuron enlarged, with the weights coming into it (and its bias), live.
  if (!s.frame || !s.layers) return;
  s.hovered = p;
  const { model, theme } = s;
  const tip = s.dom.tip;
  tip.textContent = "";
  const names = model.sizes.map((n, l) =>
    Array.from({ length: n }, (_, i) => (l === 0 ? model.inputs[i] : l === model.sizes.length - 1 ? model.outputs[i] : `h${l}.${i + 1}`)));
  addEl("b", null, tip).textContent = names[p.l][p.i] + (p.l === 0 ? " (input)" : "");
  const big = addEl("canvas", null, tip);
  const side = 150;
  const ctx = sizeCanvas(big, side, side);
  const pass = s.pass;
  const values = neuronValues(s, pass, p.l, p.i);
  const scale = layerScale(s, pass, p.l);
  const res = pass.pictureRes;
  if (model.task === "regression") paintCurveNode(ctx, theme, values, pass, { x: 0, y: 0 }, side, scale);
  else {
    const atlas = s.scratch(res, res, "big");
    paintPictureNode(ctx, atlas, theme, values, pass, { x: 0, y: 0 }, side, res, scale,
      p.l === model.sizes.length - 1 && model.classes > 2 ? p.i : -1);
  }
  if (p.l > 0) {
    const layer = s.layers[p.l - 1];
    const table = addEl("table", null, tip);
    let top = Math.abs(layer.b[p.i]);
    for (let k = 0; k < layer.nIn; k++) top = Math.max(top, Math.abs(layer.W[p.i * layer.nIn + k]));
    const rows = [];
    for (let k = 0; k < layer.nIn; k++) rows.push([`from ${names[p.l - 1][k]}`, layer.W[p.i * layer.nIn + k]]);
    rows.push(["bias", layer.b[p.i]]);
    for (const [label, w] of rows.slice(0, 24)) {
      const tr = addEl("tr", null, table);
      addEl("td", null, tr).textContent = label;
      addEl("td", null, tr).textContent = (w >= 0 ? "+" : "") + lm.number(w, 3);
      const bar = addEl("span", "bar", addEl("td", null, tr));
      bar.style.width = Math.round((Math.abs(w) / (top || 1)) * 60) + "px";
      bar.style.background = rgb(w >= 0 ? theme.pos : theme.neg);
    }
    if (rows.length > 24) addEl("div", null, tip).textContent = `… and ${rows.length - 24} more`;
  }
  tipAt(s, p.x + s.netLayout.node, p.y);
}

function edgeAt(s, x, y) {
  // The edge nearest to (x, y) in the network canvas, within 5 px.
  if (!s.netLayout || !s.layers) return null;
  const { node, columns } = s.netLayout;
  let best = null, bestD = 25;
  s.layers.forEach((layer, l) => {
    const xa = columns[l][0].x + node, xb = columns[l + 1][0].x;
    if (x < xa - 5 || x > xb + 5) return;
    for (let o = 0; o < layer.nOut; o++)
      for (let k = 0; k < layer.nIn; k++) {
        const a = columns[l][k], c = columns[l + 1][o];
        const ax = a.x + node, ay = a.y + node / 2, bx = c.x, by = c.y + node / 2;
        const dx = bx - ax, dy = by - ay;
        const t = Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy || 1)));
        const ex = ax + t * dx - x, ey = ay + t * dy - y;
        const d = ex * ex + ey * ey;
        if (d < bestD) { bestD = d; best = { l, k, o, w: layer.W[o * layer.nIn + k] }; }
      }
  });
  return best;
}

function onNetMove(s, event) {
  if (s.pinned || event.target !== s.dom.netCanvas) return;
  const box = s.dom.netCanvas.getBoundingClientRect();
  const x = event.clientX - box.left, y = event.clientY - box.top;
  const edge = edgeAt(s, x, y);
  if (!edge) {
    if (!s.hovered) s.dom.tip.classList.remove("on");
    return;
  }
  const m = s.model;
  const name = (l, i) => (l === 0 ? m.inputs[i] : l === m.sizes.length - 1 ? m.outputs[i] : `h${l}.${i + 1}`);
  s.dom.tip.textContent = `W${edge.l + 1}[${edge.o + 1}, ${edge.k + 1}] = ${lm.number(edge.w, 4)}  (${name(edge.l, edge.k)} → ${name(edge.l + 1, edge.o)})`;
  s.dom.tip.dataset.edge = `${edge.l + 1}.${edge.o + 1}.${edge.k + 1}`;
  tipAt(s, x, y);
}

// --------------------------------------------------------------------------- curves

function curveData(s) {
  // The history the server sent, then the frames painted since.
  const h = s.history || { step: [], train_loss: [], test_loss: [], train_acc: [], test_acc: [] };
  const last = h.step.length ? h.step[h.step.length - 1] : -1;
  const extra = s.extra.filter((f) => f.step > last);
  const col = (name, k) => h[name].concat(extra.map((f) => f.m[k]));
  return { step: h.step.concat(extra.map((f) => f.step)), train_loss: col("train_loss", 0), test_loss: col("test_loss", 1),
    train_acc: col("train_acc", 2), test_acc: col("test_acc", 3) };
}

function paintChart(canvas, size, theme, steps, series, opts) {
  const [W, H] = size;
  const ctx = sizeCanvas(canvas, W, H);
  ctx.clearRect(0, 0, W, H);
  const m = { l: 40, r: 8, t: 14, b: 18 };
  const pw = W - m.l - m.r, ph = H - m.t - m.b;
  const xmax = Math.max(10, steps.length ? steps[steps.length - 1] : 0);
  let lo = Infinity, hi = -Infinity;
  for (const s of series) for (const v of s.values) if (v !== null && Number.isFinite(v) && (!opts.log || v > 0)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  if (opts.range) [lo, hi] = opts.range;
  if (!(hi > lo)) { if (Number.isFinite(lo)) { const pad = opts.log ? lo * 0.5 : 0.5; lo -= pad; hi = (opts.log ? lo + 2 * pad : hi) + pad; } else { lo = opts.log ? 0.1 : 0; hi = 1; } }
  if (opts.log) { lo = lo / 1.15; hi = hi * 1.15; }
  const fy = opts.log ? (v) => (Math.log(v) - Math.log(lo)) / (Math.log(hi) - Math.log(lo)) : (v) => (v - lo) / (hi - lo);
  const X = (x) => m.l + (x / xmax) * pw, Y = (v) => m.t + ph - fy(v) * ph;
  const ticks = opts.log ? lm.logTicks(lo, hi, 4) : lm.linearTicks(lo, hi, 4);
  ctx.font = `10px ${theme.font}`;
  ctx.fillStyle = theme.faint;
  ctx.textAlign = "right";
  ctx.textBaseline = "middle";
  const labels = [];
  for (const v of ticks) {
    const y = Y(v);
    if (y < m.t - 1 || y > m.t + ph + 1) continue;
    ctx.fillStyle = theme.grid;
    ctx.fillRect(m.l, Math.round(y), pw, 1);
    ctx.fillStyle = theme.faint;
    const label = opts.percent ? `${Math.round(v * 100)}%` : lm.number(v, 2);
    ctx.fillText(label, m.l - 4, y);
    labels.push(label);
  }
  canvas.dataset.ticks = labels.join(" ");
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  for (const v of lm.linearTicks(0, xmax, Math.max(2, Math.floor(pw / 60)))) ctx.fillText(lm.number(v, 3), X(v), m.t + ph + 3);
  ctx.strokeStyle = theme.axis;
  ctx.strokeRect(m.l + 0.5, m.t + 0.5, pw - 1, ph - 1);
  for (const s of series) {
    ctx.beginPath();
    let pen = false;
    for (let i = 0; i < steps.length; i++) {
      const v = s.values[i];
      if (v === null || !Number.isFinite(v) || (opts.log && v <= 0)) { pen = false; continue; }
      const px = X(steps[i]), py = Math.max(m.t, Math.min(m.t + ph, Y(v)));
      if (pen) ctx.lineTo(px, py);
      else ctx.moveTo(px, py);
      pen = true;
    }
    ctx.setLineDash(s.dash ? [4, 3] : []);
    ctx.strokeStyle = rgb(s.colour);
    ctx.lineWidth = 1.8;
    ctx.stroke();
  }
  ctx.setLineDash([]);
  if (steps.length < 2 && opts.hint) {
    ctx.fillStyle = theme.faint;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    ctx.font = `12px ${theme.font}`;
    ctx.fillText(opts.hint, m.l + pw / 2, m.t + ph / 2);
  }
  if (opts.marker !== undefined && opts.marker !== null) {
    ctx.fillStyle = rgb(theme.text, 0.5);
    ctx.fillRect(Math.round(X(opts.marker)), m.t, 1, ph);
  }
  ctx.textAlign = "left";
  ctx.fillStyle = rgb(theme.text, 0.85);
  ctx.font = `600 10px ${theme.font}`;
  ctx.fillText(opts.title, m.l + 4, 1);
  let lx = W - m.r;
  ctx.textAlign = "right";
  ctx.font = `10px ${theme.font}`;
  for (const s of series.slice().reverse()) {
    if (!s.values.some((v) => v !== null)) continue;
    ctx.fillStyle = rgb(s.colour);
    ctx.fillText(s.name, lx, 1);
    lx -= ctx.measureText(s.name).width + 10;
  }
}

function paintCurves(s, marker) {
  const { theme, model } = s;
  const d = curveData(s);
  const hasTest = model.test.x.length > 0;
  const loss = [{ name: "train", values: d.train_loss, colour: theme.classes[1] }];
  if (hasTest) loss.push({ name: "test", values: d.test_loss, colour: theme.classes[0], dash: true });
  paintChart(s.dom.lossCanvas, s.size.loss, theme, d.step, loss, { log: true, title: `Loss (${model.loss}, log scale)`, marker,
    hint: "Press Play or Step to train" });
  if (model.task === "regression") {
    s.dom.accCanvas.style.display = "none";
    return;
  }
  s.dom.accCanvas.style.display = "";
  const acc = [{ name: "train", values: d.train_acc, colour: theme.classes[1] }];
  if (hasTest) acc.push({ name: "test", values: d.test_acc, colour: theme.classes[0], dash: true });
  paintChart(s.dom.accCanvas, s.size.accuracy, theme, d.step, acc, { range: [0, 1], percent: true, title: "Accuracy", marker });
}

// --------------------------------------------------------------------------- health

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
    r.cells[1].textContent = lm.number(grad, 2);
    r.cells[2].textContent = lm.number(weight, 2);
    r.cells[3].textContent = lm.number(ratio, 2);
    const frac = dead !== null ? dead : saturated;
    r.cells[4].textContent = frac === null || frac === undefined ? (applies ? "—" : "n/a") : `${Math.round(frac * 100)}%`;
    r.cells[4].title = applies ? "" : `${s.model.activation} has no dead or flat region`;
    r.row.classList.toggle("trouble", Boolean(trouble));
    r.why.textContent = trouble ? `⚠ W${l + 1}: ${trouble}` : "";
  });
}

// ----------------------------------------------------------------------------- tiles

function paintTiles(s, frame) {
  const t = s.dom.tiles;
  const [trainLoss, testLoss, , testAcc] = frame.m;
  const hasTest = s.model.test.x.length > 0;
  t.step.value.textContent = frame.step.toLocaleString("en-US");
  t.train_loss.value.textContent = lm.number(trainLoss, 3);
  t.test_loss.value.textContent = hasTest ? lm.number(testLoss, 3) : "—";
  t.test_acc.box.style.display = s.model.task === "regression" ? "none" : "";
  t.test_acc.value.textContent = hasTest ? lm.percent(testAcc) : "—";
  t.test_acc.box.title = hasTest ? `Train accuracy: ${lm.percent(frame.m[2])}` : "No test points: the test split is 0%.";
  t.test_loss.box.title = hasTest ? "" : "No test points: the test split is 0%.";
  for (const key of ["step", "train_loss", "test_loss", "test_acc"]) t[key].box.dataset.value = t[key].value.textContent;
  t.step.box.dataset.step = String(frame.step);
}

function paintStatus(s) {
  const m = s.msg;
  const t = s.dom.tiles.rate;
  t.value.textContent = m.playing && m.rate ? Math.round(m.rate).toLocaleString("en-US") : "—";
  t.box.dataset.value = t.value.textContent;
  t.box.title = `Training steps per second of wall clock (the speed setting asks for ${m.speed}). ` +
    (m.compute ? `Compute alone (forward + backward + update) runs at about ${Math.round(m.compute).toLocaleString("en-US")} steps/s.` : "");
  s.dom.status.textContent = m.diverged ? "Stopped: the run diverged" : s.replaying ? "Replay"
    : m.playing ? (m.speed <= 5 ? "Playing in slow motion" : "Playing") : "Paused";
}

// ---------------------------------------------------------------------------- frames

function paint(s, frame, opts = {}) {
  // One picture of every panel from one frame.
  const t0 = performance.now();
  s.theme = s.theme || readTheme(s.dom.lv);
  const params = frame.decoded || (frame.decoded = lm.decode(frame.p, s.dtype));
  const layers = lm.unpack(s.model.sizes, params);
  const regression = s.model.task === "regression";
  const res = regression ? 200 : lm.gridResolution(s.model, GRID_BUDGET);
  const points = lm.gridPoints(s.model, res);
  const count = regression ? res : res * res;
  const pass = lm.forward(s.model, layers, points, count);
  Object.assign(pass, { res, count, points, pictureRes: regression ? res : res });
  s.pass = pass;
  s.layers = layers;
  s.frame = frame;
  paintBoundary(s, frame, pass);
  paintNetwork(s, frame, layers, pass);
  if (!opts.replay && !s.extra.some((f) => f.step === frame.step)) {
    s.extra.push({ step: frame.step, m: frame.m });
    if (s.extra.length > 600) s.extra.splice(0, s.extra.length - 600);
  }
  paintCurves(s, opts.replay ? frame.step : null);
  paintHealth(s, frame);
  paintTiles(s, frame);
  paintStatus(s);
  s.frameCount += 1;
  s.dom.lv.dataset.frame = String(s.frameCount);
  s.dom.lv.dataset.step = String(frame.step);
  // The prediction in the middle of the picture, for tests: the same weights give the same number.
  const middle = regression ? Math.floor(res / 2) : Math.floor(res / 2) * res + Math.floor(res / 2);
  const k = s.model.classes > 2 ? s.model.classes : 1;
  s.dom.lv.dataset.probe = Array.from(pass.out.subarray(middle * k, middle * k + k), (v) => v.toPrecision(12)).join(",");
  s.dom.lv.dataset.paintMs = (performance.now() - t0).toFixed(1);
  // The step's graph (a graph view below this one) shows the engine's numbers of the same frame.
  if (frame.g && s.model.graph) {
    frame.texts = frame.texts || graphTexts(s.model.graph, frame.g);
    window.dispatchEvent(new CustomEvent("graph-view:values", { detail: { key: s.model.graph.key, values: frame.texts, caption: stepCaption(frame.step) } }));
  }
}

// A frame's step-graph texts with their glyphs back (they travel as ASCII stand-ins: see
// explorer/playground.py GLYPHS).
function graphTexts(graph, g) {
  const [from, to] = graph.glyphs;
  const glyph = (c) => to[from.indexOf(c)];
  const pattern = new RegExp("[" + from.replace(/[\]\\^-]/g, "\\$&") + "]", "g");
  const out = {};
  for (const [box, cells] of Object.entries(g)) {
    out[box] = {};
    for (const [part, lines] of Object.entries(cells)) out[box][part] = lines.map((line) => line.replace(pattern, glyph));
  }
  return out;
}

function stepCaption(step) {
  return `Step ${step.toLocaleString("en-US")}`; // NOTE: explorer/playground.py step_caption writes the same
}

function playQueue(s) {
  // Paint the queued frames one after another, spaced over the time until the next message, each
  // on an animation frame of its own (two paints within one display frame would show only one).
  if (s.timer) return;
  const next = (now) => {
    s.timer = null;
    if (!s.model || !s.dom.lv.isConnected || s.replaying) return;
    if (now >= (s.due || 0)) {
      const frame = s.queue.shift();
      if (!frame) return;
      // NOTE: a frame painted late makes the next one wait less, so a message's frames keep pace.
      const late = Math.min(s.spacing / 2, Math.max(0, now - (s.due || now)));
      paint(s, frame);
      s.due = now + s.spacing - late;
    }
    if (s.queue.length) s.timer = requestAnimationFrame(next);
  };
  s.timer = requestAnimationFrame(next);
}

function onMessage(s, data) {
  const newRun = data.run !== s.run;
  if (newRun) {
    s.run = data.run;
    s.model = null;
    s.history = null;
    s.extra = [];
    s.queue = [];
    s.pinned = null;
    hideTip(s);
  }
  if (data.model) {
    s.model = data.model;
    s.netLayout = null;
    paintLegend(s);
    const regression = data.model.task === "regression";
    s.dom.boundaryTitle.textContent = regression
      ? "Fitted curve (line) and the points"
      : "Decision boundary: the model's class for each point of the plane";
    s.dom.networkTitle.textContent = `Network: each neuron's output ${regression ? "along x" : "over the input plane"}`;
    // NOTE: said under the drawing, where it wraps (in the title it was cut off at 1280 px), and plainly: the
    // boundary beside it uses the same blue and orange for the classes.
    s.dom.netKey.textContent = "Blue +, orange −: each weight (edge) and each neuron's output (picture)" +
      (regression ? "." : "; on the boundary's plane the same colours are the classes.");
  }
  if (data.history) s.history = data.history;
  s.msg = data;
  s.dtype = data.dtype;
  if (!s.model) {
    if (s.asked !== data.run) {
      s.asked = data.run;
      s.setTrigger("need", data.run);
    }
    return;
  }
  const now = performance.now();
  // The time between messages while playing (the server's tick, stretched when it is busy); a
  // pause, or a new speed, starts the estimate again from the tick the server announces.
  const tick = data.interval * 1000;
  if (s.lastMessage && s.wasPlaying && data.playing && s.tick === tick)
    s.gap = 0.7 * s.gap + 0.3 * Math.min(now - s.lastMessage, 3 * tick);
  else s.gap = tick;
  s.lastMessage = now;
  s.wasPlaying = data.playing;
  s.tick = tick;
  const frames = data.frames || [];
  if (data.playing) {
    const newest = s.queue.length ? s.queue[s.queue.length - 1].step : s.frame ? s.frame.step : -1;
    s.queue.push(...frames.filter((f) => f.step > newest || newRun));
    s.queue = s.queue.slice(-MAX_QUEUE_MESSAGES * Math.max(frames.length, 1));
    // Spread this message's frames over the time until the next one, a little faster so that
    // the queue empties before it arrives rather than piling up.
    s.spacing = Math.max(16, Math.min(1000, (0.9 * s.gap) / Math.max(s.queue.length, 1)));
  } else {
    cancelAnimationFrame(s.timer);
    s.timer = null;
    s.due = 0;
    s.queue = frames.slice(-1);
  }
  setReplay(s, data.playing ? null : data.replay || null);
  if (s.replaying) paintStatus(s);
  else playQueue(s);
}

function paintLegend(s) {
  const legend = s.dom.legend;
  legend.textContent = "";
  const theme = s.theme || readTheme(s.dom.lv);
  if (s.model.task === "regression") {
    const add = (text, colour, test) => {
      const span = addEl("span", null, legend);
      const dot = addEl("i", test ? "test" : null, span);
      dot.style.background = colour;
      dot.style.borderColor = colour;
      span.append(text);
    };
    add("training points", rgb(theme.classes[1]));
    add("test points", rgb(theme.classes[0]), true);
    addEl("span", null, legend).textContent = "— the model's prediction";
    return;
  }
  for (let k = 0; k < s.model.classes; k++) {
    const span = addEl("span", null, legend, { "data-class": String(k) });
    const dot = addEl("i", null, span);
    dot.style.background = rgb(theme.classes[k % theme.classes.length]);
    span.dataset.colour = CLASS_COLOURS[k % CLASS_COLOURS.length];
    span.append(`class ${k}`);
  }
  const shape = addEl("span", null, legend);
  // NOTE: "fades", not "paler": toward the page's own colour, which on a dark page is darker.
  shape.textContent = "● training · ◇ test points; the colour fades where the model is unsure";
}

// ---------------------------------------------------------------------------- replay

function setReplay(s, frames) {
  const bar = s.dom.replay;
  if (!frames || !frames.length) {
    bar.classList.remove("on");
    if (s.replaying) {
      s.replaying = false;
      clearInterval(s.replayTimer);
      s.replayTimer = null;
      if (s.queue.length === 0 && s.frame) s.queue.push(s.frame);
    }
    s.replayFrames = null;
    return;
  }
  const fresh = !s.replayFrames || s.replayFrames.length !== frames.length || s.replayFrames[0].step !== frames[0].step;
  s.replayFrames = frames;
  bar.classList.add("on");
  s.dom.replaySlider.max = String(frames.length - 1);
  if (fresh) {
    s.dom.replaySlider.value = String(frames.length - 1);
    s.replaying = true;
    showReplay(s, frames.length - 1);
  }
}

function showReplay(s, index) {
  const frame = s.replayFrames[index];
  if (!frame) return;
  s.replaying = true;
  paint(s, frame, { replay: true });
  s.dom.replayLabel.textContent = `frame ${index + 1} of ${s.replayFrames.length}`;
  s.dom.replay.dataset.step = String(frame.step);
}

function wireReplay(s) {
  s.dom.replaySlider.addEventListener("input", () => {
    clearInterval(s.replayTimer);
    s.replayTimer = null;
    s.dom.replayButton.textContent = "▶ Replay";
    showReplay(s, Number(s.dom.replaySlider.value));
  });
  s.dom.replayButton.addEventListener("click", () => {
    if (s.replayTimer) {
      clearInterval(s.replayTimer);
      s.replayTimer = null;
      s.dom.replayButton.textContent = "▶ Replay";
      return;
    }
    if (!s.replayFrames) return;
    let i = Number(s.dom.replaySlider.value);
    if (i >= s.replayFrames.length - 1) i = -1;
    s.dom.replayButton.textContent = "⏸ Pause";
    s.replayTimer = setInterval(() => {
      i += 1;
      if (!s.replayFrames || i >= s.replayFrames.length) {
        clearInterval(s.replayTimer);
        s.replayTimer = null;
        s.dom.replayButton.textContent = "▶ Replay";
        return;
      }
      s.dom.replaySlider.value = String(i);
      showReplay(s, i);
    }, 100);
  });
}

// ---------------------------------------------------------------------------- mount

function repaintCurrent(s) {
  if (!s.model || !s.frame) return;
  paint(s, s.frame, { replay: s.replaying });
}

function mount(root, setTrigger) {
  const dom = build(root);
  const s = { dom, run: null, model: null, history: null, extra: [], queue: [], frameCount: 0, timer: null, setTrigger };
  s.scratchCanvases = {};
  s.scratch = (w, h, name = "grid") => {
    let c = s.scratchCanvases[name];
    if (!c) c = s.scratchCanvases[name] = { canvas: document.createElement("canvas") };
    if (c.canvas.width < w || c.canvas.height < h) {
      c.canvas.width = Math.max(c.canvas.width, w);
      c.canvas.height = Math.max(c.canvas.height, h);
    }
    c.ctx = c.canvas.getContext("2d");
    return c;
  };
  wireReplay(s);
  dom.netCanvas.addEventListener("mousemove", (e) => onNetMove(s, e));
  dom.netCanvas.addEventListener("mouseleave", () => { if (!s.pinned && !s.hovered) s.dom.tip.classList.remove("on"); });
  document.addEventListener("click", (s.onDocClick = () => {
    if (!s.pinned) return;
    s.pinned = null;
    for (const n of s.dom.neurons) n.classList.remove("pinned");
    hideTip(s);
  }));
  let width = 0;
  s.observer = new ResizeObserver(() => {
    const w = dom.lv.clientWidth;
    if (Math.abs(w - width) < 1) return;
    width = w;
    layout(s);
    repaintCurrent(s);
  });
  s.observer.observe(dom.lv);
  s.themeTimer = setInterval(() => {
    // Streamlit re-runs the default export when the theme changes; this also catches a change of
    // the page's colours while nothing else moves (the view is paused).
    if (!dom.lv.isConnected) return;
    const theme = readTheme(dom.lv);
    if (s.theme && theme.key !== s.theme.key) {
      s.theme = theme;
      if (s.model) paintLegend(s);
      repaintCurrent(s);
    }
  }, 1000);
  layout(s);
  return s;
}

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  if (!data) return undefined;
  let s = parentElement.__liveView;
  if (!s || !s.dom.lv.isConnected) s = parentElement.__liveView = mount(parentElement, setTriggerValue);
  s.setTrigger = setTriggerValue;
  const theme = readTheme(s.dom.lv);
  const themeChanged = s.theme && theme.key !== s.theme.key;
  s.theme = theme;
  if (data.seq !== s.seq) {
    s.seq = data.seq;
    onMessage(s, data);
  } else if (themeChanged) {
    if (s.model) paintLegend(s);
    repaintCurrent(s);
  }
  return () => {
    // Streamlit calls this before every update too; let go only once the view has left the page.
    setTimeout(() => {
      if (s.dom.lv.isConnected) return;
      cancelAnimationFrame(s.timer);
      clearInterval(s.themeTimer);
      clearInterval(s.replayTimer);
      s.observer.disconnect();
      document.removeEventListener("click", s.onDocClick);
      if (parentElement.__liveView === s) parentElement.__liveView = null;
    }, 1000);
  };
}
