// The Jacobian view: an op node's J = ∂out/∂input for each input, drawn as a labelled heatmap (output
// element × input element), the upstream g beside its rows, gᵀJ and the VJP's own result under its
// columns, the check against central differences, and the cost (numbers in J against the operations
// the VJP did). Data: explorer.program.jacobian_view.view_data.
//
// One module, two users: the Explorer's inspector mounts it alone (mount.js), the Backward Stepper shows
// it in its panel's Jacobian tab (components/frontend/graph_view/stepper.js imports JacobianView).
//
// Hooks: the root [data-testid="jacobian"] with data-op, data-rows (output elements), data-cols (input
// elements, all inputs together), data-max-error (largest |gᵀJ − VJP| over the inputs; '' when gᵀJ
// was not formed); each input [data-testid="jacobian-input"] with data-slot, data-rows, data-cols,
// data-shown-rows, data-shown-cols, data-max-error; each cell of J rect.jv-cell[data-r][data-c][data-v].

import { el, escapeHtml, svg } from "../web/dom.js";
import { formatCount, formatNumber, formatShort } from "../web/format.js";

const LEVELS = 8; // colour steps each side of 0 (classes jv-p1..8, jv-n1..8; CSS mixes the theme's colours)
const MAX_CELL = 40;
const MIN_CELL = 5;
const MAX_HEIGHT = 520; // px of J's cells at most

// Element i of a tensor of `shape` as its index: "[1, 2]" ("" for a scalar).
function indexText(i, shape) {
  if (!shape.length) return "";
  const idx = [];
  for (let d = shape.length - 1; d >= 0; d--) {
    idx.unshift(i % shape[d]);
    i = Math.floor(i / shape[d]);
  }
  return `[${idx.join(", ")}]`;
}

function levelClass(v, scale) {
  if (v === null || v === undefined || !Number.isFinite(v)) return "jv-nan";
  if (v === 0 || !(scale > 0)) return "jv-z";
  const k = Math.max(1, Math.min(LEVELS, Math.ceil((LEVELS * Math.abs(v)) / scale)));
  return (v > 0 ? "jv-p" : "jv-n") + k;
}

function largestAbs(values) {
  let m = 0;
  for (const v of values) if (v !== null && Number.isFinite(v)) m = Math.max(m, Math.abs(v));
  return m;
}

function vectorText(values, total) {
  const shown = values.map(formatNumber).join(", ");
  return `[${shown}${total > values.length ? `, … (${formatCount(total - values.length)} more)` : ""}]`;
}

export class JacobianView {
  constructor(parent) {
    this.root = el("div", { class: "jv", "data-testid": "jacobian" });
    this.tip = el("div", { class: "jv-tip", role: "tooltip" });
    this.tip.hidden = true;
    parent.append(this.root);
    this.root.addEventListener("pointermove", (e) => this.hover(e));
    this.root.addEventListener("pointerleave", () => (this.tip.hidden = true));
    let width = 0;
    this.resize = new ResizeObserver(() => {
      const now = this.root.clientWidth;
      if (this.data && Math.abs(now - width) > 8) {
        width = now;
        this.render();
      }
    });
    this.resize.observe(this.root);
  }

  show(data) {
    this.data = data;
    this.render();
  }

