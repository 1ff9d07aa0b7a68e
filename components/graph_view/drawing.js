// Graphviz in the page, and the SVG it draws made ready for the graph view (graph_view.js, which
// Streamlit receives after this file as one module): loading the vendored WebAssembly build once,
// the DOT of each choice of parts and direction, tagging the drawn boxes, cells and edges.

const VIZ = { promise: null };
const PART_CELL = { data: "d", grad: "g", shape: "s" };

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

// A cell's text lines (Graphviz drew one <text> per line): line i into text i, the rest blank.
function setLines(texts, lines) {
  texts.forEach((text, i) => {
    const line = lines[i] === undefined ? "" : lines[i];
    if (text.textContent !== line) text.textContent = line;
  });
}

// A cell retexted with other numbers (values of poked inputs, a stepper's grad) may need more room than
// Graphviz gave the box for the DOT's own: a line that would cross the box's border is narrowed to fit
// it (textLength), and one that fits is drawn as it is. Measuring a text forces a layout, so each text
// is measured once, and a new line is measured again only when its characters, at the width per
// character first measured, might not fit.
const TEXT_WIDTH = new WeakMap(); // <text> -> {room, perChar} (px in the drawing's units)

function fitLines(box, texts) {
  if (box.bounds === undefined) {
    const shape = box.g.querySelector(":scope > path, :scope > polygon");
    const b = shape ? shape.getBBox() : null;
    box.bounds = b ? { left: b.x + 3, right: b.x + b.width - 3 } : null;
  }
  if (!box.bounds) return;
  for (const text of texts) {
    if (!text.textContent) {
      text.removeAttribute("textLength");
      text.removeAttribute("lengthAdjust");
      continue;
    }
    let known = TEXT_WIDTH.get(text);
    if (!known && text.textContent.length >= 4) { // a short line ("—", "0") says little about the others
      const x = Number(text.getAttribute("x"));
      const anchor = text.getAttribute("text-anchor") || "start";
      const { left, right } = box.bounds;
      const room = anchor === "middle" ? 2 * Math.min(x - left, right - x) : anchor === "end" ? x - left : right - x;
      known = { room, perChar: text.getComputedTextLength() / text.textContent.length };
      TEXT_WIDTH.set(text, known);
    }
    if (!known) continue;
    const squeezed = text.hasAttribute("textLength");
    const estimate = text.textContent.length * known.perChar;
    if (!squeezed && estimate < 0.97 * known.room) continue; // fits, by a margin: no measuring
    if (squeezed) {
      text.removeAttribute("textLength");
      text.removeAttribute("lengthAdjust");
    }
    if (known.room > 0 && text.getComputedTextLength() > known.room) {
      text.setAttribute("textLength", known.room.toFixed(1));
      text.setAttribute("lengthAdjust", "spacingAndGlyphs");
    }
  }
}
