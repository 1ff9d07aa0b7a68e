"""Neural-network building blocks: Module, Linear, Sequential, MLP, activations, Embedding, and the transformer's
parts (Softmax, Dropout, LayerNorm, RMSNorm, MultiheadAttention, TransformerEncoderLayer, TransformerEncoder), with
`init` and `utils`.
"""

import warnings

import numpy as np

from autograd import functional as F
from autograd.functional import cross_entropy, mse_loss
from autograd.nn import init, utils
from autograd.nn.attention import MultiheadAttention
from autograd.nn.dropout import Dropout
from autograd.nn.linear import Linear
from autograd.nn.module import Module
from autograd.nn.normalization import LayerNorm, RMSNorm
from autograd.nn.transformer import TransformerEncoder, TransformerEncoderLayer
from autograd.ops import as_tensor
from autograd.optim import SGD, Adam, AdamW
from autograd.tensor import Parameter, Tensor

__all__ = [
    "Module", "Linear", "Sequential", "MLP", "ReLU", "Tanh", "Sigmoid", "GELU", "SiLU", "Identity",
    "Softmax", "LogSoftmax", "Dropout", "LayerNorm", "RMSNorm", "MultiheadAttention", "TransformerEncoderLayer",
    "TransformerEncoder",
    "Embedding", "ACTIVATIONS", "init", "utils", "Parameter", "SGD", "Adam", "AdamW", "mse_loss", "cross_entropy",
]


class Sequential(Module):
    def __init__(self, *modules):
        self.layers = list(modules)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def __getitem__(self, i):
        return self.layers[i]

    def __len__(self):
        return len(self.layers)


class ReLU(Module):
    def forward(self, x):
        return F.relu(x)


class Tanh(Module):
    def forward(self, x):
        return F.tanh(x)


class Sigmoid(Module):
    def forward(self, x):
        return F.sigmoid(x)


class GELU(Module):
    def forward(self, x):
        return F.gelu(x)


class SiLU(Module):
    def forward(self, x):
        return F.silu(x)


class Identity(Module):
    def forward(self, x):
        return x


def _legacy_softmax_dim(ndim, name):
    # NOTE: PyTorch's rule for Softmax(dim=None), kept for old code: axis 0 for 0-, 1- and 3-d input, else 1.
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. "
                  "Change the call to include dim=X as an argument.", stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


class Softmax(Module):
    """softmax along `dim`: each slice is positive and sums to 1 (torch.nn.Softmax)."""

    def __init__(self, dim=None):
        self.dim = dim

    def forward(self, x):
        x = as_tensor(x)
        dim = _legacy_softmax_dim(x.ndim, "softmax") if self.dim is None else self.dim
        return F.softmax(x, axis=dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """log of softmax along `dim`, computed stably (torch.nn.LogSoftmax)."""

    def __init__(self, dim=None):
        self.dim = dim

    def forward(self, x):
        x = as_tensor(x)
        dim = _legacy_softmax_dim(x.ndim, "log_softmax") if self.dim is None else self.dim
        return F.log_softmax(x, axis=dim)

    def extra_repr(self):
        return f"dim={self.dim}"


ACTIVATIONS = {
    "relu": ReLU,
    "tanh": Tanh,
    "sigmoid": Sigmoid,
    "gelu": GELU,
    "silu": SiLU,
    "linear": Identity,
}


class MLP(Sequential):
    """Linear layers of the given sizes with `activation` between them (none after the last)."""

    def __init__(self, sizes, activation="relu", rng=None):
        sizes = list(sizes)
        if len(sizes) < 2:
            raise ValueError(f"MLP needs at least an input and an output size, got {sizes}")
        if activation not in ACTIVATIONS:
            raise ValueError(f"unknown activation {activation!r}; choose one of {sorted(ACTIVATIONS)}")
        layers = []
        for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
            layers.append(Linear(n_in, n_out, rng=rng))
            if i < len(sizes) - 2:
                layers.append(ACTIVATIONS[activation]())
        super().__init__(*layers)
        self.sizes = sizes
        self.activation = activation


class Embedding(Module):
    """A lookup table of `num_embeddings` rows of size `embedding_dim`, initialised N(0, 1)."""

    def __init__(self, num_embeddings, embedding_dim, rng=None):
        rng = rng if rng is not None else np.random.default_rng()
        self.weight = Parameter(rng.standard_normal((num_embeddings, embedding_dim)))

    def forward(self, idx):
        return F.embedding(self.weight, idx.data if isinstance(idx, Tensor) else idx)
