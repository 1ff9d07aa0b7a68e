// The graph view: a program's DAG laid out once by Graphviz (WebAssembly, in a worker), then zoomed,
// panned, hovered, clicked and stepped here, every change made in place on the drawn SVG.
// It imports drawing.js (Graphviz and its SVG), stepper.js (the Backward Stepper) and controls.js.
//
// Streamlit calls the default export on mount and on every data update, with the same parentElement
// and data = explorer.program.view_data.view_data(...) + {viz_url, options, layouts, speeds, start, selected,
// select_seq, values} (see components/graph_view/__init__.py for the protocol).
//
// - Layout: the DOT is laid out once per program and per choice of parts (data / grad / shape) and
//   direction; the rows of hidden parts are cut out of the DOT text by their cell ids
//   (n<id>.d / .g / .s), so every variant comes from the one DOT the server wrote. Laid-out SVGs are
//   kept, so toggling back costs nothing. Graphviz runs in a worker (drawing.js): the page stays responsive
//   while it lays out, and a layout that takes more than data.layout_seconds (60 s by default) is stopped
//   and the view says so, leaving no stale drawing.
// - In place: each box's state classes (active / done / waiting, selected), its data and grad cells'
//   text lines (one <text> per line, Graphviz keeps them in a group per cell: the stepper's grads,
//   or `values` of the same program with other numbers, back to the DOT's own when `values` is
//   null again; a line longer than its box is narrowed to fit), edge classes, the panel, and in the
//   stepper new steps of the same program (steps.version) at the same position.
// - Zoom: Ctrl/⌘ + wheel or pinch around the pointer, the − / + / Fit / 100 % buttons; pan: drag,
//   or scroll the pane. 100 % draws the 13-unit node text at 13 px.
// - Click: selects a box (reported as state `selected`), or in the stepper goes to its step.
//
// - Values pushed from elsewhere in the page: a window event VALUES_EVENT with detail {key (the
//   program's data.key), values (as data.values), caption?} retexts the view that shows that program,
//   like data.values (the Training Playground's live view sends its step graph's with every frame it
//   paints). A push updates the boxes it names (the others keep their texts); the latest values win,
//   pushed or sent; values without "tip" give the tooltip the cells' lines. Pushes that arrive while
//   the view is off screen are painted (the latest only) when it comes into view.
//
// Hooks kept true on every repaint, on the root [data-testid="graph-view"]: data-step (0 = the seed),
// data-steps, data-selected (node id, '' if none), data-zoom (1 = 100 %), data-ready ('1' once drawn),
// data-layouts (layouts made), data-layout (busy / done / timeout / failed: the latest layout), data-updates
// (in-place repaints), data-theme (light / dark), data-caption; each box g.node[data-node=<id>] with class
// active / done / waiting / selected, each tag (a use of a box that feeds many, explorer/graph/dot.py)
// g.node[data-ref=<id of that box>]; the stepper's panel
// [data-testid="graph-view-panel"][data-step][data-tab] (step / jacobian), its tabs .gv-tab[data-tab], and
// in its Jacobian tab the Jacobian view's own hooks (jacobian.js).

import { el, escapeHtml } from "../web/dom.js";
import { formatPercent } from "../web/format.js";
import { isDark } from "../web/theme.js";
import { dotFor, fitLines, Layouter, LayoutTimeout, prepare, setLines } from "./drawing.js";
import { Stepper } from "./stepper.js";
import { markOrders } from "./orders.js";
import { markInterventions } from "./interventions.js";
import { keepSaves, markSaves } from "./saves.js";
import { showParts } from "./parts.js";

