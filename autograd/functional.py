"""Functions over Tensors: activations, losses and array helpers (PyTorch's torch.nn.functional).

Most are a primitive of autograd.ops (its registry entry lists it under `functions`); the ones that
take a single tensor also accept arrays, lists and numbers. The transformer's parts — `layer_norm`,
`rms_norm`, `dropout`, `scaled_dot_product_attention` — are composites written from those primitives, so
their graphs (and the Backward Stepper) show each step, and their VJPs are the primitives' own.
"""

import inspect
import math
from typing import NamedTuple

import numpy as np

from autograd import ops
from autograd.ops import (
    binary_cross_entropy_with_logits,
    concat,
    cross_entropy,
    linear,
    maximum,
    minimum,
    mse_loss,
    stack,
    where,
)
from autograd.tensor import Tensor

#: The functions below that are composites of primitives (no registry entry of their own).
COMPOSITES = ("layer_norm", "rms_norm", "dropout", "scaled_dot_product_attention")

__all__ = [
    "relu", "tanh", "sigmoid", "gelu", "silu", "softmax", "log_softmax", "exp", "log", "sqrt", "abs",
    "linear", "mse_loss", "binary_cross_entropy_with_logits", "cross_entropy", "embedding",
    "concat", "stack", "where", "maximum", "minimum", "detach", "round",
    *COMPOSITES,
]


def _t(x):
    return ops.as_tensor(x)


def relu(x):
    return ops.relu(_t(x))


def tanh(x):
    return ops.tanh(_t(x))


def sigmoid(x):
    return ops.sigmoid(_t(x))


def gelu(x):
    return ops.gelu(_t(x))


def silu(x):
    return ops.silu(_t(x))


def softmax(x, axis=-1):
    return ops.softmax(_t(x), axis=axis)


def log_softmax(x, axis=-1):
    return ops.log_softmax(_t(x), axis=axis)


def exp(x):
    return ops.exp(_t(x))


def log(x):
    return ops.log(_t(x))


def sqrt(x):
    return ops.sqrt(_t(x))


def abs(x):
    return ops.abs(_t(x))


def detach(x):
    """x's value, recorded as a node that backward stops at (its VJP sends 0): Tensor.detach() without cutting the
    drawing, so a picture can show the cut edge."""
    return ops.detach(_t(x))


def round(x):  # noqa: A001  (PyTorch's name)
    """x rounded half to even (as torch.round and NumPy); its gradient is 0."""
    return ops.round(_t(x))


def embedding(weight, idx):
    """Rows of `weight` picked by integer `idx` (any shape): out[..., :] = weight[idx[...], :]."""
    return ops.getitem(_t(weight), idx)


# ---- the transformer's parts: composites of the primitives above ------------------------------------
def _normalized_axes(x, normalized_shape, name):
    """The trailing axes that `normalized_shape` names, checked against `x`'s shape as PyTorch does."""
    return _trailing_axes(tuple(x.shape), normalized_shape, name)


def _trailing_axes(x, normalized_shape, name):
    """`_normalized_axes` on the input's shape `x` (the composites' shape rules below use it too)."""
    shape = (normalized_shape,) if isinstance(normalized_shape, (int, np.integer)) else tuple(normalized_shape)
    ndim = len(x)
    if not shape or tuple(x[ndim - len(shape):]) != shape or len(shape) > ndim:
        raise ValueError(f"{name}: normalized_shape {list(shape)} does not match the trailing dimensions "
                         f"of an input of shape {tuple(x)}")
    return tuple(range(ndim - len(shape), ndim))


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """(x − mean) / √(var + eps) over the trailing `normalized_shape` axes (biased variance, as PyTorch),
    then · weight + bias if given: torch.nn.functional.layer_norm."""
    x = _t(input)
    axes = _normalized_axes(x, normalized_shape, "layer_norm")
    centred = x - x.mean(axis=axes, keepdims=True)
    y = centred / (x.var(axis=axes, correction=0, keepdims=True) + eps).sqrt()
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return y


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """x / √(mean(x²) + eps) over the trailing `normalized_shape` axes, then · weight if given:
    torch.nn.functional.rms_norm (eps=None means the machine epsilon of x's dtype)."""
    x = _t(input)
    axes = _normalized_axes(x, normalized_shape, "rms_norm")
    if eps is None:
        eps = float(np.finfo(x.dtype).eps)
    y = x / ((x * x).mean(axis=axes, keepdims=True) + eps).sqrt()
    return y if weight is None else y * weight


