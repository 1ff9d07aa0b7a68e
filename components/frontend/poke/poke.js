// Poke the numbers: a slider for each input of the program (a scalar's value, an array's scale) and what a
// gradient means as a picture — the output against the input being moved, with the tangent whose slope is
// that input's grad, and, with two or more inputs, a contour plot of the output over two of them with the
// gradient arrow. Data: explorer.program.poke.picture_data + {answered, version, out, pictures_wanted} (components/poke);
// while pictures_wanted, the view asks for the pictures once (trigger "pictures").
//
// While a slider moves its values go to the server as they come (state `poke` = {values, active, seq,
// final}), one at a time: the next is sent when the answer to the last has arrived (data.answered), so
// a slow answer never queues a backlog of reruns. 400 ms after the last move the values are sent once
// more with final = true (the page then updates what does not follow the drag: the URL, the checks).
// The sliders belong to the browser; the server's values are applied on mount and when data.version
// changes (Reset, a new program, a link).
//
// Hooks: root [data-testid="poke"] with data-active, data-sent (last seq sent), data-answered, data-updates
// (answers painted); each slider row [data-testid="poke-slider"][data-name]; the curve
// [data-testid="poke-curve"] with data-x0, data-y0, data-slope and its tangent line.pk-tangent and point
// circle.pk-point; the contour plot [data-testid="poke-contour"].

import { el, svg } from "../web/dom.js";
import { formatNumber, ticks } from "../web/format.js";
import { contourChains, contourLevels, contourSegments, roomAlong, shownRange, stepped } from "./plot.js";

const IDLE_MS = 400;
const LOST_MS = 2500;
const PICTURES_AGAIN_MS = 5000; // the pictures asked for again if they have not come by then
const LEVELS = 10; // contour lines at the 10 %, 20 %, … 90 % quantiles of the grid's values
// Closed contour loops shorter than this fraction of the plot's side, and open pieces shorter than MIN_PIECE
// (a corner the frame cuts off), are left out: in a nearly flat region a quantile level follows the grid's
// small wobbles and drew little closed islands.
const MIN_LOOP = 0.35;
const MIN_PIECE = 0.1;

class Poke {
  constructor(parent) {
    this.parent = parent;
    this.values = {};
    this.version = null;
    this.seq = 0;
    this.inflight = null;
    this.pending = null; // null | {final}
    this.updates = 0;
    this.root = el("div", { class: "pk", "data-testid": "poke", "data-sent": "0", "data-answered": "0", "data-updates": "0" });
    this.head = el("div", { class: "pk-head" });
    this.sliderBox = el("div", { class: "pk-sliders" });
    this.pictures = el("div", { class: "pk-pictures" });
    this.root.append(this.head, this.sliderBox, this.pictures);
    parent.append(this.root);
    this.width = 0; // the pictures' width, kept by the observer (reading it per answer would force a layout)
    this.resize = new ResizeObserver(() => {
      const now = this.pictures.clientWidth;
      if (now > 0 && this.root.isConnected && Math.abs(now - this.width) > 8) {
        this.width = now;
        if (this.data) this.renderPictures();
      }
    });
    this.resize.observe(this.root);
  }

  // ------------------------------------------------------------------------- data from the server

  update(data, setStateValue, setTriggerValue) {
    this.setStateValue = setStateValue;
    this.setTriggerValue = setTriggerValue;
    this.data = data;
    if (data.version !== this.version) {
      this.version = data.version;
      this.values = Object.fromEntries(data.sliders.map((k) => [k.name, k.value]));
      this.active = data.active;
      this.pending = null;
      this.buildSliders();
    }
    this.renderHead();
    this.syncSliders();
    if (this.inflight !== null && data.answered >= this.inflight) this.answered();
    this.renderPictures();
    // The pictures of a program come once they are asked for (the page run that sent this evaluated it once).
    if (!data.pictures_wanted) {
      clearTimeout(this.picturesAsked);
      this.picturesAsked = null;
    } else if (!this.picturesAsked) this.askPictures();
    this.updates += 1;
    this.root.dataset.updates = String(this.updates);
    this.root.dataset.answered = String(data.answered);
    this.root.dataset.active = data.active || "";
  }