  render() {
    const d = this.data;
    const root = this.root;
    root.replaceChildren();
    if (!d) return;
    const outSize = d.out_shape.reduce((a, b) => a * b, 1);
    root.dataset.op = d.op;
    root.dataset.rows = String(outSize);
    root.dataset.cols = String(d.inputs.reduce((a, s) => a + s.cols, 0));
    root.dataset.maxError = d.max_error === null || d.max_error === undefined ? "" : String(d.max_error);
    root.append(
      el("div", { class: "jv-title" }, [el("b", { text: "Jacobian of " }), el("code", { text: d.title }),
        el("span", { class: "jv-muted", text: ` · output ${d.out_shape_text}` })]),
      el("p", { class: "jv-lesson", text: `Row i is ${d.op}'s own VJP run on the one-hot G = eᵢ: what each input `
        + "would receive if only output element i mattered. Reverse mode never builds J: it sends gᵀJ straight away." }),
    );
    if (!d.inputs.length) root.append(el("p", { class: "jv-muted", text: "No input of this node needs a grad." }));
    for (const section of d.inputs) root.append(this.renderInput(section, d));
    if (d.constants.length) {
      root.append(el("p", { class: "jv-muted", text: `${d.constants.join(", ")}: a constant (no grad), so no Jacobian is built for it.` }));
    }
    const parts = d.inputs.map((s) => `${formatCount(s.rows)} × ${formatCount(s.cols)}`).join(" + ");
    root.append(el("div", { class: "jv-cost", "data-testid": "jacobian-cost" }, [
      el("b", { text: "Cost. " }),
      document.createTextNode(`J has ${formatCount(d.entries)} numbers${d.inputs.length > 1 ? ` (${parts})` : ""}; `
        + `${d.op}'s VJP did ${formatCount(d.operations)} operation${d.operations === 1 ? "" : "s"} on numbers to give gᵀJ without them.`),
    ]));
    root.append(this.tip);
  }

  renderInput(s, d) {
    const box = el("section", { class: "jv-input", "data-testid": "jacobian-input", "data-slot": String(s.slot),
      "data-rows": String(s.rows), "data-cols": String(s.cols), "data-shown-rows": String(s.shown_rows),
      "data-shown-cols": String(s.shown_cols), "data-max-error": s.max_error === null ? "" : String(s.max_error) });
    const slot = s.slot_name ? ` (slot ${s.slot_name})` : "";
    box.append(el("div", { class: "jv-heading" }, [
      el("b", { text: `∂${d.out} / ∂${s.label}` }), el("span", { class: "jv-muted",
        text: `${slot} · J is ${formatCount(s.rows)} × ${formatCount(s.cols)}: a row per element of ${d.out} ${d.out_shape_text}, `
          + `a column per element of ${s.label} ${s.shape_text}` }),
    ]));
    box.append(el("div", { class: "jv-structure", text: s.structure }));
    if (s.shown_rows < s.rows || s.shown_cols < s.cols) {
      box.append(el("div", { class: "jv-note", text: `Too big to draw whole: showing rows 1–${s.shown_rows} and `
        + `columns 1–${s.shown_cols} of ${formatCount(s.rows)} × ${formatCount(s.cols)} (${formatCount(s.rows * s.cols)} numbers).` }));
    }
    box.append(this.heatmap(s, d));
    const gtj = s.gtj;
    const lines = el("div", { class: "jv-vectors" });
    const row = (label, values) => lines.append(el("div", { class: "jv-vrow" }, [
      el("span", { class: "jv-vlabel", text: label }), el("code", { text: vectorText(values, s.cols) })]));
    if (gtj) row("gᵀJ", gtj);
    row("VJP(g)", s.vjp);
    box.append(lines);
    const scale = 1 + largestAbs(s.vjp);
    if (!s.gtj) {
      box.append(el("div", { class: "jv-check jv-muted", text: `J is too big to build whole here (${formatCount(s.rows * s.cols)} numbers), `
        + "so gᵀJ is not formed; the VJP's result is shown." }));
    } else if (s.max_error === null) {
      box.append(el("div", { class: "jv-check jv-warn", "data-testid": "jacobian-equal",
        text: "⚠ gᵀJ and VJP(g) hold numbers that are not finite (nan or inf), so they cannot be compared." }));
    } else {
      const same = s.max_error <= 1e-9 * scale;
      box.append(el("div", { class: `jv-check ${same ? "jv-ok" : "jv-bad"}`, "data-testid": "jacobian-equal",
        text: `${same ? "✓" : "✗"} max |gᵀJ − VJP(g)| = ${formatNumber(s.max_error)}`
          + (same ? ": the same numbers to the printed precision." : ": they differ — the VJP does not match its Jacobian.") }));
    }
    const fd = s.numeric_ok
      ? `✓ J equals central differences of ${d.op}'s forward (max |J − numeric| = ${formatNumber(s.numeric_error)}).`
      : `⚠ Central differences of ${d.op}'s forward differ by up to ${formatNumber(s.numeric_error)}: an input sits on a kink `
        + "(relu or abs at 0, a tie in max) where the two one-sided slopes differ, or the values are not finite.";
    box.append(el("div", { class: `jv-check ${s.numeric_ok ? "jv-ok" : "jv-warn"}`, "data-testid": "jacobian-numeric", text: fd }));
    return box;
  }

