// Keeps one node of a Graphviz chart in view inside its scrolling container.
//
// Streamlit calls the default export on mount and on every data update with
// data = {scope: "<CSS selector of the container>", title: "<the node's SVG <title>, e.g. n12>"}.
// The graph keeps its layout from step to step (only colours change), so the node's position is
// right even while Graphviz is still redrawing; before the first drawing it waits for the SVG.
// A graph that fits its pane, or a node already in view, is left where it is.
// Only the container scrolls, never the page: the buttons above the graph stay where they are.
// window.__followNode = {scrolls, settled} for tests: settled is the title last seen to stay in view
// of a scrolling pane (null while a move is under way, when the graph fits its pane and nothing
// scrolls, or when the node cannot be brought into view).

const MARGIN = 0.12; // a node within the middle 76% of the pane's visible height is left where it is
const WAIT_MS = 5000;

function findNode(box, title) {
  for (const node of box.querySelectorAll("svg g.node")) {
    const t = node.querySelector("title");
    if (t && t.textContent === title) return node;
  }
  return null;
}

function scrollingPane(node, box) {
  for (let el = node.parentElement; el; el = el.parentElement) {
    const overflow = getComputedStyle(el).overflowY;
    if ((overflow === "auto" || overflow === "scroll") && el.scrollHeight > el.clientHeight + 1) return el;
    if (el === box) break;
  }
  return null;
}

function visibleBand(pane, node) {
  // The part of the pane the window shows: on a short window the pane's bottom is below the fold.
  const p = pane.getBoundingClientRect();
  let from = Math.max(p.top, 0);
  let to = Math.min(p.top + pane.clientHeight, window.innerHeight);
  if (to - from < 2 * node.getBoundingClientRect().height) [from, to] = [p.top, p.top + pane.clientHeight];
  return [from, to];
}

function inView(pane, node) {
  const [from, to] = visibleBand(pane, node);
  const n = node.getBoundingClientRect();
  const margin = MARGIN * (to - from);
  return n.height > 0 && n.top >= from + margin && n.bottom <= to - margin;
}

function scrollTo(pane, node) {
  const [from, to] = visibleBand(pane, node);
  const n = node.getBoundingClientRect();
  const target = pane.scrollTop + (n.top + n.height / 2) - (from + to) / 2;
  const reduced = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  pane.scrollTo({ top: Math.max(0, target), behavior: reduced ? "auto" : "smooth" });
}

export default function (component) {
  const { scope, title } = component.data || {};
  if (!scope || !title) return undefined;
  const stats = (window.__followNode = window.__followNode || { scrolls: 0, settled: null });
  stats.settled = null;
  const started = performance.now();
  let timer = null;
  let calm = 0; // checks in a row that found the node in view
  let tries = 0; // scrolls asked for: a few at most, so a user scrolling the pane is not fought
  let lastScroll = -Infinity;
  // NOTE: Graphviz may still be drawing (first load) or rescaling the SVG to the column, and a
  // smooth scroll takes a moment; so check a few times, and stop once the node stays in view.
  const attempt = () => {
    timer = null;
    const box = document.querySelector(scope);
    const node = box && findNode(box, title);
    const pane = node && scrollingPane(node, box);
    const now = performance.now();
    if (pane && inView(pane, node)) {
      calm += 1;
      if (calm >= 3) {
        stats.settled = title;
        return;
      }
    } else if (pane && tries < 3 && now - lastScroll > 600) {
      calm = 0;
      tries += 1;
      lastScroll = now;
      stats.scrolls += 1;
      scrollTo(pane, node);
    }
    if (now - started < WAIT_MS) timer = setTimeout(attempt, 150);
  };
  attempt();
  return () => {
    if (timer !== null) clearTimeout(timer);
  };
}