  askPictures() {
    if (!this.setTriggerValue) return;
    this.setTriggerValue("pictures", true);
    // NOTE: asked again while the data still want them after a while: a request is not lost with a run it interrupted
    this.picturesAsked = setTimeout(() => {
      this.picturesAsked = null;
      if (this.data.pictures_wanted && this.root.isConnected) this.askPictures();
    }, PICTURES_AGAIN_MS);
  }

  answered() {
    clearTimeout(this.lost);
    this.inflight = null;
    this.flush();
  }

  // ------------------------------------------------------------------------- the sliders

  renderHead() {
    const poked = this.data.poked || this.data.sliders.some((k) => this.values[k.name] !== k.base);
    if (!this.resetButton) {
      this.resetButton = el("button", { type: "button", class: "pk-reset", title: "Back to the program's own values",
        onclick: () => this.reset() }, [el("span", { text: "Reset" })]);
      const title = el("div", { class: "pk-title" }, [el("b", { text: "Poke the inputs" }),
        el("div", { class: "pk-muted pk-hint", text: "Drag a slider: every value and grad in the graph follows." })]);
      this.head.append(title, this.resetButton);
    }
    if (this.resetButton.disabled !== !poked) this.resetButton.disabled = !poked;
  }

  buildSliders() {
    this.rows = {};
    this.sliderBox.replaceChildren();
    for (const k of this.data.sliders) {
      const input = el("input", { type: "range", min: String(k.lo), max: String(k.hi), step: String(k.step),
        "aria-label": k.kind === "scale" ? `scale of ${k.name}` : k.name });
      input.value = String(this.values[k.name]);
      input.addEventListener("input", () => this.moved(k, Number(input.value)));
      const name = el("button", { type: "button", class: "pk-name", title: `Draw the output against ${k.name}`,
        onclick: () => this.pick(k.name) }, [el("code", { text: k.name })]);
      const value = el("span", { class: "pk-value" });
      const slope = el("span", { class: "pk-slope" });
      const row = el("div", { class: "pk-slider", "data-testid": "poke-slider", "data-name": k.name }, [name, input, value, slope]);
      this.rows[k.name] = { row, input, value, slope, slider: k };
      this.sliderBox.append(row);
    }
  }

  syncSliders() {
    const out = this.data.out;
    for (const k of this.data.sliders) {
      const r = this.rows[k.name];
      if (!r) continue;
      const v = this.values[k.name];
      r.value.textContent = k.kind === "scale" ? `× ${formatNumber(v)}` : `= ${formatNumber(v)}`;
      r.slope.textContent = k.kind === "scale"
        ? `∂${out}/∂s = ${formatNumber(k.slope)}, s scaling ${k.name}`
        : `∂${out}/∂${k.name} = ${formatNumber(k.slope)}`;
      r.slope.title = k.kind === "scale"
        ? `With ${k.name} = s · (its program values), d${out}/ds = Σ ${k.name}₀ ⊙ ${k.name}.grad (the chain rule), at the last answer.`
        : `${k.name}.grad at the last answer: the slope of the tangent below.`;
      r.row.classList.toggle("pk-active", k.name === this.active);
    }
  }

  moved(slider, value) {
    this.values[slider.name] = stepped(value, slider.step);
    this.active = slider.name;
    this.syncSliders();
    this.queue(false);
    clearTimeout(this.idle);
    this.idle = setTimeout(() => this.queue(true), IDLE_MS);
  }

  pick(name) {
    if (name === this.active) return;
    this.active = name;
    this.syncSliders();
    this.queue(false);
  }

  reset() {
    clearTimeout(this.idle);
    this.pending = null;
    if (this.setTriggerValue) this.setTriggerValue("reset", true);
  }

  // ------------------------------------------------------------------------- telling the server, one at a time

  queue(final) {
    this.pending = { final: final || (this.pending ? this.pending.final : false) };
    this.flush();
  }

  flush() {
    if (this.inflight !== null || !this.pending || !this.setStateValue) return;
    const { final } = this.pending;
    this.pending = null;
    this.seq += 1;
    this.inflight = this.seq;
    this.root.dataset.sent = String(this.seq);
    this.setStateValue("poke", { values: { ...this.values }, active: this.active, seq: this.seq, final });
    clearTimeout(this.lost);
    this.lost = setTimeout(() => this.answered(), LOST_MS);
  }

