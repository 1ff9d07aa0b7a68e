"""Gradient checkpointing: a block's intermediates are dropped after its forward pass and recomputed in backward."""

import threading

import numpy as np

from autograd.tensor import Primitive, Tensor, _hooks, _no_grad_depth, _result, run_backward


def checkpoint(fn, *args):
    """`fn(*args)`, as torch.utils.checkpoint.checkpoint(fn, *args, use_reentrant=False): the same value and the
    same gradients, but the graph made inside `fn` is not kept: the result is one node whose parents are the
    tensors `fn` was given and the leaves it closed over (weights), and whose backward runs `fn` again, with grad
    on, and backpropagates through that fresh graph.

    `fn` must return one Tensor and compute the same thing when called again (no fresh random numbers).
    NOTE: a non-leaf tensor `fn` closes over (rather than being given) is differentiated through, into its own
    leaves; give it to `fn` as an argument to make it the block's input.
    """
    out = fn(*args)
    if not isinstance(out, Tensor):
        raise TypeError(f"checkpoint(): fn must return a Tensor, got {type(out).__name__}")
    if not out.requires_grad:
        return out
    inputs = _inputs(out, args)
    # NOTE: only out.data is kept: the tensor `fn` returned, and with it the block's graph, is dropped here.
    return _result(out.data, inputs, CHECKPOINT, {"fn": fn, "args": args, "inputs": inputs})


def _inputs(out, args):
    """The tensors needing grad where the block's graph starts: `args` (in order) and the leaves it reached."""
    given = {id(a) for a in args if isinstance(a, Tensor)}
    seen, found, stack = {id(out)}, [], [out]
    while stack:
        t = stack.pop()
        if id(t) in given or t._prim is None:
            found.append(t)
            continue
        for p in t._parents:
            if p.requires_grad and id(p) not in seen:
                seen.add(id(p))
                stack.append(p)
    rank = {id(a): i for i, a in enumerate(args) if isinstance(a, Tensor)}
    found.sort(key=lambda t: rank.get(id(t), len(rank)))
    return tuple(found)


def _checkpoint_vjp(g, out, *arrays, need, fn, args, inputs):
    given = {id(a) for a in args if isinstance(a, Tensor)}
    # The given tensors become fresh leaves with the same data, so the recomputed graph stops at them.
    fresh = {id(t): Tensor(data, requires_grad=True) for t, data in zip(inputs, arrays) if id(t) in given}
    again = tuple(fresh.get(id(a), a) if isinstance(a, Tensor) else a for a in args)
    closed = [t for t in inputs if id(t) not in fresh]  # leaves fn closed over: their grads are stashed
    kept = [(t, t.grad) for t in closed]
    held = {id(t): _hooks.pop(id(t)) for t in closed if id(t) in _hooks}  # their hooks run in the outer pass
    thread = threading.get_ident()
    depth = _no_grad_depth.pop(thread, 0)  # NOTE: recomputed with grad on, even if backward runs in no_grad()
    try:
        for t in closed:
            t.grad = None
        result = fn(*again)
        run_backward(result, g)
        grads = [fresh[id(t)].grad if id(t) in fresh else t.grad for t in inputs]
    finally:
        if depth:
            _no_grad_depth[thread] = depth
        for t, grad in kept:
            t.grad = grad
        _hooks.update(held)
    return tuple(np.zeros_like(data) if grad is None else grad for grad, data in zip(grads, arrays))


CHECKPOINT = Primitive(
    "checkpoint", checkpoint, _checkpoint_vjp, "dInputs = the block's backward, its forward run again",
    saves=(),
)
