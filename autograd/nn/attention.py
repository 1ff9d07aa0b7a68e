"""MultiheadAttention: torch.nn.MultiheadAttention's arguments, layout, masks and parameter names, from primitives."""

import math

import numpy as np

from autograd import functional as F
from autograd.nn import init
from autograd.nn.linear import Linear
from autograd.nn.module import Module
from autograd.ops import as_tensor
from autograd.tensor import Parameter, Tensor


def _mask_array(mask, name):
    """A mask as an ndarray: boolean (True = not allowed) or float (added to the scores)."""
    data = np.asarray(mask.data if isinstance(mask, Tensor) else mask)
    if data.dtype != bool and data.dtype.kind != "f":
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return data


class MultiheadAttention(Module):
    """Attention with `num_heads` heads of width embed_dim / num_heads (torch.nn.MultiheadAttention).

    Parameters as PyTorch names them, so its state_dict loads: `in_proj_weight` (3·E, E) holds the query,
    key and value projections stacked, `in_proj_bias` (3·E,), and `out_proj` a Linear(E, E). Inputs are
    (L, N, E), or (N, L, E) with `batch_first=True`, or unbatched (L, E). `forward` returns
    (output, weights) with the weights averaged over heads (or per head, `average_attn_weights=False`),
    or None for them with `need_weights=False`. Masks as PyTorch takes them: a boolean `attn_mask`
    ((L, S) or (N·num_heads, L, S)) or `key_padding_mask` ((N, S)) is True where a query may NOT attend; a
    float one is added to the scores. `is_causal` is PyTorch's hint that `attn_mask` is the causal mask
    (it needs the mask itself). `generator` (a NumPy Generator or seed, this engine's addition) draws
    the attention dropout's masks.

    Only the shared-width case is built: kdim and vdim must equal embed_dim, no bias_k/bias_v, no zero
    attention (PyTorch's add_bias_kv and add_zero_attn).
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, dtype=None, generator=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} "
                             f"and num_heads={num_heads} instead")
        if embed_dim % num_heads:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if add_bias_kv or add_zero_attn or kdim not in (None, embed_dim) or vdim not in (None, embed_dim):
            raise NotImplementedError("MultiheadAttention: add_bias_kv, add_zero_attn and kdim/vdim other "
                                      "than embed_dim are not supported")
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.generator = np.random.default_rng(generator)
        dtype = np.float64 if dtype is None else dtype
        self.in_proj_weight = Parameter(np.empty((3 * embed_dim, embed_dim), dtype=dtype))
        self.in_proj_bias = Parameter(np.zeros(3 * embed_dim, dtype=dtype)) if bias else None
        self.out_proj = Linear(embed_dim, embed_dim, bias=bias, rng=self.generator)
        self._reset_parameters()

    def _reset_parameters(self):
        """PyTorch's: xavier_uniform_ for in_proj_weight, zeros for both biases (out_proj's weight keeps
        Linear's initialisation)."""
        init.xavier_uniform_(self.in_proj_weight, generator=self.generator)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        query, key, value = as_tensor(query), as_tensor(key), as_tensor(value)
        if is_causal and attn_mask is None:
            raise RuntimeError("Need attn_mask if specifying the is_causal hint (as in PyTorch): pass the causal "
                               "mask itself, attn_mask=np.triu(np.ones((L, L), dtype=bool), 1)")
        batched = query.ndim == 3
        if not batched:  # one sequence: a batch of one, squeezed again at the end
            query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
            if key_padding_mask is not None:
                key_padding_mask = _mask_array(key_padding_mask, "key_padding_mask")[None]
        elif self.batch_first:  # (N, L, E) -> (L, N, E), PyTorch's own layout
            query, key, value = (t.transpose(1, 0, 2) for t in (query, key, value))
        if key.shape != value.shape:
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
        n_q, batch, embed = query.shape
        n_k = key.shape[0]
        if embed != self.embed_dim:
            raise AssertionError(f"was expecting embedding dimension of {self.embed_dim}, but got {embed}")
        heads, width = self.num_heads, self.head_dim

        def project(x, part):
            rows = slice(part * embed, (part + 1) * embed)
            bias = None if self.in_proj_bias is None else self.in_proj_bias[rows]
            y = F.linear(x, self.in_proj_weight[rows], bias)  # (length, N, E)
            # (length, N, E) -> (N, heads, length, width)
            return y.reshape(x.shape[0], batch, heads, width).transpose(1, 2, 0, 3)

        q, k, v = project(query, 0), project(key, 1), project(value, 2)
        scores = (q @ k.transpose(0, 1, 3, 2)) * (1 / math.sqrt(width))  # (N, heads, L, S)
        scores = self._masked(scores, attn_mask, key_padding_mask, batch, n_q, n_k)
        weights = F.softmax(scores, axis=-1)
        if self.dropout > 0:
            weights = F.dropout(weights, self.dropout, self.training, generator=self.generator)
        out = (weights @ v).transpose(2, 0, 1, 3).reshape(n_q, batch, embed)  # (L, N, E)
        out = self.out_proj(out)
        if not batched:
            out = out.squeeze(1)
        elif self.batch_first:
            out = out.transpose(1, 0, 2)
        if not need_weights:
            return out, None
        if average_attn_weights:
            weights = weights.mean(axis=1)  # (N, L, S)
        return out, (weights if batched else weights.squeeze(0))

    def _masked(self, scores, attn_mask, key_padding_mask, batch, n_q, n_k):
        """The scores with PyTorch's two masks applied: True entries of a boolean mask set to −inf, a float
        mask added."""
        masks = []
        if attn_mask is not None:
            mask = _mask_array(attn_mask, "attn_mask")
            if mask.ndim == 2:
                if mask.shape != (n_q, n_k):
                    raise RuntimeError(f"The shape of the 2D attn_mask is {mask.shape}, but should be {(n_q, n_k)}.")
            elif mask.ndim == 3:
                if mask.shape != (batch * self.num_heads, n_q, n_k):
                    raise RuntimeError(f"The shape of the 3D attn_mask is {mask.shape}, but should be "
                                       f"{(batch * self.num_heads, n_q, n_k)}.")
                mask = mask.reshape(batch, self.num_heads, n_q, n_k)
            else:
                raise RuntimeError(f"attn_mask's dimension {mask.ndim} is not supported")
            masks.append(mask)
        if key_padding_mask is not None:
            mask = _mask_array(key_padding_mask, "key_padding_mask")
            if mask.shape != (batch, n_k):
                raise AssertionError(f"expecting key_padding_mask shape of {(batch, n_k)}, but got {mask.shape}")
            masks.append(mask[:, None, None, :])
        blocked = [m for m in masks if m.dtype == bool]
        if blocked:
            scores = scores.masked_fill(np.logical_or.reduce(np.broadcast_arrays(*blocked)), -np.inf)
        for m in masks:
            if m.dtype != bool:
                scores = scores + as_tensor(m.astype(scores.dtype))
        return scores

    def extra_repr(self):
        return f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, batch_first={self.batch_first}"
