// The race view's DOM helpers: elements, the theme's colours, numbers as the app prints them (an ES module).

/** A new element: el("div", {class: "x", "data-path": id}, child, "text", ...). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child !== undefined && child !== null) node.append(child);
  }
  return node;
}

/** Adds a style sheet to the page once (by id). */
export function addStyle(id, text) {
  if (document.getElementById(id)) return;
  document.head.append(el("style", { id }, text));
}

function parseColour(text, fallback) {
  const t = (text || "").trim();
  let m = /^#([0-9a-f]{6})$/i.exec(t);
  if (m) return [0, 2, 4].map((i) => parseInt(m[1].slice(i, i + 2), 16));
  m = /^#([0-9a-f]{3})$/i.exec(t);
  if (m) return [0, 1, 2].map((i) => 17 * parseInt(m[1][i], 16));
  m = /rgba?\(([^)]+)\)/.exec(t);
  if (m) return m[1].split(/[ ,/]+/).slice(0, 3).map(Number);
  return fallback;
}

export const rgb = (c, a = 1) => `rgba(${Math.round(c[0])},${Math.round(c[1])},${Math.round(c[2])},${a})`;
export const mix = (a, b, t) => a.map((v, i) => v + (b[i] - v) * t);

/** The active Streamlit theme's colours, read from the CSS variables on `node`; `key` changes with the theme. */
export function theme(node) {
  const cs = getComputedStyle(node);
  const bg = parseColour(cs.getPropertyValue("--st-background-color"), [255, 255, 255]);
  const text = parseColour(cs.getPropertyValue("--st-text-color"), [49, 51, 63]);
  const dark = 0.299 * bg[0] + 0.587 * bg[1] + 0.114 * bg[2] < 128;
  return { key: `${bg}|${text}`, bg, text, dark, font: (cs.getPropertyValue("--st-font") || "sans-serif").trim() };
}

/** A number with four significant digits, as the app prints numbers (Python's "{:.4g}", no "-0"). */
export function num(value) {
  if (value === null || value === undefined || Number.isNaN(value)) return "nan";
  if (!Number.isFinite(value)) return value > 0 ? "inf" : "-inf";
  if (value === 0) return "0";
  value = halfToEven(value);
  const exponent = Math.floor(Math.log10(Math.abs(Number(value.toPrecision(4)))));
  let text;
  if (exponent < -4 || exponent >= 4) {
    const [mantissa, power] = value.toExponential(3).split("e");
    const p = Number(power);
    text = `${trimZeros(mantissa)}e${p < 0 ? "-" : "+"}${String(Math.abs(p)).padStart(2, "0")}`;
  } else {
    text = trimZeros(value.toPrecision(4));
  }
  return text === "-0" ? "0" : text;
}

// NOTE: JavaScript rounds an exact tie up (1234.5 -> "1235"), Python to even ("1234"): a tie whose last kept digit
// is even is nudged toward zero by far less than any other rounding boundary (doubles carry ~17 digits).
function halfToEven(value) {
  const mantissa = Math.abs(value).toExponential(20).split("e")[0].replace(".", "");
  const tie = mantissa[4] === "5" && /^0*$/.test(mantissa.slice(5));
  return tie && Number(mantissa[3]) % 2 === 0 ? value * (1 - 1e-15) : value;
}

function trimZeros(text) {
  return text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text;
}

const SVG_NS = "http://www.w3.org/2000/svg";

/** A new SVG element with its attributes: svg("line", {x1: 0, ...}, child, ...). */
export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== undefined && value !== null) node.setAttribute(name, String(value));
  }
  for (const child of children) {
    if (child !== undefined && child !== null) node.append(child);
  }
  return node;
}
