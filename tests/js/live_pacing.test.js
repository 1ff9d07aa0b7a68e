// The live view's frame queue and pacing (components/frontend/live_view/static/pacing.js) in Node: frames are
// queued in step order, at most one is painted per animation frame, the spacing follows the frames' rate and
// leans on the queue, a browser that falls behind skips the oldest frames, and the weights' checksum.
import assert from "node:assert/strict";
import { test } from "node:test";

import * as pacing from "../../components/frontend/live_view/static/pacing.js";

const frames = (from, to, every = 1) => {
  const out = [];
  for (let step = from; step <= to; step += every) out.push({ step });
  return out;
};

// Animation frames at `hz` for `ms`, messages of `perMessage` frames every `intervalMs` (the first at 0):
// the steps painted, in order, and the times they were painted.
function simulate({ hz = 60, ms = 5000, perMessage = 12, intervalMs = 500, every = 1, fps, jitter = () => 0, paintMs = 0 }) {
  const p = pacing.newPacer();
  const painted = [], times = [];
  let nextMessage = 0, step = 0;
  const rate = fps || (perMessage * 1000) / intervalMs;
  for (let now = 0; now < ms; now += 1000 / hz) {
    while (now >= nextMessage) {
      pacing.arrive(p, frames(step + every, step + perMessage * every, every), painted.length ? painted[painted.length - 1] : -1);
      step += perMessage * every;
      nextMessage += intervalMs + jitter();
    }
    const f = pacing.next(p, now, rate, intervalMs / 1000, paintMs);
    if (f) {
      painted.push(f.step);
      times.push(now);
    }
  }
  return { painted, times, p };
}

test("a message's frames are queued after those waiting, in step order, none twice", () => {
  const p = pacing.newPacer();
  assert.equal(pacing.arrive(p, frames(1, 5)), 5);
  assert.equal(pacing.arrive(p, frames(1, 8)), 3, "slow motion repeats the last second's frames: the new ones only");
  assert.deepEqual(p.queue.map((f) => f.step), [1, 2, 3, 4, 5, 6, 7, 8]);
  const q = pacing.newPacer();
  assert.equal(pacing.arrive(q, frames(1, 4), 3), 1, "none at or before the step painted last");
});

test("at most one frame per animation frame, and none before it is due", () => {
  const p = pacing.newPacer();
  pacing.arrive(p, frames(1, 12));
  assert.equal(pacing.next(p, 0, 25, 0.5).step, 1);
  assert.equal(pacing.next(p, 0, 25, 0.5), null, "a second call at the same time paints nothing");
  assert.equal(pacing.next(p, 16.7, 25, 0.5), null, "25 frames a second: not due after one display frame");
  assert.equal(pacing.next(p, 40, 25, 0.5).step, 2);
});

test("25 steps/s on a 60 Hz display: every step painted, in order, spaced evenly, the queue never dry", () => {
  const { painted, times } = simulate({ perMessage: 12, intervalMs: 480 });
  assert.deepEqual(painted, Array.from({ length: painted.length }, (_, i) => i + 1), "every step, in order");
  const gaps = times.slice(60).map((t, i) => t - times.slice(60)[i - 1]).slice(1);
  assert.ok(Math.max(...gaps) <= 50.1, `gaps up to ${Math.max(...gaps)} ms`);
  assert.ok(painted.length >= 0.9 * 25 * 5 * (500 / 480), `${painted.length} painted in 5 s`);
});

test("the fastest speed: a frame on nearly every animation frame, every j-th step, with jittery ticks", () => {
  let k = 0;
  const jitter = () => [0, 60, -40, 120, -80][k++ % 5];
  const { painted, times } = simulate({ perMessage: 29, every: 17, intervalMs: 493, jitter });
  assert.ok(painted.every((s, i) => s % 17 === 0 && (i === 0 || s > painted[i - 1])), "real steps, in order");
  const late = times.slice(30);
  const gaps = late.slice(1).map((t, i) => t - late[i]).sort((a, b) => a - b);
  const p95 = gaps[Math.floor(0.95 * (gaps.length - 1))];
  assert.ok(p95 <= 34, `p95 gap ${p95} ms`);
  assert.ok(late.length / ((late[late.length - 1] - late[0]) / 1000) >= 50, "at least 50 pictures a second");
});

