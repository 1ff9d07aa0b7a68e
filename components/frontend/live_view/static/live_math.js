// The live view's pure functions: the network's forward pass, log-axis ticks. No DOM.
//
// The browser draws every picture of the playground from a frame's weights: the decision boundary,
// each neuron's picture, the fitted curve. So this file computes what explorer/playground/training.py's
// `layer_outputs` computes, in float64, the same way: inputs normalised as (x - shift) / scale, the
// extra features of explorer/playground/catalogue.py, then Linear (x·Wᵀ + b) and the activation, layer by layer.
// tests/browser/test_live_math_browser.py checks the two agree to 1e-6 for every activation and
// feature. An ES module: live_view.js imports it as `lm`; that test and tests/js/ import it alone.

import { ticks } from "../../web/format.js";

const SQRT_HALF = 0.7071067811865476;
const TWO_OVER_SQRT_PI = 1.1283791670955126;

export function decode(b64, dtype = "f8") {
  // Base64 of little-endian float64 ("f8") or float32 ("f4") bytes (explorer/playground/controller.py
  // `encode`) -> Float64Array.
  const raw = atob(b64);
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return dtype === "f4" ? Float64Array.from(new Float32Array(bytes.buffer)) : new Float64Array(bytes.buffer);
}

export function erf(x) {
  // erf by the series 2/√π · e^(−x²) · Σ (2x²)ⁿ x / (1·3·…·(2n+1)): every term positive, so no
  // cancellation; float64 precision for |x| ≤ 6, and |erf| rounds to 1 beyond.
  const a = Math.abs(x);
  if (a > 6) return Math.sign(x);
  const two = 2 * a * a;
  let term = a;
  let sum = a;
  for (let n = 0; n < 200; n++) {
    term *= two / (2 * n + 3);
    sum += term;
    if (term < 1e-17 * sum) break;
  }
  const value = TWO_OVER_SQRT_PI * Math.exp(-a * a) * sum;
  return x < 0 ? -value : value;
}

export function sigmoid(x) {
  // As the engine's stable sigmoid: 1/(1 + e) for x ≥ 0, e/(1 + e) below, with e = exp(−|x|).
  const e = Math.exp(-Math.abs(x));
  return (x >= 0 ? 1 : e) / (1 + e);
}

const ACTIVATIONS = {
  relu: (x) => (x > 0 ? x : 0),
  tanh: Math.tanh,
  sigmoid: sigmoid,
  gelu: (x) => 0.5 * x * (1 + erf(x * SQRT_HALF)),
  silu: (x) => x * sigmoid(x),
  linear: (x) => x,
};

// Extra input features of the normalised coordinates z (explorer/playground/catalogue.py FEATURES).
const FEATURES = {
  "x1²": (z) => z[0] * z[0],
  "x2²": (z) => z[1] * z[1],
  "x1·x2": (z) => z[0] * z[1],
  "sin x1": (z) => Math.sin(z[0]),
  "sin x2": (z) => Math.sin(z[1]),
  "x²": (z) => z[0] * z[0],
  "x³": (z) => z[0] * z[0] * z[0],
  "sin x": (z) => Math.sin(z[0]),
};

export function unpack(sizes, params) {
  // A frame's flat parameters -> [{W: Float64Array (out·in, row by row), b, nIn, nOut}] per layer.
  const layers = [];
  let at = 0;
  for (let l = 0; l + 1 < sizes.length; l++) {
    const nIn = sizes[l], nOut = sizes[l + 1];
    const W = params.subarray(at, at + nIn * nOut);
    at += nIn * nOut;
    const b = params.subarray(at, at + nOut);
    at += nOut;
    layers.push({ W, b, nIn, nOut });
  }
  if (at !== params.length) throw new Error(`expected ${at} parameters for sizes ${sizes}, got ${params.length}`);
  return layers;
}

export function inputRows(model, points, count) {
  // Raw points (count × d, row by row) -> the network's input columns (count × sizes[0]).
  const d = model.shift.length;
  const width = model.sizes[0];
  const out = new Float64Array(count * width);
  const z = new Float64Array(d);
  for (let i = 0; i < count; i++) {
    for (let k = 0; k < d; k++) z[k] = (points[i * d + k] - model.shift[k]) / model.scale[k];
    const row = i * width;
    for (let k = 0; k < d; k++) out[row + k] = z[k];
    for (let f = 0; f < model.features.length; f++) out[row + d + f] = FEATURES[model.features[f]](z);
  }
  return out;
}

