// The live view's boundary panel: the model's class over the input plane (or its fitted curve) with the points,
// and the classes' legend.

import { rgb } from "../../../web/theme.js";
import { addEl, diamond, paintAxes, sizeCanvas } from "../canvas.js";
import { CLASS_COLOURS, readTheme, shadeCell } from "../colours.js";

export default {
  place: "main",
  build(s, parent) {
    const boundary = addEl("div", "lv-panel", parent, { "data-panel": "boundary" });
    s.dom.boundary = boundary;
    s.dom.boundaryTitle = addEl("div", "lv-title", boundary);
    s.dom.boundaryCanvas = addEl("canvas", null, boundary);
    s.dom.legend = addEl("div", "lv-legend", boundary);
  },
  model(s) {
    s.dom.boundaryTitle.textContent = s.model.task === "regression"
      ? "Fitted curve (line) and the points"
      : "Decision boundary: the model's class for each point of the plane";
    paintLegend(s);
  },
  theme: paintLegend,
  paint: (s, frame) => paintBoundary(s, frame, s.pass),
};

function paintBoundary(s, frame, pass) {
  const { model, theme } = s;
  const [W, maxH] = s.size.boundary;
  const m = { l: 34, r: 6, t: 4, b: 24 };
  const [x0, x1] = model.x_range, [y0, y1] = model.y_range;
  let pw = W - m.l - m.r, ph = maxH - m.t - m.b;
  if (model.task !== "regression") {
    const unit = Math.min(pw / (x1 - x0), ph / (y1 - y0)); // one scale for x and y
    pw = unit * (x1 - x0);
    ph = unit * (y1 - y0);
  }
  const H = m.t + ph + m.b; // as tall as the picture needs: the legend follows right below
  const ctx = sizeCanvas(s.dom.boundaryCanvas, W, H);
  ctx.clearRect(0, 0, W, H);
  const ox = m.l + (W - m.l - m.r - pw) / 2, oy = m.t;
  const X = (x) => ox + ((x - x0) / (x1 - x0)) * pw;
  const Y = (y) => oy + ph - ((y - y0) / (y1 - y0)) * ph;
  if (model.task === "regression") {
    paintRegression(ctx, s, pass, X, Y);
  } else {
    const res = pass.res;
    const image = s.scratch(res, res);
    const data = image.ctx.createImageData(res, res);
    for (let r = 0; r < res; r++)
      for (let c = 0; c < res; c++) // row 0 is the bottom of the plot
        shadeCell(theme, pass.out, r * res + c, model.classes, data.data, ((res - 1 - r) * res + c) * 4);
    image.ctx.putImageData(data, 0, 0);
    ctx.imageSmoothingEnabled = true;
    ctx.drawImage(image.canvas, 0, 0, res, res, ox, oy, pw, ph);
    paintPoints(ctx, s, X, Y);
  }
  paintAxes(ctx, theme, ox, oy, pw, ph, [x0, x1], [model.task === "regression" ? model.y_range[0] : y0, model.task === "regression" ? model.y_range[1] : y1],
    model.task === "regression" ? ["x", "y"] : ["x1", "x2"]);
  s.dom.boundary.dataset.step = String(frame.step);
}

function paintPoints(ctx, s, X, Y) {
  const { model, theme } = s;
  const { train, test } = model;
  ctx.lineWidth = 1;
  ctx.strokeStyle = theme.outline;
  for (let i = 0; i < train.x.length; i++) {
    ctx.beginPath();
    ctx.arc(X(train.x[i]), Y(train.y[i]), 3.4, 0, 2 * Math.PI);
    ctx.fillStyle = rgb(theme.classes[train.c[i] % theme.classes.length]);
    ctx.fill();
    ctx.stroke();
  }
  ctx.lineWidth = 2;
  for (let i = 0; i < test.x.length; i++) {
    diamond(ctx, X(test.x[i]), Y(test.y[i]), 4.2);
    ctx.strokeStyle = rgb(theme.classes[test.c[i] % theme.classes.length]);
    ctx.stroke();
  }
}

function paintRegression(ctx, s, pass, X, Y) {
  const { model, theme } = s;
  ctx.save();
  ctx.fillStyle = rgb(theme.classes[1], 0.75);
  for (let i = 0; i < model.train.x.length; i++) {
    ctx.beginPath();
    ctx.arc(X(model.train.x[i]), Y(model.train.y[i]), 3, 0, 2 * Math.PI);
    ctx.fill();
  }
  ctx.strokeStyle = rgb(theme.classes[0]);
  ctx.lineWidth = 2;
  for (let i = 0; i < model.test.x.length; i++) {
    diamond(ctx, X(model.test.x[i]), Y(model.test.y[i]), 4);
    ctx.stroke();
  }
  ctx.restore();
  const [ya, yb] = model.y_range;
  ctx.save();
  ctx.beginPath();
  ctx.rect(X(model.x_range[0]), Y(yb), X(model.x_range[1]) - X(model.x_range[0]), Y(ya) - Y(yb));
  ctx.clip();
  ctx.beginPath();
  for (let i = 0; i < pass.res; i++) {
    const px = X(pass.points[i]), py = Math.max(-1e4, Math.min(1e4, Y(pass.out[i])));
    if (i === 0) ctx.moveTo(px, py);
    else ctx.lineTo(px, py);
  }
  ctx.strokeStyle = rgb(theme.text);
  ctx.lineWidth = 2.5;
  ctx.stroke();
  ctx.restore();
}

function paintLegend(s) {
  const legend = s.dom.legend;
  legend.textContent = "";
  const theme = s.theme || readTheme(s.dom.lv);
  if (s.model.task === "regression") {
    const add = (text, colour, test) => {
      const span = addEl("span", null, legend);
      const dot = addEl("i", test ? "test" : null, span);
      dot.style.background = colour;
      dot.style.borderColor = colour;
      span.append(text);
    };
    add("training points", rgb(theme.classes[1]));
    add("test points", rgb(theme.classes[0]), true);
    addEl("span", null, legend).textContent = "— the model's prediction";
    return;
  }
  for (let k = 0; k < s.model.classes; k++) {
    const span = addEl("span", null, legend, { "data-class": String(k) });
    const dot = addEl("i", null, span);
    dot.style.background = rgb(theme.classes[k % theme.classes.length]);
    span.dataset.colour = CLASS_COLOURS[k % CLASS_COLOURS.length];
    span.append(`class ${k}`);
  }
  const shape = addEl("span", null, legend);
  // NOTE: "fades", not "paler": toward the page's own colour, which on a dark page is darker.
  shape.textContent = "● training · ◇ test points; the colour fades where the model is unsure";
}
