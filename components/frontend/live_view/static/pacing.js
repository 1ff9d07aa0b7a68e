// The live view's frame queue and its pacing, as pure functions (no DOM, no clock of their own: every
// time is passed in, in ms), tested in Node (tests/js/live_pacing.test.js).
//
// The server trains a tick's steps at once and sends their frames in one message (every step's, or every
// j-th past the display's rate: components/frontend/live_view/PROTOCOL.md). The view queues them and
// paints at most one per animation frame, spaced at the rate frames are made (`fps`), a little faster while
// more than a message's worth waits and a little slower while fewer do, so that the queue absorbs the
// ticks' jitter and never runs dry in between. Each painted frame is a real step's weights, in step order;
// a browser whose pictures take long paints every k-th frame (`stride`), and one that still cannot keep
// up skips the oldest frames (still in order), so it lags at most MAX_LAG messages behind the run.

export const MAX_LAG = 2.5; // messages' worth of frames that may wait; older ones are skipped
export const GAIN = 0.5; // how hard the spacing leans on the queue being off its target
export const SPACING_RANGE = [0.75, 1.5]; // the spacing stays within these multiples of 1/fps
export const PAINT_SHARE = 0.7; // at most this share of the browser's time goes to painting pictures
export const EARLY_MS = 8; // a frame due within this much of an animation frame is painted on it (half of 60 Hz)

export function newPacer() {
  return { queue: [], due: 0, avg: null, skipped: 0 };
}

// The frames a message brought: queued after those waiting, in step order, none at or before `newest` (the
// step painted last, or -1): a message that repeats frames (slow motion) adds only the new ones.
export function arrive(p, frames, newest = -1) {
  let last = p.queue.length ? p.queue[p.queue.length - 1].step : newest;
  let added = 0;
  for (const f of frames) {
    if (f.step > last) {
      p.queue.push(f);
      last = f.step;
      added += 1;
    }
  }
  return added;
}

// Frames per second the server makes: its steps per second (the one it ran, else the one asked) over the
// steps per frame, at most 60 and at least one a message.
export function framesPerSecond(msg) {
  const every = Math.max(1, msg.every || 1);
  const steps = msg.rate > 0 ? msg.rate : msg.speed;
  return Math.min(60, Math.max(1 / Math.max(msg.interval, 1e-3), steps / every));
}

// The queue's target: one message's worth of frames (at least one).
export function target(fps, interval) {
  return Math.max(1, fps * interval);
}

// Milliseconds between paints for a queue that holds `avg` frames on average against `goal`.
export function spacing(fps, avg, goal) {
  const lean = 1 + (GAIN * (goal - avg)) / goal;
  return (1000 / fps) * Math.min(SPACING_RANGE[1], Math.max(SPACING_RANGE[0], lean));
}

// How many frames to move on per picture: 1 while the browser paints in time, more when a picture takes
// longer than PAINT_SHARE of its time slot (`paintMs`: what a paint costs here, on average), so that a slow
// or busy browser shows evenly spaced real steps and keeps its main thread free, rather than falling behind.
export function stride(fps, paintMs) {
  if (!(paintMs > 0)) return 1;
  return Math.max(1, Math.round(fps / Math.min(fps, (PAINT_SHARE * 1000) / paintMs)));
}

// The frame to paint at the animation frame at `now`, or null (none due, or none waiting). Call once per
// animation frame: it takes at most one frame to paint off the queue (and `stride` − 1 before it).
export function next(p, now, fps, interval, paintMs = 0) {
  const goal = target(fps, interval);
  p.avg = p.avg === null ? goal : p.avg + 0.05 * (p.queue.length - p.avg);
  if (!p.queue.length) {
    if (p.due < now) p.due = now; // starved: the next frame is painted as soon as it comes
    return null;
  }
  if (now < p.due - EARLY_MS) return null;
  const limit = Math.ceil(goal * MAX_LAG);
  if (p.queue.length > limit) {
    p.skipped += p.queue.length - limit;
    p.queue.splice(0, p.queue.length - limit);
  }
  const by = Math.min(stride(fps, paintMs), p.queue.length);
  p.skipped += by - 1;
  const frame = p.queue.splice(0, by)[by - 1];
  const gap = by * spacing(fps, p.avg, goal);
  p.due = (p.due < now - gap ? now : p.due) + gap;
  return frame;
}

// Empty the queue (a pause, a new run, the replay).
export function clear(p) {
  p.queue.length = 0;
  p.avg = null;
  p.due = 0;
}

// How many of `times` (ms, ascending) fall within the last `windowMs` before `now`, per second; drops the
// older ones from `times`.
export function ratePerSecond(times, now, windowMs = 1000) {
  while (times.length && times[0] <= now - windowMs) times.shift();
  return (times.length * 1000) / windowMs;
}

// FNV-1a (32 bits) of a frame's weights as float64 bytes, as hex: the test hook data-sum, compared with
// the same sum of the server's weights (tests/support/live_frames.py).
export function checksum(params) {
  const bytes = new Uint8Array(params.buffer, params.byteOffset, params.byteLength);
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) {
    h ^= bytes[i];
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}
