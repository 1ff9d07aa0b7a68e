// The active Streamlit theme in the components (an ES module): colours parsed, and one rule for dark or light.

/** [r, g, b] of a CSS colour (#rrggbb, #rgb, rgb(), rgba()), or `fallback` when it is none of these. */
export function parseColour(text, fallback = null) {
  const t = (text || "").trim();
  let m = /^#([0-9a-f]{6})$/i.exec(t);
  if (m) return [0, 2, 4].map((i) => parseInt(m[1].slice(i, i + 2), 16));
  m = /^#([0-9a-f]{3})$/i.exec(t);
  if (m) return [0, 1, 2].map((i) => 17 * parseInt(m[1][i], 16));
  m = /rgba?\(([^)]+)\)/.exec(t);
  if (m) return m[1].split(/[ ,/]+/).filter(Boolean).slice(0, 3).map(Number);
  return fallback;
}

export const rgb = (c, a = 1) => `rgba(${Math.round(c[0])},${Math.round(c[1])},${Math.round(c[2])},${a})`;
export const mix = (a, b, t) => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];

/** Whether a background of colour [r, g, b] is dark (the one rule: its luma, Rec. 601 weights, below half). */
export function isDarkRgb(c) {
  return 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2] < 128;
}

/** Whether a CSS colour is dark (Streamlit's theme gives no light/dark flag); false when it cannot be read. */
export function isDark(colour) {
  const c = parseColour(colour);
  return c ? isDarkRgb(c) : false;
}

/** The active theme's colours, read from Streamlit's CSS variables on `node`; `key` changes with the theme. */
export function theme(node) {
  const cs = getComputedStyle(node);
  const bg = parseColour(cs.getPropertyValue("--st-background-color"), [255, 255, 255]);
  const text = parseColour(cs.getPropertyValue("--st-text-color"), [49, 51, 63]);
  return { key: `${bg}|${text}`, bg, text, dark: isDarkRgb(bg), font: (cs.getPropertyValue("--st-font") || "sans-serif").trim() };
}
