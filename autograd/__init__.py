"""Autograd: reverse-mode automatic differentiation over NumPy arrays."""

from autograd import functional, nn, optim
from autograd._memory import tune_malloc
from autograd.gradcheck import gradcheck
from autograd.tensor import Parameter, Tensor, is_grad_enabled, no_grad

F = functional
tune_malloc()

__all__ = ["Tensor", "Parameter", "no_grad", "is_grad_enabled", "gradcheck", "functional", "F", "nn", "optim"]
