"""Example programs for the explorer: name -> (one-line description, program text)."""

from __future__ import annotations

MICROGRAD = """\
# micrograd's test: g = 24.7041, dg/da = 138.8338, dg/db = 645.5773
a = -4.0
b = 2.0
c = a + b
d = a * b + b ** 3
c += c + 1
c += 1 + c + (-a)
d += d * 2 + (b + a).relu()
d += 3 * d + (b - a).relu()
e = c - d
f = e ** 2
g = f / 2.0
g += 10.0 / f
"""

SEED = """\
a = -3.0
b = 2.0
g = ((a + b) ** 2 + (a * b + b ** 3).relu()).sum()
"""

KINK = """\
# The README's first example, a = -4, b = 2: a * b + b ** 3 is exactly 0, where relu bends.
# backward() takes relu'(0) = 0 (as PyTorch does); central differences average the two sides
# (0 and 1), so the gradient check disagrees here, and only here. Try a = -3.9.
a = -4.0
b = 2.0
g = ((a + b) ** 2 + (a * b + b ** 3).relu()).sum()
"""

LINEAR_RELU = """\
# a linear layer, ReLU, and the mean: y = mean(relu(x @ W.T + b))
x = [[1.0, -2.0, 0.5], [0.3, 0.8, -1.2]]
W = [[0.2, -0.5, 1.0], [-0.3, 0.4, 0.1], [0.6, 0.1, -0.7], [0.05, -0.2, 0.3]]
b = [0.1, -0.1, 0.0, 0.2]
h = x @ W.T + b
y = relu(h).mean()
"""

CROSS_ENTROPY = """\
# softmax cross-entropy for 2 samples of 3 classes, labels 0 and 2
# (the fused op gives the same number: cross_entropy(logits, [0, 2]))
logits = [[2.0, 1.0, 0.1], [0.5, 2.5, -1.0]]
logp = log_softmax(logits, axis=-1)
onehot = eye(3)[[0, 2]]
loss = -(logp * onehot).sum(axis=1).mean()
"""

ATTENTION = """\
# attention: softmax(Q @ K.T / sqrt(d)) @ V for 3 tokens of width d = 4
Q = randn(3, 4)
K = randn(3, 4)
V = randn(3, 4)
scores = softmax(Q @ K.T / sqrt(4.0), axis=-1)
out = (scores @ V).sum()
"""

LAYER_NORM = """\
# layer norm over the last axis, then a scale and shift
x = [[1.0, 2.0, 4.0, 7.0], [-1.0, 0.0, 0.5, 3.0]]
gamma = [1.0, 0.5, 2.0, 1.0]
beta = [0.0, 0.1, -0.1, 0.0]
mu = x.mean(axis=-1, keepdims=True)
xc = x - mu
var = (xc * xc).mean(axis=-1, keepdims=True)
y = xc / (var + 1e-5).sqrt() * gamma + beta
loss = (y * y).sum()
"""

BROADCAST = """\
# a bias of shape (4,) added to a (3, 4) matrix: its grad sums over axis 0
X = [[1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 2.0, 0.0], [-2.0, 1.0, 0.0, 3.0]]
bias = [0.1, 0.2, 0.3, 0.4]
y = (X + bias) ** 2
loss = y.mean()
"""

CAUSAL_HEAD = """\
# one causal self-attention head: 4 tokens of width 3, projected to q, k, v of width d = 2.
# Each token attends to itself and the ones before it (mask is True above the diagonal, and
# masked_fill sets those scores to -1e9, so softmax gives them exactly 0). In the Stepper, softmax's
# Jacobian is diag(p) - p pᵀ, one block per row; the masked scores get no grad.
x = randn(4, 3)
Wq = randn(3, 2)
Wk = randn(3, 2)
Wv = randn(3, 2)
q = x @ Wq
k = x @ Wk
v = x @ Wv
scores = q @ k.T / sqrt(2.0)
mask = arange(4) > arange(4).reshape(4, 1)
masked = scores.masked_fill(mask, -1e9)
p = softmax(masked, axis=-1)
out = p @ v
loss = (out ** 2).sum()
"""

