"""The Playground's step written out by hand in NumPy: the step graph's values and grads, and the layers' health."""

import numpy as np

from explorer.playground import step_graph as pg
from explorer.playground import training


def numpy_step(state, params=None):
    """Forward and backward of the step graph written out in NumPy: {name: (data, grad)}."""
    rows = pg.fixed_batch(state)
    X = training.model_inputs(state, state.X_train[rows])
    layers = state.linears()
    if params is None:
        weights = [(layer.weight.data, layer.bias.data) for layer in layers]
    else:
        weights, at = [], 0
        for layer in layers:
            n_out, n_in = layer.weight.data.shape
            end = at + n_out * n_in
            weights.append((params[at:end].reshape(n_out, n_in), params[end : end + n_out]))
            at = end + n_out
    act = {"tanh": (np.tanh, lambda z, a: 1 - a**2), "relu": (lambda z: np.maximum(z, 0), lambda z, a: (z > 0) * 1.0)}
    f, df = act[state.config.activation]
    inputs, zs, outs = [X], [], []
    a = X
    for i, (W, b) in enumerate(weights):
        z = a @ W.T + b
        a = f(z) if i < len(weights) - 1 else z
        zs.append(z)
        outs.append(a)
        inputs.append(a)
    out = outs[-1]
    n = out.size
    if state.task == "regression":
        y = state.y_train[rows][:, None]
        loss = np.mean((out - y) ** 2)
        d = 2 * (out - y) / n
    else:
        y = state.y_train[rows][:, None].astype(float)
        loss = np.mean(np.maximum(out, 0) - out * y + np.log1p(np.exp(-np.abs(out))))
        d = (1 / (1 + np.exp(-out)) - y) / n
    found = {"loss": (loss, 1.0), "out": (out, d), "X": (X, None), "y": (y, None)}
    for i in reversed(range(len(weights))):
        W, b = weights[i]
        found[f"W{i + 1}"] = (W, d.T @ inputs[i])
        found[f"b{i + 1}"] = (b, d.sum(axis=0))
        if i < len(weights) - 1:
            found[f"z{i + 1}"] = (zs[i], d)
        if i > 0:
            da = d @ W
            found[f"h{i}"] = (inputs[i], da)
            d = da * df(zs[i - 1], inputs[i])
    return found


def independent_health(state, activation):
    """One SGD step of a 2-layer network computed here by hand, with every health number."""
    W1, b1, W2, b2 = (p.data.copy() for p in state.model.parameters())
    batch_rng = np.random.default_rng(state.config.seed + 1)
    batch = batch_rng.permutation(len(state.y_train))[: state.config.batch_size]
    X = training.model_inputs(state, state.X_train[batch])
    y = state.y_train[batch].astype(float)
    z = X @ W1.T + b1
    h = {"relu": np.maximum(z, 0), "tanh": np.tanh(z), "sigmoid": 1 / (1 + np.exp(-z))}[activation]
    out = (h @ W2.T + b2)[:, 0]
    dout = ((1 / (1 + np.exp(-out)) - y) / len(y))[:, None]
    dW2 = dout.T @ h
    dz = dout @ W2 * {"relu": (z > 0).astype(float), "tanh": 1 - h * h, "sigmoid": h * (1 - h)}[activation]
    dW1 = dz.T @ X
    lr = state.config.lr
    rows = []
    for W, dW, in ((W1, dW1), (W2, dW2)):
        rows.append({"grad": np.sqrt((dW**2).sum()), "weight": np.sqrt(((W - lr * dW) ** 2).sum()),
                     "ratio": np.sqrt(((lr * dW) ** 2).sum()) / np.sqrt((W**2).sum())})
    dead = np.mean([(h[:, j] == 0).all() for j in range(h.shape[1])])
    if activation == "tanh":
        saturated = np.mean([(np.abs(h[:, j]) > 0.99).all() for j in range(h.shape[1])])
    else:
        saturated = np.mean([((h[:, j] < 0.01) | (h[:, j] > 0.99)).all() for j in range(h.shape[1])])
    return rows, dead, saturated
