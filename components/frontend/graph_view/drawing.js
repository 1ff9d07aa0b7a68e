// Graphviz for the page, and the SVG it draws made ready for the graph view (graph_view.js and stepper.js
// import it): the vendored WebAssembly build laying out in a worker (in the page where no worker starts), the
// DOT of each choice of parts and direction, tagging the drawn boxes, cells and edges.

const VIZ = { promise: null };
const PART_CELL = { data: "d", grad: "g", shape: "s" };

export function loadViz(url) {
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

// Graphviz lays a view's graphs out in a worker of the view's own, so that a graph it takes long over never
// freezes the page (its buttons, the editor, Streamlit); past the budget the worker is stopped and the layout
// fails with LayoutTimeout. One layout at a time per view: a new one stops the one under way (the view wants
// only its latest). Where no worker can start, the layout runs in the page as before.
const WORKERS = { broken: false };

export class LayoutTimeout extends Error {
  constructor(seconds) {
    super(`Graphviz did not finish laying out this graph within ${seconds} s`);
    this.seconds = seconds;
  }
}

function workerSource(url) {
  return `importScripts(${JSON.stringify(url)});
const viz = Viz.instance();
onmessage = (e) => {
  viz.then((v) => postMessage({ id: e.data.id, svg: v.renderString(e.data.dot, { format: "svg" }) }))
    .catch((err) => postMessage({ id: e.data.id, error: String((err && err.message) || err) }));
};`;
}

const absolute = (url) => new URL(url, window.location.href).href;

export class Layouter {
  constructor(url) {
    this.url = absolute(url);
    this.worker = null;
    this.job = null;
    this.seq = 0;
  }

  // Whether this layouter runs the Graphviz build at `url` (a page may be given another).
  serves(url) {
    return this.url === absolute(url);
  }

  // An SVG element of `dot` laid out by Graphviz within `budgetMs` (else it rejects with LayoutTimeout).
  layOut(dot, budgetMs) {
    const inPage = () => loadViz(this.url).then((viz) => viz.renderSVGElement(dot));
    if (WORKERS.broken || typeof Worker === "undefined") return inPage();
    if (this.job) {
      const previous = this.job;
      this.stopWorker(); // busy with a layout no one wants any more
      this.settle(previous, () => previous.reject(new Error("superseded")));
    }
    return new Promise((resolve, reject) => {
      const job = { id: ++this.seq, resolve, reject, fallback: () => inPage().then(resolve, reject) };
      job.timer = setTimeout(() => {
        this.stopWorker();
        this.settle(job, () => reject(new LayoutTimeout(Math.round(budgetMs / 1000))));
      }, budgetMs);
      this.job = job;
      try {
        this.startWorker().postMessage({ id: job.id, dot });
      } catch {
        WORKERS.broken = true; // no worker here (a policy, an old browser): lay out in the page
        this.settle(job, job.fallback);
      }
    });
  }

  stop() {
    const job = this.job;
    this.stopWorker();
    if (job) this.settle(job, () => job.reject(new Error("stopped")));
  }

  stopWorker() {
    if (this.worker) this.worker.terminate();
    this.worker = null;
  }

  settle(job, outcome) {
    if (this.job !== job) return;
    this.job = null;
    clearTimeout(job.timer);
    outcome();
  }

  startWorker() {
    if (this.worker) return this.worker;
    const blob = URL.createObjectURL(new Blob([workerSource(this.url)], { type: "text/javascript" }));
    const worker = new Worker(blob);
    URL.revokeObjectURL(blob);
    worker.onmessage = (e) => {
      const job = this.job;
      if (!job || e.data.id !== job.id) return;
      if (e.data.error) this.settle(job, () => job.reject(new Error(e.data.error)));
      else this.settle(job, () => job.resolve(new DOMParser().parseFromString(e.data.svg, "image/svg+xml").documentElement));
    };
    worker.onerror = (e) => {
      e.preventDefault();
      WORKERS.broken = true; // e.g. the script would not load in a worker: lay out in the page from now on
      this.stopWorker();
      const job = this.job;
      if (job) this.settle(job, job.fallback);
    };
    this.worker = worker;
    return worker;
  }
}

export function dotFor(dot, show, rankdir) {
  let text = dot.replace(/rankdir=[A-Z]{2}/, "rankdir=" + rankdir);
  const hidden = Object.keys(PART_CELL).filter((p) => !show.includes(p)).map((p) => PART_CELL[p]);
  if (hidden.length) {
    text = cutOneRowParts(text, hidden);
    const cell = new RegExp('id="n\\d+\\.(' + hidden.join("|") + ')"');
    text = text.replace(/<tr>(?:(?!<\/tr>).)*<\/tr>/g, (row) => (cell.test(row) ? "" : row));
  }
  return text;
}

// A one-row box (a compact drawing's scalar: explorer/graph/dot.py's _one_row_label) hides a part by cutting its
// cells, not its row (which holds its title too): the value's cell, the gap before it (an empty cell of width 4)
// and the word before that (grad's). `hidden` are cell letters (d, g).
export function cutOneRowParts(text, hidden) {
  const parts = new RegExp('(?:<td align="left"><font[^>]*> [^<]*</font></td>)?<td width="4"></td>'
    + '<td id="n\\d+\\.(?:' + hidden.join("|") + ')"(?:(?!</td>).)*</td>', "g");
  return text.replace(parts, "");
}

// Graphviz's SVG, made ours: node and edge groups tagged with data-*, the cells' <a> wrappers (made
// by the DOT's tooltip attributes) unwrapped, and the ids and <title>s (native tooltips) removed.
export function prepare(svg) {
  const vb = svg.viewBox.baseVal;
  const drawing = { svg, width: vb.width, height: vb.height, boxes: new Map(), edges: [], tags: 0 };
  svg.removeAttribute("width");
  svg.removeAttribute("height");
  svg.classList.add("gv-graph");
  for (const title of svg.querySelectorAll("title")) title.remove();
  for (const g of svg.querySelectorAll("g.node")) {
    const tag = /^t(\d+|notice)-/.exec(g.id);
    if (tag) {
      // a tag standing for a box that feeds many (explorer/graph/dot.py draws it instead of a long edge): it
      // points at that box, it is not one
      g.removeAttribute("id");
      g.dataset.ref = tag[1];
      drawing.tags += 1;
      continue;
    }
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
      if (g.classList.contains("cut")) g.dataset.cut = "true"; // an edge into a detach (explorer/graph/dot.py)
      drawing.edges.push({ g, child: match[1], cls: "" });
    }
  }
  return drawing;
}

