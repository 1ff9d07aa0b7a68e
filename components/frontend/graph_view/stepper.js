// The Backward Stepper inside the graph view (graph_view.js), and its mirror in forward mode (steps.mode:
// a JVP per node, parents first, tangents where grads are). Every step was sent once
// (explorer/program/view_data.py), so moving is local: at position k each box takes its state (the Timeline
// rule of explorer/program/stepper.py, evaluated here), its grad cell the last version at or before k, and
// the panel and the controls follow. Play runs on the clock (a late frame catches up), and the server
// hears the position afterwards (state `step`): after the user pauses, and once a second while playing.
// The panel has two tabs: the step (its rule, upstream grad and contributions) and the Jacobian of the
// step's node (jacobian.js), sent with the steps (steps.jacobians by node id) or, for a node marked
// {later: true}, asked for when shown (state `jacobian` = its node id; it comes back in steps.jacobians).
// New numbers for the same program (poked inputs: same layout, same steps) replace the steps' grads,
// panels and Jacobians in place (steps.version changes), at the same position.

import { el, escapeHtml } from "../web/dom.js";
import { JacobianView } from "../jacobian_view/jacobian.js";
import { button, icon, inline } from "./controls.js";
import { fitLines, setLines } from "./drawing.js";
import { Predict } from "./predict.js";

const KEYS = { ArrowRight: 1, PageDown: 1, ArrowLeft: -1, PageUp: -1 };
const TYPING = 'input, textarea, select, [contenteditable="true"], [role="slider"], [role="combobox"]';

export class Stepper {
  // `view`: the GraphView (its drawing, root, panel, controls and options); `steps`: data.steps.
  constructor(view, steps, start) {
    this.view = view;
    this.s = steps;
    this.n = steps.count;
    this.forward = steps.mode === "forward"; // forward mode: a JVP per node, parents first (tangents, not grads)
    this.rule = this.forward ? "JVP" : "VJP";
    this.pos = Math.max(0, Math.min(Number(start) || 0, this.n));
    this.reported = this.pos;
    this.playing = false;
    this.grads = new Map(Object.entries(steps.grads));
    this.asked = new Set(); // nodes whose Jacobian was asked for
    // node id -> box id (a collapsed chain draws several nodes), box id -> its nodes
    this.boxOfNode = new Map();
    this.membersOf = new Map();
    for (const [box, info] of Object.entries(view.boxInfo)) {
      const members = info.members || [Number(box)];
      this.membersOf.set(box, members);
      for (const m of members) this.boxOfNode.set(m, box);
    }
    this.predict = new Predict(this); // Predict (predict.js): holds Next until the step's prediction is checked
    this.buildControls(view.controls, view.data.speeds);
  }

  buildControls(bar, speeds) {
    bar.replaceChildren();
    this.btnReset = button("Reset", "gv-reset", () => this.stepTo(0, { stop: true }), "first", "Back to the seed");
    this.btnPrev = button("Prev", "gv-prev", () => this.stepBy(-1), "prev", "Previous step (← or Page Up)");
    this.btnPlay = button("Play", "gv-play gv-primary", () => (this.playing ? this.pause() : this.play()), "play", "Play");
    this.btnNext = button("Next", "gv-next", () => this.stepBy(1), "next", "Next step (→ or Page Down)");
    this.speedSelect = el("select", { class: "gv-speed", "aria-label": "Play speed (steps per second)", title: "Play speed",
      onchange: () => this.setSpeed(Number(this.speedSelect.value)) },
    speeds.map((s) => el("option", { value: String(s), text: `${s} step${s === 1 ? "" : "s"}/s` })));
    this.speedSelect.value = String(this.view.options.speed);
    this.stepLabel = el("span", { class: "gv-step-label" });
    this.slider = el("input", { type: "range", class: "gv-slider", min: "0", max: String(this.n), step: "1", value: "0",
      "aria-label": "Step", title: `0 is the seed; after step k, k nodes have run their ${this.rule}` });
    this.slider.addEventListener("input", () => this.stepTo(Number(this.slider.value), { stop: true }));
    bar.append(
      el("div", { class: "gv-group gv-buttons" }, [this.btnReset, this.btnPrev, this.btnPlay, this.btnNext, this.speedSelect]),
      el("div", { class: "gv-scrub" }, [this.stepLabel, this.slider]),
    );
    this.buildPanel();
  }

