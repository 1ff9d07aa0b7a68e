"""TransformerEncoderLayer (self-attention and a feed-forward block, each with a residual and a LayerNorm) and
TransformerEncoder, a stack of copies of one."""

import copy

import numpy as np

from autograd import functional as F
from autograd.nn.attention import MultiheadAttention
from autograd.nn.dropout import Dropout
from autograd.nn.linear import Linear
from autograd.nn.module import Module
from autograd.nn.normalization import LayerNorm

_ACTIVATIONS = {"relu": F.relu, "gelu": F.gelu}


class TransformerEncoderLayer(Module):
    """torch.nn.TransformerEncoderLayer: its arguments, defaults, submodule names and both orders.

    Post-norm (PyTorch's default):  x = norm1(x + sa(x));        x = norm2(x + ff(x))
    Pre-norm (`norm_first=True`):   x = x + sa(norm1(x));        x = x + ff(norm2(x))
    with sa the self-attention (`self_attn`, then `dropout1`) and ff = dropout2(linear2(dropout(act(linear1)))).
    `activation` is "relu", "gelu" or a function of a Tensor. `generator` (this engine's addition: a
    NumPy Generator or seed) initialises the weights and draws every dropout mask, so a seeded layer repeats.
    """

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu", layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, dtype=None, generator=None):
        rng = np.random.default_rng(generator)
        if isinstance(activation, str):
            if activation not in _ACTIVATIONS:
                raise RuntimeError(f"activation should be relu/gelu, not {activation}")
            activation = _ACTIVATIONS[activation]
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            dtype=dtype, generator=rng)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, rng=rng)
        self.dropout = Dropout(dropout, generator=rng)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, rng=rng)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = Dropout(dropout, generator=rng)
        self.dropout2 = Dropout(dropout, generator=rng)
        self.activation = activation

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerEncoder(Module):
    """torch.nn.TransformerEncoder: `num_layers` copies of `encoder_layer` (each with its own parameters, starting
    equal, as PyTorch's deep copies do), then `norm` if given; state_dict keys `layers.0.…`, `norm.…`.
    `enable_nested_tensor` and `mask_check` are PyTorch's arguments, accepted and ignored (no nested tensors here).
    """

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True):
        self.layers = [copy.deepcopy(encoder_layer) for _ in range(num_layers)]
        for layer in self.layers[1:]:
            _fresh_generators(layer)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        x = src
        for layer in self.layers:
            x = layer(x, src_mask=mask, src_key_padding_mask=src_key_padding_mask, is_causal=bool(is_causal))
        return x if self.norm is None else self.norm(x)


def _modules(module):
    yield module
    for _, child in module.named_children():
        yield from _modules(child)


def _fresh_generators(module):
    """Gives the dropout Generators of a copied layer streams of their own (a deep copy would repeat the original's
    masks, layer after layer), drawn from the originals so a seeded stack still repeats; Generators shared within
    the layer stay shared."""
    fresh = {}
    for m in _modules(module):
        g = getattr(m, "generator", None)
        if isinstance(g, np.random.Generator):
            if id(g) not in fresh:
                fresh[id(g)] = np.random.default_rng(g.integers(2**63))
            m.generator = fresh[id(g)]
