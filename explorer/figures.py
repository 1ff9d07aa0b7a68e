"""Plotly figures for the Training Playground: boundary, fitted curve, curves, network, replay.

Colours: class 0 orange, class 1 blue, class 2 green, ... (`CLASS_COLOURS`). In the boundary
heatmap a pale shade means the model is unsure and a saturated one that it is confident. Train
points are filled circles, test points hollow diamonds. In the network diagram an edge's width
is |weight| and its colour the sign (blue positive, orange negative).

Every builder takes plain NumPy arrays and lists and returns a figure as a plain dict
({"data": [...], "layout": {...}}) that `st.plotly_chart`, `go.Figure(spec)` and the live chart
accept. Dicts, not `go.Figure`, because building a validated go.Figure costs ~35 ms and the live
chart redraws 10 times a second. `to_json` sends NumPy arrays as base64 typed arrays (Plotly's
own encoding) and the heatmap as uint8/uint16 levels, so a 100×100 boundary is ~30 KB.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence

import numpy as np

CLASS_COLOURS = (
    "#f28e2b",
    "#1f77b4",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)
POSITIVE = "#1f77b4"
NEGATIVE = "#f28e2b"
# The dtypes plotly.js decodes from base64 ("bdata"); others are sent as float64.
_BINARY_DTYPES = frozenset({"f4", "f8", "u1", "i1", "u2", "i2", "u4", "i4"})
# How many levels the boundary heatmap distinguishes per class (z is an integer).
LEVELS = 100
LOG_MINOR_TICK_DECADES = 3  # a log axis spanning more decades than this gets Plotly's own ticks


# ------------------------------------------------------------------------ helpers


def _mix(colour: str, amount: float) -> str:
    """`colour` blended with white: amount 0 = white, 1 = the colour itself."""
    rgb = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    r, g, b = (round(255 + (c - 255) * amount) for c in rgb)
    return f"rgb({r},{g},{b})"


def _layout(title: str, height: int, **extra) -> dict:
    layout = {
        "title": {"text": title, "x": 0.01, "xanchor": "left", "font": {"size": 14}},
        "height": height,
        "margin": {"l": 48, "r": 12, "t": 48, "b": 40},
        "font": {"family": "sans-serif", "size": 12},
        "template": "plotly_white",
        "paper_bgcolor": "white",
        "plot_bgcolor": "white",
        "legend": {"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "right", "x": 1.0},
    }
    layout.update(extra)
    return layout


def _rounded(values: Sequence[float] | np.ndarray) -> list[float | None]:
    """Floats with 5 significant digits; NaN and inf become gaps (None)."""
    out: list[float | None] = []
    for v in np.asarray(values, dtype=np.float64).ravel():
        out.append(float(f"{v:.5g}") if np.isfinite(v) else None)
    return out


def _encode(value):
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "f":
            value = value.astype(np.float32) if value.size > 64 else value
        if value.dtype.kind not in "fiu":
            return value.tolist()
        dtype = value.dtype.str[1:]
        if dtype not in _BINARY_DTYPES:
            value, dtype = value.astype(np.float64), "f8"
        data = np.ascontiguousarray(value.astype(value.dtype.newbyteorder("<")))
        out = {"dtype": dtype, "bdata": base64.b64encode(data.tobytes()).decode("ascii")}
        if value.ndim > 1:
            out["shape"] = ", ".join(str(s) for s in value.shape)
        return out
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"cannot encode {type(value).__name__} as JSON")


def to_json(spec: dict) -> str:
    """JSON for a figure dict; NumPy arrays become Plotly's base64 typed arrays."""
    return json.dumps(spec, default=_encode, separators=(",", ":"))


# --------------------------------------------------------------- decision boundary


