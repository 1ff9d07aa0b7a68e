"""The transformer parts' table: each case of autograd.nn's and autograd.functional's new modules and functions,
written once against a library `lib` (ours, or PyTorch's), for the PyTorch parity test and its
central-difference twin (which runs without PyTorch).

A case is (label, inputs, build, run): `build(lib)` makes the module (or None for a function), `run(lib, module,
*xs)` calls it and returns a Tensor or a tuple of them. Masks are written as NumPy arrays and passed
through `lib.mask`, so the same text drives both libraries. A module's parameters are overwritten from
a seeded draw (`fill`) before PyTorch's copy loads them, so affine weights are not just ones and zeros.
"""

from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

import autograd.functional as F
from autograd import nn

RNG = np.random.default_rng(35)


def randn(*shape):
    return RNG.standard_normal(shape)


#: Our library, as the cases see it. tests/engine/test_nn_torch.py builds PyTorch's the same way.
OURS = SimpleNamespace(name="ours", nn=nn, F=F, mask=lambda a: a)


def torch_lib(torch):
    return SimpleNamespace(name="torch", nn=torch.nn, F=torch.nn.functional, mask=torch.tensor)


@dataclass(frozen=True)
class Case:
    label: str
    inputs: tuple
    build: Callable | None
    run: Callable
    eval: bool = False  # run in eval() mode (PyTorch's defaults keep dropout 0.1 in TransformerEncoderLayer)


def fill(module, seed=0):
    """Every parameter of our `module` drawn from a seeded normal, in place (norm weights around 1)."""
    rng = np.random.default_rng(seed)
    for name, p in module.named_parameters():
        base = 1.0 if name.endswith("weight") and p.ndim == 1 else 0.0
        p.data = base + 0.5 * rng.standard_normal(p.shape)


L, S, N, E, H = 4, 3, 2, 4, 2  # queries, keys, batch, width, heads: small enough for central differences
CAUSAL = np.triu(np.ones((L, L), dtype=bool), 1)  # nn.MultiheadAttention's convention: True = not allowed
ALLOWED = ~CAUSAL  # F.scaled_dot_product_attention's: True = may attend
PADDING = np.array([[False, False, False, True], [False, False, False, False]])  # (N, L): the 1st sequence is 3 long
FLOAT_MASK = randn(L, S)
HEAD_MASK = RNG.random((N * H, L, L)) < 0.3
np.fill_diagonal(HEAD_MASK[0], False)
for _m in HEAD_MASK:
    np.fill_diagonal(_m, False)  # every query keeps itself: no row fully masked (that is nan, in both)

