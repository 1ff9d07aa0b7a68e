// Poke the numbers: a slider for each input of the program (a scalar's value, an array's scale) and what a
// gradient means as a picture — the output against the input being moved, with the tangent whose slope is
// that input's grad, and, with two or more inputs, a contour plot of the output over two of them with the
// gradient arrow. Data: explorer.poke.picture_data + {answered, version, out, pictures_wanted} (components/poke);
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
// (answers painted); each slider row [data-testid="poke-knob"][data-name]; the curve
// [data-testid="poke-curve"] with data-x0, data-y0, data-slope and its tangent line.pk-tangent and point
// circle.pk-point; the contour plot [data-testid="poke-contour"].

const PK_IDLE_MS = 400;
const PK_LOST_MS = 2500;
const PK_PICTURES_AGAIN_MS = 5000; // the pictures asked for again if they have not come by then
const PK_LEVELS = 10; // contour lines at the 10 %, 20 %, … 90 % quantiles of the grid's values
// Closed contour loops shorter than this fraction of the plot's side, and open pieces shorter than PK_MIN_PIECE
// (a corner the frame cuts off), are left out: in a nearly flat region a quantile level follows the grid's
// small wobbles and drew little closed islands.
const PK_MIN_LOOP = 0.35;
const PK_MIN_PIECE = 0.1;