  // ------------------------------------------------------------------------- the pictures

  // The pictures are built when their data change (another input, other values of the rest) and only
  // their point, tangent, arrow and words move with each answer while one input is dragged.
  renderPictures() {
    const d = this.data;
    if (!this.width) this.width = this.pictures.clientWidth;
    const width = Math.max(220, this.width || 360);
    const two = d.surface && width >= 520;
    const each = two ? Math.floor((width - 16) / 2) : width;
    const curveKey = d.curve ? [width, d.out, d.curve.name, d.curve.xs[0], d.curve.xs.at(-1), d.curve.ys.join()].join("|") : "";
    const surfaceKey = d.surface
      ? [width, d.out, d.surface.x, d.surface.y, d.surface.xs[0], d.surface.ys[0], d.surface.zs.join()].join("|") : "";
    let curve = this.curveFig && this.curveFig.key === curveKey ? this.curveFig : null;
    if (curve && !curve.holds(d.output)) curve = null; // the point left the plot's y range
    let contour = this.contourFig && this.contourFig.key === surfaceKey ? this.contourFig : null;
    if (!curve || !contour || !this.pictures.firstChild) {
      this.pictures.replaceChildren();
      this.curveFig = curve = d.curve ? curve || this.curve(d, Math.min(each, 560), curveKey) : null;
      this.contourFig = contour = d.surface ? contour || this.contour(d, Math.min(each, two ? each : 360), surfaceKey) : null;
      if (curve) this.pictures.append(curve.figure);
      if (contour) this.pictures.append(contour.figure);
      if (!curve && !contour && d.pictures_wanted) this.pictures.append(this.placeholder(each, two));
      else if (!curve && !contour) this.pictures.append(el("p", { class: "pk-muted", text: "No input to draw against." }));
    }
    if (curve) curve.move(d);
    if (contour) contour.move(d);
  }

  // "Drawing the pictures…", as tall as the pictures will be (the sizes curve() and contour() draw, with their
  // captions): the pictures come in a run of their own after the page's, and content that grew then pushed
  // down what is under the columns (the tabs a click on a box had just scrolled into view).
  placeholder(each, two) {
    const caption = 48;
    const curve = 190 + caption;
    const size = Math.min(each, two ? each : 360);
    const contour = this.data.sliders.length > 1 ? Math.max(140, Math.min(size - 52, 300)) + 38 + caption : 0;
    const tall = two ? Math.max(curve, contour) : curve + (contour ? contour + 12 : 0);
    return el("p", { class: "pk-muted", text: "Drawing the pictures…", style: `min-height: ${tall}px; margin: 0` });
  }

  slider(name) {
    return this.data.sliders.find((k) => k.name === name);
  }

