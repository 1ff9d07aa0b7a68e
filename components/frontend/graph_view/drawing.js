// Graphviz in the page, and the SVG it draws made ready for the graph view (graph_view.js and stepper.js
// import it): loading the vendored WebAssembly build once, the DOT of each choice of parts and direction,
// tagging the drawn boxes, cells and edges.

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

export function dotFor(dot, show, rankdir) {
  let text = dot.replace(/rankdir=[A-Z]{2}/, "rankdir=" + rankdir);
  const hidden = Object.keys(PART_CELL).filter((p) => !show.includes(p)).map((p) => PART_CELL[p]);
  if (hidden.length) {
    const cell = new RegExp('id="n\\d+\\.(' + hidden.join("|") + ')"');
    text = text.replace(/<tr>(?:(?!<\/tr>).)*<\/tr>/g, (row) => (cell.test(row) ? "" : row));
  }
  return text;
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
      // a tag standing for a box that feeds many (explorer/dot.py draws it instead of a long edge): it
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
    const room = anchor === "middle" ? 2 * Math.min(x - left, right - x) : anchor === "end" ? x - left : right - x;
    if (text.textContent && room > 0 && textWidth(text) > room) {
      text.setAttribute("textLength", room.toFixed(1));
      text.setAttribute("lengthAdjust", "spacingAndGlyphs");
    } else if (text.hasAttribute("textLength")) {
      text.removeAttribute("textLength");
      text.removeAttribute("lengthAdjust");
    }
  }
}
