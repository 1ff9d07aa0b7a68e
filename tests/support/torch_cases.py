"""The PyTorch parity table: each primitive of the registry, its cases and the same op in PyTorch (needs torch)."""

import numpy as np
import pytest

import autograd.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

RNG = np.random.default_rng(7)


def randn(*shape):
    return RNG.standard_normal(shape)


def positive(*shape):
    return RNG.uniform(0.5, 2.0, shape)


TIES = np.array([[1.0, 3.0, 3.0, -2.0], [2.0, 2.0, 2.0, 0.5], [-1.0, 4.0, 0.0, 4.0]])
OTHER = np.array([[1.0, 2.0, 3.0, -2.0], [2.5, 2.0, 1.0, 0.5], [-1.0, 4.5, 0.0, 4.0]])
LABELS = np.array([2, 0, 1])
MASK = RNG.random((3, 4)) < 0.5

# name -> [(label, arrays, engine fn, torch fn)]; each fn takes one tensor per array.
CASES = {
    "add": [("broadcast", (randn(3, 4), randn(4)), lambda a, b: a + b, lambda a, b: a + b)],
    "sub": [("scalar on the left", (randn(3, 4),), lambda a: 2.5 - a, lambda a: 2.5 - a)],
    "mul": [("broadcast", (randn(3, 1), randn(1, 4)), lambda a, b: a * b, lambda a, b: a * b)],
    "div": [("broadcast", (randn(3, 4), positive(4)), lambda a, b: a / b, lambda a, b: a / b)],
    "pow": [
        ("tensor ** tensor", (positive(3, 4), randn(3, 4)), lambda a, b: a**b, lambda a, b: a**b),
        (".pow(3)", (randn(3, 4),), lambda a: a.pow(3), lambda a: a.pow(3)),
        (".pow(0.5)", (positive(5),), lambda a: a.pow(0.5), lambda a: a.pow(0.5)),
        ("x ** 0 at x = 0", (np.array([0.0, 1.0, -2.0]),), lambda a: a**0, lambda a: a**0),
        ("2 ** x", (randn(4),), lambda a: 2.0**a, lambda a: 2.0**a),
    ],
    "neg": [("-x", (randn(3),), lambda a: -a, lambda a: -a)],
    "maximum": [
        ("broadcast", (randn(3, 4), randn(4)), F.maximum, torch.maximum),
        ("ties split evenly", (TIES, OTHER), F.maximum, torch.maximum),
    ],
    "minimum": [
        ("broadcast", (randn(3, 1), randn(1, 4)), F.minimum, torch.minimum),
        ("ties split evenly", (TIES, OTHER), F.minimum, torch.minimum),
    ],
    "matmul": [
        ("matrix", (randn(3, 4), randn(4, 5)), lambda a, b: a @ b, lambda a, b: a @ b),
        ("batched", (randn(2, 3, 4), randn(4)), lambda a, b: a @ b, lambda a, b: a @ b),
    ],
    "linear": [("with bias", (randn(5, 3), randn(4, 3), randn(4)), F.linear, TF.linear)],
    "exp": [("exp", (randn(3, 4),), lambda a: a.exp(), torch.exp)],
    "log": [("log", (positive(3, 4),), lambda a: a.log(), torch.log)],
    "sqrt": [("sqrt", (positive(3, 4),), lambda a: a.sqrt(), torch.sqrt)],
    "abs": [("abs with zeros", (np.array([-2.0, 0.0, 3.0]),), lambda a: a.abs(), torch.abs)],
    "relu": [("relu with zeros", (np.array([-2.0, 0.0, 3.0, -0.0]),), lambda a: a.relu(), torch.relu)],
    "tanh": [("tanh", (randn(3, 4),), lambda a: a.tanh(), torch.tanh)],
    "sigmoid": [("sigmoid at ±1000", (np.array([1000.0, -1000.0, 0.3]),), lambda a: a.sigmoid(), torch.sigmoid)],
    "gelu": [("exact gelu", (3 * randn(20),), lambda a: a.gelu(), TF.gelu)],
    "silu": [("silu at ±1000", (np.array([1000.0, -1000.0, 0.3]),), lambda a: a.silu(), TF.silu)],
    "clip": [("clip", (randn(3, 4),), lambda a: a.clip(-0.5, 0.5), lambda a: a.clamp(-0.5, 0.5))],
    # torch's detach() makes a leaf, so backward needs a path: its `+ 0 * a` says the gradient through it is 0
    "detach": [("detach", (randn(3, 4),), lambda a: F.detach(a), lambda a: a.detach() + 0 * a)],
    "round": [("round half to even", (np.array([0.5, 1.5, 2.5, -0.5, -1.5, 0.3, 2.7]),), lambda a: a.round(),
               torch.round)],
    "masked_fill": [("mask", (randn(3, 4),), lambda a: a.masked_fill(MASK, -1.0),
                     lambda a: a.masked_fill(torch.tensor(MASK), -1.0))],
    "where": [("where", (randn(3, 4), randn(4)), lambda a, b: F.where(MASK, a, b),
               lambda a, b: torch.where(torch.tensor(MASK), a, b))],
    "sum": [("axis (0, 2)", (randn(2, 3, 4),), lambda a: a.sum(axis=(0, 2)), lambda a: a.sum(dim=(0, 2)))],
    "mean": [("keepdims", (randn(2, 3, 4),), lambda a: a.mean(axis=1, keepdims=True),
              lambda a: a.mean(dim=1, keepdim=True))],
    "max": [
        ("all, ties", (TIES,), lambda a: a.max(), lambda a: a.amax()),
        ("axis 1, ties", (TIES,), lambda a: a.max(axis=1), lambda a: a.amax(dim=1)),
    ],
    "min": [
        ("all, ties", (-TIES,), lambda a: a.min(), lambda a: a.amin()),
        ("axis 0, keepdims", (TIES,), lambda a: a.min(axis=0, keepdims=True), lambda a: a.amin(dim=0, keepdim=True)),
    ],
    "var": [
        ("all", (randn(3, 4),), lambda a: a.var(), lambda a: a.var()),
        ("axis 1, correction 0", (randn(3, 4),), lambda a: a.var(axis=1, correction=0),
         lambda a: a.var(dim=1, correction=0)),
        ("axis (0, 1), keepdims, correction 2", (randn(3, 4, 2),),
         lambda a: a.var(axis=(0, 1), correction=2, keepdims=True),
         lambda a: a.var(dim=(0, 1), correction=2, keepdim=True)),
        ("one element: nan", (randn(1),), lambda a: a.var(), lambda a: a.var()),
    ],
    "std": [
        ("all", (randn(3, 4),), lambda a: a.std(), lambda a: a.std()),
        ("axis 0, correction 0", (randn(3, 4),), lambda a: a.std(axis=0, correction=0),
         lambda a: a.std(dim=0, correction=0)),
        ("constant rows: std 0, grad 0", (np.ones((2, 3)),), lambda a: a.std(axis=1), lambda a: a.std(dim=1)),
    ],
    "softmax": [("axis 0", (randn(3, 4),), lambda a: a.softmax(axis=0), lambda a: a.softmax(dim=0))],
    "log_softmax": [("±1000", (np.array([[1000.0, -1000.0, 0.0]]),), lambda a: a.log_softmax(),
                     lambda a: a.log_softmax(dim=-1))],
    "getitem": [
        ("x[None]", (randn(3, 4),), lambda a: a[None], lambda a: a[None]),
        ("x[..., 1]", (randn(2, 3, 4),), lambda a: a[..., 1], lambda a: a[..., 1]),
        ("x[None, ..., None]", (randn(3, 4),), lambda a: a[None, ..., None], lambda a: a[None, ..., None]),
        ("x[[0, 2, 0]] repeats", (randn(3, 4),), lambda a: a[[0, 2, 0]], lambda a: a[[0, 2, 0]]),
        ("x[1:, ::2]", (randn(3, 4),), lambda a: a[1:, ::2], lambda a: a[1:, ::2]),
    ],
    "reshape": [("(3, 4) -> (2, -1)", (randn(3, 4),), lambda a: a.reshape(2, -1), lambda a: a.reshape(2, -1))],
    "unsqueeze": [
        ("axis 1", (randn(3, 4),), lambda a: a.unsqueeze(1), lambda a: a.unsqueeze(1)),
        ("axis -1", (randn(3, 4),), lambda a: a.unsqueeze(-1), lambda a: a.unsqueeze(-1)),
    ],
    "squeeze": [
        ("all", (randn(3, 1, 4, 1),), lambda a: a.squeeze(), lambda a: a.squeeze()),
        ("axis 1", (randn(3, 1, 4, 1),), lambda a: a.squeeze(axis=1), lambda a: a.squeeze(dim=1)),
        ("axis of size 3: unchanged", (randn(3, 1),), lambda a: a.squeeze(axis=0), lambda a: a.squeeze(dim=0)),
        ("axis (1, 3)", (randn(3, 1, 4, 1),), lambda a: a.squeeze(axis=(1, 3)), lambda a: a.squeeze(dim=(1, 3))),
    ],
    "transpose": [("(1, 2, 0)", (randn(2, 3, 4),), lambda a: a.transpose(1, 2, 0), lambda a: a.permute(1, 2, 0))],
    "concat": [("axis 1", (randn(2, 3), randn(2, 1)), lambda a, b: F.concat([a, b], axis=1),
                lambda a, b: torch.cat([a, b], dim=1))],
    "stack": [("axis -1", (randn(2, 3), randn(2, 3)), lambda a, b: F.stack([a, b], axis=-1),
               lambda a, b: torch.stack([a, b], dim=-1))],
    "cross_entropy": [("mean", (randn(3, 5),), lambda z: F.cross_entropy(z, LABELS),
                       lambda z: TF.cross_entropy(z, torch.tensor(LABELS)))],
    "bce_with_logits": [("±1000", (np.array([1000.0, -1000.0, 0.5]), np.array([0.0, 1.0, 0.3])),
                         F.binary_cross_entropy_with_logits, TF.binary_cross_entropy_with_logits)],
    "mse_loss": [
        ("mean", (randn(4, 3), randn(4, 3)), F.mse_loss, TF.mse_loss),
        ("sum", (randn(4, 3), randn(4, 3)), lambda a, b: F.mse_loss(a, b, reduction="sum"),
         lambda a, b: TF.mse_loss(a, b, reduction="sum")),
        ("none", (randn(4, 3), randn(4, 3)), lambda a, b: F.mse_loss(a, b, reduction="none"),
         lambda a, b: TF.mse_loss(a, b, reduction="none")),
    ],
}
TABLE = [(name, *case) for name, cases in CASES.items() for case in cases]
