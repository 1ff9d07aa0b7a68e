"""Function transforms shaped like torch.func: jvp and jacfwd (forward mode), vjp and jacrev (reverse mode).

    out, tangent = jvp(f, (x,), (v,))       # f(x) and J·v: one forward-mode pass
    out, vjp_fn = vjp(f, x); (gx,) = vjp_fn(u)   # uᵀJ: one backward pass per call of vjp_fn
    jac = jacfwd(f)(x)                      # J, of shape out.shape + x.shape: n JVPs (n = x.size)
    jac = jacrev(f)(x)                      # the same J from m VJPs (m = out.size)
    g = grad(f)(x)                          # ∇f for a scalar f: one backward pass
    H = hessian(f)(x)                       # ∇²f, of shape out.shape + x.shape + x.shape: reverse over reverse
    out, hv = hvp(f, (x,), (v,))            # f(x) and H·v: two backward passes, the second through the first

`f` takes Tensors and returns one Tensor (with ``has_aux=True``: a pair (Tensor, anything)). The primals are
not changed; `f` runs once, on fresh leaves that share their data, and its graph is recorded (also inside
no_grad()). Every result is a Tensor without a graph. A Jacobian function says what its last call cost:
``jacfwd(f)`` took ``.passes`` JVPs (one per input number, ``.n``) and ``jacrev(f)`` as many VJPs as the
output has numbers (``.m``): forward mode wins when n < m, reverse mode when m < n.

grad, hessian and hvp differentiate the gradient itself: autograd.grad(create_graph=True) records the backward
pass from the primitives (autograd/higher.py). Inside another transform (an argument already has a graph)
`grad(f)` records its result too, so transforms compose: grad(grad(f)), jacrev(grad(f)), and jvp(grad(f), ...)
is forward-over-reverse, H·v by one JVP of the gradient.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

import numpy as np

from autograd import higher
from autograd.forward import push_tangents, run_forward
from autograd.ops import as_tensor, reshape
from autograd.tensor import Tensor, _no_grad_depth, run_backward, toposort

__all__ = ["jvp", "vjp", "jacfwd", "jacrev", "JacobianFunction", "grad", "hessian", "hvp"]


# ---- arguments ----------------------------------------------------------------------------------------
def _as_tuple(what, value, name):
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{name}: {what} must be a tuple of Tensors, got {type(value).__name__}")
    return tuple(value)


def _primal(value, position, name):
    """A primal as a float Tensor (arrays and numbers are taken as PyTorch's torch.tensor would)."""
    x = value if isinstance(value, Tensor) else as_tensor(value)
    if x.data.dtype.kind != "f":
        raise TypeError(f"{name}: primal {position} has dtype {x.data.dtype}; only floating-point tensors "
                        "can be differentiated")
    return x


def _argnums(argnums, count, name):
    """`argnums` (int or tuple of ints, negative counting from the end) as a tuple of positions."""
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    if not nums:
        raise ValueError(f"{name}: argnums must name at least one argument")
    positions = []
    for k in nums:
        if not isinstance(k, (int, np.integer)) or isinstance(k, bool):
            raise TypeError(f"{name}: argnums must be an int or a tuple of ints, got {argnums!r}")
        if not -count <= k < count:
            raise ValueError(f"{name}: argnums {k} is out of range for a function called with {count} arguments")
        positions.append(int(k) % count)
    if len(set(positions)) != len(positions):
        raise ValueError(f"{name}: argnums {argnums!r} names the same argument twice")
    return tuple(positions)


@contextmanager
def _recording():
    """The graph is recorded inside, even within no_grad() (as torch.func's transforms do)."""
    thread = threading.get_ident()
    depth = _no_grad_depth.pop(thread, None)
    try:
        yield
    finally:
        if depth is not None:
            _no_grad_depth[thread] = depth


def _leaf(x):
    """A fresh leaf sharing x's data, to record f's graph from (x itself is not changed)."""
    leaf = Tensor._constant(x.data)
    leaf.requires_grad = True
    return leaf


def _run(f, args, positions, has_aux, name, leaf=_leaf, detach=True):
    """f called on `args` with `leaf(x)` (a fresh leaf by default) at `positions`: (leaves, out, aux); aux detached
    unless `detach` is False."""
    args = list(args)
    leaves = []
    for k in positions:
        leaves.append(leaf(_primal(args[k], k, name)))
        args[k] = leaves[-1]
    with _recording():
        result = f(*args)
    aux = None
    if has_aux:
        if not (isinstance(result, tuple) and len(result) == 2):
            raise TypeError(f"{name}(has_aux=True): f must return a pair (output Tensor, aux)")
        result, aux = result
        aux = _detached(aux) if detach else aux
    if not isinstance(result, Tensor):
        raise TypeError(f"{name}: f must return a Tensor, it returned {type(result).__name__}")
    return leaves, result, aux


def _detached(value):
    if isinstance(value, Tensor):
        return Tensor._constant(value.data)
    if isinstance(value, (tuple, list)):
        return type(value)(_detached(v) for v in value)
    if isinstance(value, dict):
        return {k: _detached(v) for k, v in value.items()}
    return value


def _plain(array):
    return Tensor._constant(np.array(array))


# ---- jvp, vjp ------------------------------------------------------------------------------------------
def _tangents(xs, tangents, name):
    """The tangents as arrays of their primals' dtypes; ValueError naming the first whose shape is not its primal's."""
    vs = []
    for k, (x, v) in enumerate(zip(xs, tangents)):
        v = np.asarray(v.data if isinstance(v, Tensor) else v)
        if v.shape != x.data.shape:
            raise ValueError(f"{name}: tangent {k} has shape {v.shape} but primal {k} has shape {x.data.shape}")
        vs.append(v.astype(x.data.dtype, copy=False))
    return vs


def jvp(f, primals, tangents, *, has_aux=False):
    """(f(*primals), J·tangents): forward mode, one pass. `primals` and `tangents` are tuples of the same
    length and shapes (ValueError naming the first mismatch). With has_aux, (out, tangent, aux)."""
    primals = _as_tuple("primals", primals, "jvp")
    tangents = _as_tuple("tangents", tangents, "jvp")
    if len(primals) != len(tangents):
        raise ValueError(f"jvp: {len(primals)} primals but {len(tangents)} tangents (one tangent per primal)")
    xs = [_primal(x, k, "jvp") for k, x in enumerate(primals)]
    vs = _tangents(xs, tangents, "jvp")
    leaves, out, aux = _run(f, xs, range(len(xs)), has_aux, "jvp")
    tangent = _plain(run_forward(out, dict(zip(leaves, vs))))
    return (_plain(out.data), tangent, aux) if has_aux else (_plain(out.data), tangent)


def _pull(out, leaves, cotangent, order):
    """uᵀJ for each leaf (zeros for a leaf the output does not depend on), by the engine's backward pass;
    every grad it wrote is cleared again, so the next call starts afresh."""
    if not out.requires_grad:
        return [np.zeros(x.data.shape, x.data.dtype) for x in leaves]
    try:
        run_backward(out, cotangent)
        return [np.zeros(x.data.shape, x.data.dtype) if x.grad is None else np.array(x.grad) for x in leaves]
    finally:
        for node in order:
            node.grad = None


def vjp(f, *primals, has_aux=False):
    """(f(*primals), vjp_fn): reverse mode. vjp_fn(u) returns uᵀJ for each primal, as a tuple (one backward
    pass per call; u has the output's shape). With has_aux, (out, vjp_fn, aux)."""
    xs = [_primal(x, k, "vjp") for k, x in enumerate(primals)]
    leaves, out, aux = _run(f, xs, range(len(xs)), has_aux, "vjp")
    order = toposort(out) if out.requires_grad else ()

    def vjp_fn(cotangent):
        u = np.asarray(cotangent.data if isinstance(cotangent, Tensor) else cotangent)
        if u.shape != out.data.shape:
            raise ValueError(f"vjp: the cotangent has shape {u.shape} but the output has shape {out.data.shape}")
        return tuple(_plain(g) for g in _pull(out, leaves, u.astype(out.data.dtype, copy=False), order))

    return (_plain(out.data), vjp_fn, aux) if has_aux else (_plain(out.data), vjp_fn)


# ---- Jacobians -----------------------------------------------------------------------------------------
class JacobianFunction:
    """What jacfwd(f) and jacrev(f) return: called like f, it gives the Jacobian of f's output with respect
    to the arguments at `argnums` (shape out.shape + primal.shape; a tuple of them for a tuple argnums).

    After a call, ``passes`` says how many passes that call took (``mode`` 'forward': one JVP per input
    number, n; 'reverse': one VJP per output number, m), with ``n`` and ``m``; None before the first call.
    """

    def __init__(self, f, argnums, has_aux, mode):
        self.f, self.argnums, self.has_aux, self.mode = f, argnums, has_aux, mode
        self.passes = self.n = self.m = None

    def __repr__(self):
        name = "jacfwd" if self.mode == "forward" else "jacrev"
        return f"{name}({getattr(self.f, '__name__', 'f')}, argnums={self.argnums!r})"

    def __call__(self, *args):
        name = "jacfwd" if self.mode == "forward" else "jacrev"
        positions = _argnums(self.argnums, len(args), name)
        leaves, out, aux = _run(self.f, args, positions, self.has_aux, name)
        n, m = sum(x.data.size for x in leaves), out.data.size
        blocks, self.passes = forward_blocks(out, leaves) if self.mode == "forward" else reverse_blocks(out, leaves)
        self.n, self.m = n, m
        jacs = tuple(_plain(b.reshape(out.data.shape + x.data.shape)) for b, x in zip(blocks, leaves))
        result = jacs if isinstance(self.argnums, tuple) else jacs[0]
        return (result, aux) if self.has_aux else result


def forward_blocks(out, leaves):
    """(J = ∂out/∂leaf for each leaf as an (m, leaf.size) matrix, the passes taken): one column per forward-mode
    pass, n in all; column j is the output's tangent when the one-hot eⱼ is the only tangent."""
    m, dtype = out.data.size, out.data.dtype
    order = toposort(out)
    blocks = []
    for leaf in leaves:
        block = np.zeros((m, leaf.data.size), dtype)
        seed = np.zeros(leaf.data.shape, leaf.data.dtype)
        flat = seed.reshape(-1)
        for j in range(leaf.data.size):
            flat[j] = 1
            tangent = push_tangents(order, {leaf: seed}).get(out)
            if tangent is not None:
                block[:, j] = tangent.reshape(-1)
            flat[j] = 0
        blocks.append(block)
    return blocks, sum(x.data.size for x in leaves)


def reverse_blocks(out, leaves):
    """(J = ∂out/∂leaf for each leaf as an (m, leaf.size) matrix, the passes taken): one row per reverse-mode
    pass, m in all (none when no leaf reaches the output: J is zeros); row i is what the backward pass sends
    each leaf for the one-hot cotangent eᵢ."""
    m, dtype = out.data.size, out.data.dtype
    blocks = [np.zeros((m, x.data.size), dtype) for x in leaves]
    order = toposort(out) if out.requires_grad else ()
    seed = np.zeros(out.data.shape, dtype)
    flat = seed.reshape(-1)
    passes = m if out.requires_grad else 0
    for i in range(passes):
        flat[i] = 1
        for block, g in zip(blocks, _pull(out, leaves, seed, order)):
            block[i] = g.reshape(-1)
        flat[i] = 0
    return blocks, passes


def jacfwd(f, argnums=0, *, has_aux=False):
    """The Jacobian of f by forward mode: one JVP per number of the inputs at `argnums` (see JacobianFunction)."""
    return JacobianFunction(f, argnums, has_aux, "forward")


def jacrev(f, argnums=0, *, has_aux=False):
    """The Jacobian of f by reverse mode: one VJP per number of f's output (see JacobianFunction)."""
    return JacobianFunction(f, argnums, has_aux, "reverse")


# ---- the gradient as a function: grad, hessian, hvp -----------------------------------------------------
def _zeros_like(x):
    return np.zeros(x.data.shape, x.data.dtype)


def _grad_leaf(x):
    """What `grad` differentiates with respect to: a fresh leaf, or, for a tensor that has a graph, an identity
    of its own (a reshape).
    NOTE: so that the same tensor passed at two positions gets each position's partial derivative."""
    return reshape(x, x.data.shape) if x.requires_grad else _leaf(x)


def grad(f, argnums=0, *, has_aux=False):
    """torch.func.grad: a function that returns the gradient of f (whose output is a 0-d Tensor) with respect
    to the arguments at `argnums` (a Tensor, or a tuple of them for a tuple argnums); with has_aux, (grad, aux).

    Called on Tensors that already have a graph (inside another transform, or on tensors requiring grad),
    the gradient is recorded (autograd.grad with create_graph=True), so it can be differentiated again."""

    def gradient(*args):
        positions = _argnums(argnums, len(args), "grad")
        nested = any(isinstance(a, Tensor) and a.requires_grad for a in args)
        leaves, result, aux = _run(f, args, positions, has_aux, "grad", leaf=_grad_leaf, detach=False)
        if result.data.ndim != 0:
            raise ValueError(f"grad: f must return a 0-d (scalar) Tensor, it returned one of shape {result.shape}")
        found = (None,) * len(leaves)
        if result.requires_grad:
            with _recording():
                found = higher.grad(result, leaves, create_graph=nested, allow_unused=True)
        grads = tuple(_plain(_zeros_like(x)) if g is None else g if nested else _plain(g.data)
                      for g, x in zip(found, leaves))
        grads = grads if isinstance(argnums, tuple) else grads[0]
        return (grads, aux if nested else _detached(aux)) if has_aux else grads

    return gradient


def hessian(f, argnums=0):
    """torch.func.hessian: a function that returns the second derivatives of f's output with respect to the
    arguments at `argnums`, of shape out.shape + x.shape + x.shape (for a tuple argnums, a tuple of tuples:
    entry [i][j] of shape out.shape + x_i.shape + x_j.shape). Reverse over reverse: for each number of the
    output one recorded backward pass, then one backward pass through it per number of the gradient."""

    def second(*args):
        positions = _argnums(argnums, len(args), "hessian")
        leaves, out, _ = _run(f, args, positions, False, "hessian")
        m = out.data.size
        blocks = [[np.zeros((m, xi.data.size, xj.data.size)) for xj in leaves] for xi in leaves]
        seed = np.zeros(out.data.shape, out.data.dtype)
        flat = seed.reshape(-1)
        for r in range(m if out.requires_grad else 0):
            flat[r] = 1
            with _recording():
                grads = higher.grad(out, leaves, grad_outputs=seed, create_graph=True, allow_unused=True)
            flat[r] = 0
            for i, g in enumerate(grads):
                if g is not None and g.requires_grad:
                    for j, block in enumerate(reverse_blocks(g, leaves)[0]):
                        blocks[i][j][r] = block
        result = tuple(tuple(_plain(blocks[i][j].astype(out.data.dtype).reshape(out.data.shape + xi.data.shape
                                                                                + xj.data.shape))
                             for j, xj in enumerate(leaves)) for i, xi in enumerate(leaves))
        return result if isinstance(argnums, tuple) else result[0][0]

    return second


def hvp(f, primals, tangents):
    """torch.autograd.functional.hvp: (f(*primals), H·tangents) for f with a one-number output, H its Hessian
    with respect to the primals. `primals` and `tangents` are tuples of the same length and shapes, as jvp
    takes them (H·v is then a tuple), or one Tensor each (H·v is then one Tensor). Reverse over reverse:
    the gradient g is recorded, then one backward pass of Σ <g, v> gives H·v."""
    single = not isinstance(primals, (tuple, list))
    primals = (primals,) if single else _as_tuple("primals", primals, "hvp")
    tangents = (tangents,) if single and not isinstance(tangents, (tuple, list)) else _as_tuple("tangents",
                                                                                               tangents, "hvp")
    if len(primals) != len(tangents):
        raise ValueError(f"hvp: {len(primals)} primals but {len(tangents)} tangents (one tangent per primal)")
    xs = [_primal(x, k, "hvp") for k, x in enumerate(primals)]
    vs = _tangents(xs, tangents, "hvp")
    leaves, out, _ = _run(f, xs, range(len(xs)), False, "hvp")
    if out.data.size != 1:
        raise ValueError(f"hvp: f must return a Tensor with one element, it returned one of shape {out.shape}")
    products = [_zeros_like(x) for x in leaves]
    if out.requires_grad:
        with _recording():
            grads = higher.grad(out, leaves, create_graph=True, allow_unused=True)
            total = None
            for g, v in zip(grads, vs):
                if g is not None and g.requires_grad:
                    term = (g * v).sum()
                    total = term if total is None else total + term
            if total is not None:
                second = higher.grad(total, leaves, allow_unused=True)
                products = [p if h is None else h.data for p, h in zip(products, second)]
    result = tuple(_plain(p) for p in products)
    return _plain(out.data), (result[0] if single else result)