  // The output against the active slider, and the tangent at the current point: slope = its grad.
  curve(d, width, key) {
    const c = d.curve;
    const k = this.slider(c.name);
    const height = 190, left = 52, right = 10, top = 10, bottom = 30;
    const [xlo, xhi] = [c.xs[0], c.xs[c.xs.length - 1]];
    const [ylo, yhi] = shownRange(c.ys, d.output);
    const sx = (x) => left + ((x - xlo) / (xhi - xlo)) * (width - left - right);
    const sy = (y) => top + (1 - (y - ylo) / (yhi - ylo)) * (height - top - bottom);
    const plot = svg("svg", { class: "pk-plot", width: String(width), height: String(height), viewBox: `0 0 ${width} ${height}`,
      role: "img", "aria-label": `${d.out} against ${c.name}, with the tangent at the current point` });
    const clip = `pk-clip-${Math.random().toString(36).slice(2)}`;
    const defs = svg("defs");
    const clipPath = svg("clipPath", { id: clip });
    clipPath.append(svg("rect", { x: String(left), y: String(top), width: String(width - left - right), height: String(height - top - bottom) }));
    defs.append(clipPath);
    plot.append(defs);
    this.axes(plot, { xlo, xhi, ylo, yhi, sx, sy, left, right, top, bottom, width, height, xName: k.kind === "scale" ? `s (${c.name} scale)` : c.name });
    // the curve, broken where it is not finite
    let path = "", pen = false;
    c.xs.forEach((x, i) => {
      const y = c.ys[i];
      if (y === null || !Number.isFinite(y)) {
        pen = false;
        return;
      }
      const py = Math.max(-1e4, Math.min(1e4, sy(y)));
      path += `${pen ? "L" : "M"}${sx(x).toFixed(2)},${py.toFixed(2)}`;
      pen = true;
    });
    plot.append(svg("path", { d: path, class: "pk-curve", "clip-path": `url(#${clip})` }));
    const tangent = svg("line", { class: "pk-tangent", "clip-path": `url(#${clip})` });
    const point = svg("circle", { class: "pk-point", r: "4.5" });
    plot.append(tangent, point);
    const figure = el("figure", { class: "pk-figure", "data-testid": "poke-curve", "data-name": c.name });
    const where = document.createTextNode("");
    const wrt = k.kind === "scale" ? "s" : c.name;
    figure.append(plot, el("figcaption", { class: "pk-caption" }, [
      document.createTextNode(`${d.out} against ${wrt}, the other inputs as set. The `),
      el("span", { class: "pk-tangent-word", text: "tangent" }), where]));
    const move = (data) => {
      const slider = data.sliders.find((kn) => kn.name === c.name);
      const x0 = slider.value, y0 = data.output, slope = slider.slope;
      const shown = y0 !== null && Number.isFinite(y0) && slope !== null && Number.isFinite(slope);
      figure.dataset.x0 = String(x0);
      figure.dataset.y0 = String(y0);
      figure.dataset.slope = String(slope);
      tangent.style.display = point.style.display = shown ? "" : "none";
      if (shown) {
        const w = 0.2 * (xhi - xlo);
        tangent.setAttribute("x1", sx(x0 - w).toFixed(2));
        tangent.setAttribute("y1", sy(y0 - slope * w).toFixed(2));
        tangent.setAttribute("x2", sx(x0 + w).toFixed(2));
        tangent.setAttribute("y2", sy(y0 + slope * w).toFixed(2));
        point.setAttribute("cx", sx(x0).toFixed(2));
        point.setAttribute("cy", sy(y0).toFixed(2));
      }
      where.textContent = ` touches the curve at ${wrt} = ${formatNumber(x0)}: its slope is ∂${data.out}/∂${wrt} = ${formatNumber(slope)}`
        + (slider.kind === "scale" ? ` (Σ ${c.name}₀ ⊙ ${c.name}.grad).` : `, ${c.name}.grad.`);
    };
    const holds = (y) => y === null || !Number.isFinite(y) || (y >= ylo && y <= yhi);
    return { figure, key, move, holds };
  }

