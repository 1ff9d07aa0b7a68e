"""Initialisation schemes with torch.nn.init's names, fan rules and gains, filling a Parameter in place.

    from autograd.nn import init
    init.kaiming_normal_(layer.weight, nonlinearity="relu", generator=np.random.default_rng(0))
    init.zeros_(layer.bias)

Fans (PyTorch's rule): a weight of shape (out, in, *kernel) has fan_in = in · prod(kernel) and
fan_out = out · prod(kernel); a 2-D weight (out, in) has fan_in = in, fan_out = out. Tensors with
fewer than two dimensions have no fans.

    xavier_uniform_   U(−a, a), a = gain · √(6 / (fan_in + fan_out))
    xavier_normal_    N(0, std²), std = gain · √(2 / (fan_in + fan_out))
    kaiming_uniform_  U(−b, b), b = √3 · gain / √fan       (fan = fan_in or fan_out: `mode`)
    kaiming_normal_   N(0, std²), std = gain / √fan          (gain = calculate_gain(nonlinearity, a))

Each function writes into the tensor's own array (its `data` keeps its identity and dtype), records
no graph, and returns the tensor. Random ones draw from `generator`, a NumPy Generator (or a seed;
None: fresh entropy), so the same generator state gives the same numbers.
"""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

from autograd.tensor import Tensor

__all__ = [
    "calculate_gain", "zeros_", "ones_", "constant_", "normal_", "uniform_", "xavier_uniform_", "xavier_normal_",
    "kaiming_uniform_", "kaiming_normal_",
]

_LINEAR = (
    "linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "sigmoid",
)


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for a nonlinearity (PyTorch's table).

    linear, conv*, sigmoid: 1; tanh: 5/3; relu: √2; leaky_relu: √(2 / (1 + slope²)) with slope
    `param` (default 0.01); selu: 3/4.
    """
    if nonlinearity in _LINEAR:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, numbers.Real) and not isinstance(param, bool):
            slope = float(param)
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    shape = _array(tensor).shape
    if len(shape) < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive_field = math.prod(shape[2:])
    return shape[1] * receptive_field, shape[0] * receptive_field


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _array(tensor: Tensor) -> np.ndarray:
    if not isinstance(tensor, Tensor):
        raise TypeError(f"expected a Tensor (a Parameter), got {type(tensor).__name__}")
    return tensor.data


def _fill(tensor: Tensor, values) -> Tensor:
    """Writes `values` into the tensor's own array (same object, same dtype)."""
    data = _array(tensor)
    data[...] = values
    return tensor


def _rng(generator) -> np.random.Generator:
    return np.random.default_rng(generator)


def _empty(tensor: Tensor) -> bool:
    if _array(tensor).size == 0:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return True
    return False


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """Fills `tensor` with draws from U(a, b)."""
    if a > b:
        raise ValueError(f"uniform_ expects a <= b, got a={a} > b={b}")
    return _fill(tensor, _rng(generator).uniform(a, b, size=_array(tensor).shape))


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """Fills `tensor` with draws from N(mean, std²)."""
    if std < 0:
        raise ValueError(f"normal_ expects std >= 0, got {std}")
    return _fill(tensor, _rng(generator).normal(mean, std, size=_array(tensor).shape))


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fills `tensor` with `val`."""
    return _fill(tensor, val)


def ones_(tensor: Tensor) -> Tensor:
    return _fill(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    return _fill(tensor, 0.0)


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Glorot & Bengio (2010): U(−a, a) with a = gain · √(6 / (fan_in + fan_out))."""
    if _empty(tensor):
        return tensor
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator=generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Glorot & Bengio (2010): N(0, std²) with std = gain · √(2 / (fan_in + fan_out))."""
    if _empty(tensor):
        return tensor
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator=generator)


def kaiming_uniform_(
    tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu", generator=None
) -> Tensor:
    """He et al. (2015): U(−b, b) with b = √3 · gain / √fan; `a` is leaky_relu's negative slope."""
    if _empty(tensor):
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound, generator=generator)


def kaiming_normal_(
    tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu", generator=None
) -> Tensor:
    """He et al. (2015): N(0, std²) with std = gain / √fan; `a` is leaky_relu's negative slope."""
    if _empty(tensor):
        return tensor
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity), generator=generator)


def _kaiming_std(tensor: Tensor, a: float, mode: str, nonlinearity: str) -> float:
    """He et al.'s std: gain / √fan, the fan chosen by ``mode``."""
    return calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))
