// The live view's pure functions (components/frontend/live_view/static/live_math.js) in Node: the forward pass against
// sums worked by hand, the parameter layout, the grid, the ticks. (test_live_math_browser.py checks the same
// forward pass against the engine in Chromium.)
import assert from "node:assert/strict";
import { test } from "node:test";

import * as lm from "../../components/frontend/live_view/static/live_math.js";

const close = (got, want, tol = 1e-12) =>
  assert.ok(Math.abs(got - want) <= tol, `${got} is not within ${tol} of ${want}`);

// 2 inputs -> 2 tanh units -> 1 output; W row by row (out × in), then b, per layer.
const MODEL = { sizes: [2, 2, 1], activation: "tanh", features: [], shift: [1, -1], scale: [2, 4], task: "classification" };
const PARAMS = Float64Array.from([0.5, -1, 2, 0.25, 0.1, -0.2, 1.5, -3, 0.4]);

test("unpack cuts the flat parameters into W (out × in, row by row) and b per layer", () => {
  const layers = lm.unpack(MODEL.sizes, PARAMS);
  assert.deepEqual(layers.map((l) => [l.nIn, l.nOut, Array.from(l.W), Array.from(l.b)]),
    [[2, 2, [0.5, -1, 2, 0.25], [0.1, -0.2]], [2, 1, [1.5, -3], [0.4]]]);
  assert.throws(() => lm.unpack(MODEL.sizes, PARAMS.subarray(1)), /expected 9 parameters/);
});

test("forward normalises the inputs, then Linear and the activation per layer, then sigmoid", () => {
  const points = Float64Array.from([3, 7, -1, -1]);
  const pass = lm.forward(MODEL, lm.unpack(MODEL.sizes, PARAMS), points, 2);
  for (const [i, [x, y]] of [[3, 7], [-1, -1]].entries()) {
    const z = [(x - 1) / 2, (y + 1) / 4];
    const h = [Math.tanh(0.5 * z[0] - 1 * z[1] + 0.1), Math.tanh(2 * z[0] + 0.25 * z[1] - 0.2)];
    const logit = 1.5 * h[0] - 3 * h[1] + 0.4;
    close(pass.inputs[2 * i], z[0]);
    close(pass.hidden[0][2 * i + 1], h[1]);
    close(pass.out[i], 1 / (1 + Math.exp(-logit)));
  }
});

test("forward: softmax over three classes sums to 1; regression is the last layer as is; extra features", () => {
  const three = { ...MODEL, sizes: [2, 3], activation: "relu" };
  const params = Float64Array.from([1, 0, 0, 1, 1, 1, 0, 0, 900]);
  const out = lm.forward(three, lm.unpack(three.sizes, params), Float64Array.from([1, -1]), 1).out;
  close(out[0] + out[1] + out[2], 1);
  close(out[2], 1, 1e-12); // the 900 logit wins without overflow
  const regression = { sizes: [2, 1], activation: "relu", features: ["sin x1"], shift: [0], scale: [1], task: "regression" };
  const got = lm.forward(regression, lm.unpack([2, 1], Float64Array.from([2, 3, 0.5])), Float64Array.from([0.7]), 1);
  close(got.out[0], 2 * 0.7 + 3 * Math.sin(0.7) + 0.5);
});

test("erf matches known values and is odd; sigmoid is stable far out", () => {
  close(lm.erf(0.5), 0.5204998778130465, 1e-15);
  close(lm.erf(-2), -0.9953222650189527, 1e-15);
  assert.equal(lm.erf(7), 1);
  assert.equal(lm.sigmoid(-800), 0);
  assert.equal(lm.sigmoid(800), 1);
});

test("decode reads little-endian float64 and float32 base64", () => {
  const f8 = Buffer.from(Float64Array.from([1.5, -2]).buffer).toString("base64");
  const f4 = Buffer.from(Float32Array.from([0.25, 3]).buffer).toString("base64");
  assert.deepEqual(Array.from(lm.decode(f8, "f8")), [1.5, -2]);
  assert.deepEqual(Array.from(lm.decode(f4, "f4")), [0.25, 3]);
});

test("gridPoints runs x fastest from the bottom row up; gridResolution stays within 40..80 a side", () => {
  const pts = lm.gridPoints({ x_range: [0, 2], y_range: [-1, 1], task: "classification" }, 3);
  assert.deepEqual(Array.from(pts.subarray(0, 8)), [0, -1, 1, -1, 2, -1, 0, 0]);
  assert.equal(lm.gridResolution({ sizes: [2, 1] }, 30e6), 80);
  assert.equal(lm.gridResolution({ sizes: [2, 512, 512, 1] }, 30e6), 40);
  assert.equal(lm.gridResolution({ sizes: [2, 100, 1] }, 30e6), 80);
});

test("log ticks are positive; within a decade they are the shared linear ticks (components/frontend/web/format.js)", () => {
  assert.deepEqual(lm.logTicks(0.2, 0.9, 4), [0.2, 0.4, 0.6, 0.8]);
  for (const [lo, hi] of [[1e-3, 10], [0.2, 0.9], [5, 6]]) {
    const ticks = lm.logTicks(lo, hi, 4);
    assert.ok(ticks.length >= 2 && ticks.every((t) => t > 0), `${lo}..${hi}: ${ticks}`);
  }
});