  // The output over two sliders (equal units on both axes), its contours, and the gradient arrow.
  contour(d, size, key) {
    const s = d.surface;
    const n = s.xs.length;
    const left = 44, bottom = 30, top = 8, right = 8;
    const side = Math.max(140, Math.min(size - left - right, 300));
    const width = left + side + right, height = top + side + bottom;
    const [xlo, xhi] = [s.xs[0], s.xs[n - 1]], [ylo, yhi] = [s.ys[0], s.ys[n - 1]];
    const sx = (x) => left + ((x - xlo) / (xhi - xlo)) * side;
    const sy = (y) => top + (1 - (y - ylo) / (yhi - ylo)) * side;
    const plot = svg("svg", { class: "pk-plot", width: String(width), height: String(height), viewBox: `0 0 ${width} ${height}`,
      role: "img", "aria-label": `contour plot of ${d.out} over ${s.x} and ${s.y}, with the gradient arrow` });
    // levels: quantiles of the finite values, so that a pole does not squash every other contour; the
    // shading is each value's rank among them (light: small, dark: large), drawn smooth from the grid
    const finite = s.zs.filter((v) => v !== null && Number.isFinite(v)).sort((a, b) => a - b);
    const levels = contourLevels(finite, LEVELS);
    const clip = `pk-clip-${Math.random().toString(36).slice(2)}`;
    const defs = svg("defs");
    const clipPath = svg("clipPath", { id: clip });
    clipPath.append(svg("rect", { x: String(left), y: String(top), width: String(side), height: String(side) }));
    defs.append(clipPath);
    const shading = this.shading(s, n, finite, left, top, side);
    shading.setAttribute("clip-path", `url(#${clip})`);
    plot.append(defs, shading);
    // contour lines by marching squares, joined into lines so that small closed loops can be left out
    let lines = "";
    for (const level of levels) {
      const segments = contourSegments(s.xs, s.ys, s.zs, level).map((seg) => seg.map(([x, y]) => [sx(x), sy(y)]));
      for (const chain of contourChains(segments)) {
        if (chain.length < (chain.closed ? MIN_LOOP : MIN_PIECE) * side) continue;
        lines += chain.points.map(([x, y], k) => `${k ? "L" : "M"}${x.toFixed(1)},${y.toFixed(1)}`).join("");
      }
    }
    plot.append(svg("path", { d: lines, class: "pk-contours", "clip-path": `url(#${clip})` }));
    const kx = this.slider(s.x), ky = this.slider(s.y);
    this.axes(plot, { xlo, xhi, ylo, yhi, sx, sy, left, right, top, bottom, width, height,
      xName: kx.kind === "scale" ? `s (${s.x})` : s.x, yName: ky.kind === "scale" ? `s (${s.y})` : s.y });
    const arrow = svg("line", { class: "pk-arrow" });
    const head = svg("path", { class: "pk-arrow-head" });
    const point = svg("circle", { class: "pk-point", r: "4" });
    plot.append(arrow, head, point);
    const figure = el("figure", { class: "pk-figure", "data-testid": "poke-contour", "data-x": s.x, "data-y": s.y });
    const wx = kx.kind === "scale" ? `s(${s.x})` : s.x, wy = ky.kind === "scale" ? `s(${s.y})` : s.y;
    const caption = el("figcaption", { class: "pk-caption" });
    figure.append(plot, caption);
    const move = (data) => {
      const sliderX = data.sliders.find((k) => k.name === s.x), sliderY = data.sliders.find((k) => k.name === s.y);
      const px = sx(sliderX.value), py = sy(sliderY.value);
      const gx = sliderX.slope, gy = sliderY.slope;
      const norm = Math.hypot(gx, gy);
      const shown = gx !== null && gy !== null && norm > 0 && Number.isFinite(norm);
      // the arrow stays inside the plot: shorter where the point is near the edge it points to
      const room = shown ? roomAlong(px, py, gx / norm, -gy / norm, left, top, side) : 0;
      const len = Math.min(0.3 * side, room);
      arrow.style.display = head.style.display = shown && len >= 8 ? "" : "none";
      if (shown && len >= 8) {
        const ex = px + (gx / norm) * len, ey = py - (gy / norm) * len; // equal units: the gradient's own direction
        const ah = 7, ang = Math.atan2(ey - py, ex - px);
        arrow.setAttribute("x1", px.toFixed(1));
        arrow.setAttribute("y1", py.toFixed(1));
        arrow.setAttribute("x2", ex.toFixed(1));
        arrow.setAttribute("y2", ey.toFixed(1));
        head.setAttribute("d", `M${ex.toFixed(1)},${ey.toFixed(1)}`
          + `L${(ex - ah * Math.cos(ang - 0.45)).toFixed(1)},${(ey - ah * Math.sin(ang - 0.45)).toFixed(1)}`
          + `L${(ex - ah * Math.cos(ang + 0.45)).toFixed(1)},${(ey - ah * Math.sin(ang + 0.45)).toFixed(1)}Z`);
      }
      point.setAttribute("cx", px.toFixed(1));
      point.setAttribute("cy", py.toFixed(1));
      caption.textContent = `${data.out} over ${wx} and ${wy} (deeper blue: larger). The arrow is the gradient `
        + `(∂${data.out}/∂${wx}, ∂${data.out}/∂${wy}) = (${formatNumber(gx)}, ${formatNumber(gy)}): `
        + "uphill, at right angles to the contour through the point.";
    };
    return { figure, key, move };
  }