def boundary_levels(probs: np.ndarray) -> tuple[np.ndarray, list, int]:
    """Encode grid probabilities as integer heatmap levels and the matching colourscale.

    probs: (H, W) probability of class 1 for two classes, or (H, W, C) softmax for C ≥ 3.
    Two classes: z = round(100·p) in 0..100 on an orange-white-blue scale.
    C classes: z = 100·k + confidence level, where k is the winning class; each class owns a
    band of the colourscale from white (unsure) to its colour (sure).
    Returns (z, colourscale, zmax).
    """
    if probs.ndim == 2:
        z = np.rint(np.clip(np.nan_to_num(probs, nan=0.5), 0.0, 1.0) * LEVELS).astype(np.uint8)
        scale = [
            [0.0, _mix(CLASS_COLOURS[0], 0.6)],
            [0.5, "rgb(250,250,250)"],
            [1.0, _mix(CLASS_COLOURS[1], 0.6)],
        ]
        return z, scale, LEVELS
    n_classes = probs.shape[-1]
    probs = np.nan_to_num(probs, nan=1.0 / n_classes)
    winner = probs.argmax(axis=-1)
    top = probs.max(axis=-1)
    # NOTE: the top probability of C classes is at least 1/C; rescale [1/C, 1] to [0, LEVELS-1].
    confidence = np.clip((top - 1.0 / n_classes) / (1.0 - 1.0 / n_classes), 0.0, 1.0)
    z = (winner * LEVELS + np.rint(confidence * (LEVELS - 1))).astype(np.uint16)
    zmax = n_classes * LEVELS - 1
    scale = []
    for k in range(n_classes):
        colour = CLASS_COLOURS[k % len(CLASS_COLOURS)]
        scale.append([round(k * LEVELS / zmax, 6), _mix(colour, 0.08)])
        scale.append([round(min((k * LEVELS + LEVELS - 1) / zmax, 1.0), 6), _mix(colour, 0.6)])
    return z, scale, zmax


def _points(X: np.ndarray, y: np.ndarray, n_classes: int, test: bool) -> list[dict]:
    traces = []
    for k in range(n_classes):
        mask = y == k
        if not mask.any():
            continue
        colour = CLASS_COLOURS[k % len(CLASS_COLOURS)]
        if test:
            marker = {"symbol": "diamond-open", "size": 9, "color": colour, "line": {"width": 2.5}}
        else:
            marker = {"symbol": "circle", "size": 7, "color": colour, "line": {"width": 1, "color": "#333"}}
        traces.append(
            {
                "type": "scatter",
                "x": np.round(X[mask, 0], 3).tolist(),
                "y": np.round(X[mask, 1], 3).tolist(),
                "mode": "markers",
                "name": f"class {k} test" if test else f"class {k}",
                "marker": marker,
                "hoverinfo": "skip",
            }
        )
    return traces


def decision_boundary(
    xs: np.ndarray,
    ys: np.ndarray,
    probs: np.ndarray,
    X_train: np.ndarray,
    y_train: np.ndarray,
    X_test: np.ndarray | None = None,
    y_test: np.ndarray | None = None,
    *,
    n_classes: int = 2,
    title: str = "Decision boundary",
    caption: str = "",
    height: int = 460,
    frames: Sequence[dict] = (),
) -> dict:
    """Class probability over the grid as a heatmap (trace 0), with the points on top.

    xs (W,), ys (H,): grid coordinates; probs (H, W) for 2 classes or (H, W, C).
    `caption` goes to layout.meta (the live chart shows it above the plot).
    `frames`: earlier snapshots {'probs', 'caption', 'step'} the live chart paints one after
    another before this figure's own heatmap (layout.meta.frames, levels like z).
    """
    z, scale, zmax = boundary_levels(probs)
    heatmap = {
        "type": "heatmap",
        "x": np.round(xs, 3).tolist(),
        "y": np.round(ys, 3).tolist(),
        "z": z,
        "zmin": 0,
        "zmax": zmax,
        "zsmooth": "best",
        "colorscale": scale,
        "showscale": False,
        "hoverinfo": "skip",
        "name": "model",
    }
    data = [heatmap, *_points(X_train, y_train, n_classes, test=False)]
    if X_test is not None and y_test is not None and len(y_test):
        data += _points(X_test, y_test, n_classes, test=True)
    x_range = [float(xs[0]), float(xs[-1])]
    y_range = [float(ys[0]), float(ys[-1])]
    layout = _layout(
        title,
        height,
        uirevision="boundary",
        showlegend=False,
        meta={
            "caption": caption,
            "frames": [
                {"z": boundary_levels(f["probs"])[0], "caption": f["caption"], "step": f["step"]} for f in frames
            ],
        },
        # NOTE: both axes shrink their domain to keep x and y at one scale; with the default
        # (constrain="range") Plotly widened x's range instead, past the heatmap's edges.
        xaxis={"title": {"text": "x1"}, "range": x_range, "showgrid": False, "zeroline": False, "constrain": "domain"},
        yaxis={
            "title": {"text": "x2"},
            "range": y_range,
            "showgrid": False,
            "zeroline": False,
            "scaleanchor": "x",
            "scaleratio": 1,
            "constrain": "domain",
        },
    )
    return {"data": data, "layout": layout}