// A cell's text lines (Graphviz drew one <text> per line): line i into text i, the rest blank.
export function setLines(texts, lines) {
  texts.forEach((text, i) => {
    const line = lines[i] === undefined ? "" : lines[i];
    if (text.textContent !== line) text.textContent = line;
  });
}

// A cell retexted with other numbers (values of poked inputs, a stepper's grad) may need more room than
// Graphviz gave the box for the DOT's own: a line that would cross the box's border is narrowed to fit
// it (textLength), and one that fits is drawn as it is. Lines are measured on a canvas in the text's own
// font (the SVG's getComputedTextLength would force a layout of the page for each one).
const MEASURE = { ctx: null };

function textWidth(text) {
  if (!MEASURE.ctx) MEASURE.ctx = document.createElement("canvas").getContext("2d");
  const size = text.getAttribute("font-size") || "14";
  const family = text.getAttribute("font-family") || "sans-serif";
  const weight = text.getAttribute("font-weight") || "normal";
  const font = `${weight} ${size}px ${family}`;
  if (MEASURE.ctx.font !== font) MEASURE.ctx.font = font;
  return MEASURE.ctx.measureText(text.textContent).width;
}

export function fitLines(box, texts) {
  if (box.bounds === undefined) {
    const shape = box.g.querySelector(":scope > path, :scope > polygon");
    const b = shape ? shape.getBBox() : null;
    box.bounds = b ? { left: b.x + 3, right: b.x + b.width - 3 } : null;
  }
  if (!box.bounds) return;
  const { left, right } = box.bounds;
  for (const text of texts) {
    const x = Number(text.getAttribute("x"));
    const anchor = text.getAttribute("text-anchor") || "start";
    const end = Math.min(right, nextOnTheRow(box, text));
    const room = anchor === "middle" ? 2 * Math.min(x - left, end - x) : anchor === "end" ? x - left : end - x;
    if (text.textContent && room > 0 && textWidth(text) > room) {
      text.setAttribute("textLength", room.toFixed(1));
      text.setAttribute("lengthAdjust", "spacingAndGlyphs");
    } else if (text.hasAttribute("textLength")) {
      text.removeAttribute("textLength");
      text.removeAttribute("lengthAdjust");
    }
  }
}

// Where the next text on a text's line starts, less a gap (Infinity if none): a one-row box's data is followed by
// its grad's word, which a longer value retexted in place must not run into.
function nextOnTheRow(box, text) {
  const x = Number(text.getAttribute("x")), y = Number(text.getAttribute("y"));
  let next = Infinity;
  for (const other of box.g.querySelectorAll("text")) {
    const ox = Number(other.getAttribute("x"));
    if (other !== text && Math.abs(Number(other.getAttribute("y")) - y) < 1 && ox > x) next = Math.min(next, ox - 3);
  }
  return next;
}
