"""Functions over Tensors: activations, losses and array helpers (PyTorch's torch.nn.functional).

Most are a primitive of autograd.ops (its registry entry lists it under `functions`); the ones that
take a single tensor also accept arrays, lists and numbers. The transformer's parts — `layer_norm`,
`rms_norm`, `dropout`, `scaled_dot_product_attention` — are composites written from those primitives, so
their graphs (and the Backward Stepper) show each step, and their VJPs are the primitives' own.
"""

import math

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
    "concat", "stack", "where", "maximum", "minimum",
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


def embedding(weight, idx):
    """Rows of `weight` picked by integer `idx` (any shape): out[..., :] = weight[idx[...], :]."""
    return ops.getitem(_t(weight), idx)


# ---- the transformer's parts: composites of the primitives above ------------------------------------
def _normalized_axes(x, normalized_shape, name):
    """The trailing axes that `normalized_shape` names, checked against `x`'s shape as PyTorch does."""
    shape = (normalized_shape,) if isinstance(normalized_shape, (int, np.integer)) else tuple(normalized_shape)
    if not shape or tuple(x.shape[x.ndim - len(shape):]) != shape or len(shape) > x.ndim:
        raise ValueError(f"{name}: normalized_shape {list(shape)} does not match the trailing dimensions "
                         f"of an input of shape {tuple(x.shape)}")
    return tuple(range(x.ndim - len(shape), x.ndim))


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
