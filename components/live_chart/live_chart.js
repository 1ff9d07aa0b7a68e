// Live Plotly chart for Streamlit: one div per chart, redrawn in place, never remounted.
//
// Streamlit calls the default export on mount and again on every data update with
// data = {figure: "<plotly figure JSON>", plotly_url, height, name}.
// - The first figure, and any figure whose layout or traces changed, goes through Plotly.react;
//   a redraw of a chart already on screen (and a resize) happens under a static snapshot of the
//   old picture, removed when the new one is drawn, so the chart never shows blank or half-drawn.
// - When only the heatmap's z changed (the live decision boundary), the new z is painted into a
//   small canvas and swapped into the heatmap's <image>: no Plotly relayout, a few ms per frame.
//   gd.data is kept in sync so a later Plotly redraw (resize) shows the same picture.
// - layout.meta.caption (e.g. "step 312 · loss 0.041") is shown above the chart and is not part
//   of the comparison, so a changing caption does not force a relayout.
// - layout.meta.frames: earlier heatmaps (same encoding as z) of the same message; they are
//   painted first, spread over the time between messages, then the figure's own z.
// window.__liveCharts[name] = {draws, fastDraws, fullDraws, resizes, received, mounts, step,
//   lastDrawMs, drawTimes} for tests: draws = pictures painted, received = messages from Streamlit.

let plotlyPromise = null;

function loadPlotly(url) {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (plotlyPromise) return plotlyPromise;
  plotlyPromise = new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = url;
    script.async = true;
    script.onload = () => resolve(window.Plotly);
    script.onerror = () => {
      plotlyPromise = null;
      reject(new Error("could not load plotly.js from " + url));
    };
    document.head.appendChild(script);
  });
  return plotlyPromise;
}

function statsFor(name) {
  window.__liveCharts = window.__liveCharts || {};
  if (!window.__liveCharts[name]) {
    window.__liveCharts[name] = {
      draws: 0, fastDraws: 0, fullDraws: 0, resizes: 0, received: 0, mounts: 0, lastDrawMs: 0,
      drawTimes: [], step: null,
    };
  }
  return window.__liveCharts[name];
}

const TYPED = { u1: Uint8Array, i1: Int8Array, u2: Uint16Array, i2: Int16Array, f4: Float32Array, f8: Float64Array };

function decode(z) {
  // Plotly's base64 typed-array encoding {dtype, bdata, shape} -> {values, rows, cols}.
  if (!z || !z.bdata || !TYPED[z.dtype]) return null;
  const raw = atob(z.bdata);
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  const shape = String(z.shape).split(",").map((s) => parseInt(s, 10));
  return { values: new TYPED[z.dtype](bytes.buffer), rows: shape[0], cols: shape[1] };
}

function parseColour(text) {
  const m = /rgba?\(([^)]+)\)/.exec(text);
  if (m) return m[1].split(",").slice(0, 3).map((v) => parseFloat(v));
  const h = text.replace("#", "");
  return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16));
}

function lookupTable(trace) {
  // One RGB entry per integer level zmin..zmax, interpolated along the colourscale.
  const zmin = trace.zmin, zmax = trace.zmax;
  const stops = trace.colorscale.map(([pos, colour]) => [pos, parseColour(colour)]);
  const n = zmax - zmin + 1;
  const table = new Uint8ClampedArray(n * 3);
  for (let i = 0; i < n; i++) {
    const t = n > 1 ? i / (n - 1) : 0;
    let k = 1;
    while (k < stops.length - 1 && stops[k][0] < t) k++;
    const [p0, c0] = stops[k - 1], [p1, c1] = stops[k];
    const f = p1 > p0 ? Math.min(Math.max((t - p0) / (p1 - p0), 0), 1) : 0;
    for (let c = 0; c < 3; c++) table[i * 3 + c] = c0[c] + (c1[c] - c0[c]) * f;
  }
  return { table, zmin, n };
}

