// The components' DOM toolbox (an ES module): HTML and SVG element builders, HTML escaping, a style sheet once.

const SVG_NS = "http://www.w3.org/2000/svg";

function fill(node, attrs, children) {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "text") node.textContent = value;
    else if (name.startsWith("on") && typeof value === "function") node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child !== undefined && child !== null) node.append(child);
  }
  return node;
}

/**
 * A new HTML element: el("div", {class: "x", "data-path": id, text: "...", onclick: f}, child, "text", [more]).
 * Attributes that are null, undefined or false are left out; `true` sets an empty one; `on<event>` listens.
 */
export function el(tag, attrs = {}, ...children) {
  return fill(document.createElement(tag), attrs, children);
}

/** A new SVG element with its attributes and children: svg("line", {x1: 0, ...}, child, ...). */
export function svg(tag, attrs = {}, ...children) {
  return fill(document.createElementNS(SVG_NS, tag), attrs, children);
}

const ENTITIES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** `text` with the five HTML-special characters escaped (safe inside elements and quoted attributes). */
export function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

/** Adds a style sheet with this text to the page once (by id). */
export function addStyle(id, text) {
  if (document.getElementById(id)) return;
  document.head.append(el("style", { id }, text));
}
