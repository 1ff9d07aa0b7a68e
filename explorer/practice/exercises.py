"""The exercises: programs to write the backward of, each with a sentence of what it teaches.

An exercise is only a program (a teacher writes one the same way: a `# ask: dW1, db1` comment line names the
tensors the table asks for, else it asks for every one), so its link is the exercise. ``reference`` holds answers
written by hand where they differ from the ones the registry writes (the fused cross-entropy); every exercise's
reference answers are exact or close on every tensor (tests/explorer/practice/test_exercises.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.program.presets import ATTENTION, LAYER_NORM, MICROGRAD


@dataclass(frozen=True)
class Exercise:
    title: str
    teaches: str
    program: str
    reference: str = ""  # hand-written answers (empty: the ones the registry's vjp_lines write)


LINEAR_RELU = """\
# a linear layer and ReLU: z = x @ W + b over a batch of 4
# ask: dh, dz, dW, db, dx
x = randn(4, 3)
W = randn(3, 5)
b = randn(5)
z = x @ W + b
h = relu(z)
loss = ((h - 1.0) ** 2).mean()
"""

CROSS_ENTROPY_STEPS = """\
# softmax cross-entropy for 4 samples of 3 classes, step by step
# ask: dlogp, dlogits
logits = randn(4, 3)
y = tensor([0, 2, 1, 2], requires_grad=False)
logp = log_softmax(logits, axis=-1)
loss = -logp[[0, 1, 2, 3], y].mean()
"""

CROSS_ENTROPY_FUSED = """\
# the fused op: cross_entropy(logits, y); its grad in one line, (softmax(logits) - onehot) / n
# ask: dlogits
logits = randn(4, 3)
y = tensor([0, 2, 1, 2], requires_grad=False)
loss = cross_entropy(logits, y)
"""

BIAS = """\
# biases broadcast over a (3, 4) batch: a row bias (4,) and a column bias (3, 1)
# ask: dy, drow, dcol, dX
X = randn(3, 4)
row = randn(4)
col = randn(3, 1)
y = X + row + col
loss = (y * y).sum()
"""

NINJA = """\
# backprop ninja: an embedding, a linear layer, batch norm (Bessel's n - 1), tanh, a linear layer, cross-entropy
# ask: dlogprobs, dprobs, dcounts_sum_inv, dcounts_sum, dcounts, dnorm_logits, dlogit_maxes, dlogits, dh, dW2, db2
# ask: dhpreact, dbngain, dbnbias, dbnraw, dbnvar_inv, dbnvar, dbndiff2, dbndiff, dbnmeani, dhprebn, dembcat
# ask: dW1, db1, demb, dC
C = randn(10, 4)
Xb = tensor([[1, 5, 2], [0, 0, 7], [3, 9, 9], [4, 1, 0],
            [8, 2, 6], [5, 5, 1], [2, 7, 3], [9, 0, 4]], requires_grad=False)
