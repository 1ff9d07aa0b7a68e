// The Training Playground's live view: boundary, network, curves and gradient health in one DOM,
// drawn in the browser from the numbers each frame carries, and updated in place.
//
// Streamlit calls the default export on mount and for every new message with data as built by
// explorer/playground/controller.py `Playground.view_data` (the wire format: components/frontend/live_view/PROTOCOL.md).
// A frame's g (the step graph's texts at that step) is pushed to the graph view below as it is
// painted (window event "graph-view:values"), so the two always show the same step.
// A message's frames are queued and painted one per animation frame at the rate the server makes them
// (pacing.js), whatever its tick rate; past the display's rate each frame is every j-th step (the painted
// one the latest of its j). Pause keeps the picture on screen: the view stops painting at the click, and
// if the run had trained past it, tells the server which step it shows (trigger "painted"), which takes
// the run back to it. Every paint evaluates the network (live_math.js) on a grid and redraws the boundary
// (or fitted curve), the network with each neuron's picture inside its node and its edges
// coloured and sized by weight, the curves and the health rows, all from the same frame.
// Nothing is removed or remounted while playing.
//
// Each panel is a module of panels/ (PANELS below lists them, in their order on the page) exporting
//   {place: "main" (a column of the grid) | "side" (stacked in the side column),
//    build(s, parent): its DOM, once per mount (its elements go into s.dom),
//    paint(s, frame, opts): one frame (s.pass: the network on the picture's grid, s.layers; opts.replay),
//    layout?(s): the sizes changed (s.size), run?(s): a new run began,
//    model?(s): a run's layout arrived (s.model), theme?(s): the page's theme changed}.
// This file holds what they share: the message queue and its pacing, the stats tiles, the grid's
// layout, replay, the tooltip element and the state `s`.
//
// Test hooks: root [data-testid=live-view] with data-frame (+1 per paint), data-step, data-sum (pacing.js
// checksum of the painted weights), data-every (steps per picture), data-skipped (frames the browser could
// not keep up with) and data-probe (the prediction at the middle of the picture); the
// network [data-testid=live-network] with a [data-neuron="L.i"] box per neuron (L = 0 for inputs,
// then the Linear layer it is the output of; i from 1); health rows [data-layer=L] with
// data-grad-norm, data-weight-norm, data-update-ratio, data-dead, data-saturated, data-trouble;
// tiles [data-stat]; the legend's chips [data-class]. If the browser holds no layout for the
// run it is shown (a message was skipped), it asks for one with the trigger "need".

import { formatCount, formatNumber, formatPercent } from "../../web/format.js";
import * as lm from "./live_math.js";
import * as pacing from "./pacing.js";
import { addEl } from "./canvas.js";
import { gridSizes } from "./grid.js";
import { readTheme } from "./colours.js";

const GRID_BUDGET = 30e6; // multiply-adds per picture of the boundary
const PAUSE_WAIT_MS = 5000; // how long a click on Pause stops the pictures while its message is on its way
const SLOW_MOTION = 5; // steps per second at or below which every step is painted (explorer/playground/settings.py)

// A new panel: a file in panels/ and its name here.
const PANELS = (await Promise.all(["boundary", "network", "curves", "health"].map((name) => import(`./panels/${name}.js`))))
  .map((module) => module.default);
const CSS = await fetch(new URL("./live_view.css", import.meta.url)).then((response) => {
  if (!response.ok) throw new Error(`could not load live_view.css (${response.status})`);
  return response.text();
});

// ------------------------------------------------------------------------------ DOM

function build(root, s) {
  const style = addEl("style", null, root);
  style.textContent = CSS;
  const lv = addEl("div", "lv", root, { "data-testid": "live-view", "data-frame": "0" });
  const stats = addEl("div", "lv-stats", lv);
  const tiles = {};
  for (const [key, label] of [["step", "Step"], ["rate", "Steps/s"], ["pictures", "Pictures/s"], ["train_loss", "Train loss"], ["test_loss", "Test loss"], ["test_acc", "Test accuracy"]]) {
    const box = addEl("div", "lv-stat", stats, { "data-stat": key });
    const value = addEl("b", null, box);
    value.textContent = "—";
    addEl("span", null, box).textContent = label;
    tiles[key] = { box, value };
  }
  const status = addEl("div", "lv-status", stats);
  const grid = addEl("div", "lv-grid", lv);
  const side = addEl("div", "lv-side");
  s.dom = { lv, stats, tiles, status, grid, side };
  for (const panel of PANELS) panel.build(s, panel.place === "side" ? side : grid);
  grid.appendChild(side);
  const replay = addEl("div", "lv-replay", lv);
  const replayButton = addEl("button", null, replay, { type: "button", "data-replay": "play" });
  replayButton.textContent = "▶ Replay";
  const replaySlider = addEl("input", null, replay, { type: "range", min: "0", max: "0", step: "1", "aria-label": "Replay frame" });
  const replayLabel = addEl("span", null, replay, { "data-replay": "label" });
  const tip = addEl("div", "lv-tip", lv);
  Object.assign(s.dom, { replay, replayButton, replaySlider, replayLabel, tip });
}

