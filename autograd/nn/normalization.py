"""LayerNorm and RMSNorm over the trailing dimensions, with PyTorch's arguments and parameter names."""

import numpy as np

from autograd import functional as F
from autograd.nn.module import Module
from autograd.tensor import Parameter


def _shape(normalized_shape):
    if isinstance(normalized_shape, (int, np.integer)):
        return (int(normalized_shape),)
    return tuple(int(n) for n in normalized_shape)


class LayerNorm(Module):
    """(x − mean) / √(var + eps) · weight + bias over the trailing `normalized_shape` (torch.nn.LayerNorm).

    `weight` starts at ones and `bias` at zeros; with `elementwise_affine=False` there are neither,
    with `bias=False` no bias.
    """

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, dtype=None):
        self.normalized_shape = _shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        dtype = np.float64 if dtype is None else dtype
        self.weight = Parameter(np.ones(self.normalized_shape, dtype=dtype)) if elementwise_affine else None
        self.bias = Parameter(np.zeros(self.normalized_shape, dtype=dtype)) if elementwise_affine and bias else None

    def forward(self, x):
        return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class RMSNorm(Module):
    """x / √(mean(x²) + eps) · weight over the trailing `normalized_shape` (torch.nn.RMSNorm).

    eps=None means the machine epsilon of the input's dtype; `weight` starts at ones.
    """

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, dtype=None):
        self.normalized_shape = _shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        dtype = np.float64 if dtype is None else dtype
        self.weight = Parameter(np.ones(self.normalized_shape, dtype=dtype)) if elementwise_affine else None

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