function paintHeatmap(host, trace, grid) {
  const image = host.querySelector(".heatmaplayer image");
  if (!image) return false;
  if (!host.__lut || host.__lutFor !== trace.colorscale) {
    host.__lut = lookupTable(trace);
    host.__lutFor = trace.colorscale;
  }
  const { table, zmin, n } = host.__lut;
  let canvas = host.__canvas;
  if (!canvas || canvas.width !== grid.cols || canvas.height !== grid.rows) {
    canvas = host.__canvas = document.createElement("canvas");
    canvas.width = grid.cols;
    canvas.height = grid.rows;
  }
  const ctx = canvas.getContext("2d");
  const pixels = ctx.createImageData(grid.cols, grid.rows);
  const out = pixels.data;
  for (let r = 0; r < grid.rows; r++) {
    // NOTE: heatmap row 0 is the bottom of the plot (y ascending), image row 0 is the top.
    const src = (grid.rows - 1 - r) * grid.cols;
    for (let c = 0; c < grid.cols; c++) {
      const level = Math.min(Math.max(grid.values[src + c] - zmin, 0), n - 1);
      const o = (r * grid.cols + c) * 4;
      out[o] = table[level * 3];
      out[o + 1] = table[level * 3 + 1];
      out[o + 2] = table[level * 3 + 2];
      out[o + 3] = 255;
    }
  }
  ctx.putImageData(pixels, 0, 0);
  const url = canvas.toDataURL();
  image.setAttribute("href", url);
  image.setAttributeNS("http://www.w3.org/1999/xlink", "xlink:href", url);
  image.style.imageRendering = "auto";
  return true;
}

function signature(figure) {
  // Everything but the heatmap values and layout.meta (caption, step, queued frames).
  const data = figure.data.map((t, i) => (i === 0 && t.type === "heatmap" ? { ...t, z: null } : t));
  const layout = { ...figure.layout, meta: null };
  return JSON.stringify([data, layout]);
}

function snapshot(host) {
  // A static copy of the current picture laid over the chart while Plotly redraws it in full
  // (a new layout, a resize), so the chart is never seen half-drawn. Removed after the redraw.
  // NOTE: the copy sits beside the chart, not inside it, so Plotly's own DOM is never touched,
  // and at most one copy exists at a time.
  const container = host.querySelector(".plot-container .svg-container");
  const parent = host.parentElement;
  if (!container || !parent) return null;
  for (const old of parent.querySelectorAll(":scope > .live-snapshot")) old.remove();
  const copy = container.cloneNode(true);
  copy.classList.add("live-snapshot");
  parent.style.position = "relative";
  Object.assign(copy.style, {
    position: "absolute",
    left: host.offsetLeft + "px",
    top: host.offsetTop + "px",
    pointerEvents: "none",
    zIndex: "5",
  });
  parent.appendChild(copy);
  return copy;
}

function release(copy) {
  if (copy) requestAnimationFrame(() => requestAnimationFrame(() => copy.remove()));
}

function watchSize(Plotly, host) {
  // Our own resize handling (instead of Plotly's `responsive`) so a resize redraws under a snapshot.
  if (host.__observer) return;
  let width = host.clientWidth;
  let timer = null;
  host.__observer = new ResizeObserver(() => {
    if (Math.abs(host.clientWidth - width) < 1) return;
    width = host.clientWidth;
    clearTimeout(timer);
    timer = setTimeout(() => {
      // Not while the chart is detached or hidden (the user left the page): Plotly throws then.
      if (!host.data || !host.isConnected || host.clientWidth === 0 || host.offsetParent === null) return;
      const copy = snapshot(host);
      statsFor(host.dataset.name).resizes += 1;
      Promise.resolve()
        .then(() => Plotly.Plots.resize(host))
        .catch(() => {})
        .finally(() => release(copy));
    }, 60);
  });
  host.__observer.observe(host);
}

function countDraw(host, stats, t0) {
  // One picture painted (in place or by a full redraw) that started at t0: the tests read these.
  stats.draws += 1;
  stats.lastDrawMs = performance.now();
  stats.drawTimes.push(Math.round((stats.lastDrawMs - t0) * 10) / 10);
  if (stats.drawTimes.length > 300) stats.drawTimes.shift();
  host.dataset.draws = String(stats.draws);
}

