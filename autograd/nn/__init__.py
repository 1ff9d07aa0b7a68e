"""Neural-network building blocks: Module, Linear, Sequential, MLP, activations, Embedding (and `init`)."""

import math
from collections import OrderedDict

import numpy as np

from autograd import functional as F
from autograd.functional import cross_entropy, mse_loss
from autograd.nn import init
from autograd.optim import SGD, Adam, AdamW
from autograd.tensor import Parameter, Tensor

__all__ = [
    "Module", "Linear", "Sequential", "MLP", "ReLU", "Tanh", "Sigmoid", "GELU", "SiLU", "Identity",
    "Embedding", "ACTIVATIONS", "init", "Parameter", "SGD", "Adam", "AdamW", "mse_loss", "cross_entropy",
]


class Module:
    """Base class: parameters are found in attributes (Parameters, Modules, lists of Modules)."""

    training = True

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define forward()")

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def named_children(self):
        for name, value in vars(self).items():
            if isinstance(value, Module):
                yield name, value
            elif isinstance(value, (list, tuple)):
                for i, item in enumerate(value):
                    if isinstance(item, Module):
                        yield f"{name}.{i}", item

    def named_parameters(self, prefix=""):
        for name, value in vars(self).items():
            if isinstance(value, Parameter):
                yield prefix + name, value
        for name, child in self.named_children():
            yield from child.named_parameters(prefix=f"{prefix}{name}.")

    def parameters(self):
        return [p for _, p in self.named_parameters()]

    def zero_grad(self):
        for p in self.parameters():
            p.grad = None

    def train(self, mode=True):
        self.training = mode
        for _, child in self.named_children():
            child.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def state_dict(self):
        return OrderedDict((name, p.data.copy()) for name, p in self.named_parameters())

    def load_state_dict(self, state):
        params = dict(self.named_parameters())
        missing = sorted(set(params) - set(state))
        unexpected = sorted(set(state) - set(params))
        if missing or unexpected:
            raise KeyError(f"load_state_dict: missing keys {missing}, unexpected keys {unexpected}")
        for name, p in params.items():
            value = np.asarray(state[name], dtype=p.data.dtype)
            if value.shape != p.data.shape:
                raise ValueError(f"load_state_dict: '{name}' has shape {value.shape}, expected {p.data.shape}")
            p.data = value.copy()

    def __repr__(self):
        children = list(self.named_children())
        if not children:
            return f"{type(self).__name__}({self.extra_repr()})"
        lines = [f"  ({name}): " + repr(child).replace("\n", "\n  ") for name, child in children]
        return f"{type(self).__name__}(\n" + "\n".join(lines) + "\n)"

    def extra_repr(self):
        return ""


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
