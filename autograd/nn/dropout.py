"""Dropout: zeroes elements at random while training, the identity in eval() (torch.nn.Dropout)."""

import numpy as np

from autograd import functional as F
from autograd.nn.module import Module


class Dropout(Module):
    """Each element is zeroed with probability `p` and the rest scaled by 1/(1 − p), in train() only.

    The masks come from `generator`: a NumPy Generator the caller passes (shared, so one seeded
    Generator can drive a whole model), a seed, or None for a fresh unseeded one. `inplace` is
    PyTorch's argument, accepted and ignored.
    """

    def __init__(self, p=0.5, inplace=False, generator=None):
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace
        self.generator = np.random.default_rng(generator)

    def forward(self, x):
        return F.dropout(x, self.p, self.training, generator=self.generator)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"