// Contour segments ([[x, y], [x, y]] in pixels, one level's) joined end to end: [{points, closed, length}].
function pkChains(segments) {
  const key = ([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`;
  const at = new Map(); // point key -> indices of the segments that end there
  segments.forEach((seg, i) => seg.forEach((p) => {
    const k = key(p);
    if (!at.has(k)) at.set(k, []);
    at.get(k).push(i);
  }));
  const used = new Uint8Array(segments.length);
  const chains = [];
  const extend = (points) => { // from the chain's last point onwards, appending the segments that join it
    for (;;) {
      const next = (at.get(key(points[points.length - 1])) || []).find((j) => !used[j]);
      if (next === undefined) return;
      used[next] = 1;
      const [a, b] = segments[next];
      points.push(key(a) === key(points[points.length - 1]) ? b : a);
    }
  };
  segments.forEach((seg, i) => {
    if (used[i]) return;
    used[i] = 1;
    const forward = [seg[0], seg[1]];
    extend(forward);
    const backward = [seg[0]];
    extend(backward);
    const points = backward.reverse().concat(forward.slice(1));
    const closed = points.length > 3 && key(points[0]) === key(points[points.length - 1]);
    let length = 0;
    for (let k = 1; k < points.length; k++) length += Math.hypot(points[k][0] - points[k - 1][0], points[k][1] - points[k - 1][1]);
    chains.push({ points, closed, length });
  });
  return chains;
}

// How far from (px, py) along the unit direction (dx, dy) the plot's square [left, left + side] x [top, top + side]
// goes on.
function pkRoom(px, py, dx, dy, left, top, side) {
  let t = Infinity;
  if (dx > 0) t = Math.min(t, (left + side - px) / dx);
  if (dx < 0) t = Math.min(t, (left - px) / dx);
  if (dy > 0) t = Math.min(t, (top + side - py) / dy);
  if (dy < 0) t = Math.min(t, (top - py) / dy);
  return Math.max(0, t);
}

function pkEl(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const child of children) node.append(child);
  return node;
}

function pkSvg(tag, attrs = {}) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

function pkNumber(v, digits = 4) {
  if (v === null || v === undefined || Number.isNaN(v)) return "nan";
  if (!Number.isFinite(v)) return v > 0 ? "inf" : "-inf";
  if (v === 0) return "0";
  const a = Math.abs(v);
  if (a >= 1e-3 && a < 1e6) return String(Number(v.toPrecision(digits)));
  const [m, e] = v.toExponential(digits - 1).split("e");
  return `${Number(m)}e${e.replace("+", "")}`;
}

// A knob's value as its step shows it (no 0.30000000000000004).
function pkStepped(value, step) {
  const decimals = Math.max(0, -Math.floor(Math.log10(step)) + 1);
  return Number(value.toFixed(decimals));
}

// About n round tick values over [lo, hi].
function pkTicks(lo, hi, n = 5) {
  const span = hi - lo;
  if (!(span > 0)) return [lo];
  const raw = span / n;
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * p).find((s) => s >= raw) || raw;
  const ticks = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) ticks.push(Number(t.toPrecision(12)));
  return ticks;
}

// The y range worth showing: the middle 96 % of the finite values (a pole would flatten the rest), with
// the point itself, padded.
function pkRange(values, must) {
  const finite = values.filter((v) => v !== null && Number.isFinite(v)).sort((a, b) => a - b);
  if (must !== null && Number.isFinite(must)) finite.push(must);
  if (!finite.length) return [-1, 1];
  finite.sort((a, b) => a - b);
  const at = (q) => finite[Math.min(finite.length - 1, Math.max(0, Math.round(q * (finite.length - 1))))];
  let lo = Math.min(at(0.02), must ?? Infinity), hi = Math.max(at(0.98), must ?? -Infinity);
  if (!(hi > lo)) [lo, hi] = [lo - 1, hi + 1];
  const pad = 0.08 * (hi - lo);
  return [lo - pad, hi + pad];
}

class Poke {
  constructor(parent) {
    this.parent = parent;
    this.values = {};
    this.version = null;
    this.seq = 0;
    this.inflight = null;
    this.pending = null; // null | {final}
    this.updates = 0;
    this.root = pkEl("div", { class: "pk", "data-testid": "poke", "data-sent": "0", "data-answered": "0", "data-updates": "0" });
    this.head = pkEl("div", { class: "pk-head" });
    this.knobBox = pkEl("div", { class: "pk-knobs" });
    this.pictures = pkEl("div", { class: "pk-pictures" });
    this.root.append(this.head, this.knobBox, this.pictures);
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
      this.values = Object.fromEntries(data.knobs.map((k) => [k.name, k.value]));
      this.active = data.active;
      this.pending = null;
      this.buildKnobs();
    }
    this.renderHead();
    this.syncKnobs();
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
    }, PK_PICTURES_AGAIN_MS);
  }

  answered() {
    clearTimeout(this.lost);
    this.inflight = null;
    this.flush();
  }

  // ------------------------------------------------------------------------- the sliders

  renderHead() {
    const poked = this.data.poked || this.data.knobs.some((k) => this.values[k.name] !== k.base);
    if (!this.resetButton) {
      this.resetButton = pkEl("button", { type: "button", class: "pk-reset", title: "Back to the program's own values",
        onclick: () => this.reset() }, [pkEl("span", { text: "Reset" })]);
      const title = pkEl("div", { class: "pk-title" }, [pkEl("b", { text: "Poke the inputs" }),
        pkEl("div", { class: "pk-muted pk-hint", text: "Drag a slider: every value and grad in the graph follows." })]);
      this.head.append(title, this.resetButton);
    }
    if (this.resetButton.disabled !== !poked) this.resetButton.disabled = !poked;
  }

  buildKnobs() {
    this.rows = {};
    this.knobBox.replaceChildren();
    for (const k of this.data.knobs) {
      const slider = pkEl("input", { type: "range", min: String(k.lo), max: String(k.hi), step: String(k.step),
        "aria-label": k.kind === "scale" ? `scale of ${k.name}` : k.name });
      slider.value = String(this.values[k.name]);
      slider.addEventListener("input", () => this.moved(k, Number(slider.value)));
      const name = pkEl("button", { type: "button", class: "pk-name", title: `Draw the output against ${k.name}`,
        onclick: () => this.pick(k.name) }, [pkEl("code", { text: k.name })]);
      const value = pkEl("span", { class: "pk-value" });
      const slope = pkEl("span", { class: "pk-slope" });
      const row = pkEl("div", { class: "pk-knob", "data-testid": "poke-knob", "data-name": k.name }, [name, slider, value, slope]);
      this.rows[k.name] = { row, slider, value, slope, knob: k };
      this.knobBox.append(row);
    }
  }

  syncKnobs() {
    const out = this.data.out;
    for (const k of this.data.knobs) {
      const r = this.rows[k.name];
      if (!r) continue;
      const v = this.values[k.name];
      r.value.textContent = k.kind === "scale" ? `× ${pkNumber(v, 3)}` : `= ${pkNumber(v)}`;
      r.slope.textContent = k.kind === "scale"
        ? `∂${out}/∂s = ${pkNumber(k.slope)}, s scaling ${k.name}`
        : `∂${out}/∂${k.name} = ${pkNumber(k.slope)}`;
      r.slope.title = k.kind === "scale"
        ? `With ${k.name} = s · (its program values), d${out}/ds = Σ ${k.name}₀ ⊙ ${k.name}.grad (the chain rule), at the last answer.`
        : `${k.name}.grad at the last answer: the slope of the tangent below.`;
      r.row.classList.toggle("pk-active", k.name === this.active);
    }
  }

  moved(knob, value) {
    this.values[knob.name] = pkStepped(value, knob.step);
    this.active = knob.name;
    this.syncKnobs();
    this.queue(false);
    clearTimeout(this.idle);
    this.idle = setTimeout(() => this.queue(true), PK_IDLE_MS);
  }

  pick(name) {
    if (name === this.active) return;
    this.active = name;
    this.syncKnobs();
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
    this.lost = setTimeout(() => this.answered(), PK_LOST_MS);
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
      const none = d.pictures_wanted ? "Drawing the pictures…" : "No input to draw against.";
      if (!curve && !contour) this.pictures.append(pkEl("p", { class: "pk-muted", text: none }));
    }
    if (curve) curve.move(d);
    if (contour) contour.move(d);
  }

  knob(name) {
    return this.data.knobs.find((k) => k.name === name);
  }

  // The output against the active knob, and the tangent at the current point: slope = its grad.
  curve(d, width, key) {
    const c = d.curve;
    const k = this.knob(c.name);
    const height = 190, left = 52, right = 10, top = 10, bottom = 30;
    const [xlo, xhi] = [c.xs[0], c.xs[c.xs.length - 1]];
    const [ylo, yhi] = pkRange(c.ys, d.output);
    const sx = (x) => left + ((x - xlo) / (xhi - xlo)) * (width - left - right);
    const sy = (y) => top + (1 - (y - ylo) / (yhi - ylo)) * (height - top - bottom);
    const svg = pkSvg("svg", { class: "pk-plot", width: String(width), height: String(height), viewBox: `0 0 ${width} ${height}`,
      role: "img", "aria-label": `${d.out} against ${c.name}, with the tangent at the current point` });
    const clip = `pk-clip-${Math.random().toString(36).slice(2)}`;
    const defs = pkSvg("defs");
    const clipPath = pkSvg("clipPath", { id: clip });
    clipPath.append(pkSvg("rect", { x: String(left), y: String(top), width: String(width - left - right), height: String(height - top - bottom) }));
    defs.append(clipPath);
    svg.append(defs);
    this.axes(svg, { xlo, xhi, ylo, yhi, sx, sy, left, right, top, bottom, width, height, xName: k.kind === "scale" ? `s (${c.name} scale)` : c.name });
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
    svg.append(pkSvg("path", { d: path, class: "pk-curve", "clip-path": `url(#${clip})` }));
    const tangent = pkSvg("line", { class: "pk-tangent", "clip-path": `url(#${clip})` });
    const point = pkSvg("circle", { class: "pk-point", r: "4.5" });
    svg.append(tangent, point);
    const figure = pkEl("figure", { class: "pk-figure", "data-testid": "poke-curve", "data-name": c.name });
    const where = document.createTextNode("");
    const wrt = k.kind === "scale" ? "s" : c.name;
    figure.append(svg, pkEl("figcaption", { class: "pk-caption" }, [
      document.createTextNode(`${d.out} against ${wrt}, the other inputs as set. The `),
      pkEl("span", { class: "pk-tangent-word", text: "tangent" }), where]));
    const move = (data) => {
      const knob = data.knobs.find((kn) => kn.name === c.name);
      const x0 = knob.value, y0 = data.output, slope = knob.slope;
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
      where.textContent = ` touches the curve at ${wrt} = ${pkNumber(x0)}: its slope is ∂${data.out}/∂${wrt} = ${pkNumber(slope)}`
        + (knob.kind === "scale" ? ` (Σ ${c.name}₀ ⊙ ${c.name}.grad).` : `, ${c.name}.grad.`);
    };
    const holds = (y) => y === null || !Number.isFinite(y) || (y >= ylo && y <= yhi);
    return { figure, key, move, holds };
  }

  // The output over two knobs (equal units on both axes), its contours, and the gradient arrow.
  contour(d, size, key) {
    const s = d.surface;
    const n = s.xs.length;
    const left = 44, bottom = 30, top = 8, right = 8;
    const side = Math.max(140, Math.min(size - left - right, 300));
    const width = left + side + right, height = top + side + bottom;
    const [xlo, xhi] = [s.xs[0], s.xs[n - 1]], [ylo, yhi] = [s.ys[0], s.ys[n - 1]];
    const sx = (x) => left + ((x - xlo) / (xhi - xlo)) * side;
    const sy = (y) => top + (1 - (y - ylo) / (yhi - ylo)) * side;
    const svg = pkSvg("svg", { class: "pk-plot", width: String(width), height: String(height), viewBox: `0 0 ${width} ${height}`,
      role: "img", "aria-label": `contour plot of ${d.out} over ${s.x} and ${s.y}, with the gradient arrow` });
    const z = (i, j) => s.zs[i * n + j];
    // levels: quantiles of the finite values, so that a pole does not squash every other contour; the
    // shading is each value's rank among them (light: small, dark: large), drawn smooth from the grid
    const finite = s.zs.filter((v) => v !== null && Number.isFinite(v)).sort((a, b) => a - b);
    const levels = [];
    for (let q = 1; q < PK_LEVELS; q++) levels.push(finite[Math.floor((q / PK_LEVELS) * (finite.length - 1))]);
    const clip = `pk-clip-${Math.random().toString(36).slice(2)}`;
    const defs = pkSvg("defs");
    const clipPath = pkSvg("clipPath", { id: clip });
    clipPath.append(pkSvg("rect", { x: String(left), y: String(top), width: String(side), height: String(side) }));
    defs.append(clipPath);
    const shading = this.shading(s, n, finite, left, top, side);
    shading.setAttribute("clip-path", `url(#${clip})`);
    svg.append(defs, shading);
    // contour lines by marching squares, joined into lines so that small closed loops can be left out
    let lines = "";
    for (const level of levels) {
      const segments = [];
      for (let i = 0; i < n - 1; i++) {
        for (let j = 0; j < n - 1; j++) {
          const corners = [[i, j], [i, j + 1], [i + 1, j + 1], [i + 1, j]].map(([a, b]) => ({ x: s.xs[b], y: s.ys[a], v: z(a, b) }));
          if (corners.some((p) => p.v === null || !Number.isFinite(p.v))) continue;
          const hits = [];
          for (let e = 0; e < 4; e++) {
            const p = corners[e], q = corners[(e + 1) % 4];
            if ((p.v < level) !== (q.v < level)) {
              const t = (level - p.v) / (q.v - p.v);
              hits.push([p.x + t * (q.x - p.x), p.y + t * (q.y - p.y)]);
            }
          }
          for (let h = 0; h + 1 < hits.length; h += 2) {
            segments.push([[sx(hits[h][0]), sy(hits[h][1])], [sx(hits[h + 1][0]), sy(hits[h + 1][1])]]);
          }
        }
      }
      for (const chain of pkChains(segments)) {
        if (chain.length < (chain.closed ? PK_MIN_LOOP : PK_MIN_PIECE) * side) continue;
        lines += chain.points.map(([x, y], k) => `${k ? "L" : "M"}${x.toFixed(1)},${y.toFixed(1)}`).join("");
      }
    }
    svg.append(pkSvg("path", { d: lines, class: "pk-contours", "clip-path": `url(#${clip})` }));
    const kx = this.knob(s.x), ky = this.knob(s.y);
    this.axes(svg, { xlo, xhi, ylo, yhi, sx, sy, left, right, top, bottom, width, height,
      xName: kx.kind === "scale" ? `s (${s.x})` : s.x, yName: ky.kind === "scale" ? `s (${s.y})` : s.y });
    const arrow = pkSvg("line", { class: "pk-arrow" });
    const head = pkSvg("path", { class: "pk-arrow-head" });
    const point = pkSvg("circle", { class: "pk-point", r: "4" });
    svg.append(arrow, head, point);
    const figure = pkEl("figure", { class: "pk-figure", "data-testid": "poke-contour", "data-x": s.x, "data-y": s.y });
    const wx = kx.kind === "scale" ? `s(${s.x})` : s.x, wy = ky.kind === "scale" ? `s(${s.y})` : s.y;
    const caption = pkEl("figcaption", { class: "pk-caption" });
    figure.append(svg, caption);
    const move = (data) => {
      const knobX = data.knobs.find((k) => k.name === s.x), knobY = data.knobs.find((k) => k.name === s.y);
      const px = sx(knobX.value), py = sy(knobY.value);
      const gx = knobX.slope, gy = knobY.slope;
      const norm = Math.hypot(gx, gy);
      const shown = gx !== null && gy !== null && norm > 0 && Number.isFinite(norm);
      // the arrow stays inside the plot: shorter where the point is near the edge it points to
      const room = shown ? pkRoom(px, py, gx / norm, -gy / norm, left, top, side) : 0;
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
        + `(∂${data.out}/∂${wx}, ∂${data.out}/∂${wy}) = (${pkNumber(gx)}, ${pkNumber(gy)}): `
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
    return pkSvg("image", { href: canvas.toDataURL(), x: (left - cell / 2).toFixed(2), y: (top - cell / 2).toFixed(2),
      width: (side + cell).toFixed(2), height: (side + cell).toFixed(2), preserveAspectRatio: "none", class: "pk-shading" });
  }

  axes(svg, o) {
    const g = pkSvg("g", { class: "pk-axes" });
    g.append(pkSvg("line", { x1: String(o.left), y1: String(o.height - o.bottom), x2: String(o.width - o.right), y2: String(o.height - o.bottom) }));
    g.append(pkSvg("line", { x1: String(o.left), y1: String(o.top), x2: String(o.left), y2: String(o.height - o.bottom) }));
    for (const t of pkTicks(o.xlo, o.xhi)) {
      const x = o.sx(t);
      if (x < o.left - 0.5 || x > o.width - o.right + 0.5) continue;
      g.append(pkSvg("line", { x1: String(x), y1: String(o.height - o.bottom), x2: String(x), y2: String(o.height - o.bottom + 4) }));
      const label = pkSvg("text", { x: String(x), y: String(o.height - o.bottom + 14), "text-anchor": "middle" });
      label.textContent = pkNumber(t, 3);
      g.append(label);
    }
    for (const t of pkTicks(o.ylo, o.yhi)) {
      const y = o.sy(t);
      if (y < o.top - 0.5 || y > o.height - o.bottom + 0.5) continue;
      g.append(pkSvg("line", { x1: String(o.left - 4), y1: String(y), x2: String(o.left), y2: String(y) }));
      const label = pkSvg("text", { x: String(o.left - 6), y: String(y), "text-anchor": "end", "dominant-baseline": "central" });
      label.textContent = pkNumber(t, 3);
      g.append(label);
    }
    const name = pkSvg("text", { x: String(o.width - o.right), y: String(o.height - 3), "text-anchor": "end", class: "pk-axis-name" });
    name.textContent = o.xName;
    g.append(name);
    if (o.yName) {
      const yName = pkSvg("text", { x: String(o.left + 4), y: String(o.top + 10), class: "pk-axis-name" });
      yName.textContent = o.yName;
      g.append(yName);
    }
    svg.append(g);
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
  if (!spec || !spec.knobs) return undefined;
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