export function forward(model, layers, points, count) {
  // The network on `count` raw points: {inputs, hidden: [count × width per hidden layer],
  // out: the prediction — class-1 probability (count) for two classes, softmax (count × C) for
  // more, ŷ (count) for regression}.
  const act = ACTIVATIONS[model.activation];
  const inputs = inputRows(model, points, count);
  let x = inputs;
  const hidden = [];
  for (let l = 0; l < layers.length; l++) {
    const { W, b, nIn, nOut } = layers[l];
    const y = new Float64Array(count * nOut);
    const last = l === layers.length - 1;
    for (let i = 0; i < count; i++) {
      const xi = i * nIn;
      for (let o = 0; o < nOut; o++) {
        const wo = o * nIn;
        let s = 0;
        for (let k = 0; k < nIn; k++) s += x[xi + k] * W[wo + k];
        s += b[o];
        y[i * nOut + o] = last ? s : act(s);
      }
    }
    if (!last) hidden.push(y);
    x = y;
  }
  const k = model.sizes[model.sizes.length - 1];
  let out = x;
  if (model.task !== "regression") {
    if (k === 1) {
      out = new Float64Array(count);
      for (let i = 0; i < count; i++) out[i] = sigmoid(x[i]);
    } else {
      out = new Float64Array(count * k);
      for (let i = 0; i < count; i++) {
        let top = -Infinity;
        for (let c = 0; c < k; c++) top = Math.max(top, x[i * k + c]);
        let total = 0;
        for (let c = 0; c < k; c++) total += (out[i * k + c] = Math.exp(x[i * k + c] - top));
        for (let c = 0; c < k; c++) out[i * k + c] /= total;
      }
    }
  }
  return { inputs, hidden, out };
}

export function gridPoints(model, res) {
  // The picture's sample points, as explorer/playground/training.py `grid_points`: res × res from the bottom
  // row up (y ascending, then x), or res points along x for regression.
  const [x0, x1] = model.x_range;
  const xs = (i) => (res > 1 ? x0 + ((x1 - x0) * i) / (res - 1) : x0);
  if (model.task === "regression") {
    const pts = new Float64Array(res);
    for (let i = 0; i < res; i++) pts[i] = xs(i);
    return pts;
  }
  const [y0, y1] = model.y_range;
  const pts = new Float64Array(res * res * 2);
  for (let r = 0; r < res; r++) {
    const y = res > 1 ? y0 + ((y1 - y0) * r) / (res - 1) : y0;
    for (let c = 0; c < res; c++) {
      pts[(r * res + c) * 2] = xs(c);
      pts[(r * res + c) * 2 + 1] = y;
    }
  }
  return pts;
}

export function gridResolution(model, budget) {
  // The finest grid (40..80 a side) whose forward pass costs at most `budget` multiply-adds. 80 is
  // finer than the picture needs (it is drawn smoothed) and keeps a paint at a few milliseconds.
  let macs = 0;
  for (let l = 0; l + 1 < model.sizes.length; l++) macs += model.sizes[l] * model.sizes[l + 1];
  const side = Math.floor(Math.sqrt(budget / Math.max(macs, 1)));
  return Math.max(40, Math.min(80, side));
}

// ---------------------------------------------------------------------------- axes

export function logTicks(lo, hi, count) {
  // Ticks for a log axis over [lo, hi] (both > 0), about `count` of them, always at least two
  // inside the range: powers of ten over many decades; 1-2-5 over a few; and within one decade
  // evenly spaced values (0.3, 0.4, 0.5 ...), so a loss that stays inside a decade still has
  // numbers on its axis.
  if (!(lo > 0) || !(hi > lo)) return lo > 0 ? [lo] : [];
  const a = Math.log10(lo), b = Math.log10(hi);
  const decades = b - a;
  let out = [];
  if (decades > count) {
    const every = Math.ceil(decades / count);
    for (let k = Math.ceil(a); k <= Math.floor(b); k++) if (k % every === 0) out.push(Math.pow(10, k));
  } else if (decades >= 1) {
    const mantissas = decades > count / 2 ? [1] : decades > count / 3 ? [1, 3] : [1, 2, 5];
    for (let k = Math.floor(a); k <= Math.ceil(b); k++)
      for (const m of mantissas) {
        const v = m * Math.pow(10, k);
        if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) out.push(v);
      }
  }
  if (out.length < 2) out = ticks(lo, hi, Math.max(3, Math.min(count, 5))).filter((v) => v > 0);
  return out;
}
