// The live view's curves panel: training (and test) loss and accuracy over the steps so far.

import { addEl, paintChart } from "../canvas.js";

export default {
  place: "side",
  build(s, parent) {
    const curves = addEl("div", "lv-panel", parent, { "data-panel": "curves" });
    addEl("div", "lv-title", curves).textContent = "Loss and accuracy";
    s.dom.lossCanvas = addEl("canvas", null, curves, { "data-chart": "loss" });
    s.dom.accCanvas = addEl("canvas", null, curves, { "data-chart": "accuracy" });
  },
  paint(s, frame, opts) {
    if (!opts.replay && !s.extra.some((f) => f.step === frame.step)) {
      s.extra.push({ step: frame.step, m: frame.m });
      if (s.extra.length > 600) s.extra.splice(0, s.extra.length - 600);
    }
    paintCurves(s, opts.replay ? frame.step : null);
  },
};

function curveData(s) {
  // The history the server sent, then the frames painted since.
  const h = s.history || { step: [], train_loss: [], test_loss: [], train_acc: [], test_acc: [] };
  const last = h.step.length ? h.step[h.step.length - 1] : -1;
  const extra = s.extra.filter((f) => f.step > last);
  const col = (name, k) => h[name].concat(extra.map((f) => f.m[k]));
  return { step: h.step.concat(extra.map((f) => f.step)), train_loss: col("train_loss", 0), test_loss: col("test_loss", 1),
    train_acc: col("train_acc", 2), test_acc: col("test_acc", 3) };
}

function paintCurves(s, marker) {
  const { theme, model } = s;
  const d = curveData(s);
  const hasTest = model.test.x.length > 0;
  const loss = [{ name: "train", values: d.train_loss, colour: theme.classes[1] }];
  if (hasTest) loss.push({ name: "test", values: d.test_loss, colour: theme.classes[0], dash: true });
  paintChart(s.dom.lossCanvas, s.size.loss, theme, d.step, loss, { log: true, title: `Loss (${model.loss}, log scale)`, marker,
    hint: "Press Play or Step to train" });
  if (model.task === "regression") {
    s.dom.accCanvas.style.display = "none";
    return;
  }
  s.dom.accCanvas.style.display = "";
  const acc = [{ name: "train", values: d.train_acc, colour: theme.classes[1] }];
  if (hasTest) acc.push({ name: "test", values: d.test_acc, colour: theme.classes[0], dash: true });
  paintChart(s.dom.accCanvas, s.size.accuracy, theme, d.step, acc, { range: [0, 1], percent: true, title: "Accuracy", marker });
}
