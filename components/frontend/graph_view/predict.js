// Predict, in the Stepper (stepper.js): with data.predict.on (reverse mode), Next, → and Play hold before a step
// whose node sends its parents a grad, and the panel asks what each parent will receive (a value in the program's
// language, or just its shape, "(3, 4)"). Check reports {step, texts, seq} (state `predict`); the server checks
// it with Practice's rule (explorer/predict/check.py) and sends the verdict back in data.predict.verdicts[step];
// then the step plays, its panel led by the verdict. An `error` verdict (the line could not be read) keeps the
// hold, with its message; Skip plays the step unchecked. The walk's score (n right of m) is the server's.
//
// Hooks: the question and the verdict are [data-testid="predict"][data-step][data-verdict] (pending, checking,
// error, then exact / close / wrong / shape / right-shape), each parent [data-testid="predict-row"][data-parent]
// [data-verdict], the score [data-testid="predict-score"][data-right][data-of]; the view's root has
// data-predict (on / off) and data-holding (the step held, '' if none).

import { el, escapeHtml } from "../web/dom.js";

const WORDS = { exact: "exact", close: "close", wrong: "wrong", shape: "wrong shape", "right-shape": "right shape",
  error: "could not be read", pending: "left blank" };
const GOOD = new Set(["exact", "close", "right-shape"]);

// An element whose content is `html` (built here from escaped parts).
function rich(tag, attrs, html) {
  const node = el(tag, attrs);
  node.innerHTML = html;
  return node;
}

export class Predict {
  constructor(stepper) {
    this.stepper = stepper;
    this.p = null; // data.predict while on
    this.holding = null; // the step held, waiting for its prediction
    this.checking = null; // the step whose prediction the server is checking
    this.skipped = new Set();
    this.form = null;
  }

  get on() {
    return this.p !== null;
  }

  verdict(k) {
    return this.p ? this.p.verdicts[String(k)] || null : null;
  }

  // New data.predict (every update): on or off, and a verdict that releases the held step.
  set(p) {
    const stepper = this.stepper;
    this.p = p && p.on && !stepper.forward ? p : null;
    stepper.view.root.dataset.predict = this.p ? "on" : "off";
    if (!this.p) {
      if (this.holding !== null) this.release();
      return;
    }
    const k = this.holding;
    const v = k === null ? null : this.verdict(k);
    if (k !== null && this.checking === k && v && v.seq === this.seq) {
      this.checking = null;
      if (v.verdict === "error") {
        this.showVerdict(v);
        return;
      }
      this.release();
      stepper.stepTo(k, { stop: true });
    }
  }

  // Must step k be predicted before it plays?
  wanted(k) {
    if (!this.p || k < 1 || k > this.stepper.n || this.skipped.has(k)) return false;
    const v = this.verdict(k);
    if (v && v.verdict !== "error") return false;
    const panel = this.stepper.s.panels[k];
    return !!panel && panel.contributions.length > 0 && !!this.asks(k);
  }

  asks(k) {
    return this.p && this.p.asks ? this.p.asks[String(k)] : null;
  }

  // Next from position k - 1: hold at k (or, already holding there, back to the first box).
  hold(k) {
    if (this.holding !== k) {
      this.holding = k;
      this.checking = null;
      this.form = this.build(k);
    }
    this.stepper.view.root.dataset.holding = String(k);
    this.stepper.renderPanel();
    this.stepper.syncControls();
    const first = this.form.querySelector("input");
    if (first) first.focus({ preventScroll: true });
  }

  release() {
    this.holding = this.checking = null;
    this.form = null;
    this.stepper.view.root.dataset.holding = "";
  }