Yb = tensor([3, 1, 0, 9, 4, 7, 2, 5], requires_grad=False)
W1 = randn(12, 16) * 0.3
b1 = randn(16) * 0.1
W2 = randn(16, 10) * 0.1
b2 = randn(10) * 0.1
bngain = randn(1, 16) * 0.1 + 1.0
bnbias = randn(1, 16) * 0.1
emb = C[Xb]
embcat = emb.reshape(8, 12)
hprebn = embcat @ W1 + b1
bnmeani = hprebn.sum(axis=0, keepdims=True) / 8
bndiff = hprebn - bnmeani
bndiff2 = bndiff ** 2
bnvar = bndiff2.sum(axis=0, keepdims=True) / (8 - 1)
bnvar_inv = (bnvar + 1e-5) ** -0.5
bnraw = bndiff * bnvar_inv
hpreact = bngain * bnraw + bnbias
h = tanh(hpreact)
logits = h @ W2 + b2
logit_maxes = logits.max(axis=1, keepdims=True)
norm_logits = logits - logit_maxes
counts = norm_logits.exp()
counts_sum = counts.sum(axis=1, keepdims=True)
counts_sum_inv = counts_sum ** -1
probs = counts * counts_sum_inv
logprobs = probs.log()
loss = -logprobs[[0, 1, 2, 3, 4, 5, 6, 7], Yb].mean()
"""

NINJA_ANSWERS = """\
dloss = ones(loss.shape)
dlogprobs = -eye(10)[Yb] / 8 * dloss
dprobs = dlogprobs / probs
dcounts_sum_inv = (dprobs * counts).sum(axis=1, keepdims=True)
dcounts_sum = dcounts_sum_inv * -counts_sum ** -2
dcounts = dprobs * counts_sum_inv + dcounts_sum * ones(counts.shape)
dnorm_logits = dcounts * counts
dlogit_maxes = -dnorm_logits.sum(axis=1, keepdims=True)
dlogits = dnorm_logits + (logits == logit_maxes) * dlogit_maxes
dh = dlogits @ W2.T
dW2 = h.T @ dlogits
db2 = dlogits.sum(axis=0)
dhpreact = dh * (1 - h ** 2)
dbngain = (dhpreact * bnraw).sum(axis=0, keepdims=True)
dbnbias = dhpreact.sum(axis=0, keepdims=True)
dbnraw = dhpreact * bngain
dbnvar_inv = (dbnraw * bndiff).sum(axis=0, keepdims=True)
dbnvar = dbnvar_inv * -0.5 * (bnvar + 1e-5) ** -1.5
dbndiff2 = dbnvar * ones(bndiff2.shape) / (8 - 1)
dbndiff = dbnraw * bnvar_inv + 2 * bndiff * dbndiff2
dbnmeani = -dbndiff.sum(axis=0, keepdims=True)
dhprebn = dbndiff + dbnmeani * ones(hprebn.shape) / 8
dembcat = dhprebn @ W1.T
dW1 = embcat.T @ dhprebn
db1 = dhprebn.sum(axis=0)
demb = dembcat.reshape(emb.shape)
dC = eye(10)[Xb].reshape(-1, 10).T @ demb.reshape(-1, 4)
"""

EXERCISES: dict[str, Exercise] = {
    "micrograd": Exercise(
        "micrograd's example",
        "Scalars only: the chain rule one op at a time, and fan-out: a value used twice (c += c + 1) adds up "
        "the grads of both uses.", MICROGRAD),
    "linear + ReLU": Exercise(
        "A linear layer + ReLU",
        "Matmul's grads are transposes (dW = x.T @ dz, dx = dz @ W.T), the bias sums over the batch, and ReLU "
        "passes the grad only where z > 0.", LINEAR_RELU),
    "cross-entropy, step by step": Exercise(
        "Softmax cross-entropy with integer labels",
        "Picking logp[rows, y] sends -1/n to each picked element and 0 elsewhere (a one-hot, eye(3)[y]); "
        "log_softmax's grad then subtracts softmax times the row sum.", CROSS_ENTROPY_STEPS),
    "cross-entropy, fused": Exercise(
        "Cross-entropy, the fused form",
        "The whole loss in one line: dlogits = (softmax(logits) - onehot) / n, the reason frameworks fuse it.",
        CROSS_ENTROPY_FUSED,
        "dloss = ones(loss.shape)\ndlogits = (softmax(logits, axis=-1) - eye(3)[y]) / 4 * dloss\n"),
    "broadcasting a bias": Exercise(
        "Broadcasting a bias",
        "A tensor broadcast in the forward pass sums its grad over the stretched axes in the backward: "
        "(4,) over axis 0, (3, 1) over axis 1 keeping the axis.", BIAS),
    "layer norm": Exercise(
        "Layer norm",
        "The mean and the variance each feed several tensors: every path back to x adds to dx.", LAYER_NORM),
    "attention scores": Exercise(
        "Attention scores",
        "Two matmuls and a softmax: dscores = S * (G - (G * S).sum(-1)), and the transposes of Q @ K.T.",
        ATTENTION),
    "backprop ninja": Exercise(
        "Backprop ninja: a small language-model step",
        "Karpathy's exercise, every intermediate by hand: the embedding's scatter, batch norm with Bessel's "
        "n - 1, tanh, and cross-entropy split into its pieces.", NINJA, NINJA_ANSWERS),
}

DEFAULT = "linear + ReLU"


def named(text: str) -> str | None:
    """The exercise whose program ``text`` is (trailing blank space aside), or None."""
    text = text.rstrip()
    return next((key for key, ex in EXERCISES.items() if ex.program.rstrip() == text), None)