def state_view(state, grid: np.ndarray, *, caption: str = "", title: str = "", frames: Sequence[dict] = ()) -> dict:
    """The playground's picture of a training state (explorer.training.TrainState): the decision boundary
    for classification (with queued `frames`), the fitted curve for regression; `grid` is the model's
    prediction over the state's grid. layout.meta.step is the state's step."""
    if state.task == "regression":
        spec = regression_fit(
            state.xs, grid, state.X_train, state.y_train, state.X_test, state.y_test, caption=caption, title=title
        )
    else:
        spec = decision_boundary(
            state.xs,
            state.ys,
            grid,
            state.X_train,
            state.y_train,
            state.X_test,
            state.y_test,
            n_classes=state.n_classes,
            caption=caption,
            title=title,
            frames=frames,
        )
    spec["layout"]["meta"]["step"] = state.step
    return spec


def regression_fit(
    xs: np.ndarray,
    pred: np.ndarray,
    X_train: np.ndarray,
    y_train: np.ndarray,
    X_test: np.ndarray | None = None,
    y_test: np.ndarray | None = None,
    *,
    title: str = "Fitted curve",
    caption: str = "",
    height: int = 460,
) -> dict:
    """The model's prediction over xs as a line (the last trace), with the data as points."""
    data = [
        {
            "type": "scatter",
            "x": np.round(X_train[:, 0], 3).tolist(),
            "y": np.round(y_train, 3).tolist(),
            "mode": "markers",
            "name": "train",
            "marker": {"size": 6, "color": CLASS_COLOURS[1], "opacity": 0.7},
            "hoverinfo": "skip",
        }
    ]
    if X_test is not None and y_test is not None and len(y_test):
        data.append(
            {
                "type": "scatter",
                "x": np.round(X_test[:, 0], 3).tolist(),
                "y": np.round(y_test, 3).tolist(),
                "mode": "markers",
                "name": "test",
                "marker": {"size": 8, "symbol": "diamond-open", "color": CLASS_COLOURS[0], "line": {"width": 2}},
                "hoverinfo": "skip",
            }
        )
    y_all = np.concatenate([y_train, y_test if y_test is not None else y_train])
    pad = 0.15 * float(np.ptp(y_all) or 1.0)
    data.append(
        {
            "type": "scatter",
            "x": np.round(xs, 3).tolist(),
            "y": _rounded(np.clip(pred, y_all.min() - 10 * pad, y_all.max() + 10 * pad)),
            "mode": "lines",
            "name": "model",
            "line": {"color": "#222", "width": 3},
        }
    )
    layout = _layout(
        title,
        height,
        uirevision="fit",
        meta={"caption": caption},
        xaxis={"title": {"text": "x"}, "range": [float(xs[0]), float(xs[-1])]},
        yaxis={"title": {"text": "y"}, "range": [float(y_all.min() - pad), float(y_all.max() + pad)]},
    )
    return {"data": data, "layout": layout}


# ------------------------------------------------------------------------- curves


def _line(x, y, name: str, colour: str | None = None, dash: str = "solid") -> dict:
    line = {"width": 2, "dash": dash}
    if colour:
        line["color"] = colour
    return {"type": "scatter", "x": list(x), "y": _rounded(y), "mode": "lines", "name": name, "line": line}


def loss_curves(
    steps: Sequence[int],
    train_loss: Sequence[float],
    test_loss: Sequence[float] | None = None,
    *,
    log_y: bool = True,
    height: int = 280,
) -> dict:
    """Train (and test) loss against the step."""
    data = [_line(steps, train_loss, "train loss", CLASS_COLOURS[1])]
    if test_loss is not None:
        data.append(_line(steps, test_loss, "test loss", CLASS_COLOURS[0], "dot"))
    last = max(list(steps)[-1] if len(steps) else 0, 10)
    layout = _layout(
        "Loss",
        height,
        uirevision="loss",
        xaxis={"title": {"text": "step"}, "range": [0, last]},
        yaxis=_log_axis("loss", train_loss, test_loss) if log_y else {"title": {"text": "loss"}},
    )
    if len(steps) < 2:  # one point draws no line: say how to get one
        layout["annotations"] = [
            {"text": "Press Play or Step to train", "showarrow": False, "xref": "paper", "yref": "paper",
             "x": 0.5, "y": 0.5, "font": {"size": 13, "color": "#6b7280"}}
        ]
    return {"data": data, "layout": layout}


