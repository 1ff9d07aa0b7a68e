// The live view's network panel: each neuron's picture inside its node, edges coloured and sized by weight, and
// the neuron and edge tooltips (hover; click pins a neuron's).

import { formatNumber } from "../../../web/format.js";
import { rgb } from "../../../web/theme.js";
import { addEl, sizeCanvas } from "../canvas.js";
import { classTable, divergingTable, setPixel } from "../colours.js";

const NEURON_RES = 24; // a neuron's picture is at most this many samples a side

export default {
  place: "main",
  build(s, parent) {
    const network = addEl("div", "lv-panel", parent, { "data-testid": "live-network" });
    s.dom.network = network;
    s.dom.networkTitle = addEl("div", "lv-title", network);
    s.dom.net = addEl("div", "lv-net", network);
    s.dom.netCanvas = addEl("canvas", null, s.dom.net);
    s.dom.netKey = addEl("div", "lv-legend", network, { "data-testid": "live-network-key" });
    s.dom.neurons = [];
    s.dom.netCanvas.addEventListener("mousemove", (e) => onNetMove(s, e));
    s.dom.netCanvas.addEventListener("mouseleave", () => { if (!s.pinned && !s.hovered) s.dom.tip.classList.remove("on"); });
    document.addEventListener("click", (s.onDocClick = () => {
      if (!s.pinned) return;
      s.pinned = null;
      for (const n of s.dom.neurons) n.classList.remove("pinned");
      hideTip(s);
    }));
  },
  layout(s) {
    s.netLayout = null;
  },
  run(s) {
    s.pinned = null;
    hideTip(s);
  },
  model(s) {
    const regression = s.model.task === "regression";
    s.netLayout = null;
    s.dom.networkTitle.textContent = `Network: each neuron's output ${regression ? "along x" : "over the input plane"}`;
    // NOTE: said under the drawing, where it wraps (in the title it was cut off at 1280 px), and plainly: the
    // boundary beside it uses the same blue and orange for the classes.
    s.dom.netKey.textContent = "Blue +, orange −: each weight (edge) and each neuron's output (picture)" +
      (regression ? "." : "; on the boundary's plane the same colours are the classes.");
  },
  paint: (s, frame) => paintNetwork(s, frame, s.layers, s.pass),
};

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
      addEl("td", null, tr).textContent = (w >= 0 ? "+" : "") + formatNumber(w);
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
  s.dom.tip.textContent = `W${edge.l + 1}[${edge.o + 1}, ${edge.k + 1}] = ${formatNumber(edge.w)}  (${name(edge.l, edge.k)} → ${name(edge.l + 1, edge.o)})`;
  s.dom.tip.dataset.edge = `${edge.l + 1}.${edge.o + 1}.${edge.k + 1}`;
  tipAt(s, x, y);
}
