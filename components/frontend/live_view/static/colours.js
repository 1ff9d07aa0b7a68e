// The live view's colours (an ES module): the active theme's, and tables of them for painting pixels.

import { mix, parseColour, rgb, theme as pageTheme } from "../../web/theme.js";

export const CLASS_COLOURS = ["#f28e2b", "#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
const POSITIVE = "#1f77b4";
const NEGATIVE = "#f28e2b";

export function readTheme(node) {
  const { bg, text, dark, font } = pageTheme(node);
  const classes = CLASS_COLOURS.map((c) => parseColour(c));
  return {
    key: `${bg}|${text}`,
    bg,
    text,
    dark,
    classes,
    pos: parseColour(POSITIVE),
    neg: parseColour(NEGATIVE),
    grid: rgb(text, 0.12),
    axis: rgb(text, 0.45),
    faint: rgb(text, 0.6),
    outline: rgb(dark ? [255, 255, 255] : [0, 0, 0], 0.55),
    font,
  };
}

// Colours come from tables of LEVELS entries per theme (no allocation per pixel: a paint colours
// tens of thousands of them).
const LEVELS = 256;

function colourTable(theme, key, colourAt) {
  theme.tables = theme.tables || {};
  if (!theme.tables[key]) {
    const t = new Uint8ClampedArray(LEVELS * 3);
    for (let i = 0; i < LEVELS; i++) t.set(colourAt(i / (LEVELS - 1)), i * 3);
    theme.tables[key] = t;
  }
  return theme.tables[key];
}

export function divergingTable(theme) {
  // u in [0, 1] stands for v = 2u − 1 in [−1, 1]: orange (negative) .. background .. blue (positive).
  return colourTable(theme, "diverging", (u) => {
    const v = 2 * u - 1;
    return mix(theme.bg, v >= 0 ? theme.pos : theme.neg, Math.abs(v) * 0.85);
  });
}

export function classTable(theme, classes, k) {
  // Two classes: index by p(class 1), orange below ½, blue above. More: class k's colour by how sure.
  if (classes === 2) return colourTable(theme, "binary", (p) => mix(theme.bg, theme.classes[p >= 0.5 ? 1 : 0], Math.abs(p - 0.5) * 1.24));
  return colourTable(theme, `class${k}`, (sure) => mix(theme.bg, theme.classes[k % theme.classes.length], 0.08 + sure * 0.55));
}

export function setPixel(out, o, tab, u) {
  const i = 3 * Math.round(Math.max(0, Math.min(1, u)) * (LEVELS - 1));
  out[o] = tab[i];
  out[o + 1] = tab[i + 1];
  out[o + 2] = tab[i + 2];
  out[o + 3] = 255;
}

export function shadeCell(theme, probs, k, classes, out, o) {
  // A grid cell: the winning class's colour, stronger the surer the model is.
  if (classes === 2) return setPixel(out, o, classTable(theme, 2), probs[k]);
  let best = 0;
  for (let c = 1; c < classes; c++) if (probs[k * classes + c] > probs[k * classes + best]) best = c;
  const sure = (probs[k * classes + best] - 1 / classes) / (1 - 1 / classes);
  setPixel(out, o, classTable(theme, classes, best), sure);
}