// --------------------------------------------------------------------------- layout

function layout(s) {
  // Sizes of the panels for the container's width (and, wide, the window's height: the presenter
  // sees boundary, network and curves without scrolling): grid.js.
  const width = s.dom.lv.clientWidth || 800;
  const statsH = s.dom.stats.offsetHeight + 6;
  const top = s.dom.lv.getBoundingClientRect().top + window.scrollY;
  const free = Math.max(300, window.innerHeight - top - statsH - 24);
  const g = gridSizes(width, free, s.dom.side.children.length);
  s.dom.grid.style.gridTemplateColumns = g.columns;
  s.dom.side.style.gridColumn = g.sideColumn;
  s.dom.side.style.flexDirection = g.sideRow ? "row" : "column";
  for (const child of s.dom.side.children) child.style.flex = g.sideRow ? "1 1 0" : "";
  s.size = g.size;
  s.wide = width;
  for (const panel of PANELS) if (panel.layout) panel.layout(s);
}

// ----------------------------------------------------------------------------- tiles

function paintTiles(s, frame) {
  const t = s.dom.tiles;
  const [trainLoss, testLoss, , testAcc] = frame.m;
  const hasTest = s.model.test.x.length > 0;
  t.step.value.textContent = formatCount(frame.step);
  t.train_loss.value.textContent = formatNumber(trainLoss);
  t.test_loss.value.textContent = hasTest ? formatNumber(testLoss) : "—";
  t.test_acc.box.style.display = s.model.task === "regression" ? "none" : "";
  t.test_acc.value.textContent = hasTest ? formatPercent(testAcc) : "—";
  t.test_acc.box.title = hasTest ? `Train accuracy: ${formatPercent(frame.m[2])}` : "No test points: the test split is 0%.";
  t.test_loss.box.title = hasTest ? "" : "No test points: the test split is 0%.";
  for (const key of ["step", "train_loss", "test_loss", "test_acc"]) t[key].box.dataset.value = t[key].value.textContent;
  t.step.box.dataset.step = String(frame.step);
}

function paintStatus(s) {
  const m = s.msg;
  const t = s.dom.tiles.rate;
  t.value.textContent = m.playing && m.rate ? formatNumber(Math.round(m.rate)) : "—";
  t.box.dataset.value = t.value.textContent;
  t.box.title = `Training steps per second of wall clock (the speed setting asks for ${m.speed}). ` +
    (m.compute ? `Compute alone (forward + backward + update) runs at about ${formatNumber(Math.round(m.compute))} steps/s.` : "");
  const p = s.dom.tiles.pictures;
  const shown = m.playing && !s.replaying ? pacing.ratePerSecond(s.paintTimes, performance.now()) : 0;
  p.value.textContent = shown ? formatNumber(Math.round(shown)) : "—";
  p.box.dataset.value = p.value.textContent;
  p.box.title = m.every > 1 ? `Pictures painted per second: each is a real step's weights, every ${m.every}th step ` +
    `(the speed outruns the display).` : "Pictures painted per second: every training step is one.";
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
  for (const panel of PANELS) panel.paint(s, frame, opts);
  paintTiles(s, frame);
  paintStatus(s);
  s.frameCount += 1;
  s.dom.lv.dataset.frame = String(s.frameCount);
  s.dom.lv.dataset.step = String(frame.step);
  s.dom.lv.dataset.sum = frame.sum || (frame.sum = pacing.checksum(params));
  s.dom.lv.dataset.every = String(s.msg.every || 1);
  s.dom.lv.dataset.skipped = String(s.pacer.skipped);
  if (!opts.replay) s.paintTimes.push(performance.now());
  if (s.paintTimes.length > 240) s.paintTimes.splice(0, s.paintTimes.length - 240); // more than a second's
  s.dom.lv.dataset.playing = s.msg.playing ? "1" : "0"; // tests: "0" once a paused message's frame is drawn
  // The prediction in the middle of the picture, for tests: the same weights give the same number.
  const middle = regression ? Math.floor(res / 2) : Math.floor(res / 2) * res + Math.floor(res / 2);
  const k = s.model.classes > 2 ? s.model.classes : 1;
  s.dom.lv.dataset.probe = Array.from(pass.out.subarray(middle * k, middle * k + k), String).join(",");
  const took = performance.now() - t0;
  s.dom.lv.dataset.paintMs = took.toFixed(1);
  if (!opts.replay) s.paintMs = s.paintMs ? 0.8 * s.paintMs + 0.2 * took : took; // pacing.stride reads it
  // The step's graph (a graph view below this one) shows the engine's numbers of the same frame.
  if (frame.g && s.model.graph) {
    frame.texts = frame.texts || graphTexts(s.model.graph, frame.g);
    window.dispatchEvent(new CustomEvent("graph-view:values", { detail: { key: s.model.graph.key, values: frame.texts, caption: stepCaption(frame.step) } }));
  }
}