const DEFAULT_LAYOUT_SECONDS = 60; // Graphviz's budget for one layout (data.layout_seconds sets another)
const MIN_TEXT_PX = 11;
const MAX_TEXT_PX = 16;
const LEGIBLE_PX = 6; // below this a fitted overview shows nothing readable
const NODE_FONT = 13; // the DOT's node font size: text px = NODE_FONT * scale
// NOTE: a box's data and grad lines are 12 pt (explorer/graph/dot.py): at 11 / 13 they were 10.2 px on screen; the
// opening fit keeps them at 11 px (issue 29; tests/browser/test_presenter_browser.py measures every box's text)
const LINE_FONT = 12;
const MIN_SCALE = 0.05;
const MAX_SCALE = 4;
const PAD = 8; // px around the drawing inside the pane (its CSS padding)
const PAD_TOP = PAD;
const BELOW = 34; // px kept under the pane in the window: the hint line and a margin
const MIN_PANE = 260; // px: the shortest pane
const BORDER = 2; // px of the pane's top and bottom borders (its CSS)
const KEEP_LAYOUTS = 8;
const VALUES_EVENT = "graph-view:values";
const MEMORY_EVENT = "graph-view:memory"; // the memory timeline's (components/frontend/memory/memory.js)
const DRAWN_EVENT = "graph-view:drawn"; // told when a drawing is installed ({key}): the timeline tells its boxes again

class GraphView {
  constructor(parent) {
    this.parent = parent;
    this.layouts = new Map(); // layout key -> {svg, ...} (prepared drawings), most recent last
    this.drawing = null;
    this.scale = 1;
    this.userZoomed = false;
    this.stepper = null;
    this.selected = null;
    this.selectSeq = null;
    this.panelTab = "step"; // the stepper panel's tab: "step" or "jacobian"
    this.updates = 0;
    this.layoutCount = 0;
    this.build();
  }

  // ------------------------------------------------------------------------- DOM

  build() {
    this.root = el("div", { class: "gv", "data-testid": "graph-view", "data-mode": "reverse", "data-step": "0", "data-steps": "0",
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
      onchange: () => this.setOptions({ rankdir: this.rankSelect.value }, true) });
    this.zoomLabel = el("span", { class: "gv-zoom-label", text: formatPercent(1) });
    const zoom = el("div", { class: "gv-group", role: "group", "aria-label": "Zoom" }, [
      el("button", { type: "button", class: "gv-button gv-zoom-out", "aria-label": "Zoom out", title: "Zoom out (Ctrl + wheel)", text: "−", onclick: () => this.zoomBy(1 / 1.25) }),
      this.zoomLabel,
      el("button", { type: "button", class: "gv-button gv-zoom-in", "aria-label": "Zoom in", title: "Zoom in (Ctrl + wheel)", text: "+", onclick: () => this.zoomBy(1.25) }),
      el("button", { type: "button", class: "gv-button gv-fit", "aria-label": "Fit", title: "Fit the whole graph in view", text: "Fit", onclick: () => this.fit() }),
      el("button", { type: "button", class: "gv-button gv-actual", "aria-label": "100 %", title: "Node text at 13 px", text: "100 %", onclick: () => this.zoomTo(1) }),
    ]);
    this.caption = el("div", { class: "gv-caption", hidden: "" });
    // NOTE: the zoom buttons sit in the toolbar, above the pane: floating over it they covered boxes.
    zoom.classList.add("gv-zoom");
    this.toolbar = el("div", { class: "gv-toolbar" }, [this.caption, this.legend, el("div", { class: "gv-tools" }, [parts, this.rankSelect, zoom])]);
    this.controls = el("div", { class: "gv-controls", hidden: "" });
    this.pane = el("div", { class: "gv-pane", tabindex: "-1" });
    this.message = el("div", { class: "gv-message", text: "Laying out the graph…" });
    this.pane.appendChild(this.message);
    this.stage = el("div", { class: "gv-stage" }, [this.pane]);
    this.panel = el("div", { class: "gv-panel", "data-testid": "graph-view-panel", "data-step": "0", hidden: "", "aria-live": "polite" });
    this.body = el("div", { class: "gv-body" }, [this.stage, this.panel]);
    this.hint = el("div", { class: "gv-hint" });
    this.tip = el("div", { class: "gv-tip", hidden: "", role: "tooltip" });
    this.root.append(this.controls, this.toolbar, this.body, this.hint, this.tip);
    this.parent.appendChild(this.root);
    this.listen();
  }

  // ------------------------------------------------------------------------- data from Streamlit