  build(k) {
    const ask = this.asks(k);
    const panel = this.stepper.s.panels[k];
    const inputs = ask.rows.map((r, i) => el("input", { type: "text", class: "gv-predict-input", spellcheck: "false",
      autocomplete: "off", "data-parent": r.parent, "aria-label": `What ${r.parent} receives`,
      placeholder: `e.g. ${i === 0 ? "G * b" : "G.sum(axis=0)"}, or its shape: ${r.shape_text}`,
      onkeydown: (e) => {
        if (e.key === "Enter") {
          e.preventDefault();
          this.submit();
        }
      } }));
    this.note = el("div", { class: "gv-predict-note", hidden: "" });
    const form = el("div", { class: "gv-predict", "data-testid": "predict", "data-step": String(k), "data-verdict": "pending" }, [
      rich("div", { class: "gv-label" }, `<b>Predict step ${k}</b>: <code>${escapeHtml(ask.node)}</code> runs the VJP of `
        + `<code>${escapeHtml(panel.op)}</code>. Its upstream grad <code>G</code> (also <code>d${escapeHtml(ask.node)}</code>):`),
      el("pre", { text: panel.upstream }),
      ...ask.rows.map((r, i) => el("label", { class: "gv-predict-row" }, [
        rich("span", {}, `→ <code>${escapeHtml(r.parent)}</code> ${escapeHtml(r.shape_text)}${r.slot ? ` (slot ${escapeHtml(r.slot)})` : ""} receives`),
        inputs[i],
      ])),
      el("div", { class: "gv-predict-buttons" }, [
        el("button", { type: "button", class: "gv-button gv-primary gv-predict-check", text: "Check", onclick: () => this.submit() }),
        el("button", { type: "button", class: "gv-button gv-predict-skip", text: "Skip", title: "Play this step without predicting it",
          onclick: () => this.skip() }),
      ]),
      this.note,
      el("p", { class: "gv-quiet", text: `Any name of the program (${ask.names.join(", ")}), G, and the language's functions. `
        + "Enter checks; the step plays once it is checked." }),
    ]);
    this.inputs = inputs;
    return form;
  }

  submit() {
    const k = this.holding;
    if (k === null || this.checking === k) return;
    const texts = this.inputs.map((i) => i.value);
    if (texts.every((t) => !t.trim())) {
      this.say("Type what at least one parent receives (or Skip).");
      return;
    }
    this.checking = k;
    this.seq = Date.now(); // a new value each time, whatever was sent before
    this.form.dataset.verdict = "checking";
    this.say("Checking…");
    this.stepper.view.report("predict", { step: k, texts, seq: this.seq });
  }

  skip() {
    const k = this.holding;
    if (k === null) return;
    this.skipped.add(k);
    this.release();
    this.stepper.stepTo(k, { stop: true });
  }

  say(text) {
    this.note.textContent = text;
    this.note.hidden = !text;
  }

  // A prediction that could not be read: the hold stays, each parent's message under the boxes.
  showVerdict(v) {
    this.form.dataset.verdict = v.verdict;
    this.say(v.rows.filter((r) => r.verdict !== "pending").map((r) => `${r.parent}: ${r.message}`).join(" · ")
      || v.message || "");
  }

  // The panel at position k: the question held for k + 1 above it, or step k's verdict leading it.
  decorate(body, k) {
    if (!this.p) return;
    if (this.holding === k + 1 && this.form) {
      body.prepend(this.form);
      return;
    }
    const v = this.verdict(k);
    if (!v || v.verdict === "error") return;
    const rows = v.rows.map((r) => `<div class="gv-predict-row" data-testid="predict-row" data-parent="${escapeHtml(r.parent)}" `
      + `data-verdict="${escapeHtml(r.verdict)}">${GOOD.has(r.verdict) ? "✓" : r.verdict === "pending" ? "·" : "✗"} `
      + `<code>${escapeHtml(r.parent)}</code>: <code>${escapeHtml(r.text || "—")}</code> is `
      + `<b>${escapeHtml(WORDS[r.verdict] || r.verdict)}</b>${r.message ? ` (${escapeHtml(r.message)})` : ""}</div>`);
    const [right, of] = this.p.score;
    const good = GOOD.has(v.verdict) && v.right;
    body.insertAdjacentHTML("afterbegin", `<div class="gv-predict gv-predict-${good ? "right" : "off"}" data-testid="predict" `
      + `data-step="${k}" data-verdict="${escapeHtml(v.verdict)}" data-right="${v.right ? 1 : 0}">`
      + `<div class="gv-label"><b>Your prediction: ${escapeHtml(WORDS[v.verdict] || v.verdict)}</b></div>${rows.join("")}`
      + `<div class="gv-quiet" data-testid="predict-score" data-right="${right}" data-of="${of}">`
      + `Predictions this walk: ${right} right of ${of}</div></div>`);
  }
}