// A frame's step-graph texts with their glyphs back (they travel as ASCII stand-ins: see
// explorer/playground/controller.py GLYPHS).
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
  return `Step ${formatCount(step)}`; // NOTE: explorer/playground/controller.py step_caption writes the same
}

function playQueue(s) {
  // One animation frame loop while frames wait: pacing.js picks the frame (if any) for this one.
  if (s.timer) return;
  const next = (now) => {
    s.timer = null;
    if (!s.model || !s.dom.lv.isConnected || s.replaying) return;
    if (now < s.frozenUntil) {
      s.timer = requestAnimationFrame(next);
      return;
    }
    const frame = pacing.next(s.pacer, now, pacing.framesPerSecond(s.msg), s.msg.interval,
      s.msg.speed <= SLOW_MOTION ? 0 : s.paintMs); // slow motion paints every step, however long it takes
    if (frame) paint(s, frame);
    else if (s.msg.playing && now - s.statusAt > 250) paintStatus(s); // the pictures/s tile while starved
    if (frame) s.statusAt = now;
    if (s.pacer.queue.length || s.msg.playing) s.timer = requestAnimationFrame(next);
  };
  s.timer = requestAnimationFrame(next);
}

function stopQueue(s) {
  cancelAnimationFrame(s.timer);
  s.timer = null;
  pacing.clear(s.pacer);
}

function onMessage(s, data) {
  const newRun = data.run !== s.run;
  if (newRun) {
    s.run = data.run;
    s.model = null;
    s.history = null;
    s.extra = [];
    s.frame = null;
    stopQueue(s);
    for (const panel of PANELS) if (panel.run) panel.run(s);
  }
  if (data.model) {
    s.model = data.model;
    for (const panel of PANELS) if (panel.model) panel.model(s);
    watchGraph(s);
  }
  if (data.history) s.history = data.history;
  const wasPlaying = s.msg ? s.msg.playing : false;
  s.msg = data;
  s.dtype = data.dtype;
  if (!s.model) {
    if (s.asked !== data.run) {
      s.asked = data.run;
      s.setTrigger("need", data.run);
    }
    return;
  }
  const frames = data.frames || [];
  if (data.playing) {
    s.holding = false;
    pacing.arrive(s.pacer, frames, s.frame && !newRun ? s.frame.step : -1);
  } else {
    stopQueue(s);
    s.frozenUntil = 0;
    const last = frames[frames.length - 1];
    if (wasPlaying && !newRun && s.frame && last && last.step > s.frame.step && !s.replaying) {
      // Paused while the frames of steps after the picture on screen were on their way: keep the picture;
      // the server takes the run back to it and confirms with its frame (or, if it cannot, sends its own).
      s.holding = true;
      s.dom.lv.dataset.holding = "1";
      s.setTrigger("painted", { run: s.run, step: s.frame.step });
      paintStatus(s);
      return;
    }
    s.holding = false;
    s.dom.lv.dataset.holding = "0";
    if (last) s.pacer.queue.push(last);
  }
  setReplay(s, data.playing ? null : data.replay || null);
  if (s.replaying) paintStatus(s);
  else playQueue(s);
}