  update(data, setStateValue) {
    this.setStateValue = setStateValue;
    if (data.layout_kept) {
      // NOTE: a fragment's rerun with new numbers for the drawing this view has: the server leaves the
      // drawing out (components/graph_view/__init__.py). Without it (never seen), ask for it again.
      if (!this.data || this.data.key !== data.key) {
        setStateValue("layout_wanted", Date.now()); // a new value, whatever an earlier view sent

        return;
      }
      data = { ...data, dot: this.data.dot, boxes: this.data.boxes, legend: this.data.legend };
    }
    data = keepSaves(data, this.data); // the boxes' saved bytes come with a full run only (saves.js)
    const first = !this.data;
    const newProgram = !first && data.key !== this.data.key;
    this.data = data;
    if (first) {
      this.options = { ...data.options };
      this.rankSelect.replaceChildren(...Object.entries(data.layouts).map(([k, label]) => el("option", { value: k, text: label })));
    }
    if (!first && !newProgram && this.stepper && data.steps && data.steps.version !== this.stepper.s.version) {
      this.stepper.refresh(data.steps); // the same program with other numbers (poked inputs)
    }
    if (first || newProgram) {
      this.boxInfo = { ...data.boxes };
      this.valuesShown = null;
      this.renderLegend(data.legend);
      if (this.stepper) this.stepper.destroy();
      const steps = data.steps && data.steps.count > 0 ? data.steps : null;
      this.stepper = steps ? new Stepper(this, steps, data.start) : null;
      this.controls.hidden = this.panel.hidden = !steps;
      this.root.dataset.steps = String(steps ? steps.count : 0);
      this.root.dataset.step = String(steps ? this.stepper.pos : 0);
      if (newProgram) this.userZoomed = false;
    }
    if (this.stepper) this.stepper.predict.set(data.predict); // Predict on or off, and its verdicts (predict.js)
    if (first || newProgram || data.select_seq !== this.selectSeq) {
      this.selectSeq = data.select_seq;
      this.selected = data.selected === null || data.selected === undefined ? null : String(data.selected);
    }
    // NOTE: reading the theme forces a style recalculation; with values arriving ~10 times a second it is
    // read at most twice a second (a theme switch is a rare, deliberate act).
    const now = performance.now();
    if (first || newProgram || !(now - this.themeRead < 500)) {
      this.themeRead = now;
      this.root.dataset.theme = isDark(getComputedStyle(this.root).getPropertyValue("--st-background-color")) ? "dark" : "light";
    }
    this.setMode(data.mode === "forward" ? "forward" : "reverse");
    this.showCaption();
    this.syncToolbar();
    showParts(this.partButtons, data.dot);
    this.hint.textContent = (this.stepper ? "← / → step · Space play / pause · " : "")
      + "Ctrl + wheel or pinch to zoom · drag to pan · hover a box for its values"
      + (data.steps || !data.selectable ? "" : " · click a box to inspect it");
    this.relayout(first || newProgram);
  }

  // Reverse mode draws each box's grad, forward mode its tangent (in the same cell): the words follow.
  setMode(mode) {
    if (this.root.dataset.mode === mode && this.derivativeWord) return;
    this.root.dataset.mode = mode;
    this.derivativeWord = mode === "forward" ? "tangent" : "grad";
    const b = this.partButtons.grad;
    b.textContent = this.derivativeWord;
    b.title = `Show each box's ${this.derivativeWord}`;
  }

  // ------------------------------------------------------------------------- layout

  layoutKey() {
    return `${this.data.key}|${this.options.show.join(",")}|${this.options.rankdir}`;
  }