def _log_axis(title: str, *series: Sequence[float] | None) -> dict:
    """A log y axis whose ticks stay few: minor "D2" labels (1, 2, 5, 10 ...) over a few decades,
    Plotly's own choice over many. "D2" over a diverged run's 1e-1 .. 1e300 asks the browser for
    thousands of tick labels and freezes the page for seconds."""
    values = np.concatenate([np.asarray(s, dtype=np.float64).ravel() for s in series if s is not None] or [[]])
    values = values[np.isfinite(values) & (values > 0)]
    axis = {"title": {"text": title}, "type": "log", "exponentformat": "power"}  # 10⁻⁴, not "100µ"
    if values.size and np.log10(values.max()) - np.log10(values.min()) <= LOG_MINOR_TICK_DECADES:
        axis["dtick"] = "D2"
    return axis


def accuracy_curves(
    steps: Sequence[int],
    train_acc: Sequence[float],
    test_acc: Sequence[float] | None = None,
    *,
    height: int = 280,
) -> dict:
    """Train (and test) accuracy in percent against the step (accuracies given as fractions)."""
    data = [_line(steps, np.asarray(train_acc) * 100, "train accuracy", CLASS_COLOURS[1])]
    if test_acc is not None:
        data.append(_line(steps, np.asarray(test_acc) * 100, "test accuracy", CLASS_COLOURS[0], "dot"))
    layout = _layout(
        "Accuracy",
        height,
        uirevision="acc",
        xaxis={"title": {"text": "step"}},
        yaxis={"title": {"text": "accuracy (%)"}, "range": [0, 101]},
    )
    return {"data": data, "layout": layout}


def gradient_norms(steps: Sequence[int], norms: np.ndarray, layer_names: Sequence[str], *, height: int = 280) -> dict:
    """Per-layer gradient norm over time. norms: (T, L), one column per layer."""
    norms = np.asarray(norms, dtype=np.float64).reshape(len(steps), len(layer_names))
    data = [_line(steps, norms[:, j], name) for j, name in enumerate(layer_names)]
    layout = _layout(
        "Gradient norm per layer",
        height,
        uirevision="grad",
        xaxis={"title": {"text": "step"}},
        yaxis=_log_axis("grad norm (log)", norms),
    )
    return {"data": data, "layout": layout}


# -------------------------------------------------------------- neurons, network


def neuron_heatmaps(
    xs: np.ndarray, ys: np.ndarray, activations: Sequence[np.ndarray], *, max_per_layer: int = 8
) -> dict:
    """One small heatmap per hidden neuron: its output over the input grid.

    activations: one array (H, W, width) per hidden layer. Rows are layers; at most
    `max_per_layer` neurons per layer are drawn, each scaled to its own largest |value|.
    """
    rows = max(len(activations), 1)
    cols = max(1, min(max_per_layer, max((a.shape[-1] for a in activations), default=1)))
    margin = {"l": 10, "r": 10, "t": 56, "b": 10}
    height = 80 + 112 * rows
    # NOTE: the gap between rows is in pixels, room for the next row's labels ("L2 n1"), which
    # overlapped the pictures above when it was a fraction of the height.
    gap_x, gap_y = 0.02, 22 / (height - margin["t"] - margin["b"])
    width = (1 - gap_x * (cols - 1)) / cols
    height_frac = (1 - gap_y * (rows - 1)) / rows
    data: list[dict] = []
    layout = _layout(
        "What each hidden neuron computes over the input plane (blue > 0, orange < 0)",
        height,
        annotations=[],
        margin=margin,
    )
    for i, act in enumerate(activations):
        for j in range(min(cols, act.shape[-1])):
            n = i * cols + j + 1
            suffix = "" if n == 1 else str(n)
            z = act[:, :, j]
            scale = float(np.max(np.abs(z))) if np.isfinite(z).all() else 0.0
            level = np.rint(np.clip(z / (scale or 1.0), -1, 1) * 50).astype(np.int8)
            data.append(
                {
                    "type": "heatmap",
                    "x": np.round(xs, 2).tolist(),
                    "y": np.round(ys, 2).tolist(),
                    "z": level,
                    "zmin": -50,
                    "zmax": 50,
                    "colorscale": [[0, NEGATIVE], [0.5, "white"], [1, POSITIVE]],
                    "showscale": False,
                    "hoverinfo": "skip",
                    "xaxis": f"x{suffix}",
                    "yaxis": f"y{suffix}",
                    "name": f"layer {i + 1} neuron {j + 1}",
                }
            )
            x0 = j * (width + gap_x)
            y1 = 1 - i * (height_frac + gap_y)
            axis = {"visible": False}
            layout[f"xaxis{suffix}"] = {**axis, "domain": [x0, x0 + width], "anchor": f"y{suffix}"}
            bottom = max(0.0, round(y1 - height_frac, 6))  # Plotly refuses a domain of -5e-17
            layout[f"yaxis{suffix}"] = {**axis, "domain": [bottom, round(y1, 6)], "anchor": f"x{suffix}"}
            layout["annotations"].append(
                {
                    "text": f"L{i + 1} n{j + 1}",
                    "showarrow": False,
                    "xref": "paper",
                    "yref": "paper",
                    "x": x0 + width / 2,
                    "y": y1,
                    "yanchor": "bottom",
                    "font": {"size": 10},
                }
            )
    return {"data": data, "layout": layout}


