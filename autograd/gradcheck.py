"""Checks analytic gradients against central differences."""

import numpy as np

from autograd.tensor import Tensor


def numerical_vjp(fn, inputs, cotangent, eps=1e-6, elements=None, stop=None):
    """Central-difference estimate of d<fn(inputs), cotangent>/d(input) for each input, in float64.

    `elements` lists the (input position, flat index) pairs to estimate, in that order (default: every
    element of every input); `stop()`, asked before each pair, ends the estimate early when it returns
    True. Elements not estimated are nan.
    """
    grads = [np.full(x.data.shape, np.nan if elements is not None else 0.0, dtype=np.float64) for x in inputs]
    if elements is None:
        elements = ((k, i) for k, x in enumerate(inputs) for i in range(x.data.size))
    elements = iter(elements)
    while stop is None or not stop():  # asked before the next pair is even taken
        pair = next(elements, None)
        if pair is None:
            break
        k, i = pair
        flat = inputs[k].data.reshape(-1)  # a view: perturbing it perturbs the input
        saved = flat[i]
        flat[i] = saved + eps
        plus = np.array(fn(*inputs).data, dtype=np.float64)  # a copy: the output may be a view of the input
        flat[i] = saved - eps
        minus = np.array(fn(*inputs).data, dtype=np.float64)
        flat[i] = saved
        # NOTE: the outputs are subtracted before they are summed: elements the nudge did not reach
        # cancel exactly, so summing a large output adds no rounding noise of its own.
        grads[k].reshape(-1)[i] = float(np.sum((plus - minus) * cotangent)) / (2 * eps)
    return grads


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