  relayout(programChanged) {
    const key = this.layoutKey();
    if (this.drawing && this.drawing.key === key) {
      this.drawing.svg.style.display = "";
      this.message.hidden = true;
      this.paintAll();
      return;
    }
    if (this.pending === key) return; // Graphviz is laying this one out (a rerun would only start it again)
    if (this.gaveUp === key) return; // it ran out of time on this one: the message says so
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
    const dot = dotFor(this.data.dot, this.options.show, this.options.rankdir);
    this.pending = key;
    // the drawing on screen stays (zoom, hover and the rest working) while Graphviz lays out the next
    const slow = setTimeout(() => {
      if (token !== this.token) return;
      this.message.textContent = "Laying out the graph…";
      this.message.hidden = false;
      this.root.dataset.layout = "busy";
    }, 300);
    if (!this.layouter || !this.layouter.serves(this.data.viz_url)) {
      if (this.layouter) this.layouter.stop();
      this.layouter = new Layouter(this.data.viz_url);
    }
    this.layouter.layOut(dot, (this.data.layout_seconds || DEFAULT_LAYOUT_SECONDS) * 1000)
      .finally(() => {
        clearTimeout(slow);
        if (this.pending === key) this.pending = null;
      })
      .then((svg) => {
        if (token !== this.token) return;
        const drawing = prepare(svg);
        drawing.key = key;
        this.layouts.set(key, drawing);
        while (this.layouts.size > KEEP_LAYOUTS) this.layouts.delete(this.layouts.keys().next().value);
        this.layoutCount += 1;
        show(drawing);
      })
      .catch((err) => {
        if (token !== this.token) return;
        const timeout = err instanceof LayoutTimeout;
        if (timeout) this.gaveUp = key;
        this.root.dataset.layout = timeout ? "timeout" : "failed";
        const boxes = Object.keys(this.data.boxes || {}).length;
        this.message.textContent = timeout
          ? `${err.message} (${boxes} boxes) and was stopped. Show fewer parts or the other direction (each ` +
            "is a layout of its own), or download the DOT file and draw it with Graphviz on your own machine."
          : "The graph could not be drawn: " + (err && err.message ? err.message : err);
        this.message.hidden = false;
        if (this.drawing) this.drawing.svg.style.display = "none"; // the drawing on screen is not this graph's
        this.pane.scrollTo({ left: 0, top: 0 });
      });
  }

  install(drawing, programChanged) {
    const old = this.drawing;
    const anchor = old && !programChanged ? this.viewCentre() : null;
    if (old) old.svg.remove();
    drawing.svg.style.display = "";
    this.message.hidden = true;
    this.root.dataset.layout = "done";
    this.drawing = drawing;
    markOrders(drawing); // data-order: which pass made each box (the backward as a graph)
    for (const box of drawing.boxes.values()) {
      box.state = undefined; // repaint everything on this drawing
      box.selected = undefined;
      box.grad = undefined;
    }
    for (const edge of drawing.edges) edge.cls = undefined;
    this.valuesShown = null; // this drawing's cells hold the DOT's numbers (or older ones): retext
    this.pane.appendChild(drawing.svg);
    if (!this.userZoomed || programChanged) this.scale = this.openingScale();
    this.applyScale();
    this.pane.scrollTo({ left: 0, top: 0 });
    this.paintAll();
    if (anchor) this.centreOn(anchor.x, anchor.y);
    else if (this.stepper) this.reveal(this.stepper.activeBox || this.stepper.outputBox());
    // a drawing bigger than its pane at legible text: the output in view (issue 29: micrograd opened with `g`
    // below the pane's edge, so poking `a` showed nothing of what it does to `g`)
    else if (drawing.width * this.scale > this.pane.clientWidth || drawing.height * this.scale > this.pane.clientHeight) {
      this.reveal(this.data.output);
    }
    this.root.dataset.layouts = String(this.layoutCount);
    this.root.dataset.ready = "1";
    window.dispatchEvent(new CustomEvent(DRAWN_EVENT, { detail: { key: this.data.key } }));
  }

  // ------------------------------------------------------------------------- painting in place

  paintAll() {
    if (!this.drawing) return;
    this.paintValues();
    this.paintSelection();
    if (this.stepper) this.stepper.paint();
    markSaves(this.drawing, this.data.saves); // every box's saved bytes (issue 33), the Memory tab's too
    this.paintMemory();
    markInterventions(this.drawing, this.data.interventions); // the Explorer's applied interventions (issue 33)
  }

  // One more repaint made in place (data-updates).
  counted() {
    this.updates += 1;
    this.root.dataset.updates = String(this.updates);
  }