def network_diagram(
    weights: Sequence[np.ndarray],
    input_names: Sequence[str],
    output_names: Sequence[str],
    *,
    max_edges: int = 800,
    height: int = 360,
) -> dict:
    """The MLP as nodes and edges; edge width grows with |weight|, colour is the sign.

    weights: the Linear weights in order, each (out, in) like PyTorch. With more than
    `max_edges` edges only the largest by |weight| are drawn (the title says so).
    """
    sizes = [weights[0].shape[1], *(w.shape[0] for w in weights)] if weights else [len(input_names)]
    pos = []
    for layer, size in enumerate(sizes):
        spread = min(1.0, size / 8)
        yy = np.linspace(spread, -spread, size) if size > 1 else np.zeros(1)
        pos.append(np.column_stack([np.full(size, float(layer)), yy]))
    blocks = []
    for layer, w in enumerate(weights):
        out_idx, in_idx = np.indices(w.shape)
        blocks.append(np.column_stack([np.full(w.size, layer), in_idx.ravel(), out_idx.ravel(), w.ravel()]))
    edges = np.vstack(blocks) if blocks else np.zeros((0, 4))
    total = len(edges)
    if total > max_edges:
        keep = np.argsort(-np.abs(np.nan_to_num(edges[:, 3])))[:max_edges]
        edges = edges[np.sort(keep)]
    magnitude = np.abs(np.nan_to_num(edges[:, 3]))
    biggest = float(magnitude.max()) if len(edges) and magnitude.max() > 0 else 1.0
    buckets = np.minimum((magnitude / biggest * 4).astype(int), 3)
    data: list[dict] = []
    # Edges in 4 width buckets per sign: at most 8 traces, each one line broken by gaps.
    for sign, colour, label in ((1, POSITIVE, "positive weight"), (-1, NEGATIVE, "negative weight")):
        chosen = np.sign(edges[:, 3]) == sign
        if not chosen.any():
            continue
        top = int(buckets[chosen].max())
        for b in range(4):
            mask = chosen & (buckets == b)
            if not mask.any():
                continue
            xs_line: list[float | None] = []
            ys_line: list[float | None] = []
            for layer, i, o, _ in edges[mask]:
                a = pos[int(layer)][int(i)]
                c = pos[int(layer) + 1][int(o)]
                xs_line += [float(a[0]), float(c[0]), None]
                ys_line += [round(float(a[1]), 3), round(float(c[1]), 3), None]
            data.append(
                {
                    "type": "scatter",
                    "x": xs_line,
                    "y": ys_line,
                    "mode": "lines",
                    "hoverinfo": "skip",
                    "line": {"color": colour, "width": 0.5 + 1.5 * b},
                    "opacity": 0.35 + 0.2 * b,
                    "name": label,
                    "legendgroup": label,
                    "showlegend": b == top,
                }
            )
    hidden = [[f"h{k + 1}.{j + 1}" for j in range(s)] for k, s in enumerate(sizes[1:-1])]
    labels = [*input_names, *(n for layer in hidden for n in layer), *output_names]
    data.append(
        {
            "type": "scatter",
            "x": np.concatenate([p[:, 0] for p in pos]).tolist(),
            "y": np.round(np.concatenate([p[:, 1] for p in pos]), 3).tolist(),
            "mode": "markers",
            "text": labels,
            "hoverinfo": "text",
            "marker": {
                "size": 12 if max(sizes) <= 16 else 6,
                "color": "white",
                "line": {"width": 1.5, "color": "#444"},
            },
            "name": "neuron",
            "showlegend": False,
        }
    )
    data.append(
        {
            "type": "scatter",
            "x": [-0.1] * len(input_names) + [len(sizes) - 0.9] * len(output_names),
            "y": np.round(np.concatenate([pos[0][:, 1], pos[-1][:, 1]]), 3).tolist(),
            "mode": "text",
            "text": [*input_names, *output_names],
            "textposition": ["middle left"] * len(input_names) + ["middle right"] * len(output_names),
            "cliponaxis": False,  # a long name ("logit (class 1)") runs into the margin, not off the plot
            "hoverinfo": "skip",
            "showlegend": False,
        }
    )
    title = "Network: edge width = |weight|, blue positive, orange negative"
    if total > max_edges:
        title += f" (largest {max_edges} of {total} edges)"
    layout = _layout(
        title,
        height,
        xaxis={"visible": False, "range": [-0.9, len(sizes) - 0.1]},
        yaxis={"visible": False, "range": [-1.15, 1.15]},
        margin={"l": 48, "r": 12 + 7 * max(map(len, output_names), default=0), "t": 48, "b": 40},
    )
    return {"data": data, "layout": layout}