  // The grid as an image: pixel (i, j) coloured by the rank of zs[i, j] between the theme's background and its
  // blue, scaled up smoothly over the plot (row 0 of the grid is the lowest y: the image's bottom row).
  shading(s, n, sorted, left, top, side) {
    const style = getComputedStyle(this.root);
    const rgb = (name, fallback) => {
      const probe = document.createElement("span");
      probe.style.color = style.getPropertyValue(name).trim() || fallback;
      this.root.append(probe);
      const parts = (getComputedStyle(probe).color.match(/[\d.]+/g) || []).map(Number);
      probe.remove();
      // NOTE: a view being taken off the page has no computed style: draw in the fallback's colour
      return parts.length >= 3 ? parts : fallback.match(/[0-9a-f]{2}/gi).map((h) => parseInt(h, 16));
    };
    const lo = rgb("--st-background-color", "#ffffff"), hi = rgb("--st-blue-color", "#1c83e1");
    const canvas = document.createElement("canvas");
    canvas.width = canvas.height = n;
    const ctx = canvas.getContext("2d");
    const image = ctx.createImageData(n, n);
    const rank = (v) => {
      let a = 0, b = sorted.length;
      while (a < b) {
        const m = (a + b) >> 1;
        if (sorted[m] < v) a = m + 1;
        else b = m;
      }
      return sorted.length > 1 ? a / (sorted.length - 1) : 0.5;
    };
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const v = s.zs[i * n + j];
        const at = ((n - 1 - i) * n + j) * 4;
        if (v === null || !Number.isFinite(v)) {
          image.data.set([128, 128, 128, 255], at);
          continue;
        }
        const t = 0.08 + 0.72 * rank(v);
        for (let c = 0; c < 3; c++) image.data[at + c] = Math.round(lo[c] + t * (hi[c] - lo[c]));
        image.data[at + 3] = 255;
      }
    }
    ctx.putImageData(image, 0, 0);
    // NOTE: the grid's points are the centres of the picture's edge pixels: half a cell hangs outside the axes
    const cell = side / (n - 1);
    return svg("image", { href: canvas.toDataURL(), x: (left - cell / 2).toFixed(2), y: (top - cell / 2).toFixed(2),
      width: (side + cell).toFixed(2), height: (side + cell).toFixed(2), preserveAspectRatio: "none", class: "pk-shading" });
  }

  axes(plot, o) {
    const g = svg("g", { class: "pk-axes" });
    g.append(svg("line", { x1: String(o.left), y1: String(o.height - o.bottom), x2: String(o.width - o.right), y2: String(o.height - o.bottom) }));
    g.append(svg("line", { x1: String(o.left), y1: String(o.top), x2: String(o.left), y2: String(o.height - o.bottom) }));
    for (const t of ticks(o.xlo, o.xhi)) {
      const x = o.sx(t);
      if (x < o.left - 0.5 || x > o.width - o.right + 0.5) continue;
      g.append(svg("line", { x1: String(x), y1: String(o.height - o.bottom), x2: String(x), y2: String(o.height - o.bottom + 4) }));
      const label = svg("text", { x: String(x), y: String(o.height - o.bottom + 14), "text-anchor": "middle" });
      label.textContent = formatNumber(t);
      g.append(label);
    }
    for (const t of ticks(o.ylo, o.yhi)) {
      const y = o.sy(t);
      if (y < o.top - 0.5 || y > o.height - o.bottom + 0.5) continue;
      g.append(svg("line", { x1: String(o.left - 4), y1: String(y), x2: String(o.left), y2: String(y) }));
      const label = svg("text", { x: String(o.left - 6), y: String(y), "text-anchor": "end", "dominant-baseline": "central" });
      label.textContent = formatNumber(t);
      g.append(label);
    }
    const name = svg("text", { x: String(o.width - o.right), y: String(o.height - 3), "text-anchor": "end", class: "pk-axis-name" });
    name.textContent = o.xName;
    g.append(name);
    if (o.yName) {
      const yName = svg("text", { x: String(o.left + 4), y: String(o.top + 10), class: "pk-axis-name" });
      yName.textContent = o.yName;
      g.append(yName);
    }
    plot.append(g);
  }

  destroy() {
    clearTimeout(this.idle);
    clearTimeout(this.lost);
    this.resize.disconnect();
  }
}

export default function (component) {
  const { data, parentElement, setStateValue, setTriggerValue } = component;
  const spec = typeof data === "string" ? JSON.parse(data) : data;
  if (!spec || !spec.sliders) return undefined;
  let view = parentElement.__poke;
  if (!view || !view.root.isConnected) {
    view = new Poke(parentElement);
    parentElement.__poke = view;
  }
  view.update(spec, setStateValue, setTriggerValue);
  return () => {
    setTimeout(() => {
      if (!view.root.isConnected) view.destroy();
    }, 1000);
  };
}