  // data.values: new numbers for boxes already drawn (same shapes, so the same lines per cell); null: the
  // DOT's own numbers, which a drawing retexted before gets back. In the stepper only the data cells take
  // them: its grad cells show each box's grad at the current step.
  paintValues() {
    const values = this.data.values;
    const drawing = this.drawing;
    if (!values) {
      if (drawing.retexted) this.restoreValues();
      this.valuesShown = null;
      return;
    }
    if (values === this.valuesShown) return;
    const parts = this.stepper ? ["d"] : ["d", "g"];
    for (const [key, v] of Object.entries(values)) {
      const box = drawing.boxes.get(key);
      if (!box) continue;
      if (!box.own) box.own = Object.fromEntries(Object.entries(box.cells).map(([p, texts]) => [p, texts.map((t) => t.textContent)]));
      for (const part of parts) {
        if (v[part] && box.cells[part]) {
          setLines(box.cells[part], v[part]);
          fitLines(box, box.cells[part]);
        }
      }
      const tip = v.tip || [(v.d || []).join(" "), (v.g || []).join(" ")];
      if (this.boxInfo[key]) this.boxInfo[key] = { ...this.boxInfo[key], data: tip[0], grad: tip[1] };
    }
    drawing.retexted = true;
    this.valuesShown = values;
    this.tipFor = null;
    this.counted();
  }

  restoreValues() {
    const parts = this.stepper ? ["d"] : ["d", "g"];
    for (const [key, box] of this.drawing.boxes) {
      if (!box.own) continue;
      for (const part of parts) {
        if (box.own[part] && box.cells[part]) {
          setLines(box.cells[part], box.own[part]);
          fitLines(box, box.cells[part]);
        }
      }
      if (this.data.boxes[key]) this.boxInfo[key] = { ...this.data.boxes[key] };
    }
    this.drawing.retexted = false;
    this.tipFor = null;
    this.counted();
  }

  // Values pushed by other code in the page (VALUES_EVENT), for the program this view shows. While the
  // view is off screen they are only kept: the latest are painted when it comes into view.
  pushed(detail) {
    if (!this.data || !detail || detail.key !== this.data.key || !detail.values) return;
    // NOTE: merged: a push may leave out boxes that do not change (the playground's data), whose texts
    // the server's values gave.
    const values = { ...(this.data.values || {}), ...detail.values };
    this.data = { ...this.data, values, caption: detail.caption === undefined ? this.data.caption : detail.caption };
    if (this.onScreen) this.paintPushed();
  }

  paintPushed() {
    this.showCaption();
    if (this.drawing) this.paintValues();
  }

  // The memory timeline's push (MEMORY_EVENT {key, saves, alive}) for the program this view shows: each box
  // g.node[data-saves] = the bytes its backward keeps, and class "alive" on the boxes the tape holds at the step
  // scrubbed (alive null: none lit); the root's data-alive counts them.
  memoryPushed(detail) {
    if (!this.data || !detail || detail.key !== this.data.key) return;
    this.memory = detail;
    if (this.drawing) this.paintMemory();
  }

  paintMemory() {
    const memory = this.memory;
    if (!this.drawing || !memory || memory.key !== this.data.key) return;
    const alive = memory.alive ? new Set(memory.alive) : null;
    let lit = 0;
    for (const [key, box] of this.drawing.boxes) {
      if (memory.saves && key in memory.saves) box.g.dataset.saves = String(memory.saves[key]);
      const on = alive !== null && alive.has(key);
      box.g.classList.toggle("alive", on);
      lit += on;
    }
    this.root.dataset.alive = alive === null ? "" : String(lit);
  }

  showCaption() {
    const text = this.data.caption || "";
    if (this.caption.textContent !== text) this.caption.textContent = text;
    this.caption.hidden = !text;
    this.root.dataset.caption = text;
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
    const info = this.selected !== null ? this.boxInfo[this.selected] : null;
    this.hint.dataset.selected = info ? info.title : "";
  }

  syncToolbar() {
    for (const [part, b] of Object.entries(this.partButtons)) b.setAttribute("aria-pressed", String(this.options.show.includes(part)));
    this.rankSelect.value = this.options.rankdir;
  }

  renderLegend(entries) {
    this.legend.replaceChildren(...entries.map((e) => {
      const state = ["active", "done", "waiting"].includes(e.key);
      return el("span", { class: `gv-chip ${state ? "state" : "kind"}-${e.key}`, title: e.meaning }, [
        el("span", { text: e.label }), el("span", { class: "gv-chip-note", text: ` · ${e.short}` })]);
    }));
  }