  // The panel: a tab for the step, a tab for its node's Jacobian.
  buildPanel() {
    const panel = this.view.panel;
    this.tabs = {};
    const tab = (name, label, title) => {
      const b = el("button", { type: "button", role: "tab", class: "gv-tab", "data-tab": name, title, text: label,
        onclick: () => this.showTab(name) });
      this.tabs[name] = b;
      return b;
    };
    this.stepBody = el("div", { class: "gv-tab-body gv-step-body", role: "tabpanel" });
    this.jacobianBody = el("div", { class: "gv-tab-body gv-jacobian-body", role: "tabpanel" });
    this.jacobianNote = el("p", { class: "gv-quiet" });
    this.jacobianBody.append(this.jacobianNote);
    panel.replaceChildren(
      el("div", { class: "gv-tabs", role: "tablist", "aria-label": "Panel" }, [
        tab("step", "Step", this.forward ? "The JVP rule that ran, the tangents it received and the one it made"
          : "The VJP rule that ran, the upstream grad and what each parent received"),
        tab("jacobian", "Jacobian", `The Jacobian this step's ${this.rule} stands for`),
      ]),
      this.stepBody, this.jacobianBody,
    );
    this.jacobianView = null;
  }

  showTab(name) {
    this.view.panelTab = name;
    this.renderPanel();
  }

  // New numbers for the same program and steps (poked inputs): the grads, panels and Jacobians, repainted
  // in place by the view's next paint.
  refresh(steps) {
    this.s = steps;
    this.grads = new Map(Object.entries(steps.grads));
    this.asked.clear();
    if (this.view.drawing) for (const box of this.view.drawing.boxes.values()) box.grad = undefined;
  }

  // ------------------------------------------------------------------------- what position k shows

  // Timeline.state (explorer/program/stepper.py) of node `i` at position `k`.
  nodeState(i, k) {
    const s = this.s;
    if (!s.takes_part[i]) return null;
    if (k === s.active_at[i]) return "active";
    if (s.done_at[i] >= 0 && s.done_at[i] <= k) return "done";
    if (k === 0 && i === s.output && !this.forward) return null; // backward's seed: the output holds its grad
    return "waiting";
  }

  // A box of several nodes (a chain) is active if one is, waiting if one waits, done if all are.
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

  // The hover text of a box's grad at the current position (null if the box shows no grad).
  gradTip(box) {
    if (!this.grads.has(box)) return null;
    const version = this.gradAt(box, this.pos);
    if (!version) return "— (not yet)";
    return version[2] !== undefined ? version[2] : version[1].join(" ");
  }

  outputBox() {
    return this.boxOfNode.get(this.s.output);
  }

  // ------------------------------------------------------------------------- painting