# -------------------------------------------------------------------------- replay


def replay(
    frames: Sequence[dict],
    xs: np.ndarray,
    ys: np.ndarray,
    X_train: np.ndarray,
    y_train: np.ndarray,
    *,
    task: str,
    n_classes: int = 2,
    height: int = 500,
) -> dict:
    """A Plotly animation over recorded frames, with a play button and a slider.

    frames: dicts with 'step', 'loss' and 'grid': grid probabilities (H, W[, C]) for
    classification, predictions over xs for regression. Only the model trace changes.
    """
    if not frames:
        raise ValueError("no frames recorded yet: train for a few steps first")
    first = frames[0]
    if task == "classification":
        spec = decision_boundary(xs, ys, first["grid"], X_train, y_train, n_classes=n_classes, height=height)
        model = 0
    else:
        spec = regression_fit(xs, first["grid"], X_train, y_train, height=height)
        model = len(spec["data"]) - 1

    def title(frame: dict) -> str:
        return f"Replay: step {frame['step']}, loss {frame['loss']:.4g}"

    anim = []
    for frame in frames:
        if task == "classification":
            trace = {"type": "heatmap", "z": boundary_levels(frame["grid"])[0]}
        else:
            trace = {"type": "scatter", "y": _rounded(frame["grid"])}
        anim.append(
            {
                "name": str(frame["step"]),
                "data": [trace],
                "traces": [model],
                "layout": {"title": {"text": title(frame)}},
            }
        )
    spec["frames"] = anim
    spec["layout"]["title"]["text"] = title(first)
    spec["layout"]["margin"] = {"l": 48, "r": 12, "t": 48, "b": 110}
    spec["layout"]["updatemenus"] = [
        {
            "type": "buttons",
            "showactive": False,
            "x": 0.0,
            "y": -0.14,
            "xanchor": "left",
            "yanchor": "top",
            "direction": "left",
            "buttons": [
                {
                    "label": "▶ Play",
                    "method": "animate",
                    "args": [
                        None,
                        {"frame": {"duration": 80, "redraw": True}, "fromcurrent": True, "transition": {"duration": 0}},
                    ],
                },
                {
                    "label": "❚❚ Pause",
                    "method": "animate",
                    "args": [[None], {"mode": "immediate", "frame": {"duration": 0, "redraw": False}}],
                },
            ],
        }
    ]
    spec["layout"]["sliders"] = [
        {
            "active": 0,
            "x": 0.25,
            "y": -0.1,
            "len": 0.75,
            "xanchor": "left",
            "yanchor": "top",
            "currentvalue": {"prefix": "step ", "font": {"size": 12}},
            "steps": [
                {
                    "label": f["name"],
                    "method": "animate",
                    "args": [
                        [f["name"]],
                        {"mode": "immediate", "frame": {"duration": 0, "redraw": True}, "transition": {"duration": 0}},
                    ],
                }
                for f in anim
            ],
        }
    ]
    return spec
