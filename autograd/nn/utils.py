"""Helpers over a model's parameters: clip_grad_norm_ and clip_grad_value_ (torch.nn.utils)."""

import numpy as np

from autograd.tensor import Tensor


def _with_grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p for p in parameters if p.grad is not None]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scales every grad in place so that their joint norm is at most `max_norm`; returns the norm before.

    As torch.nn.utils.clip_grad_norm_: the norm of all grads taken together (of the per-tensor norms),
    the scale max_norm / (norm + 1e-6) applied only when it is below 1, and the norm returned as a
    0-d Tensor. `foreach` is accepted and ignored.
    """
    params = _with_grads(parameters)
    max_norm, norm_type = float(max_norm), float(norm_type)
    if not params:
        return Tensor(0.0)
    grads = [p.grad for p in params]
    if norm_type == np.inf:
        total = max(float(np.max(np.abs(g))) if g.size else 0.0 for g in grads)
    else:
        norms = np.array([np.linalg.norm(g.reshape(-1), ord=norm_type) for g in grads])
        total = float(np.linalg.norm(norms, ord=norm_type))
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
                           "so it cannot be clipped. To disable this error and scale the gradients by the "
                           "non-finite norm anyway, set `error_if_nonfinite=False`")
    coef = min(max_norm / (total + 1e-6), 1.0)
    for p in params:
        p.grad = p.grad * np.asarray(coef, dtype=p.grad.dtype)
    return Tensor(total)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clips every grad in place to [−clip_value, clip_value] (torch.nn.utils.clip_grad_value_)."""
    clip_value = float(clip_value)
    for p in _with_grads(parameters):
        np.clip(p.grad, -clip_value, clip_value, out=p.grad)