TRANSFORMER_STEP = """\
# one training step of a one-block transformer on 4 tokens (a vocabulary of 5, width 4): the loss whose
# backward gives every weight its grad. Embedding plus positions, one causal attention head with a
# residual, an MLP with a residual, logits through the embedding again (tied), cross-entropy against
# the next tokens.
E = randn(5, 4)
P = randn(4, 4)
Wq = randn(4, 4)
Wk = randn(4, 4)
Wv = randn(4, 4)
W1 = randn(8, 4)
b1 = zeros(8)
W2 = randn(4, 8)
b2 = zeros(4)
x = embedding(E, [0, 3, 1, 4]) + P
q = x @ Wq
k = x @ Wk
v = x @ Wv
mask = arange(4) > arange(4).reshape(4, 1)
att = softmax((q @ k.T / sqrt(4.0)).masked_fill(mask, -1e9), axis=-1)
h = x + att @ v
y = h + linear(relu(linear(h, W1, b1)), W2, b2)
logits = y @ E.T
loss = cross_entropy(logits, [3, 1, 4, 2])
"""

STRAIGHT_THROUGH = """\
# the straight-through estimator: the forward uses round(w), the backward treats the rounding as the identity.
# round's own gradient is 0 almost everywhere (w would never learn); (round(w) - w).detach() adds the rounding
# error as a constant, so q = round(w) in value and dq/dw = 1. The cut (dashed) edge is where backward stops.
# The gradient check disagrees for w, on purpose: central differences see round's true slope, 0.
x = [[0.5, -1.2, 2.0], [1.5, 0.3, -0.7]]
w = [0.8, -1.6, 2.3]
q = w + (round(w) - w).detach()
y = tanh(x @ q)
loss = ((y - 0.5) ** 2).mean()
"""

#: name -> (one-line description, program text). The first one is the default.
PRESETS: dict[str, tuple[str, str]] = {
    "micrograd": ("micrograd's full example: scalars, fan-out, relu, division", MICROGRAD),
    "seed example": ("The README's first example with a = -3: two scalars, one output", SEED),
    "relu at its kink": ("The README's first example as written: relu at exactly 0, where the check differs",
                         KINK),
    "linear + ReLU": ("A linear layer x @ W.T + b, ReLU, then the mean", LINEAR_RELU),
    "softmax cross-entropy": ("log_softmax of two rows of logits against one-hot labels", CROSS_ENTROPY),
    "attention scores": ("softmax(Q @ K.T / sqrt(d)) @ V for 3 tokens of width 4", ATTENTION),
    "causal attention head": ("One causal self-attention head: q kᵀ / √d, the mask, softmax, then the product with v",
                              CAUSAL_HEAD),
    "transformer training step": ("A one-block transformer's loss on 4 tokens: embedding, attention, MLP, "
                                  "cross-entropy", TRANSFORMER_STEP),
    "layer norm": ("Normalise each row to mean 0, variance 1, then scale and shift", LAYER_NORM),
    "broadcasting bias": ("A (4,) bias added to a (3, 4) matrix: grad sums over axis 0", BROADCAST),
    "straight-through estimator": ("w + (round(w) - w).detach(): round(w) forward, the identity's gradient back",
                                   STRAIGHT_THROUGH),
}

DEFAULT = "micrograd"
KINK_PRESET = "relu at its kink"  # a preset whose gradient check disagrees, on purpose
STRAIGHT_THROUGH_PRESET = "straight-through estimator"  # the other one: its backward is not the forward's slope
CHECK_DIFFERS = (KINK_PRESET, STRAIGHT_THROUGH_PRESET)


def names() -> list[str]:
    """Preset names in display order."""
    return list(PRESETS)


def program(name: str) -> str:
    """The program text of a preset."""
    return PRESETS[name][1]


def description(name: str) -> str:
    """The one-line description of a preset."""
    return PRESETS[name][0]


def named(text: str) -> str | None:
    """The preset whose program ``text`` is (trailing blank space aside), or None for a program of the user's own."""
    text = text.rstrip()
    return next((name for name, (_, preset) in PRESETS.items() if preset.rstrip() == text), None)