CASES = [
    # ---- Softmax, LogSoftmax ----------------------------------------------------------------------------
    Case("Softmax(dim=1)", (randn(2, 3, 4),), lambda lib: lib.nn.Softmax(dim=1), lambda lib, m, x: m(x)),
    Case("Softmax(dim=-1) at ±1000", (np.array([[1000.0, -1000.0, 0.5], [2.0, 1.0, -3.0]]),),
         lambda lib: lib.nn.Softmax(dim=-1), lambda lib, m, x: m(x)),
    Case("LogSoftmax(dim=0)", (randn(3, 4),), lambda lib: lib.nn.LogSoftmax(dim=0), lambda lib, m, x: m(x)),
    # ---- LayerNorm, RMSNorm -----------------------------------------------------------------------------
    Case("LayerNorm(4)", (randn(2, 3, 4),), lambda lib: lib.nn.LayerNorm(4), lambda lib, m, x: m(x)),
    Case("LayerNorm((3, 4), eps=1e-3)", (randn(2, 3, 4),), lambda lib: lib.nn.LayerNorm((3, 4), eps=1e-3),
         lambda lib, m, x: m(x)),
    Case("LayerNorm(4, elementwise_affine=False)", (randn(3, 4),),
         lambda lib: lib.nn.LayerNorm(4, elementwise_affine=False), lambda lib, m, x: m(x)),
    Case("LayerNorm(4, bias=False)", (randn(3, 4),), lambda lib: lib.nn.LayerNorm(4, bias=False),
         lambda lib, m, x: m(x)),
    Case("F.layer_norm with weight and bias", (randn(3, 4), randn(4), randn(4)), None,
         lambda lib, m, x, w, b: lib.F.layer_norm(x, (4,), w, b)),
    Case("RMSNorm(4)", (randn(2, 3, 4),), lambda lib: lib.nn.RMSNorm(4), lambda lib, m, x: m(x)),
    Case("RMSNorm((3, 4), eps=1e-6)", (randn(2, 3, 4),), lambda lib: lib.nn.RMSNorm((3, 4), eps=1e-6),
         lambda lib, m, x: m(x)),
    Case("F.rms_norm with weight", (randn(3, 4), randn(4)), None,
         lambda lib, m, x, w: lib.F.rms_norm(x, (4,), w)),
    # ---- Dropout (eval: the identity; train mode is tested on its own) ------------------------------------
    Case("Dropout(0.3) in eval()", (randn(3, 4),), lambda lib: lib.nn.Dropout(0.3), lambda lib, m, x: m(x),
         eval=True),
    Case("F.dropout(training=False)", (randn(3, 4),), None,
         lambda lib, m, x: lib.F.dropout(x, 0.5, training=False)),
    # ---- F.scaled_dot_product_attention -------------------------------------------------------------------
    Case("sdpa", (randn(L, E), randn(S, E), randn(S, E)), None,
         lambda lib, m, q, k, v: lib.F.scaled_dot_product_attention(q, k, v)),
    Case("sdpa, heads, is_causal", (randn(N, H, L, E), randn(N, H, L, E), randn(N, H, L, 3)), None,
         lambda lib, m, q, k, v: lib.F.scaled_dot_product_attention(q, k, v, is_causal=True)),
    Case("sdpa, boolean mask (True = attend)", (randn(N, L, E), randn(N, L, E), randn(N, L, E)), None,
         lambda lib, m, q, k, v: lib.F.scaled_dot_product_attention(q, k, v, attn_mask=lib.mask(ALLOWED))),
    Case("sdpa, float mask, scale 0.3", (randn(L, E), randn(S, E), randn(S, E)), None,
         lambda lib, m, q, k, v: lib.F.scaled_dot_product_attention(q, k, v, attn_mask=lib.mask(FLOAT_MASK),
                                                                  scale=0.3)),
    # ---- MultiheadAttention ----------------------------------------------------------------------------
    Case("MHA (L, N, E), self-attention", (randn(L, N, E),), lambda lib: lib.nn.MultiheadAttention(E, H),
         lambda lib, m, x: m(x, x, x)),
    Case("MHA batch_first, causal bool mask + key padding", (randn(N, L, E),),
         lambda lib: lib.nn.MultiheadAttention(E, H, batch_first=True),
         lambda lib, m, x: m(x, x, x, attn_mask=lib.mask(CAUSAL), key_padding_mask=lib.mask(PADDING))),
    Case("MHA is_causal hint with its mask, need_weights=False", (randn(N, L, E),),
         lambda lib: lib.nn.MultiheadAttention(E, H, batch_first=True),
         lambda lib, m, x: m(x, x, x, attn_mask=lib.mask(CAUSAL), is_causal=True, need_weights=False)[0]),
    Case("MHA cross-attention, float mask, weights per head", (randn(L, N, E), randn(S, N, E), randn(S, N, E)),
         lambda lib: lib.nn.MultiheadAttention(E, H),
         lambda lib, m, q, k, v: m(q, k, v, attn_mask=lib.mask(FLOAT_MASK), average_attn_weights=False)),
    Case("MHA 3-d bool mask per head", (randn(N, L, E),),
         lambda lib: lib.nn.MultiheadAttention(E, H, batch_first=True),
         lambda lib, m, x: m(x, x, x, attn_mask=lib.mask(HEAD_MASK))),
    Case("MHA float key padding", (randn(L, N, E),), lambda lib: lib.nn.MultiheadAttention(E, 1),
         lambda lib, m, x: m(x, x, x, key_padding_mask=lib.mask(np.where(PADDING, -2.0, 0.5)))),
    Case("MHA unbatched (L, E), bias=False", (randn(L, E),), lambda lib: lib.nn.MultiheadAttention(E, H, bias=False),
         lambda lib, m, x: m(x, x, x, attn_mask=lib.mask(CAUSAL))),
    # ---- TransformerEncoderLayer --------------------------------------------------------------------------
    Case("TransformerEncoderLayer post-norm", (randn(L, N, E),),
         lambda lib: lib.nn.TransformerEncoderLayer(E, H, dim_feedforward=6), lambda lib, m, x: m(x), eval=True),
    Case("TransformerEncoderLayer pre-norm, gelu, causal, padding, batch_first", (randn(N, L, E),),
         lambda lib: lib.nn.TransformerEncoderLayer(E, H, dim_feedforward=6, activation="gelu", batch_first=True,
                                                    norm_first=True),
         lambda lib, m, x: m(x, src_mask=lib.mask(CAUSAL), src_key_padding_mask=lib.mask(PADDING)), eval=True),
    Case("TransformerEncoderLayer pre-norm, dropout 0 in train()", (randn(L, N, E),),
         lambda lib: lib.nn.TransformerEncoderLayer(E, H, dim_feedforward=6, dropout=0.0, norm_first=True),
         lambda lib, m, x: m(x, src_mask=lib.mask(CAUSAL), is_causal=True)),
    Case("TransformerEncoder: 2 pre-norm layers and a final norm", (randn(N, L, E),),
         lambda lib: lib.nn.TransformerEncoder(
             lib.nn.TransformerEncoderLayer(E, H, dim_feedforward=6, batch_first=True, norm_first=True), 2,
             norm=lib.nn.LayerNorm(E), enable_nested_tensor=False),
         lambda lib, m, x: m(x, mask=lib.mask(CAUSAL), src_key_padding_mask=lib.mask(PADDING)), eval=True),
]

IDS = [case.label for case in CASES]


def outputs(result):
    """A case's result as a tuple of tensors (MultiheadAttention returns (output, weights))."""
    return tuple(r for r in (result if isinstance(result, tuple) else (result,)) if r is not None)