  paint() {
    const k = this.pos;
    const d = this.view.drawing;
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
          fitLines(box, cell);
          box.grad = version;
        }
      }
    }
    for (const edge of d.edges) {
      const child = d.boxes.get(edge.child);
      const state = child ? child.state : null;
      const cls = state === "active" ? "hot" : state === "waiting" ? "waiting" : "";
      if (cls !== edge.cls) {
        edge.g.classList.toggle("hot", cls === "hot");
        edge.g.classList.toggle("waiting", cls === "waiting");
        edge.cls = cls;
      }
    }
    this.activeBox = active;
    this.view.refreshTip(); // a box's tooltip under the pointer says its grad at this step
    this.renderPanel();
    this.syncControls();
    this.view.root.dataset.step = String(k);
    this.view.counted();
  }

  renderPanel() {
    const tab = this.view.panelTab === "jacobian" ? "jacobian" : "step";
    for (const [name, b] of Object.entries(this.tabs)) {
      b.setAttribute("aria-selected", String(name === tab));
      b.classList.toggle("gv-tab-on", name === tab);
    }
    this.stepBody.hidden = tab !== "step";
    this.jacobianBody.hidden = tab !== "jacobian";
    this.view.panel.dataset.step = String(this.pos);
    this.view.panel.dataset.tab = tab;
    if (tab === "jacobian") this.renderJacobian();
    else this.renderStep();
  }

  renderStep() {
    const k = this.pos;
    const panel = this.s.panels[k];
    const parts = [`<h3>${escapeHtml(panel.title)}</h3>`];
    if (k === 0) {
      parts.push(`<p>${inline(panel.text)}</p>`, `<pre>${escapeHtml(panel.seed)}</pre>`);
    } else {
      const operand = this.forward ? "dA is A's tangent" : "G is the upstream grad";
      parts.push(`<div class="gv-label"><b>Rule</b> (${this.rule} of <code>${escapeHtml(panel.op)}</code>, ${operand})</div>`);
      parts.push(`<pre class="gv-rule">${escapeHtml(panel.formula || "—")}</pre>`);
      if (panel.plugged) {
        parts.push('<div class="gv-label"><b>With this step\'s numbers</b></div>');
        parts.push(`<pre class="gv-rule gv-plugged">${escapeHtml(panel.plugged)}</pre>`);
      }
      if (this.forward) this.forwardParts(panel, parts);
      else this.backwardParts(panel, parts);
      if (k === this.n) parts.push(`<div class="gv-note gv-done">${escapeHtml(this.s.done)}</div>`);
    }
    this.stepBody.innerHTML = parts.join("");
    this.predict.decorate(this.stepBody, k);
  }

  // A forward step: the tangent each parent carried, and the one the JVP made.
  forwardParts(panel, parts) {
    for (const r of panel.received) {
      const slot = r.slot ? ` (slot ${escapeHtml(r.slot)})` : "";
      parts.push(`<div class="gv-label"><b>← <code>${escapeHtml(r.parent)}</code></b>${slot}: its tangent</div>`);
      parts.push(`<pre>${escapeHtml(r.tangent)}</pre>`);
    }
    parts.push(`<div class="gv-label"><b>Tangent of <code>${escapeHtml(panel.node)}</code></b> (J·v so far)</div>`);
    parts.push(`<pre class="gv-tangent">${escapeHtml(panel.tangent)}</pre>`);
  }

  // A backward step: the upstream grad, and what each parent received (fan-out sums, broadcast axes).
  backwardParts(panel, parts) {
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
  }

  // The Jacobian of the node whose VJP step k runs.
  renderJacobian() {
    const k = this.pos;
    const node = k > 0 ? this.nodeOfStep(k) : null;
    const data = node === null ? null : (this.s.jacobians || {})[String(node)];
    let note = "";
    if (k === 0) {
      note = this.forward ? "The seed runs no JVP: press Next to see the Jacobian of the first node forward mode computes."
        : "The seed runs no VJP: press Next to see the Jacobian of the first node backward() processes.";
    }
    else if (!data || data.later) {
      note = "Asking the server for this node's Jacobian…";
      if (!this.asked.has(node)) {
        this.asked.add(node);
        this.view.report("jacobian", node);
      }
    }
    this.jacobianNote.textContent = note;
    this.jacobianNote.hidden = !note;
    const show = !note && data;
    if (show && !this.jacobianView) this.jacobianView = new JacobianView(this.jacobianBody);
    if (this.jacobianView) {
      this.jacobianView.root.hidden = !show;
      if (show && this.jacobianView.data !== data) this.jacobianView.show(data);
    }
  }

  // The node whose VJP (forward: JVP) step k (1..n) runs.
  nodeOfStep(k) {
    const i = this.s.active_at.indexOf(k);
    return i < 0 ? null : i;
  }

  syncControls() {
    this.btnReset.disabled = this.pos === 0;
    this.btnPrev.disabled = this.pos === 0;
    this.btnNext.disabled = this.pos >= this.n;
    this.slider.value = String(this.pos);
    this.stepLabel.textContent = this.pos === 0 ? `Step 0 of ${this.n}: the seed` : `Step ${this.pos} of ${this.n}`;
    const label = this.playing ? "Pause" : "Play";
    if (this.btnPlay.getAttribute("aria-label") !== label) {
      this.btnPlay.replaceChildren(icon(this.playing ? "pause" : "play"), el("span", { text: label }));
      this.btnPlay.setAttribute("aria-label", label);
      this.btnPlay.title = label;
    }
  }

  // ------------------------------------------------------------------------- moving

  stepTo(k, { stop = false } = {}) {
    if (stop) this.stop();
    if (this.predict.holding !== null) this.predict.release(); // a move elsewhere lets go of a held prediction
    k = Math.max(0, Math.min(this.n, k));
    if (k === this.pos) {
      this.syncControls();
      return;
    }
    this.pos = k;
    if (this.view.drawing) {
      this.paint();
      // NOTE: steps in quick succession (a held clicker, fast Play) jump to the box; a smooth scroll
      // per step would still be animating when the next one comes, repainting the pane every frame.
      const now = performance.now();
      const quick = now - (this.lastStep || -Infinity) < 600 || (this.playing && this.view.options.speed > 2);
      this.lastStep = now;
      this.view.keepInView(this.activeBox, quick);
    } else {
      this.renderPanel();
      this.syncControls();
      this.view.root.dataset.step = String(k);
    }
    this.scheduleReport();
  }

  stepBy(delta) {
    if (delta > 0 && this.predict.wanted(this.pos + 1)) {
      this.stop();
      this.predict.hold(this.pos + 1);
      return;
    }
    this.stepTo(this.pos + delta, { stop: true });
  }

  // In the stepper a click on a box goes to the step that runs its VJP (a leaf's: the step that
  // completes its grad); forward, to the step that computes its tangent (an input's: the seed).
  jumpTo(box) {
    const s = this.s;
    const steps = (this.membersOf.get(box) || [])
      .map((m) => (s.active_at[m] >= 0 ? s.active_at[m] : s.done_at[m]))
      .filter((k) => k >= 0);
    if (steps.length) this.stepTo(Math.min(...steps), { stop: true });
  }

  // ← / → / PageUp / PageDown (a presenter's clicker), unless typing, on a slider, or with modifiers.
  // Space plays or pauses when no control has the focus (after a click on empty space): the browser
  // would scroll the page, and the Stepper's controls with it, out of the window.
  key(e) {
    if (e.key === " " && !(e.ctrlKey || e.altKey || e.metaKey || e.shiftKey) && this.spaceIsOurs(e.target)) {
      e.preventDefault();
      if (!e.repeat) {
        if (this.playing) this.pause();
        else this.play();
      }
      return;
    }
    const delta = KEYS[e.key];
    if (!delta || e.repeat || e.ctrlKey || e.altKey || e.metaKey) return;
    if (e.target instanceof Element && e.target.closest(TYPING)) return;
    e.preventDefault(); // no page scroll for the arrows and PageUp/PageDown
    this.stepBy(delta);
  }

  spaceIsOurs(target) {
    if (!(target instanceof Element) || target === document.body || target === document.documentElement) return true;
    if (target.closest(`${TYPING}, button, a[href], summary, [role="button"], [role="tab"]`)) return false;
    return this.view.root.contains(target) || target.matches('[data-testid="stMain"], [data-testid="stAppViewContainer"]');
  }

  play() {
    if (this.pos >= this.n) this.stepTo(0);
    this.playing = true;
    this.anchor(this.pos);
    this.syncControls();
    this.tick();
  }

  // Play is due at step `from + 1 + elapsed seconds × speed`: the first step at once.
  anchor(from) {
    this.playFrom = from;
    this.playStart = performance.now();
  }

  tick() {
    if (!this.playing) return;
    const due = this.playFrom + 1 + Math.floor(((performance.now() - this.playStart) * this.view.options.speed) / 1000);
    const to = this.predict.on ? this.beforePrediction(Math.min(due, this.n)) : Math.min(due, this.n);
    if (to > this.pos) this.stepTo(to);
    if (this.predict.wanted(this.pos + 1)) {
      this.pause();
      this.predict.hold(this.pos + 1);
      return;
    }
    if (this.pos >= this.n) {
      this.pause();
      return;
    }
    this.frame = requestAnimationFrame(() => this.tick());
  }

  // Play with Predict on goes no further than the step before the next one to predict.
  beforePrediction(to) {
    for (let j = this.pos + 1; j <= to; j++) if (this.predict.wanted(j)) return j - 1;
    return to;
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
      this.syncControls();
    }
  }

  setSpeed(speed) {
    this.view.setOptions({ speed }, false);
    if (this.playing) this.anchor(this.pos);
  }

  // ------------------------------------------------------------------------- telling the server

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
    if (this.reported !== this.pos && this.view.root.isConnected) {
      this.reported = this.pos;
      this.view.report("step", this.pos);
    }
  }

  destroy() {
    this.stop();
    clearTimeout(this.reportTimer);
    if (this.jacobianView) this.jacobianView.destroy();
  }
}