  // The active box stays in view: the pane scrolls (never the page) when the box leaves the middle of
  // the part of the pane the window shows.
  keepInView(key, instant) {
    const box = key && this.drawing.boxes.get(key);
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
    const fast = instant || reduced;
    this.pane.scrollTo({
      left: this.pane.scrollLeft + (r.left + r.width / 2) - (p.left + p.width / 2),
      top: this.pane.scrollTop + (r.top + r.height / 2) - (top + bottom) / 2,
      behavior: fast ? "auto" : "smooth",
    });
  }

  // ------------------------------------------------------------------------- display options

  togglePart(part) {
    const shown = this.options.show;
    const show = shown.includes(part) ? shown.filter((p) => p !== part) : [...shown, part];
    this.setOptions({ show: ["data", "grad", "shape"].filter((p) => show.includes(p)) }, true);
  }

  // The parts shown, the direction, the speed: the server hears of each change (for the download
  // and the other page); parts and direction need the drawing of that choice.
  setOptions(change, relayout) {
    this.options = { ...this.options, ...change };
    this.syncToolbar();
    if (relayout) this.relayout(false);
    this.report("options", { ...this.options });
  }

  report(name, value) {
    if (this.setStateValue) this.setStateValue(name, value);
  }

  select(key) {
    if (key === "notice" || key === this.selected) return;
    this.selected = key;
    this.paintSelection();
    this.report("selected", Number(key));
  }

  // ------------------------------------------------------------------------- zoom and pan

  paneSize() {
    return { width: this.pane.clientWidth, height: this.maxPaneHeight() };
  }

  // The pane fills the window from its top down (leaving the hint line under it), so the whole pane is on
  // screen and Fit fits what is visible: the Explorer's graph and the Stepper's graph and panel at 1280x800.
  // A pane that starts below the fold (a phone, where the editor comes first) is most of a window high.
  maxPaneHeight() {
    const room = window.innerHeight - this.pageTop() - BELOW;
    if (room >= MIN_PANE) return Math.floor(room);
    return Math.max(MIN_PANE, Math.floor(0.8 * window.innerHeight) - BELOW);
  }

  // The pane's top in the window when the page is scrolled to its top (Streamlit scrolls its own main
  // element, not the window).
  pageTop() {
    if (this.scroller === undefined || !this.scroller.isConnected) {
      this.scroller = null;
      for (let e = this.root.parentElement; e; e = e.parentElement) {
        const y = getComputedStyle(e).overflowY;
        if (y === "auto" || y === "scroll") {
          this.scroller = e;
          break;
        }
      }
    }
    const scrolled = this.scroller ? this.scroller.scrollTop : window.scrollY;
    return this.pane.getBoundingClientRect().top + scrolled;
  }

  openingScale() {
    const { width, height } = this.paneSize();
    const w = this.drawing.width, h = this.drawing.height;
    const fitWidth = (width - 2 * PAD) / w;
    const fitBoth = Math.min(fitWidth, (height - PAD - PAD_TOP - BORDER) / h);
    // a presenter's page asks for larger text (components/common/layout.py: --gv-min-text-px)
    const least = parseFloat(getComputedStyle(this.root).getPropertyValue("--gv-min-text-px")) || MIN_TEXT_PX;
    const lo = least / LINE_FONT, hi = Math.max(MAX_TEXT_PX, least) / NODE_FONT;
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
    const most = this.maxPaneHeight();
    this.pane.style.height = `${Math.min(h + PAD + PAD_TOP + BORDER, most)}px`;
    this.root.style.setProperty("--gv-pane-max", `${most}px`); // the stepper's panel beside it, as high
    this.root.dataset.zoom = String(Math.round(this.scale * 1000) / 1000);
    this.zoomLabel.textContent = formatPercent(this.scale);
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
    this.onKey = (e) => {
      if (this.stepper && this.root.isConnected) this.stepper.key(e);
    };
    document.addEventListener("keydown", this.onKey);
    this.onValues = (e) => this.pushed(e.detail);
    window.addEventListener(VALUES_EVENT, this.onValues);
    this.onMemory = (e) => this.memoryPushed(e.detail);
    window.addEventListener(MEMORY_EVENT, this.onMemory);
    this.onScreen = true;
    this.visibility = new IntersectionObserver((entries) => {
      const entry = entries[entries.length - 1];
      this.onScreen = entry.isIntersecting;
      this.root.dataset.onScreen = this.onScreen ? "1" : "0"; // tests: what the view last heard
      if (this.onScreen && this.data) this.paintPushed();
    });
    this.visibility.observe(this.root);
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
    // ... and its height with the window's
    let height = window.innerHeight;
    this.onResize = () => {
      if (!this.drawing || window.innerHeight === height) return;
      height = window.innerHeight;
      if (!this.userZoomed) this.scale = this.openingScale();
      this.applyScale();
    };
    window.addEventListener("resize", this.onResize);
  }

