// The graph view: a program's DAG laid out once by Graphviz (WebAssembly, in this page), then zoomed,
// panned, hovered, clicked and stepped here, every change made in place on the drawn SVG.
//
// Streamlit calls the default export on mount and on every data update, with the same parentElement
// and data = explorer.graph_data.view_data(...) + {viz_url, view, layouts, speeds, start, selected,
// select_seq} (see components/graph_view/__init__.py for the protocol).
//
// - Layout: the DOT is laid out once per program and per choice of parts (data / grad / shape) and
//   direction; the rows of hidden parts are cut out of the DOT text by their cell ids
//   (n<id>.d / .g / .s), so every variant comes from the one DOT the server wrote. Laid-out SVGs are
//   kept, so toggling back costs nothing.
// - In place: each box's state classes (active / done / waiting, selected), its grad cell's text
//   lines (one <text> per line, Graphviz keeps them in a group per cell), edge classes, the panel.
// - Zoom: Ctrl/⌘ + wheel or pinch around the pointer, the − / + / Fit / 100 % buttons; pan: drag,
//   or scroll the pane. 100 % draws the 13-unit node text at 13 px.
// - Stepper: ← / → / PageUp / PageDown (not while typing or on a slider), the buttons, the slider,
//   Play at 1-20 steps/s (the clock decides the step: a late frame catches up). The position is
//   reported to the server (state `step`) after the user pauses, and once a second while playing.
//
// Hooks kept true on every repaint, on the root [data-testid="graph-view"]: data-step (0 = the seed),
// data-steps, data-selected (node id, '' if none), data-zoom (1 = 100 %), data-ready ('1' once drawn),
// data-layouts (layouts made), data-updates (in-place repaints); each box g.node[data-node=<id>] with
// class active / done / waiting / selected; the panel [data-testid="graph-view-panel"][data-step].

const VIZ = { promise: null };
const PART_CELL = { data: "d", grad: "g", shape: "s" };
const MIN_TEXT_PX = 11;
const MAX_TEXT_PX = 16;
const LEGIBLE_PX = 6; // below this a fitted overview shows nothing readable
const NODE_FONT = 13; // the DOT's node font size: text px = NODE_FONT * scale
const MIN_SCALE = 0.05;
const MAX_SCALE = 4;
const PAD = 8; // px around the drawing inside the pane (its CSS padding)...
const PAD_TOP = 44; // ...but above it, where the zoom controls float
const BORDER = 2; // px of the pane's top and bottom borders (its CSS)
const KEEP_LAYOUTS = 8;
const TYPING = 'input, textarea, select, [contenteditable="true"], [role="slider"], [role="combobox"]';

function loadViz(url) {
  if (!VIZ.promise) {
    VIZ.promise = new Promise((resolve, reject) => {
      const ready = () => window.Viz.instance().then(resolve, reject);
      if (window.Viz) {
        ready();
        return;
      }
      const script = document.createElement("script");
      script.src = url;
      script.async = true;
      script.onload = ready;
      script.onerror = () => {
        VIZ.promise = null;
        reject(new Error("could not load Graphviz from " + url));
      };
      document.head.appendChild(script);
    });
  }
  return VIZ.promise;
}

function dotFor(dot, show, rankdir) {
  let text = dot.replace(/rankdir=[A-Z]{2}/, "rankdir=" + rankdir);
  const hidden = Object.keys(PART_CELL).filter((p) => !show.includes(p)).map((p) => PART_CELL[p]);
  if (hidden.length) {
    const cell = new RegExp('id="n\\d+\\.(' + hidden.join("|") + ')"');
    text = text.replace(/<tr>(?:(?!<\/tr>).)*<\/tr>/g, (row) => (cell.test(row) ? "" : row));
  }
  return text;
}