test("ticks a second apart (the server's TICK_SECONDS): every step at 25 steps/s, >= 50 pictures/s at the fastest", () => {
  const slow = simulate({ perMessage: 25, intervalMs: 980, ms: 8000 });
  assert.deepEqual(slow.painted, Array.from({ length: slow.painted.length }, (_, i) => i + 1), "every step, in order");
  const gaps = slow.times.slice(60).map((t, i, a) => t - a[i - 1]).slice(1);
  assert.ok(Math.max(...gaps) <= 50.1, `gaps up to ${Math.max(...gaps)} ms`);
  let k = 0;
  const jitter = () => [0, 120, -80, 240, -160][k++ % 5];
  const fast = simulate({ perMessage: 59, every: 17, intervalMs: 987, jitter, ms: 8000 });
  assert.ok(fast.painted.every((s, i) => s % 17 === 0 && (i === 0 || s > fast.painted[i - 1])), "real steps, in order");
  const late = fast.times.slice(60);
  const fastGaps = late.slice(1).map((t, i) => t - late[i]).sort((a, b) => a - b);
  assert.ok(fastGaps[Math.floor(0.95 * (fastGaps.length - 1))] <= 34, "p95 gap within two animation frames");
  assert.ok(late.length / ((late[late.length - 1] - late[0]) / 1000) >= 50, "at least 50 pictures a second");
});

test("a browser that paints only 30 times a second skips the oldest frames and lags a bounded time", () => {
  const { painted, p } = simulate({ hz: 30, perMessage: 29, every: 17, intervalMs: 500, ms: 10000 });
  assert.ok(p.skipped > 0);
  assert.ok(painted.every((s, i) => i === 0 || s > painted[i - 1]), "still in order");
  assert.ok(p.queue.length <= Math.ceil(29 * pacing.MAX_LAG) + 29, `${p.queue.length} waiting`);
});

test("the spacing leans on the queue: faster while it holds more than a message's worth, slower while less", () => {
  assert.equal(pacing.spacing(25, 12.5, 12.5), 40);
  assert.ok(pacing.spacing(25, 25, 12.5) < 40 && pacing.spacing(25, 2, 12.5) > 40);
  assert.equal(pacing.spacing(25, 1000, 12.5), 40 * pacing.SPACING_RANGE[0]);
  assert.equal(pacing.framesPerSecond({ every: 17, rate: 1000, speed: 1000, interval: 0.5 }), 1000 / 17);
  assert.equal(pacing.framesPerSecond({ every: 1, rate: 0, speed: 25, interval: 0.5 }), 25);
  assert.equal(pacing.framesPerSecond({ every: 10, rate: 25, speed: 25, interval: 0.4 }), 2.5);
});

test("pictures per second over the last second, and the weights' checksum", () => {
  const times = [0, 100, 900, 1000, 1500];
  assert.equal(pacing.ratePerSecond(times, 1600), 3);
  assert.deepEqual(times, [900, 1000, 1500]);
  // FNV-1a of the 8 bytes of 1.0 as a little-endian float64 (00 00 00 00 00 00 f0 3f).
  assert.equal(pacing.checksum(new Float64Array([1])), "8c6a9878"); // as tests/support/live_frames.py computes it
  assert.notEqual(pacing.checksum(new Float64Array([1, 2])), pacing.checksum(new Float64Array([2, 1])));
});

test("pictures that take long to paint: every k-th frame, evenly, keeping pace with the run", () => {
  assert.equal(pacing.stride(1000 / 17, 0), 1);
  assert.equal(pacing.stride(1000 / 17, 5), 1, "5 ms a picture: all 59 a second fit in PAINT_SHARE of the time");
  assert.equal(pacing.stride(1000 / 17, 50), 4, "50 ms a picture: 14 a second fit, every 4th of 59");
  const { painted, times, p } = simulate({ perMessage: 29, every: 17, intervalMs: 493, paintMs: 50, ms: 10000 });
  const steps = painted.slice(10);
  const gaps = steps.slice(1).map((s, i) => s - steps[i]);
  assert.ok(gaps.every((g) => g === 4 * 17), `steps between pictures: ${gaps.slice(0, 20)}`);
  assert.ok(p.queue.length <= 2 * 29, "it keeps pace: the queue does not grow");
  const late = times.slice(10);
  const rate = late.length / ((late[late.length - 1] - late[0]) / 1000);
  assert.ok(rate >= 13 && rate <= 16, `about 14 pictures a second, not ${rate}`);
});