  pinchState() {
    const [a, b] = [...this.pointers.values()];
    return { distance: Math.max(1, Math.hypot(a.x - b.x, a.y - b.y)), x: (a.x + b.x) / 2, y: (a.y + b.y) / 2, scale: this.scale };
  }

  boxAt(target) {
    const g = target instanceof Element ? target.closest("g.node") : null;
    if (!g || !this.drawing || !this.drawing.svg.contains(g)) return null;
    return g.dataset.node !== undefined ? g.dataset.node : g.dataset.ref; // a tag: the box it stands for
  }

  clicked(e) {
    const key = this.boxAt(document.elementFromPoint(e.clientX, e.clientY) || e.target);
    if (key === null || key === "notice") return;
    if (this.stepper) this.stepper.jumpTo(key);
    else if (this.data.selectable) this.select(key);
  }

  hover(e) {
    const key = this.drag ? null : this.boxAt(e.target);
    if (key === null || key === "notice") {
      this.hideTip();
      return;
    }
    if (key !== this.tipFor && !this.fillTip(key)) return;
    this.tip.hidden = false;
    const root = this.root.getBoundingClientRect();
    const tw = this.tip.offsetWidth, th = this.tip.offsetHeight;
    let x = e.clientX - root.left + 14, y = e.clientY - root.top + 14;
    if (x + tw > root.width) x = Math.max(0, e.clientX - root.left - tw - 10);
    if (e.clientY + 14 + th > window.innerHeight) y = Math.max(0, e.clientY - root.top - th - 10);
    this.tip.style.left = `${x}px`;
    this.tip.style.top = `${y}px`;
  }

  // The tooltip's text for box `key` (false if the box has no info).
  fillTip(key) {
    const info = this.boxInfo[key];
    if (!info) return false;
    const stepped = this.stepper ? this.stepper.gradTip(key) : null;
    const grad = stepped === null ? info.grad : stepped;
    const meta = [info.kind, info.op, info.shape].filter(Boolean).join(" · ");
    const rows = [`<div class="gv-tip-title">${escapeHtml(info.title)}</div>`, `<div class="gv-tip-meta">${escapeHtml(meta)}</div>`];
    if (info.data) rows.push(`<div><span class="gv-tip-data">data</span> ${escapeHtml(info.data)}</div>`);
    if (grad) rows.push(`<div><span class="gv-tip-grad">${this.derivativeWord}</span> ${escapeHtml(grad)}</div>`);
    this.tip.innerHTML = rows.join("");
    this.tipFor = key;
    return true;
  }

  // A shown tooltip's text again (the stepper moved: its grad changed; a click jumped to its step).
  refreshTip() {
    if (!this.tip.hidden && this.tipFor !== null && this.tipFor !== undefined) this.fillTip(this.tipFor);
  }

  hideTip() {
    this.tip.hidden = true;
    this.tipFor = null;
  }

  destroy() {
    if (this.stepper) this.stepper.destroy();
    document.removeEventListener("keydown", this.onKey);
    window.removeEventListener(VALUES_EVENT, this.onValues);
    window.removeEventListener(MEMORY_EVENT, this.onMemory);
    window.removeEventListener("resize", this.onResize);
    this.visibility.disconnect();
    this.resizeObserver.disconnect();
    this.layouts.clear();
    if (this.layouter) this.layouter.stop(); // its worker with it
  }
}

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  const spec = typeof data === "string" ? JSON.parse(data) : data;
  if (!spec || !(spec.dot || spec.layout_kept)) return undefined;
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
