"""Linear: y = x·Wᵀ + b, PyTorch's layout and initialisation."""

import math

import numpy as np

from autograd import functional as F
from autograd.nn import init
from autograd.nn.module import Module
from autograd.tensor import Parameter


class Linear(Module):
    """y = x·Wᵀ + b with W of shape (out, in), initialised as PyTorch's Linear is (`reset_parameters`)."""

    def __init__(self, in_features, out_features, bias=True, rng=None):
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(np.empty((out_features, in_features)))
        self.bias = Parameter(np.empty(out_features)) if bias else None
        self.reset_parameters(rng)

    def reset_parameters(self, generator=None):
        """PyTorch's default: W from kaiming_uniform_(a=√5), i.e. U(−1/√in, 1/√in), and b from
        U(−1/√in, 1/√in) (0 for in = 0), both drawn from `generator`."""
        generator = np.random.default_rng(generator)
        init.kaiming_uniform_(self.weight, a=math.sqrt(5), generator=generator)
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0.0
            init.uniform_(self.bias, -bound, bound, generator=generator)

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"