def dropout(input, p=0.5, training=True, inplace=False, generator=None):
    """Zeroes each element with probability `p` and scales the rest by 1/(1 − p): torch.nn.functional.dropout.

    The identity when `training` is False or p = 0. The mask is drawn from `generator` (a NumPy
    Generator, or a seed; None draws a fresh one), so a seeded run repeats. `inplace` is accepted for
    PyTorch's signature and ignored (the engine never writes into a tensor a graph may still read).
    """
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    x = _t(input)
    if not training or p == 0:
        return x
    keep = np.random.default_rng(generator).random(x.shape) >= p
    # NOTE: at p = 1 every element is dropped; the scale 1/(1 − p) is then never used (PyTorch gives 0s too).
    scale = keep * (1.0 / (1.0 - p)) if p < 1 else np.zeros(x.shape)
    return x * ops.as_tensor(scale.astype(x.dtype))


def _swap_last_two(x):
    axes = list(range(x.ndim))
    axes[-2], axes[-1] = axes[-1], axes[-2]
    return x.transpose(*axes)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False, generator=None):
    """softmax(Q Kᵀ · scale + mask) V over the last two axes: torch.nn.functional.scaled_dot_product_attention.

    `scale` defaults to 1/√d (d = the query's last dimension). A boolean `attn_mask` says which
    query–key pairs may attend (True = take part, as in PyTorch's function; nn.MultiheadAttention's masks
    are the other way round); a float one is added to the scores. `is_causal` masks each query from the
    keys after it (and cannot be combined with `attn_mask`). `dropout_p` drops attention weights, drawn from
    `generator` (this engine's addition: a NumPy Generator or a seed).
    """
    q, k, v = _t(query), _t(key), _t(value)
    if enable_gqa:
        raise NotImplementedError("scaled_dot_product_attention: enable_gqa is not supported")
    if is_causal and attn_mask is not None:
        raise ValueError("scaled_dot_product_attention: _scaled_dot_product_attention: Explicit attn_mask "
                         "should not be set when is_causal=True")
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = (q @ _swap_last_two(k)) * scale
    if is_causal:
        n_q, n_k = q.shape[-2], k.shape[-2]
        attn_mask = np.tril(np.ones((n_q, n_k), dtype=bool))
    if attn_mask is not None:
        mask = attn_mask.data if isinstance(attn_mask, Tensor) else np.asarray(attn_mask)
        if mask.dtype == bool:
            scores = scores.masked_fill(~mask, -np.inf)
        else:
            scores = scores + attn_mask
    weights = ops.softmax(scores, axis=-1)
    if dropout_p > 0:
        weights = dropout(weights, dropout_p, generator=generator)
    return weights @ v


# ---- the composites' shape rules: the primitives each one records, declared beside it -------------------
# A primitive declares `shape=` beside its forward; a composite has no rule of its own, so it declares the
# steps it records instead, and its shape is theirs, through the primitives' own shape rules. The expression
# language (language/check.py) predicts a composite call's shape, graph nodes and costs from these steps
# before anything runs; tests/language/test_composites.py checks them against the graph the composite records.
class Input(NamedTuple):
    """A step's operand: the composite's tensor argument of that name (`input`, `weight`, `attn_mask`...)."""

    name: str


class Out(NamedTuple):
    """A step's operand: the result of an earlier step (its index in the list)."""

    index: int


class Constant(NamedTuple):
    """A step's operand: a constant node the composite makes: a number it combines with a tensor (eps, the scale:
    0-d), or an array of `shape` (dropout's mask)."""

    shape: tuple = ()


class Step(NamedTuple):
    """One primitive the composite records: its name in autograd.ops.PRIMITIVES and its shape rule's arguments,
    tensors given as Input, Out or Constant (the first `len(slots)` of them are the op's parents), the rest as
    the rule takes them (axes, a mask's shape)."""

    op: str
    args: tuple
    kwargs: dict = {}


def _last(steps):
    return Out(len(steps) - 1)


