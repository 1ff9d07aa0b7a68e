// The graph view's controls (an ES module): its buttons with their icons, and the explain texts' inline markup.

import { el, escapeHtml, svg } from "../web/dom.js";

// `code` and **bold** spans of the explain texts, everything else escaped.
export function inline(text) {
  return escapeHtml(text)
    .replace(/`([^`]+)`/g, "<code>$1</code>")
    .replace(/\*\*([^*]+)\*\*/g, "<b>$1</b>");
}

const ICONS = {
  first: "M6 5h2v14H6zM19 5v14L9 12z",
  prev: "M15.5 5 8.5 12l7 7 1.5-1.5L11.5 12 17 6.5z",
  next: "M8.5 5 7 6.5 12.5 12 7 17.5 8.5 19l7-7z",
  play: "M8 5v14l11-7z",
  pause: "M7 5h4v14H7zM13 5h4v14h-4z",
};

export function icon(name) {
  return svg("svg", { viewBox: "0 0 24 24", "aria-hidden": "true", class: "gv-icon" }, svg("path", { d: ICONS[name] }));
}

export function button(label, cls, onclick, iconName, title) {
  const b = el("button", { type: "button", class: "gv-button " + cls, "aria-label": label, title: title || label, onclick });
  if (iconName) b.appendChild(icon(iconName));
  b.appendChild(el("span", { text: label }));
  return b;
}
