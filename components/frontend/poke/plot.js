// The poke pictures' pure arithmetic (an ES module, tested in Node): marching squares, contour chains and
// levels, ticks, ranges.

// Contour segments ([[x, y], [x, y]] in pixels, one level's) joined end to end: [{points, closed, length}].
export function contourChains(segments) {
  const key = ([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`;
  const at = new Map(); // point key -> indices of the segments that end there
  segments.forEach((seg, i) => seg.forEach((p) => {
    const k = key(p);
    if (!at.has(k)) at.set(k, []);
    at.get(k).push(i);
  }));
  const used = new Uint8Array(segments.length);
  const chains = [];
  const extend = (points) => { // from the chain's last point onwards, appending the segments that join it
    for (;;) {
      const next = (at.get(key(points[points.length - 1])) || []).find((j) => !used[j]);
      if (next === undefined) return;
      used[next] = 1;
      const [a, b] = segments[next];
      points.push(key(a) === key(points[points.length - 1]) ? b : a);
    }
  };
  segments.forEach((seg, i) => {
    if (used[i]) return;
    used[i] = 1;
    const forward = [seg[0], seg[1]];
    extend(forward);
    const backward = [seg[0]];
    extend(backward);
    const points = backward.reverse().concat(forward.slice(1));
    const closed = points.length > 3 && key(points[0]) === key(points[points.length - 1]);
    let length = 0;
    for (let k = 1; k < points.length; k++) length += Math.hypot(points[k][0] - points[k - 1][0], points[k][1] - points[k - 1][1]);
    chains.push({ points, closed, length });
  });
  return chains;
}

// How far from (px, py) along the unit direction (dx, dy) the plot's square [left, left + side] x [top, top + side]
// goes on.
export function roomAlong(px, py, dx, dy, left, top, side) {
  let t = Infinity;
  if (dx > 0) t = Math.min(t, (left + side - px) / dx);
  if (dx < 0) t = Math.min(t, (left - px) / dx);
  if (dy > 0) t = Math.min(t, (top + side - py) / dy);
  if (dy < 0) t = Math.min(t, (top - py) / dy);
  return Math.max(0, t);
}

// A slider's value as its step shows it (no 0.30000000000000004).
export function stepped(value, step) {
  const decimals = Math.max(0, -Math.floor(Math.log10(step)) + 1);
  return Number(value.toFixed(decimals));
}

// The y range worth showing: the middle 96 % of the finite values (a pole would flatten the rest), with
// the point itself, padded.
export function shownRange(values, must) {
  const finite = values.filter((v) => v !== null && Number.isFinite(v)).sort((a, b) => a - b);
  if (must !== null && Number.isFinite(must)) finite.push(must);
  if (!finite.length) return [-1, 1];
  finite.sort((a, b) => a - b);
  const at = (q) => finite[Math.min(finite.length - 1, Math.max(0, Math.round(q * (finite.length - 1))))];
  let lo = Math.min(at(0.02), must ?? Infinity), hi = Math.max(at(0.98), must ?? -Infinity);
  if (!(hi > lo)) [lo, hi] = [lo - 1, hi + 1];
  const pad = 0.08 * (hi - lo);
  return [lo - pad, hi + pad];
}

// The contour levels of sorted finite values: their (1/count), (2/count), … ((count-1)/count) quantiles.
export function contourLevels(sorted, count) {
  const levels = [];
  for (let q = 1; q < count; q++) levels.push(sorted[Math.floor((q / count) * (sorted.length - 1))]);
  return levels;
}

// Marching squares: the segments ([[x, y], [x, y]], in the grid's units) where the surface zs (row i at ys[i],
// column j at xs[j], flat row-major) crosses `level`; a cell with a missing or non-finite corner has none.
export function contourSegments(xs, ys, zs, level) {
  const n = xs.length, segments = [];
  const z = (i, j) => zs[i * n + j];
  for (let i = 0; i < ys.length - 1; i++) {
    for (let j = 0; j < n - 1; j++) {
      const corners = [[i, j], [i, j + 1], [i + 1, j + 1], [i + 1, j]].map(([a, b]) => ({ x: xs[b], y: ys[a], v: z(a, b) }));
      if (corners.some((p) => p.v === null || !Number.isFinite(p.v))) continue;
      const hits = [];
      for (let e = 0; e < 4; e++) {
        const p = corners[e], q = corners[(e + 1) % 4];
        if ((p.v < level) !== (q.v < level)) {
          const t = (level - p.v) / (q.v - p.v);
          hits.push([p.x + t * (q.x - p.x), p.y + t * (q.y - p.y)]);
        }
      }
      for (let h = 0; h + 1 < hits.length; h += 2) segments.push([hits[h], hits[h + 1]]);
    }
  }
  return segments;
}