def _layer_norm_steps(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """layer_norm's steps; tensor arguments are given as their shapes (or None), as in a primitive's shape rule."""
    axes = _trailing_axes(tuple(input), normalized_shape, "layer_norm")
    x = Input("input")
    steps = [
        Step("mean", (x,), {"axis": axes, "keepdims": True}),
        Step("sub", (x, Out(0))),
        Step("var", (x,), {"axis": axes, "correction": 0, "keepdims": True}),
        Step("add", (Out(2), Constant())),
        Step("sqrt", (Out(3),)),
        Step("div", (Out(1), Out(4))),
    ]
    if weight is not None:
        steps.append(Step("mul", (_last(steps), Input("weight"))))
    if bias is not None:
        steps.append(Step("add", (_last(steps), Input("bias"))))
    return steps


def _rms_norm_steps(input, normalized_shape, weight=None, eps=None):
    """rms_norm's steps (tensor arguments as shapes)."""
    axes = _trailing_axes(tuple(input), normalized_shape, "rms_norm")
    x = Input("input")
    steps = [
        Step("mul", (x, x)),
        Step("mean", (Out(0),), {"axis": axes, "keepdims": True}),
        Step("add", (Out(1), Constant())),
        Step("sqrt", (Out(2),)),
        Step("div", (x, Out(3))),
    ]
    if weight is not None:
        steps.append(Step("mul", (_last(steps), Input("weight"))))
    return steps


def _scaled_dot_product_attention_steps(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
                                        scale=None, enable_gqa=False, generator=None, *, boolean_mask=True):
    """scaled_dot_product_attention's steps (tensor arguments as shapes; `boolean_mask` says whether
    `attn_mask` is boolean, which masks, or float, which is added). Shapes that do not fit are said in
    attention's words before the products would say them in theirs."""
    name = "scaled_dot_product_attention"
    q, k, v = tuple(query), tuple(key), tuple(value)
    if min(len(q), len(k), len(v)) < 2:
        raise ValueError(f"{name}: query, key and value must each have at least 2 dimensions (…, positions, "
                         f"features), got shapes {q}, {k} and {v}")
    if q[-1] != k[-1]:
        raise ValueError(f"{name}: the query's last dimension ({q[-1]}) must equal the key's ({k[-1]}): "
                         f"query {q}, key {k}")
    if k[-2] != v[-2]:
        raise ValueError(f"{name}: key and value must have as many positions (their second-last dimension): "
                         f"key {k} has {k[-2]}, value {v} has {v[-2]}")
    if enable_gqa:
        raise ValueError(f"{name}: enable_gqa is not supported")
    if dropout_p:
        raise ValueError(f"{name}: dropout_p draws random numbers; these steps are for dropout_p=0")
    if is_causal and attn_mask is not None:
        raise ValueError(f"{name}: attn_mask and is_causal=True cannot be given together (as in PyTorch)")
    axes = list(range(len(k)))
    axes[-2], axes[-1] = axes[-1], axes[-2]
    steps = [
        Step("transpose", (Input("key"), *axes)),
        Step("matmul", (Input("query"), Out(0))),
        Step("mul", (Out(1), Constant())),
    ]
    mask = (q[-2], k[-2]) if is_causal else None if attn_mask is None else tuple(attn_mask)
    if mask is not None:
        scores = np.broadcast_shapes(q[:-2], k[:-2]) + (q[-2], k[-2])
        try:
            np.broadcast_shapes(mask, scores)
        except ValueError:
            raise ValueError(f"{name}: an attn_mask of shape {mask} does not broadcast with the attention scores' "
                             f"shape {tuple(scores)} (…, query positions, key positions)") from None
        if is_causal or boolean_mask:
            steps.append(Step("masked_fill", (_last(steps), mask, -np.inf)))
        else:
            steps.append(Step("add", (_last(steps), Input("attn_mask"))))
    steps.append(Step("softmax", (_last(steps),), {"axis": -1}))
    steps.append(Step("matmul", (_last(steps), Input("value"))))
    return steps


def _dropout_steps(input, p=0.5, training=True, inplace=False, generator=None):
    """dropout's steps (the input as its shape): none when it is the identity, else one product with its mask."""
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return []
    return [Step("mul", (Input("input"), Constant(tuple(input))))]


#: Each composite's steps.
STEPS = {
    "dropout": _dropout_steps,
    "layer_norm": _layer_norm_steps,
    "rms_norm": _rms_norm_steps,
    "scaled_dot_product_attention": _scaled_dot_product_attention_steps,
}


def composite_shape(name, *args, **kwargs):
    """The shape composite `name` gives, without computing it: its steps through the primitives' shape rules
    (tensor arguments as shapes); raises ValueError or IndexError where the composite would."""
    rule = STEPS[name]
    bound = inspect.signature(rule).bind(*args, **kwargs)
    bound.apply_defaults()
    shapes = []
    for step in rule(*args, **kwargs):
        operands = [bound.arguments[a.name] if isinstance(a, Input) else shapes[a.index] if isinstance(a, Out)
                    else a.shape if isinstance(a, Constant) else a for a in step.args]
        shapes.append(ops.PRIMITIVES[step.op].shape(*operands, **step.kwargs))
    return shapes[-1] if shapes else tuple(bound.arguments["input"])  # no steps: the identity (dropout in eval)
