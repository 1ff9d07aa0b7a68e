"""autograd.grad: gradients as results, not side effects, and (create_graph=True) gradients that have a graph.

    (gx,) = grad(y, x)                          # dy/dx, a Tensor; x.grad is not touched
    (gx,) = grad(y, x, create_graph=True)       # the same numbers, recorded from the primitives
    (gxx,) = grad(gx.sum(), x)                  # so they can be differentiated again, to any order

The walk is backward()'s (autograd/tensor.py run_backward), over the nodes between the outputs and the
inputs only, with one difference under create_graph: each VJP is called with `xp=autograd.ops.xp_tensor`
and Tensors (the upstream gradient, the node, its parents), so the body that backward() runs on arrays
records the gradient through the same primitives. backward() itself is not changed and pays nothing.
"""

from __future__ import annotations

import numpy as np

from autograd.ops import xp_tensor
from autograd.tensor import Tensor, fit_gradient, toposort

__all__ = ["grad", "gradient_walk"]


def _tensors(value, what):
    if isinstance(value, Tensor):
        return (value,), True
    if isinstance(value, (tuple, list)) and all(isinstance(v, Tensor) for v in value):
        return tuple(value), False
    raise TypeError(f"grad: {what} must be a Tensor or a sequence of Tensors, got {type(value).__name__}")


def _seed(output, given, create_graph):
    """An output's upstream gradient: ones if None (any shape, as backward()), else `given` in its shape."""
    if given is None:
        seed = np.ones(output.data.shape, output.data.dtype)
    elif isinstance(given, Tensor):
        if given.data.shape != output.data.shape:
            raise ValueError(f"grad: grad_outputs has shape {given.shape} but the output has shape {output.shape}")
        return given if create_graph else given.data
    else:
        seed = np.array(given, dtype=output.data.dtype)
        if seed.shape != output.data.shape:
            raise ValueError(f"grad: grad_outputs has shape {seed.shape} but the output has shape {output.shape}")
    return Tensor._constant(seed) if create_graph else seed


def _order(roots):
    """The nodes requiring grad reachable from `roots`, parents before children (one list for all roots)."""
    order, seen = [], set()
    for root in roots:
        for node in toposort(root):
            if node not in seen:
                seen.add(node)
                order.append(node)
    return order


def _fit(contribution, parent, op):
    """A VJP's Tensor result for `parent`, summed back over broadcast axes (the recorded fit_gradient)."""
    if not isinstance(contribution, Tensor):  # a VJP may pass a constant on (a mask, a number)
        contribution = Tensor._constant(np.asarray(contribution))
    try:
        fitted = xp_tensor.sum_to(contribution, parent.data.shape)
    except ValueError:
        fitted = None
    if fitted is None or fitted.shape != parent.data.shape:
        raise RuntimeError(f"bug in the VJP of '{op}': it returned a gradient of shape {contribution.shape} "
                           f"for an input of shape {parent.data.shape}")
    return fitted


def gradient_walk(outputs, seeds, inputs, create_graph=False, observer=None):
    """{input: d(Σ outputs·seeds)/d(input)} for the inputs the outputs depend on (arrays, or Tensors with a
    graph under create_graph), by one reverse sweep over the nodes that lie between them. No .grad changes.

    `observer(node, g, raw)`, if given, is called after each op node's VJP: its complete gradient `g` and what
    its VJP returned per parent (the backward graph's builder uses it)."""
    wanted = set(inputs)
    order = _order(outputs)
    # NOTE: only parents through which some input is reached get a gradient (`need`): under create_graph
    # nothing is recorded for the others.
    reaches = {}
    for node in order:
        reaches[node] = node in wanted or any(reaches.get(p, False) for p in node._parents)
    pending = {}
    for output, seed in zip(outputs, seeds):
        if reaches.get(output):
            pending[output] = seed if output not in pending else pending[output] + seed
    found = {}
    for node in reversed(order):
        g = pending.pop(node, None)
        if g is None:
            continue
        if node in wanted:
            found[node] = g
        prim = node._prim
        if prim is None:
            continue
        parents = node._parents
        need = tuple([reaches.get(p, False) for p in parents])
        meta = node._meta or {}
        if create_graph:
            raw = prim.vjp(g, node, *parents, need=need, xp=xp_tensor, **meta)
        else:
            raw = prim.vjp(g, node.data, *[p.data for p in parents], need=need, **meta)
        for parent, contribution, needed in zip(parents, raw, need):
            if not needed or contribution is None:
                continue
            if create_graph:
                contribution = _fit(contribution, parent, prim.name)
            else:
                contribution = fit_gradient(contribution, parent.data, prim.name)
            previous = pending.get(parent)
            pending[parent] = contribution if previous is None else previous + contribution
        if observer is not None:
            observer(node, g, raw)
    return found


def grad(outputs, inputs, grad_outputs=None, create_graph=False, allow_unused=False):
    """torch.autograd.grad: the gradients of `outputs` (weighted by `grad_outputs`, ones where None) with
    respect to `inputs`, one per input, as a tuple of Tensors. Leaves' .grad are not touched.

    With create_graph=True the results have a graph of their own, made of the same primitives, so they
    can be differentiated again; without it they have none. An input the outputs do not depend on raises
    RuntimeError, unless allow_unused=True (its entry is then None).
    """
    outs, _ = _tensors(outputs, "outputs")
    ins, _ = _tensors(inputs, "inputs")
    if grad_outputs is None or isinstance(grad_outputs, (Tensor, np.ndarray)) or np.isscalar(grad_outputs):
        givens = (grad_outputs,) * len(outs) if grad_outputs is None else (grad_outputs,)
    else:
        givens = tuple(grad_outputs)
    if len(givens) != len(outs):
        raise ValueError(f"grad: {len(givens)} grad_outputs for {len(outs)} outputs (one each, or None)")
    for k, out in enumerate(outs):
        if not out.requires_grad:
            raise RuntimeError(f"grad: output {k} does not require grad: none of the tensors it was computed from "
                               "has requires_grad=True (or it was computed under no_grad())")
    for k, x in enumerate(ins):
        if not x.requires_grad:
            raise RuntimeError(f"grad: input {k} does not require grad, so nothing can be differentiated "
                               "with respect to it")
    seeds = [_seed(out, given, create_graph) for out, given in zip(outs, givens)]
    found = gradient_walk(outs, seeds, ins, create_graph)
    results = []
    for k, x in enumerate(ins):
        g = found.get(x)
        if g is None:
            if not allow_unused:
                raise RuntimeError(f"grad: input {k} was not used to compute the outputs (pass allow_unused=True "
                                   "to get None for it)")
            results.append(None)
        elif create_graph:
            results.append(g)
        else:
            results.append(Tensor._constant(np.array(g, dtype=x.data.dtype)))
    return tuple(results)
