"""The programs of the shapes and cases issue 17 names, written out, for the sweeps."""

from __future__ import annotations

#: The shapes and cases issue 17 names, written out (the registry's programs may pick others).
CASES = {
    "size-1": "a = tensor([2.0])\nout = (a * a).sum()\n",
    "size-1 bias": "x = randn(3, 2)\nW = randn(1, 2)\nb = tensor([0.5])\nout = (x @ W.T + b).relu().mean()\n",
    "row and column": "r = randn(1, 3)\nc = randn(3, 1)\nout = (r * c).sum(axis=0)\n",
    "empty reductions": "e = zeros(0, 3)\nv = randn(3)\nout = e.sum(axis=0) + e.mean() + v\n",
    "int labels": "y = tensor([2, 0, 1], requires_grad=False)\nlogits = randn(3, 4)\nloss = cross_entropy(logits, y)\n",
    "label picking": ("y = tensor([2, 0, 1, 1], requires_grad=False)\nlogits = randn(4, 3)\n"
                      "logp = log_softmax(logits, axis=-1)\nloss = -logp[[0, 1, 2, 3], y].mean()\n"),
    "fan-out": "x = randn(2, 3)\nh = x * x + x.exp()\nout = h.sum()\n",
    "broadcasting": "X = randn(3, 4)\nb = randn(4)\nc = randn(3, 1)\nout = ((X + b) * c).mean()\n",
    "size-1 matmul": "a = tensor([[2.0]])\nb = tensor([[3.0]])\nout = a @ b\n",
    "float labels": "logits = randn(3, 4)\ny = [2.0, 0.0, 1.0]\nloss = cross_entropy(logits, y)\n",
    "int embedding": "W = randn(5, 2)\ny = tensor([4, 0, 4], requires_grad=False)\nout = embedding(W, y).sum()\n",
    "a lecture's layer": "X = randn(5, 3)\nW = randn(3, 2)\nb = randn(2)\nout = (X @ W + b).tanh().mean()\n",
    "a big batch": ("X = randn(20, 8)\nW = randn(8, 4)\nb = randn(4)\nh = (X @ W + b).relu()\n"
                    "out = h.softmax(axis=-1).sum() + linear(X, W.T, b).mean() + (h * h).sum(axis=0).mean()\n"),
}
