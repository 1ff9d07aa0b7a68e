"""Forward mode: tangents pushed through a recorded graph in topological order, each op's JVP from the registry.

Reverse mode walks the graph from the output back, each node's VJP turning the gradient it received
into its parents' shares (autograd/tensor.py run_backward). Forward mode walks the same record the
other way, parents before children: each node's JVP (Primitive.jvp) turns its parents' tangents into
its own, J·v, so after one walk every node holds the directional derivative of its value along the
inputs' tangents v. One walk gives one column-combination J·v of the Jacobian, as one backward pass
gives one row-combination gᵀJ.

    order = toposort(out)                     # the nodes the walk visits (they require grad)
    tangents = push_tangents(order, {x: v})   # node -> its tangent, for every node v reaches
    tangents[out]                             # J·v

The graph is recorded as for backward() (the inputs require grad); nothing in the record, the nodes'
grads or the backward pass changes.
"""

import numpy as np

from autograd.tensor import Tensor, toposort

__all__ = ["fit_tangent", "push_tangents", "run_forward", "toposort"]


def fit_tangent(tangent, out, op):
    """A JVP's result for an output `out`, broadcast to out's shape and cast to its dtype (a new array)."""
    try:
        return np.broadcast_to(np.asarray(tangent), out.shape).astype(out.dtype)
    except ValueError:
        raise RuntimeError(
            f"bug in the JVP of '{op}': it returned a tangent of shape {np.shape(tangent)} "
            f"for an output of shape {out.shape}"
        ) from None


def push_tangents(order, seeds, observer=None):
    """Forward-mode sweep over `order` (nodes, parents first: toposort's list): {node: tangent}.

    `seeds` maps leaves to their tangents, in their shapes. Every op node with at least one parent carrying
    a tangent gets J·(its parents' tangents) from its primitive's JVP, with None for a parent without one;
    nodes no tangent reaches are left out. `observer(node, tangents, tangent)`, if given, is called after
    each node is computed (the forward stepper uses it): `tangents` are what its parents carried (argument
    order), `tangent` its own, already fitted to its shape.
    """
    tangents = dict(seeds)
    get = tangents.get
    # NOTE: bound once, as locals, and one- and two-input ops without metadata (most of them) called
    # without building lists or keyword dicts, as run_backward does: after the forward, this walk is the
    # JVP's whole cost.
    ndarray = np.ndarray
    for node in order:
        prim = node._prim
        if prim is None:
            continue
        parents = node._parents
        meta = node._meta
        count = len(parents)
        if count == 1:
            parent = parents[0]
            t = get(parent)
            if t is None:
                continue
            given = (t,)
            if meta is None:
                result = prim.jvp(given, node.data, parent.data)
            else:
                result = prim.jvp(given, node.data, parent.data, **meta)
        elif count == 2:
            a, b = parents
            ta, tb = get(a), get(b)
            if ta is None and tb is None:
                continue
            given = (ta, tb)
            if meta is None:
                result = prim.jvp(given, node.data, a.data, b.data)
            else:
                result = prim.jvp(given, node.data, a.data, b.data, **meta)
        else:
            given = tuple([get(p) for p in parents])
            if all(t is None for t in given):
                continue
            result = prim.jvp(given, node.data, *[p.data for p in parents], **(meta or {}))
        data = node.data
        if type(result) is not ndarray or result.shape != data.shape or result.dtype is not data.dtype:
            result = fit_tangent(result, data, prim.name)
        tangents[node] = result
        if observer is not None:
            observer(node, given, result)
    return tangents


def run_forward(root, seeds, observer=None):
    """The tangent of `root` for the leaves' tangents `seeds` ({leaf Tensor: array}): J·v, in root's shape.

    Zeros when no seeded leaf reaches `root`. A leaf's tangent must have the leaf's shape (ValueError).
    """
    if not isinstance(root, Tensor):
        raise TypeError(f"run_forward needs a Tensor, got {type(root).__name__}")
    fitted = {}
    for leaf, tangent in seeds.items():
        tangent = np.asarray(tangent.data if isinstance(tangent, Tensor) else tangent, dtype=leaf.data.dtype)
        if tangent.shape != leaf.data.shape:
            raise ValueError(f"a tangent of shape {tangent.shape} for a tensor of shape {leaf.shape}")
        fitted[leaf] = tangent
    tangent = push_tangents(toposort(root), fitted, observer).get(root)
    return np.zeros(root.data.shape, root.data.dtype) if tangent is None else tangent