// Pause takes effect in the picture at the click: nothing more is painted until the server's paused
// message (5 s at most, in case the click never reached the server; a loaded server took over a second).
function onPauseClick(s, event) {
  const button = event.target.closest && event.target.closest("button");
  if (!button || !s.msg || !s.msg.playing || !s.dom.lv.isConnected) return;
  if (![...button.querySelectorAll("p")].some((p) => p.textContent.trim() === "Pause")) return;
  s.frozenUntil = performance.now() + PAUSE_WAIT_MS;
}

// Whether the step graph's panel is on screen, told to the server when it changes (it sends the graph's
// texts only then).
function watchGraph(s) {
  const graph = s.model && s.model.graph;
  const panel = graph && graph.panel ? document.querySelector(`.${graph.panel}`) : null;
  if (panel === s.graphPanel) return;
  if (s.graphWatch) s.graphWatch.disconnect();
  s.graphPanel = panel;
  s.graphWatch = null;
  if (!panel) return;
  s.graphWatch = new IntersectionObserver((entries) => {
    const seen = entries[entries.length - 1].isIntersecting;
    if (seen !== s.graphSeen) {
      s.graphSeen = seen;
      s.setTrigger("graph", seen);
    }
  });
  s.graphWatch.observe(panel);
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
      if (s.pacer.queue.length === 0 && s.frame) s.pacer.queue.push(s.frame);
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

function retheme(s) {
  for (const panel of PANELS) if (panel.theme) panel.theme(s);
}

function repaintCurrent(s) {
  if (!s.model || !s.frame) return;
  paint(s, s.frame, { replay: s.replaying });
}

function mount(root, setTrigger) {
  const s = { run: null, model: null, history: null, extra: [], pacer: pacing.newPacer(), paintTimes: [], frameCount: 0,
    timer: null, frozenUntil: 0, statusAt: 0, graphSeen: null, paintMs: 0, setTrigger };
  build(root, s);
  const dom = s.dom;
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
  s.onPauseClick = (event) => onPauseClick(s, event);
  document.addEventListener("click", s.onPauseClick, true);
  let width = 0;
  s.observer = new ResizeObserver(() => {
    const w = dom.lv.clientWidth;
    if (Math.abs(w - width) < 1) return;
    width = w;
    layout(s);
    repaintCurrent(s);
    dom.lv.dataset.width = String(w); // tests: the width last laid out for (relayout done when it is clientWidth)
  });
  s.observer.observe(dom.lv);
  s.themeTimer = setInterval(() => {
    // Streamlit re-runs the default export when the theme changes; this also catches a change of
    // the page's colours while nothing else moves (the view is paused).
    if (!dom.lv.isConnected) return;
    if (s.model && s.model.graph && !(s.graphPanel && s.graphPanel.isConnected)) watchGraph(s); // drawn (again)
    const theme = readTheme(dom.lv);
    if (s.theme && theme.key !== s.theme.key) {
      s.theme = theme;
      if (s.model) retheme(s);
      repaintCurrent(s);
    }
  }, 1000);
  layout(s);
  return s;
}

// The server sends each message as its JSON's UTF-8 bytes (components/live_view/__init__.py says why); parsed once.
const utf8 = new TextDecoder();

function received(s, raw) {
  if (!(raw instanceof Uint8Array)) return raw;
  if (s.raw !== raw) {
    s.raw = raw;
    s.parsed = JSON.parse(utf8.decode(raw));
  }
  return s.parsed;
}

export default function (component) {
  const { parentElement, setTriggerValue } = component;
  if (!component.data) return undefined;
  let s = parentElement.__liveView;
  if (!s || !s.dom.lv.isConnected) s = parentElement.__liveView = mount(parentElement, setTriggerValue);
  s.setTrigger = setTriggerValue;
  const data = received(s, component.data);
  const theme = readTheme(s.dom.lv);
  const themeChanged = s.theme && theme.key !== s.theme.key;
  s.theme = theme;
  if (data.seq !== s.seq) {
    s.seq = data.seq;
    onMessage(s, data);
  } else if (themeChanged) {
    if (s.model) retheme(s);
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
      document.removeEventListener("click", s.onPauseClick, true);
      if (s.graphWatch) s.graphWatch.disconnect();
      if (parentElement.__liveView === s) parentElement.__liveView = null;
    }, 1000);
  };
}