  heatmap(s, d) {
    const rows = s.shown_rows, cols = s.shown_cols;
    // full names for the hover; the axes show the index alone (the heading names the tensors)
    const outLabels = [], inLabels = [];
    for (let i = 0; i < rows; i++) outLabels.push(d.out + indexText(i, d.out_shape));
    for (let j = 0; j < cols; j++) inLabels.push(s.label + indexText(j, s.shape));
    const rowText = (i) => indexText(i, d.out_shape) || d.out;
    const colText = (j) => indexText(j, s.shape) || s.label;
    const longest = (n, text) => Array.from({ length: n }, (_, i) => text(i).length).reduce((a, b) => Math.max(a, b), 1);
    const labelW = Math.min(120, 10 + 6.6 * longest(rows, rowText));
    const labelH = Math.min(120, 10 + 6.6 * longest(cols, colText));
    const width = Math.max(240, this.root.clientWidth || 480);
    const gap = 6, stripLabel = 46;
    let cell = Math.floor((width - labelW - gap - 4) / (cols + 1));
    cell = Math.max(MIN_CELL, Math.min(MAX_CELL, cell, Math.floor(MAX_HEIGHT / rows)));
    const x0 = labelW + cell + gap; // J's left edge: row labels, then the g strip, then a gap
    const y0 = labelH; // column labels above
    const strips = s.gtj ? 2 : 1;
    const stripH = Math.max(cell, 10);
    const height = y0 + rows * cell + gap + strips * (stripH + 3) + 4;
    const svgWidth = Math.max(x0 + cols * cell + 4, labelW + stripLabel + 4);
    const map = svg("svg", { class: "jv-map", width: String(svgWidth), height: String(height),
      viewBox: `0 0 ${svgWidth} ${height}`, role: "img",
      "aria-label": `Jacobian of ${d.title} with respect to ${s.label}: ${rows} by ${cols} shown` });
    const scale = largestAbs(s.matrix), gScale = largestAbs(d.g), vScale = Math.max(largestAbs(s.vjp), largestAbs(s.gtj || []));
    const text = cell >= 32; // numbers inside the cells, to 2 significant digits
    const every = Math.max(1, Math.ceil(12 / cell)); // a label every `every` rows and columns: 12 px apart at least
    const font = Math.max(8, Math.min(11, cell - 2));
    // Row labels (output elements) and the g strip beside them.
    for (let i = 0; i < rows; i++) {
      const y = y0 + i * cell;
      if (i % every === 0) {
        const t = svg("text", { x: String(labelW - 4), y: String(y + cell / 2), class: "jv-label", "text-anchor": "end",
          "dominant-baseline": "central", "font-size": String(font) });
        t.textContent = rowText(i);
        map.append(t);
      }
      map.append(this.cell("jv-strip-g", labelW, y, cell, cell, d.g[i], gScale, { kind: "g", r: i }));
    }
    const gLabel = svg("text", { x: String(labelW + cell / 2), y: String(y0 - 4), class: "jv-label jv-strip-label", "text-anchor": "middle", "font-size": "10" });
    gLabel.textContent = "g";
    map.append(gLabel);
    // Column labels (input elements), turned.
    for (let j = 0; j < cols; j += every) {
      const x = x0 + j * cell + cell / 2;
      const t = svg("text", { x: String(x), y: String(y0 - 4), class: "jv-label", "font-size": String(font),
        transform: `rotate(-90 ${x} ${y0 - 4})`, "dominant-baseline": "central" });
      t.textContent = colText(j);
      map.append(t);
    }
    // J.
    const g = svg("g", { class: "jv-cells" });
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < cols; j++) {
        const v = s.matrix[i * cols + j];
        const rect = this.cell("jv-cell", x0 + j * cell, y0 + i * cell, cell, cell, v, scale, { r: i, c: j });
        g.append(rect);
        if (text && v !== 0) {
          const t = svg("text", { x: String(x0 + j * cell + cell / 2), y: String(y0 + i * cell + cell / 2), class: "jv-value",
            "text-anchor": "middle", "dominant-baseline": "central", "font-size": "9" });
          t.textContent = formatShort(v);
          g.append(t);
        }
      }
    }
    map.append(g);
    map.append(svg("rect", { x: String(x0 - 0.5), y: String(y0 - 0.5), width: String(cols * cell + 1), height: String(rows * cell + 1), class: "jv-frame" }));
    // gᵀJ and the VJP's result under the columns.
    const stripRows = (s.gtj ? [["gᵀJ", s.gtj, "gtj"]] : []).concat([["VJP", s.vjp, "vjp"]]);
    stripRows.forEach(([label, values, kind], k) => {
      const y = y0 + rows * cell + gap + k * (stripH + 3);
      const t = svg("text", { x: String(x0 - 4), y: String(y + stripH / 2), class: "jv-label jv-strip-label", "text-anchor": "end",
        "dominant-baseline": "central", "font-size": "10" });
      t.textContent = label;
      map.append(t);
      for (let j = 0; j < cols; j++) map.append(this.cell(`jv-strip-${kind}`, x0 + j * cell, y, cell, stripH, values[j], vScale, { kind, c: j }));
    });
    const wrap = el("div", { class: "jv-scroll" });
    wrap.append(map);
    map.__jv = { s, outLabels, inLabels, d };
    return wrap;
  }

  cell(cls, x, y, w, h, v, scale, info) {
    const rect = svg("rect", { x: String(x), y: String(y), width: String(w), height: String(h), class: `${cls} ${levelClass(v, scale)}` });
    for (const [k, val] of Object.entries(info)) rect.dataset[k] = String(val);
    rect.dataset.v = v === null ? "nan" : String(v);
    return rect;
  }

  hover(e) {
    const rect = e.target instanceof Element ? e.target.closest("rect[data-v]") : null;
    const map = rect ? rect.ownerSVGElement : null;
    if (!rect || !map || !map.__jv) {
      this.tip.hidden = true;
      return;
    }
    const { s, outLabels, inLabels, d } = map.__jv;
    const r = Number(rect.dataset.r), c = Number(rect.dataset.c);
    const v = rect.dataset.v === "nan" ? null : Number(rect.dataset.v);
    let html;
    if (rect.dataset.kind === "g") html = `<b>g${escapeHtml(indexText(r, d.out_shape))}</b> = ${formatNumber(v)}<br>the upstream grad of ${escapeHtml(outLabels[r])}`;
    else if (rect.dataset.kind === "gtj") html = `<b>(gᵀJ)</b> for ${escapeHtml(inLabels[c])} = ${formatNumber(v)}<br>Σᵢ g[i] · J[i, ${c}]`;
    else if (rect.dataset.kind === "vjp") html = `<b>VJP(g)</b> for ${escapeHtml(inLabels[c])} = ${formatNumber(v)}<br>what backward() sent ${escapeHtml(s.label)}`;
    else {
      const numeric = s.numeric ? s.numeric[r * s.shown_cols + c] : undefined;
      html = `<b>∂${escapeHtml(outLabels[r])} / ∂${escapeHtml(inLabels[c])}</b> = ${formatNumber(v)}`
        + (numeric !== undefined ? `<br>central differences: ${formatNumber(numeric)}` : "");
    }
    this.tip.innerHTML = html;
    this.tip.hidden = false;
    const box = this.root.getBoundingClientRect();
    let x = e.clientX - box.left + 12, y = e.clientY - box.top + 12;
    if (x + this.tip.offsetWidth > box.width) x = Math.max(0, e.clientX - box.left - this.tip.offsetWidth - 8);
    this.tip.style.left = `${x}px`;
    this.tip.style.top = `${y}px`;
  }

  destroy() {
    this.resize.disconnect();
    this.root.remove();
  }
}