// Whether a CSS colour (#rrggbb or rgb()) is dark: Streamlit's theme gives no light/dark flag.
function isDark(colour) {
  const c = colour.trim();
  let rgb = null;
  if (/^#[0-9a-f]{6}$/i.test(c)) rgb = [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16));
  else if (/^rgba?\(/.test(c)) rgb = c.replace(/[^\d.,]/g, "").split(",").slice(0, 3).map(Number);
  if (!rgb) return false;
  return 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2] < 128;
}

// A cell's text lines (Graphviz drew one <text> per line): line i into text i, the rest blank.
function setLines(texts, lines) {
  texts.forEach((text, i) => {
    const line = lines[i] === undefined ? "" : lines[i];
    if (text.textContent !== line) text.textContent = line;
  });
}

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

// `code` and **bold** spans of the explain texts, everything else escaped.
function inline(text) {
  return escapeHtml(text)
    .replace(/`([^`]+)`/g, "<code>$1</code>")
    .replace(/\*\*([^*]+)\*\*/g, "<b>$1</b>");
}

function el(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") node.textContent = v;
    else if (k === "html") node.innerHTML = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const child of children) node.appendChild(child);
  return node;
}

const ICONS = {
  first: "M6 5h2v14H6zM19 5v14L9 12z",
  prev: "M15.5 5 8.5 12l7 7 1.5-1.5L11.5 12 17 6.5z",
  next: "M8.5 5 7 6.5 12.5 12 7 17.5 8.5 19l7-7z",
  play: "M8 5v14l11-7z",
  pause: "M7 5h4v14H7zM13 5h4v14h-4z",
};

function icon(name) {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.classList.add("gv-icon");
  const path = document.createElementNS("http://www.w3.org/2000/svg", "path");
  path.setAttribute("d", ICONS[name]);
  svg.appendChild(path);
  return svg;
}

function button(label, cls, onclick, iconName, title) {
  const b = el("button", { type: "button", class: "gv-button " + cls, "aria-label": label, title: title || label, onclick });
  if (iconName) b.appendChild(icon(iconName));
  b.appendChild(el("span", { text: label }));
  return b;
}

// Graphviz's SVG, made ours: node and edge groups tagged with data-*, the cells' <a> wrappers (made
// by the DOT's tooltip attributes) unwrapped, and the ids and <title>s (native tooltips) removed.
function prepare(svg) {
  const vb = svg.viewBox.baseVal;
  const drawing = { svg, width: vb.width, height: vb.height, boxes: new Map(), edges: [] };
  svg.removeAttribute("width");
  svg.removeAttribute("height");
  svg.classList.add("gv-graph");
  for (const title of svg.querySelectorAll("title")) title.remove();
  for (const g of svg.querySelectorAll("g.node")) {
    const key = g.id === "notice" ? "notice" : g.id.slice(1);
    g.removeAttribute("id");
    g.dataset.node = key;
    const cells = {};
    for (const group of g.querySelectorAll('g[id^="a_"]')) {
      const cell = group.id.slice(2); // n5.g
      const link = group.querySelector(":scope > a");
      if (link) {
        while (link.firstChild) group.insertBefore(link.firstChild, link);
        link.remove();
      }
      group.removeAttribute("id");
      group.dataset.cell = cell;
      cells[cell.slice(cell.indexOf(".") + 1)] = [...group.querySelectorAll("text")];
    }
    drawing.boxes.set(key, { g, cells, state: null, selected: false, grad: null });
  }
  for (const g of svg.querySelectorAll("g.edge")) {
    const match = /^en?(\d+)/.exec(g.id || "");
    g.removeAttribute("id");
    if (match) {
      g.dataset.child = match[1];
      drawing.edges.push({ g, child: match[1], cls: "" });
    }
  }
  return drawing;
}

class GraphView {
  constructor(parent) {
    this.parent = parent;
    this.layouts = new Map(); // layout key -> {svg, ...} (prepared drawings), most recent last
    this.drawing = null;
    this.programKey = null;
    this.scale = 1;
    this.userZoomed = false;
    this.pos = 0;
    this.playing = false;
    this.selected = null;
    this.selectSeq = null;
    this.updates = 0;
    this.layoutCount = 0;
    this.reported = { step: null };
    this.build();
  }

  // ------------------------------------------------------------------------- DOM

  build() {
    this.root = el("div", { class: "gv", "data-testid": "graph-view", "data-step": "0", "data-steps": "0",
      "data-selected": "", "data-zoom": "1", "data-ready": "0", "data-layouts": "0", "data-updates": "0" });
    this.legend = el("div", { class: "gv-legend" });
    this.partButtons = {};
    const parts = el("div", { class: "gv-group", role: "group", "aria-label": "Show in each box" },
      ["data", "grad", "shape"].map((part) => {
        const b = el("button", { type: "button", class: "gv-toggle", "aria-pressed": "true", text: part,
          title: `Show each box's ${part}`, onclick: () => this.togglePart(part) });
        this.partButtons[part] = b;
        return b;
      }));
    this.rankSelect = el("select", { class: "gv-rankdir", "aria-label": "Layout", title: "Layout direction",
      onchange: () => this.setView({ rankdir: this.rankSelect.value }) });
    this.zoomLabel = el("span", { class: "gv-zoom-label", text: "100 %" });
    const zoom = el("div", { class: "gv-group", role: "group", "aria-label": "Zoom" }, [
      el("button", { type: "button", class: "gv-button gv-zoom-out", "aria-label": "Zoom out", title: "Zoom out (Ctrl + wheel)", text: "−", onclick: () => this.zoomBy(1 / 1.25) }),
      this.zoomLabel,
      el("button", { type: "button", class: "gv-button gv-zoom-in", "aria-label": "Zoom in", title: "Zoom in (Ctrl + wheel)", text: "+", onclick: () => this.zoomBy(1.25) }),
      el("button", { type: "button", class: "gv-button gv-fit", "aria-label": "Fit", title: "Fit the whole graph in view", text: "Fit", onclick: () => this.fit() }),
      el("button", { type: "button", class: "gv-button gv-actual", "aria-label": "100 %", title: "Node text at 13 px", text: "100 %", onclick: () => this.zoomTo(1) }),
    ]);
    this.toolbar = el("div", { class: "gv-toolbar" }, [this.legend, el("div", { class: "gv-tools" }, [parts, this.rankSelect])]);
    this.controls = el("div", { class: "gv-controls", hidden: "" });
    this.pane = el("div", { class: "gv-pane", tabindex: "-1" });
    this.message = el("div", { class: "gv-message", text: "Laying out the graph…" });
    this.pane.appendChild(this.message);
    zoom.classList.add("gv-zoom");
    this.stage = el("div", { class: "gv-stage" }, [this.pane, zoom]);
    this.panel = el("div", { class: "gv-panel", "data-testid": "graph-view-panel", "data-step": "0", hidden: "", "aria-live": "polite" });
    this.body = el("div", { class: "gv-body" }, [this.stage, this.panel]);
    this.hint = el("div", { class: "gv-hint" });
    this.tip = el("div", { class: "gv-tip", hidden: "", role: "tooltip" });
    this.root.append(this.controls, this.toolbar, this.body, this.hint, this.tip);
    this.parent.appendChild(this.root);
    this.listen();
  }

  buildControls(n, speeds) {
    this.controls.replaceChildren();
    this.controls.hidden = false;
    this.btnReset = button("Reset", "gv-reset", () => this.stepTo(0, { stop: true }), "first", "Back to the seed");
    this.btnPrev = button("Prev", "gv-prev", () => this.stepBy(-1), "prev", "Previous step (← or Page Up)");
    this.btnPlay = button("Play", "gv-play gv-primary", () => (this.playing ? this.pause() : this.play()), "play", "Play");
    this.btnNext = button("Next", "gv-next", () => this.stepBy(1), "next", "Next step (→ or Page Down)");
    this.speedSelect = el("select", { class: "gv-speed", "aria-label": "Play speed (steps per second)", title: "Play speed",
      onchange: () => this.setSpeed(Number(this.speedSelect.value)) },
    speeds.map((s) => el("option", { value: String(s), text: `${s} step${s === 1 ? "" : "s"}/s` })));
    this.stepLabel = el("span", { class: "gv-step-label" });
    this.slider = el("input", { type: "range", class: "gv-slider", min: "0", max: String(n), step: "1", value: "0",
      "aria-label": "Step", title: "0 is the seed; after step k, k nodes have run their VJP" });
    this.slider.addEventListener("input", () => this.stepTo(Number(this.slider.value), { stop: true }));
    this.controls.append(
      el("div", { class: "gv-group gv-buttons" }, [this.btnReset, this.btnPrev, this.btnPlay, this.btnNext, this.speedSelect]),
      el("div", { class: "gv-scrub" }, [this.stepLabel, this.slider]),
    );
  }

  // ------------------------------------------------------------------------- data from Streamlit

  update(data, setStateValue) {
    this.setStateValue = setStateValue;
    const first = !this.data;
    const newProgram = !first && data.key !== this.data.key;
    this.data = data;
    this.stepData = data.steps || null;
    if (first) {
      this.view = { ...data.view };
      this.rankSelect.replaceChildren(...Object.entries(data.layouts).map(([k, label]) => el("option", { value: k, text: label })));
    }
    if (first || newProgram) {
      this.boxInfo = { ...data.boxes };
      this.valuesShown = null;
      this.renderLegend(data.legend);
      const n = this.stepData ? this.stepData.count : 0;
      this.root.dataset.steps = String(n);
      if (this.stepData && n > 0) {
        this.buildControls(n, data.speeds);
        this.speedSelect.value = String(this.view.speed);
        this.panel.hidden = false;
        this.pos = Math.max(0, Math.min(Number(data.start) || 0, n));
        this.reported.step = this.pos;
        this.prepareSteps();
      } else {
        this.controls.hidden = true;
        this.panel.hidden = true;
        this.pos = 0;
      }
      this.stop();
      if (newProgram) this.userZoomed = false;
    }
    if (first || newProgram || data.select_seq !== this.selectSeq) {
      this.selectSeq = data.select_seq;
      this.selected = data.selected === null || data.selected === undefined ? null : String(data.selected);
    }
    this.root.dataset.theme = isDark(getComputedStyle(this.root).getPropertyValue("--st-background-color")) ? "dark" : "light";
    this.syncToolbar();
    this.hint.textContent = (this.stepData && this.stepData.count ? "← / → step · " : "")
      + "Ctrl + wheel or pinch to zoom · drag to pan · hover a box for its values"
      + (this.stepData ? "" : " · click a box to inspect it");
    this.relayout(first || newProgram);
  }

  prepareSteps() {
    const s = this.stepData;
    // node id -> box id (chains draw several nodes); the members of each box
    this.boxOfNode = new Map();
    this.membersOf = new Map();
    for (const [box, info] of Object.entries(this.boxInfo)) {
      const members = info.members || [Number(box)];
      this.membersOf.set(box, members);
      for (const m of members) this.boxOfNode.set(m, box);
    }
    this.grads = new Map(Object.entries(s.grads));
  }

  // Timeline.state (explorer/explain.py), evaluated here for node `i` at position `k`.
  nodeState(i, k) {
    const s = this.stepData;
    if (!s.takes_part[i]) return null;
    if (k === s.active_at[i]) return "active";
    if (s.done_at[i] >= 0 && s.done_at[i] <= k) return "done";
    if (k === 0 && i === s.output) return null;
    return "waiting";
  }

  boxState(box, k) {
    const members = this.membersOf.get(box);
    if (!members) return null;
    if (members.length === 1) return this.nodeState(members[0], k);
    const states = members.map((m) => this.nodeState(m, k));
    if (states.includes("active")) return "active";
    if (states.includes("waiting")) return "waiting";
    return states.every((st) => st === "done") ? "done" : null;
  }

  gradAt(box, k) {
    const versions = this.grads.get(box);
    let found = null;
    if (versions) for (const v of versions) if (v[0] <= k) found = v;
    return found;
  }

  // ------------------------------------------------------------------------- layout

  layoutKey() {
    return `${this.data.key}|${this.view.show.join(",")}|${this.view.rankdir}`;
  }

  relayout(programChanged) {
    const key = this.layoutKey();
    if (this.drawing && this.drawing.key === key) {
      this.paintAll();
      return;
    }
    const token = (this.token = {});
    const cached = this.layouts.get(key);
    const show = (drawing) => {
      if (token !== this.token) return;
      this.install(drawing, programChanged);
    };
    if (cached) {
      this.layouts.delete(key);
      this.layouts.set(key, cached);
      show(cached);
      return;
    }
    const dot = dotFor(this.data.dot, this.view.show, this.view.rankdir);
    loadViz(this.data.viz_url)
      .then((viz) => {
        if (token !== this.token) return;
        const svg = viz.renderSVGElement(dot);
        const drawing = prepare(svg);
        drawing.key = key;
        this.layouts.set(key, drawing);
        while (this.layouts.size > KEEP_LAYOUTS) this.layouts.delete(this.layouts.keys().next().value);
        this.layoutCount += 1;
        show(drawing);
      })
      .catch((err) => {
        if (token !== this.token) return;
        this.message.textContent = "The graph could not be drawn: " + (err && err.message ? err.message : err);
        this.message.hidden = false;
      });
  }

  install(drawing, programChanged) {
    const old = this.drawing;
    const anchor = old && !programChanged ? this.viewCentre() : null;
    if (old) old.svg.remove();
    this.message.hidden = true;
    this.drawing = drawing;
    for (const box of drawing.boxes.values()) {
      box.state = undefined; // repaint everything on this drawing
      box.selected = undefined;
      box.grad = undefined;
    }
    for (const edge of drawing.edges) edge.cls = undefined;
    this.valuesShown = null; // this drawing's cells hold the DOT's numbers (or older ones): retext
    this.pane.appendChild(drawing.svg);
    if (this.paneTop === undefined) this.paneTop = this.pane.getBoundingClientRect().top + window.scrollY;
    if (!this.userZoomed || programChanged) this.scale = this.openingScale();
    this.applyScale();
    this.pane.scrollTo({ left: 0, top: 0 });
    this.paintAll();
    if (anchor) this.centreOn(anchor.x, anchor.y);
    else if (this.stepData && this.stepData.count) this.reveal(this.activeBox || this.boxOfNode.get(this.stepData.output));
    else if (drawing.width * this.scale > this.pane.clientWidth * 3) this.reveal(this.data.output);
    this.root.dataset.layouts = String(this.layoutCount);
    this.root.dataset.ready = "1";
  }

  // ------------------------------------------------------------------------- painting in place

  paintAll() {
    if (!this.drawing) return;
    this.paintValues();
    this.paintSelection();
    if (this.stepData && this.stepData.count) this.paintStep();
    this.root.dataset.step = String(this.pos);
  }

  paintStep() {
    const k = this.pos;
    const d = this.drawing;
    let active = null;
    for (const [key, box] of d.boxes) {
      if (key === "notice") continue;
      const state = this.boxState(key, k);
      if (state === "active") active = key;
      if (state !== box.state) {
        box.g.classList.toggle("active", state === "active");
        box.g.classList.toggle("done", state === "done");
        box.g.classList.toggle("waiting", state === "waiting");
        box.state = state;
      }
      const cell = box.cells.g;
      if (cell) {
        const version = this.gradAt(key, k);
        if (version !== box.grad) {
          setLines(cell, version ? version[1] : ["—"]);
          box.grad = version;
        }
      }
    }
    for (const edge of d.edges) {
      const state = d.boxes.get(edge.child) ? d.boxes.get(edge.child).state : null;
      const cls = state === "active" ? "hot" : state === "waiting" ? "waiting" : "";
      if (cls !== edge.cls) {
        edge.g.classList.toggle("hot", cls === "hot");
        edge.g.classList.toggle("waiting", cls === "waiting");
        edge.cls = cls;
      }
    }
    this.activeBox = active;
    this.renderPanel();
    this.syncControls();
    this.updates += 1;
    this.root.dataset.updates = String(this.updates);
  }

  // data.values: new numbers for boxes already drawn (same shapes, so the same lines per cell).
  paintValues() {
    const values = this.data.values;
    if (!values || values === this.valuesShown) return;
    for (const [key, v] of Object.entries(values)) {
      const box = this.drawing.boxes.get(key);
      if (!box) continue;
      for (const part of ["d", "g"]) if (v[part] && box.cells[part]) setLines(box.cells[part], v[part]);
      if (v.tip && this.boxInfo[key]) this.boxInfo[key] = { ...this.boxInfo[key], data: v.tip[0], grad: v.tip[1] };
    }
    this.valuesShown = values;
    this.tipFor = null;
    this.updates += 1;
    this.root.dataset.updates = String(this.updates);
  }

  paintSelection() {
    if (this.selected !== null && !this.drawing.boxes.has(this.selected)) this.selected = null;
    for (const [key, box] of this.drawing.boxes) {
      const on = key === this.selected;
      if (on !== box.selected) {
        box.g.classList.toggle("selected", on);
        box.selected = on;
      }
    }
    this.root.dataset.selected = this.selected === null ? "" : this.selected;
    if (!this.stepData) {
      const info = this.selected !== null ? this.boxInfo[this.selected] : null;
      this.hint.dataset.selected = info ? info.title : "";
    }
  }

  renderPanel() {
    const k = this.pos;
    const panel = this.stepData.panels[k];
    const parts = [];
    if (k === 0) {
      parts.push(`<h3>${escapeHtml(panel.title)}</h3>`, `<p>${inline(panel.text)}</p>`, `<pre>${escapeHtml(panel.seed)}</pre>`);
    } else {
      parts.push(`<h3>${escapeHtml(panel.title)}</h3>`);
      parts.push(`<div class="gv-label"><b>Rule</b> (VJP of <code>${escapeHtml(panel.op)}</code>, G is the upstream grad)</div>`);
      parts.push(`<pre class="gv-rule">${escapeHtml(panel.formula || "—")}</pre>`);
      parts.push(`<div class="gv-label"><b>Upstream grad G</b> of <code>${escapeHtml(panel.node)}</code></div>`);
      parts.push(`<pre>${escapeHtml(panel.upstream)}</pre>`);
      if (!panel.contributions.length) parts.push('<p class="gv-quiet">No parent needs a grad from this node.</p>');
      for (const c of panel.contributions) {
        const slot = c.slot ? ` (slot ${escapeHtml(c.slot)})` : "";
        parts.push(`<div class="gv-label"><b>→ <code>${escapeHtml(c.parent)}</code></b>${slot}: adds</div>`);
        parts.push(`<pre>${escapeHtml(c.value)}</pre>`);
        if (c.broadcast) parts.push(`<div class="gv-note gv-broadcast"><b>Σ</b> ${escapeHtml(c.broadcast)}</div>`);
        if (c.fan_out) {
          parts.push(`<div class="gv-label">${escapeHtml(c.fan_out)}; <code>${escapeHtml(c.parent)}.grad</code> so far =</div>`);
          parts.push(`<pre>${escapeHtml(c.accumulated)}</pre>`);
        }
      }
      if (k === this.stepData.count) parts.push(`<div class="gv-note gv-done">${escapeHtml(this.stepData.done)}</div>`);
    }
    this.panel.innerHTML = parts.join("");
    this.panel.dataset.step = String(k);
  }

  syncControls() {
    const n = this.stepData.count;
    this.btnReset.disabled = this.pos === 0;
    this.btnPrev.disabled = this.pos === 0;
    this.btnNext.disabled = this.pos >= n;
    this.slider.value = String(this.pos);
    this.stepLabel.textContent = this.pos === 0 ? `Seed (of ${n} steps)` : `Step ${this.pos} of ${n}`;
    const label = this.playing ? "Pause" : "Play";
    if (this.btnPlay.getAttribute("aria-label") !== label) {
      this.btnPlay.replaceChildren(icon(this.playing ? "pause" : "play"), el("span", { text: label }));
      this.btnPlay.setAttribute("aria-label", label);
      this.btnPlay.title = label;
    }
  }

  syncToolbar() {
    for (const [part, b] of Object.entries(this.partButtons)) b.setAttribute("aria-pressed", String(this.view.show.includes(part)));
    this.rankSelect.value = this.view.rankdir;
  }

  renderLegend(entries) {
    this.legend.replaceChildren(...entries.map((e) => {
      const state = ["active", "done", "waiting"].includes(e.key);
      return el("span", { class: `gv-chip ${state ? "state" : "kind"}-${e.key}`, title: e.meaning }, [
        el("span", { text: e.label }), el("span", { class: "gv-chip-note", text: ` · ${e.short}` })]);
    }));
  }

  // ------------------------------------------------------------------------- stepping

  stepTo(k, { stop = false, follow = true } = {}) {
    if (!this.stepData || !this.stepData.count) return;
    if (stop) this.stop();
    const n = this.stepData.count;
    k = Math.max(0, Math.min(n, k));
    if (k === this.pos) {
      this.syncControls();
      return;
    }
    this.pos = k;
    this.root.dataset.step = String(k);
    if (this.drawing) {
      this.paintStep();
      if (follow) this.follow(false);
    } else {
      this.renderPanel();
      this.syncControls();
    }
    this.scheduleReport();
  }

  stepBy(delta) {
    this.stepTo(this.pos + delta, { stop: true });
  }

  play() {
    if (!this.stepData || !this.stepData.count) return;
    if (this.pos >= this.stepData.count) this.stepTo(0);
    this.playing = true;
    this.anchor(this.pos);
    this.syncControls();
    this.tick();
  }

  anchor(from) {
    this.playFrom = from;
    this.playStart = performance.now();
  }

  tick() {
    if (!this.playing) return;
    const due = this.playFrom + 1 + Math.floor(((performance.now() - this.playStart) * this.view.speed) / 1000);
    if (due > this.pos) this.stepTo(Math.min(due, this.stepData.count));
    if (this.pos >= this.stepData.count) {
      this.pause();
      return;
    }
    this.frame = requestAnimationFrame(() => this.tick());
  }

  pause() {
    this.stop();
    this.scheduleReport();
  }

  stop() {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = null;
    if (this.playing) {
      this.playing = false;
      if (this.stepData && this.stepData.count && this.btnPlay) this.syncControls();
    }
  }

  setSpeed(speed) {
    this.view.speed = speed;
    if (this.playing) this.anchor(this.pos);
    this.reportView();
  }

  scheduleReport() {
    // Idle for a moment, or once a second while playing: each report reruns the page on the server.
    if (this.playing) {
      if (!this.reportTimer) this.reportTimer = setTimeout(() => this.report(), 1000);
      return;
    }
    clearTimeout(this.reportTimer);
    this.reportTimer = setTimeout(() => this.report(), 350);
  }

  report() {
    this.reportTimer = null;
    if (this.reported.step !== this.pos && this.setStateValue && this.root.isConnected) {
      this.reported.step = this.pos;
      this.setStateValue("step", this.pos);
    }
  }

  // The active box stays in view: the pane scrolls (never the page) when the box leaves the middle of
  // the part of the pane the window shows.
  follow(instant) {
    const box = this.activeBox && this.drawing.boxes.get(this.activeBox);
    if (!box) return;
    const p = this.pane.getBoundingClientRect();
    const r = box.g.getBoundingClientRect();
    let top = Math.max(p.top, 0), bottom = Math.min(p.bottom, window.innerHeight);
    if (bottom - top < 2 * r.height) [top, bottom] = [p.top, p.bottom];
    const marginX = 0.1 * p.width, marginY = 0.1 * (bottom - top);
    const inside = r.left >= p.left + marginX && r.right <= p.right - marginX
      && r.top >= top + marginY && r.bottom <= bottom - marginY;
    if (inside) return;
    const reduced = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    const fast = instant || reduced || (this.playing && this.view.speed > 4);
    this.pane.scrollTo({
      left: this.pane.scrollLeft + (r.left + r.width / 2) - (p.left + p.width / 2),
      top: this.pane.scrollTop + (r.top + r.height / 2) - (top + bottom) / 2,
      behavior: fast ? "auto" : "smooth",
    });
  }

  // ------------------------------------------------------------------------- view options

  togglePart(part) {
    const show = this.view.show.includes(part) ? this.view.show.filter((p) => p !== part) : [...this.view.show, part];
    this.setView({ show: ["data", "grad", "shape"].filter((p) => show.includes(p)) });
  }

  setView(change) {
    this.view = { ...this.view, ...change };
    this.syncToolbar();
    this.relayout(false);
    this.reportView();
  }

  reportView() {
    if (this.setStateValue) this.setStateValue("view", { ...this.view });
  }

  select(key) {
    if (key === "notice" || key === this.selected) return;
    this.selected = key;
    this.paintSelection();
    if (this.setStateValue) this.setStateValue("selected", Number(key));
  }

  // ------------------------------------------------------------------------- zoom and pan

  paneSize() {
    return { width: this.pane.clientWidth, height: this.maxPaneHeight() };
  }

  // The stepper's pane fits under its controls in the window (buttons, graph and panel on one
  // screen); the Explorer's may reach below the fold (its page scrolls) but not above 900 px.
  maxPaneHeight() {
    if (this.stepData && this.stepData.count) {
      const top = this.paneTop === undefined ? 300 : this.paneTop;
      return Math.max(300, Math.min(720, window.innerHeight - top - 40));
    }
    return Math.max(300, Math.min(900, window.innerHeight - 90));
  }

  openingScale() {
    const { width, height } = this.paneSize();
    const w = this.drawing.width, h = this.drawing.height;
    const fitWidth = (width - 2 * PAD) / w;
    const fitBoth = Math.min(fitWidth, (height - PAD - PAD_TOP - BORDER) / h);
    const lo = MIN_TEXT_PX / NODE_FONT, hi = MAX_TEXT_PX / NODE_FONT;
    // Small graphs at most 16 px text; others whole if that keeps 11 px, else at 11 px (scrolling
    // down), unless even the width does not fit at 11 px: then fitted to the width, as long as the
    // text stays above LEGIBLE_PX; a graph bigger still opens at 11 px around its output (or the
    // active step), with Fit for the overview.
    const scale = Math.min(hi, Math.max(fitBoth, Math.min(lo, fitWidth)));
    return scale * NODE_FONT < LEGIBLE_PX ? lo : scale;
  }

  // Scroll the pane so that box `key` sits in its middle (the page is left alone).
  reveal(key) {
    const box = key !== null && this.drawing.boxes.get(String(key));
    if (!box) return;
    const p = this.pane.getBoundingClientRect();
    const r = box.g.getBoundingClientRect();
    this.pane.scrollLeft += r.left + r.width / 2 - (p.left + p.width / 2);
    this.pane.scrollTop += r.top + r.height / 2 - (p.top + p.height / 2);
  }

  applyScale() {
    const d = this.drawing;
    if (!d) return;
    const w = d.width * this.scale, h = d.height * this.scale;
    d.svg.style.width = `${w}px`;
    d.svg.style.height = `${h}px`;
    this.pane.style.height = `${Math.min(h + PAD + PAD_TOP + BORDER, this.maxPaneHeight())}px`;
    this.root.dataset.zoom = String(Math.round(this.scale * 1000) / 1000);
    this.zoomLabel.textContent = `${Math.round(this.scale * 100)} %`;
  }

  // The graph point (in layout units) at the middle of the pane, or at client point (x, y).
  graphPoint(x, y) {
    const d = this.drawing;
    const rect = d.svg.getBoundingClientRect();
    return { x: (x - rect.left) / this.scale, y: (y - rect.top) / this.scale };
  }

  viewCentre() {
    const pane = this.pane.getBoundingClientRect();
    return this.graphPoint(pane.left + pane.width / 2, pane.top + pane.height / 2);
  }

  // Scroll so that graph point (gx, gy) sits at client point (x, y) (the pane's middle by default).
  centreOn(gx, gy, x, y) {
    const pane = this.pane.getBoundingClientRect();
    const rect = this.drawing.svg.getBoundingClientRect();
    const tx = x === undefined ? pane.left + pane.width / 2 : x;
    const ty = y === undefined ? pane.top + pane.height / 2 : y;
    this.pane.scrollLeft += rect.left + gx * this.scale - tx;
    this.pane.scrollTop += rect.top + gy * this.scale - ty;
  }

  zoomTo(scale, x, y) {
    if (!this.drawing) return;
    const pane = this.pane.getBoundingClientRect();
    const px = x === undefined ? pane.left + pane.width / 2 : x;
    const py = y === undefined ? pane.top + pane.height / 2 : y;
    const point = this.graphPoint(px, py);
    this.scale = Math.max(MIN_SCALE, Math.min(MAX_SCALE, scale));
    this.userZoomed = true;
    this.applyScale();
    this.centreOn(point.x, point.y, px, py);
  }

  zoomBy(factor, x, y) {
    this.zoomTo(this.scale * factor, x, y);
  }

  fit() {
    if (!this.drawing) return;
    const width = this.pane.clientWidth, height = this.maxPaneHeight() - BORDER;
    this.scale = Math.max(MIN_SCALE, Math.min(MAX_SCALE,
      Math.min((width - 2 * PAD) / this.drawing.width, (height - PAD - PAD_TOP) / this.drawing.height)));
    this.userZoomed = true;
    this.applyScale();
    this.pane.scrollTo({ left: 0, top: 0 });
  }

  // ------------------------------------------------------------------------- events

  listen() {
    const pane = this.pane;
    this.pointers = new Map();
    pane.addEventListener("wheel", (e) => {
      if (!(e.ctrlKey || e.metaKey)) return; // a plain wheel scrolls the pane, then the page
      e.preventDefault();
      this.zoomBy(Math.exp(-e.deltaY * (e.deltaMode === 1 ? 0.05 : 0.0025)), e.clientX, e.clientY);
    }, { passive: false });
    pane.addEventListener("pointerdown", (e) => {
      this.pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
      if (e.pointerType === "touch") {
        if (this.pointers.size === 2) this.pinch = this.pinchState();
        return; // one finger: the browser scrolls the pane
      }
      if (e.button !== 0) return;
      this.drag = { id: e.pointerId, x: e.clientX, y: e.clientY, left: pane.scrollLeft, top: pane.scrollTop, moved: false };
    });
    pane.addEventListener("pointermove", (e) => {
      if (this.pointers.has(e.pointerId)) this.pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
      if (this.pinch && this.pointers.size === 2) {
        const now = this.pinchState();
        this.zoomTo(this.pinch.scale * (now.distance / this.pinch.distance), now.x, now.y);
        return;
      }
      const drag = this.drag;
      if (drag && drag.id === e.pointerId) {
        const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
        if (!drag.moved && Math.hypot(dx, dy) > 4) {
          drag.moved = true;
          pane.setPointerCapture(e.pointerId);
          pane.classList.add("gv-dragging");
          this.hideTip();
        }
        if (drag.moved) {
          pane.scrollLeft = drag.left - dx;
          pane.scrollTop = drag.top - dy;
        }
        return;
      }
      if (e.pointerType === "mouse") this.hover(e);
    });
    const end = (e) => {
      this.pointers.delete(e.pointerId);
      if (this.pointers.size < 2) this.pinch = null;
      const drag = this.drag;
      if (drag && drag.id === e.pointerId) {
        this.drag = null;
        pane.classList.remove("gv-dragging");
        if (!drag.moved && e.type === "pointerup") this.clicked(e);
      } else if (e.type === "pointerup" && e.pointerType === "touch") {
        this.clicked(e);
      }
    };
    pane.addEventListener("pointerup", end);
    pane.addEventListener("pointercancel", end);
    pane.addEventListener("pointerleave", (e) => {
      if (e.pointerType === "mouse") this.hideTip();
    });
    this.onKey = (e) => this.key(e);
    document.addEventListener("keydown", this.onKey);
    // The pane's width changes with the window and with Streamlit's sidebar: an unzoomed graph keeps
    // its opening size for the new width.
    let width = 0;
    this.resizeObserver = new ResizeObserver(() => {
      const now = this.pane.clientWidth;
      if (!this.drawing || Math.abs(now - width) < 2) return;
      width = now;
      if (!this.userZoomed) this.scale = this.openingScale();
      this.applyScale();
    });
    this.resizeObserver.observe(this.stage);
  }

  pinchState() {
    const [a, b] = [...this.pointers.values()];
    return { distance: Math.max(1, Math.hypot(a.x - b.x, a.y - b.y)), x: (a.x + b.x) / 2, y: (a.y + b.y) / 2, scale: this.scale };
  }

  boxAt(target) {
    const g = target instanceof Element ? target.closest("g.node") : null;
    return g && this.drawing && this.drawing.svg.contains(g) ? g.dataset.node : null;
  }

  clicked(e) {
    const key = this.boxAt(document.elementFromPoint(e.clientX, e.clientY) || e.target);
    if (key === null || key === "notice") return;
    if (this.stepData && this.stepData.count) this.jumpTo(key);
    else this.select(key);
  }

  // In the stepper, a click on a box goes to the step that runs its VJP (a leaf: the step that
  // completes its grad).
  jumpTo(key) {
    const members = this.membersOf.get(key) || [];
    const s = this.stepData;
    const steps = members.map((m) => (s.active_at[m] >= 0 ? s.active_at[m] : s.done_at[m])).filter((k) => k >= 0);
    if (steps.length) this.stepTo(Math.min(...steps), { stop: true });
  }

  key(e) {
    if (!this.root.isConnected || !this.stepData || !this.stepData.count) return;
    if (e.repeat || e.ctrlKey || e.altKey || e.metaKey) return;
    if (e.target instanceof Element && e.target.closest(TYPING)) return;
    const delta = { ArrowRight: 1, PageDown: 1, ArrowLeft: -1, PageUp: -1 }[e.key];
    if (!delta) return;
    e.preventDefault(); // no page scroll for the arrows and PageUp/PageDown
    this.stepBy(delta);
  }

  hover(e) {
    const key = this.drag ? null : this.boxAt(e.target);
    if (key === null || key === "notice") {
      this.hideTip();
      return;
    }
    if (key !== this.tipFor) {
      const info = this.boxInfo[key];
      if (!info) return;
      let grad = info.grad;
      if (this.stepData && this.stepData.count && this.grads.has(key)) {
        const version = this.gradAt(key, this.pos);
        grad = version ? (version[2] !== undefined ? version[2] : version[1].join(" ")) : "— (not yet)";
      }
      const meta = [info.kind, info.op, info.shape].filter(Boolean).join(" · ");
      const rows = [`<div class="gv-tip-title">${escapeHtml(info.title)}</div>`, `<div class="gv-tip-meta">${escapeHtml(meta)}</div>`];
      if (info.data) rows.push(`<div><span class="gv-tip-data">data</span> ${escapeHtml(info.data)}</div>`);
      if (grad) rows.push(`<div><span class="gv-tip-grad">grad</span> ${escapeHtml(grad)}</div>`);
      this.tip.innerHTML = rows.join("");
      this.tipFor = key;
    }
    this.tip.hidden = false;
    const root = this.root.getBoundingClientRect();
    const tw = this.tip.offsetWidth, th = this.tip.offsetHeight;
    let x = e.clientX - root.left + 14, y = e.clientY - root.top + 14;
    if (x + tw > root.width) x = Math.max(0, e.clientX - root.left - tw - 10);
    if (e.clientY + 14 + th > window.innerHeight) y = Math.max(0, e.clientY - root.top - th - 10);
    this.tip.style.left = `${x}px`;
    this.tip.style.top = `${y}px`;
  }

  hideTip() {
    this.tip.hidden = true;
    this.tipFor = null;
  }

  destroy() {
    this.stop();
    clearTimeout(this.reportTimer);
    document.removeEventListener("keydown", this.onKey);
    this.resizeObserver.disconnect();
    this.layouts.clear();
  }
}

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  const spec = typeof data === "string" ? JSON.parse(data) : data;
  if (!spec || !spec.dot) return undefined;
  let view = parentElement.__graphView;
  if (!view || !view.root.isConnected) {
    view = new GraphView(parentElement);
    parentElement.__graphView = view;
  }
  view.update(spec, setStateValue);
  return () => {
    // NOTE: Streamlit also calls this before every data update; only let go once the view has left the page.
    setTimeout(() => {
      if (!view.root.isConnected) view.destroy();
    }, 1000);
  };
}
