"""Autograd: automatic differentiation over NumPy arrays, reverse mode (backward()) and forward mode (autograd.func).

Importing it changes nothing outside the package. `tune_malloc()` is the one process-wide setting it
offers, as an explicit call (the app and the benchmarks make it).
"""

from autograd import func, functional, nn, optim
from autograd._memory import tune_malloc
from autograd.checkpointing import checkpoint
from autograd.gradcheck import gradcheck, gradgradcheck
from autograd.higher import grad
from autograd.tensor import Parameter, Tensor, is_grad_enabled, no_grad

F = functional

__all__ = [
    "Tensor", "Parameter", "no_grad", "is_grad_enabled", "gradcheck", "functional", "F", "nn", "optim", "tune_malloc",
    "func", "checkpoint", "grad", "gradgradcheck",
]
