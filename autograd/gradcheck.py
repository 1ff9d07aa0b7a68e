"""Checks analytic gradients against central differences: first derivatives (gradcheck) and second
(gradgradcheck: the create_graph gradient, differentiated again, against central differences of the first)."""

import numpy as np

from autograd.higher import grad
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


def _labels(inputs, checked):
    """(name, shape) of each checked input: its name, or its position among the inputs."""
    return [(x.name or f"input {next(j for j, y in enumerate(inputs) if y is x)}", x.shape) for x in checked]


def _compare(labels, analytic, numeric, atol, rtol, what):
    for (label, shape), a, n in zip(labels, analytic, numeric):
        err = np.abs(a - n) - (atol + rtol * np.abs(n))
        if err.size and err.max() > 0:
            i = np.unravel_index(int(np.argmax(err)), err.shape)
            raise AssertionError(
                f"{what} failed for {label} (shape {shape}) at index {tuple(int(j) for j in i)}: "
                f"analytic {a[i]!r} vs numerical {n[i]!r} (|diff| = {abs(a[i] - n[i]):.3g}, "
                f"atol={atol}, rtol={rtol})"
            )


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
    _compare(_labels(inputs, checked), analytic, numeric, atol, rtol, "gradcheck")
    return True


def gradgradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-4, seed=0):
    """True if fn's second derivatives match central differences of its first, else raises with the worst element.

    As torch.autograd.gradgradcheck: for a random cotangent v of fn's output and random directions u (one per
    input that requires grad), the first derivative h(x, v) = Σ <vᵀJ(x), u> is recorded with
    autograd.grad(create_graph=True) and differentiated again, with respect to every such input and to v; the
    result must match central differences of h, each h computed by the plain (array) backward pass. The
    create_graph gradient must also equal the plain one.
    """
    inputs = [x if isinstance(x, Tensor) else Tensor(x) for x in inputs]
    checked = [x for x in inputs if x.requires_grad]
    if not checked:
        raise ValueError("gradgradcheck: no input has requires_grad=True")
    out = fn(*inputs)
    rng = np.random.default_rng(seed)
    v = Tensor(rng.standard_normal(out.shape).astype(out.dtype), requires_grad=True)
    us = [rng.standard_normal(x.shape) for x in checked]

    def first(create_graph):
        grads = grad(fn(*inputs), checked, grad_outputs=v, create_graph=create_graph, allow_unused=True)
        return [np.zeros(x.shape) if g is None else g for g, x in zip(grads, checked)]

    recorded, plain = first(True), first(False)
    labels = _labels(inputs, checked)
    as_array = [[np.asarray(getattr(g, "data", g), np.float64) for g in grads] for grads in (recorded, plain)]
    _compare(labels, *as_array, 1e-12, 1e-10, "gradgradcheck (first order)")
    h = None
    for g, u in zip(recorded, us):
        if isinstance(g, Tensor) and g.requires_grad:
            term = (g * u).sum()
            h = term if h is None else h + term
    wrt = [*checked, v]
    if h is None:  # the first derivative is a constant: every second derivative is 0
        analytic = [np.zeros(x.shape) for x in wrt]
    else:
        analytic = [np.zeros(x.shape) if g is None else g.data.astype(np.float64)
                    for g, x in zip(grad(h, wrt, allow_unused=True), wrt)]

    def h_plain(*_):
        return Tensor(sum(float(np.sum(np.asarray(g.data if isinstance(g, Tensor) else g) * u))
                          for g, u in zip(first(False), us)))

    numeric = numerical_vjp(h_plain, wrt, 1.0, eps)
    _compare([*labels, ("the cotangent v", v.shape)], analytic, numeric, atol, rtol, "gradgradcheck")
    return True
