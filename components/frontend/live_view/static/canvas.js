// The live view's drawing kit (an ES module): elements in its DOM, canvases at the screen's pixel ratio, axes
// and line charts, shared by the panels.

import { el } from "../../web/dom.js";
import { formatNumber, formatPercent, ticks } from "../../web/format.js";
import { rgb } from "../../web/theme.js";
import * as lm from "./live_math.js";

// A new element of class `cls` (and attributes `attrs`) appended to `parent`.
export function addEl(tag, cls, parent, attrs) {
  const node = el(tag, { class: cls, ...attrs });
  if (parent) parent.appendChild(node);
  return node;
}

export function sizeCanvas(canvas, width, height) {
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

// A test point's mark: a diamond of half-width r around (x, y), as a path for the caller to stroke.
export function diamond(ctx, x, y, r) {
  ctx.beginPath();
  ctx.moveTo(x, y - r);
  ctx.lineTo(x + r, y);
  ctx.lineTo(x, y + r);
  ctx.lineTo(x - r, y);
  ctx.closePath();
}

export function paintAxes(ctx, theme, ox, oy, pw, ph, xr, yr, names) {
  ctx.strokeStyle = theme.axis;
  ctx.lineWidth = 1;
  ctx.strokeRect(ox + 0.5, oy + 0.5, pw - 1, ph - 1);
  ctx.fillStyle = theme.faint;
  ctx.font = `10px ${theme.font}`;
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  for (const v of ticks(xr[0], xr[1], Math.max(2, Math.floor(pw / 70)))) {
    const x = ox + ((v - xr[0]) / (xr[1] - xr[0])) * pw;
    ctx.fillRect(x, oy + ph, 1, 3);
    ctx.fillText(formatNumber(v), x, oy + ph + 4);
  }
  ctx.textAlign = "right";
  ctx.textBaseline = "middle";
  for (const v of ticks(yr[0], yr[1], Math.max(2, Math.floor(ph / 60)))) {
    const y = oy + ph - ((v - yr[0]) / (yr[1] - yr[0])) * ph;
    ctx.fillRect(ox - 3, y, 3, 1);
    ctx.fillText(formatNumber(v), ox - 5, y);
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

export function paintChart(canvas, size, theme, steps, series, opts) {
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
  const marks = opts.log ? lm.logTicks(lo, hi, 4) : ticks(lo, hi, 4);
  ctx.font = `10px ${theme.font}`;
  ctx.fillStyle = theme.faint;
  ctx.textAlign = "right";
  ctx.textBaseline = "middle";
  const labels = [];
  for (const v of marks) {
    const y = Y(v);
    if (y < m.t - 1 || y > m.t + ph + 1) continue;
    ctx.fillStyle = theme.grid;
    ctx.fillRect(m.l, Math.round(y), pw, 1);
    ctx.fillStyle = theme.faint;
    const label = opts.percent ? formatPercent(v) : formatNumber(v);
    ctx.fillText(label, m.l - 4, y);
    labels.push(label);
  }
  canvas.dataset.ticks = labels.join(" ");
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  for (const v of ticks(0, xmax, Math.max(2, Math.floor(pw / 60)))) ctx.fillText(formatNumber(v), X(v), m.t + ph + 3);
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
