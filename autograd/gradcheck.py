"""Checks analytic gradients against central differences."""

import time
from dataclasses import dataclass

import numpy as np

from autograd.tensor import Tensor


@dataclass(frozen=True)
class Estimate:
    """Central-difference estimates of d<fn, cotangent>/d(input), one array per input (float64).

    `grads[i]` is nan where input i's element was not estimated; `checked[i]` lists the flat indices
    that were, in the order they were.
    """

    grads: list
    checked: list


def central_differences(fn, inputs, cotangent, eps=1e-6, indices=None, deadline=None):
    """Estimates d<fn(*inputs), cotangent>/d(input) by central differences, element by element.

    `inputs` are Tensors, nudged in place (each element is restored after its two evaluations).
    `indices[i]`, if given, lists the flat indices of input i to estimate (default: all of them).
    `deadline` (a time.monotonic() value), if given, stops the estimate once passed, though every
    input still gets its first element estimated. Returns an Estimate.
    """
    grads, checked = [], []
    for k, x in enumerate(inputs):
        grad = np.full(x.data.shape, np.nan)
        flat = x.data.reshape(-1)  # a view: perturbing it perturbs x
        done = []
        for i in range(flat.size) if indices is None else indices[k]:
            if deadline is not None and done and time.monotonic() > deadline:
                break
            saved = flat[i]
            flat[i] = saved + eps
            plus = float(np.sum(fn(*inputs).data * cotangent))
            flat[i] = saved - eps
            minus = float(np.sum(fn(*inputs).data * cotangent))
            flat[i] = saved
            grad.reshape(-1)[i] = (plus - minus) / (2 * eps)
            done.append(int(i))
        grads.append(grad)
        checked.append(np.array(done, dtype=np.intp))
    return Estimate(grads, checked)


def numerical_vjp(fn, inputs, cotangent, eps=1e-6):
    """Central-difference estimate of d<fn(inputs), cotangent>/d(input) for each input, in float64."""
    return central_differences(fn, inputs, cotangent, eps).grads


def gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-4, seed=0):
    """True if fn's analytic gradients match central differences, else raises with the worst element.

    `fn(*inputs)` returns a Tensor of any shape; it is checked along a random cotangent v
    (d<fn, v>/dx for every input that requires grad), which exercises the full vector-Jacobian product.
    """
    inputs = [x if isinstance(x, Tensor) else Tensor(x) for x in inputs]
    checked = [x for x in inputs if x.requires_grad]
    if not checked:
        raise ValueError("gradcheck: no input has requires_grad=True")
    out = fn(*inputs)
    cotangent = np.random.default_rng(seed).standard_normal(out.shape)
    for x in checked:
        x.grad = None
    out.backward(cotangent.astype(out.dtype))
    analytic = [np.zeros(x.shape) if x.grad is None else x.grad.astype(np.float64) for x in checked]

    def scalar_fn(*_):
        return fn(*inputs)

    numeric = numerical_vjp(scalar_fn, checked, cotangent, eps)
    for x, a, n in zip(checked, analytic, numeric):
        err = np.abs(a - n) - (atol + rtol * np.abs(n))
        if err.size and err.max() > 0:
            i = np.unravel_index(int(np.argmax(err)), err.shape)
            position = next(j for j, y in enumerate(inputs) if y is x)
            label = x.name or f"input {position}"
            raise AssertionError(
                f"gradcheck failed for {label} (shape {x.shape}) at index {tuple(int(j) for j in i)}: "
                f"analytic {a[i]!r} vs numerical {n[i]!r} (|diff| = {abs(a[i] - n[i]):.3g}, "
                f"atol={atol}, rtol={rtol})"
            )
    return True