function play(host, trace, queue, stats, caption) {
  // Paint the queued heatmaps one after another, spread evenly over the time between messages,
  // so several snapshots per Streamlit round trip show as a smooth animation.
  // NOTE: the colourscale and grid never change within one signature, so `trace` may be the
  // newest message's heatmap trace for frames queued by an older message.
  const now = performance.now();
  if (host.__lastMessage) {
    const gap = Math.min(now - host.__lastMessage, 1000);
    host.__gap = host.__gap ? 0.7 * host.__gap + 0.3 * gap : gap;
  }
  host.__lastMessage = now;
  // Append (every snapshot gets painted) but keep at most two messages' worth, so the picture
  // never lags more than about one message behind the training.
  host.__queue = (host.__queue || []).concat(queue).slice(-2 * queue.length);
  host.__spacing = Math.min(Math.max((host.__gap || 100) / queue.length, 25), 250);
  const tick = () => {
    const item = host.__queue.shift();
    if (!item) {
      host.__playing = false;
      return;
    }
    const t0 = performance.now();
    const grid = decode(item.z);
    if (grid && paintHeatmap(host, trace, grid)) {
      host.data[0].z = item.z; // so a later full Plotly redraw shows this frame
      if (caption) caption.textContent = item.caption || "";
      stats.step = item.step === undefined ? null : item.step;
      stats.fastDraws += 1;
      countDraw(host, stats, t0);
    }
    if (host.__queue.length) {
      host.__playing = true;
      setTimeout(tick, host.__spacing);
    } else {
      host.__playing = false;
    }
  };
  if (!host.__playing) tick();
}

function draw(Plotly, host, stats) {
  host.__scheduled = false;
  const text = host.__pending;
  host.__pending = null;
  if (!text) return;
  const figure = JSON.parse(text);
  const meta = (figure.layout && figure.layout.meta) || {};
  const caption = host.parentElement.querySelector("div.live-caption");
  const t0 = performance.now();
  const sig = signature(figure);
  const first = figure.data[0];
  if (sig === host.__sig && host.data && first && first.type === "heatmap" && first.z && first.z.bdata) {
    const queue = (meta.frames || []).map((f) => ({ z: f.z, caption: f.caption, step: f.step }));
    queue.push({ z: first.z, caption: meta.caption, step: meta.step });
    play(host, first, queue, stats, caption);
    return;
  }
  host.__sig = sig;
  host.__queue = [];
  if (caption) caption.textContent = meta.caption || "";
  stats.step = meta.step === undefined ? null : meta.step;
  const copy = host.data ? snapshot(host) : null;
  stats.fullDraws += 1;
  Promise.resolve()
    .then(() => Plotly.react(host, figure.data, figure.layout, { displayModeBar: false }))
    .then(() => countDraw(host, stats, t0))
    .catch(() => {
      stats.failedDraws = (stats.failedDraws || 0) + 1; // the next message redraws in full
      host.__sig = null;
    })
    .finally(() => {
      release(copy);
      watchSize(Plotly, host);
    });
}

export default function (component) {
  const { data, parentElement } = component;
  const spec = typeof data === "string" ? JSON.parse(data) : data;
  if (!spec || !spec.figure) return undefined;
  const name = spec.name || "chart";
  const stats = statsFor(name);
  stats.received += 1;

  let host = parentElement.querySelector("div.live-chart");
  if (!host) {
    const caption = document.createElement("div");
    caption.className = "live-caption";
    parentElement.appendChild(caption);
    host = document.createElement("div");
    host.className = "live-chart";
    host.dataset.name = name;
    parentElement.appendChild(host);
    stats.mounts += 1;
  }
  host.style.height = (spec.height || 400) + "px";
  if (spec.figure === host.__lastText) return () => cleanup(host); // unchanged: nothing to draw
  host.__lastText = spec.figure;
  // Latest figure wins: several updates within one animation frame draw only the last.
  host.__pending = spec.figure;
  if (!host.__scheduled) {
    host.__scheduled = true;
    loadPlotly(spec.plotly_url)
      .then((Plotly) => requestAnimationFrame(() => draw(Plotly, host, stats)))
      .catch((err) => {
        host.__scheduled = false;
        host.textContent = String(err);
      });
  }
  return () => cleanup(host);
}

function cleanup(host) {
  // Streamlit calls this when the component unmounts, but also for an update that was superseded
  // while its module was still loading (the chart stays on screen then). So only let go of the
  // chart once it has really left the page.
  setTimeout(() => {
    if (host.isConnected) return;
    if (host.__observer) host.__observer.disconnect();
    host.__observer = null;
    if (window.Plotly) window.Plotly.purge(host);
    host.__lastText = null;
    host.__sig = null;
  }, 1000);
}
