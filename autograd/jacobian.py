"""The Jacobian a vector-Jacobian product stands for: built from an op node's own VJP, checked against its forward.

Reverse mode never forms J = ∂out/∂input. Each op's VJP (autograd/ops) turns an upstream gradient g
into gᵀJ directly, at the cost of a few passes over the arrays; J itself has out.size × input.size
numbers (softmax over 64 elements: 4,096 of them, for a VJP that does 255 operations). Running the
same VJP on the one-hot vectors eᵢ gives J one row at a time (row i = eᵢᵀJ: what the input would
receive if only output element i mattered), which is how this module builds it; central
differences of the op's own forward give the same matrix column by column.

    from autograd.jacobian import jacobian
    node = x.softmax()                 # any Tensor made by a primitive of autograd.ops
    jac = jacobian(node, upstream=g)   # NodeJacobian: one InputJacobian per input that needs grad
    jac.inputs[0].matrix               # J (or its top-left block), float64
    jac.inputs[0].gtj, .vjp            # gᵀJ and what the VJP sent for g: equal
    jac.operations                     # arithmetic operations the VJP did for g

Plain NumPy; nothing here changes the node or its graph.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import numpy as np

from autograd.forward import fit_tangent
from autograd.tensor import Tensor, fit_gradient, no_grad

#: Rows and columns of J shown per input; a bigger J is shown by its top-left block of this size.
LIMIT = 64
#: J is built whole (so that gᵀJ can be compared with the VJP) up to this many entries per input...
WHOLE_ENTRIES = 65_536
#: ...and as long as its rows cost at most this many VJP operations in all.
WHOLE_WORK = 4_000_000
#: The nudge of the central differences (float64).
EPS = 1e-6


@dataclass(frozen=True)
class InputJacobian:
    """J = ∂out/∂input for one input of an op node, flattened to a matrix (output element × input element).

    ``matrix`` is J[:shown_rows, :shown_cols] (all of J when it fits in LIMIT × LIMIT), row i built by the
    VJP from the one-hot eᵢ; ``numeric`` the same block by central differences of the op's forward.
    ``gtj`` is gᵀJ for the whole J (None when J was too big to build whole) and ``vjp`` what the VJP
    sent this input for g: both in the input's shape.
    """

    slot: int  # the input's argument position
    shape: tuple  # the input's shape
    rows: int  # out.size: J's rows
    cols: int  # the input's size: J's columns
    matrix: np.ndarray
    numeric: np.ndarray
    vjp: np.ndarray
    gtj: np.ndarray | None

    @property
    def shown_rows(self) -> int:
        return self.matrix.shape[0]

    @property
    def shown_cols(self) -> int:
        return self.matrix.shape[1]

    @property
    def whole(self) -> bool:
        """True when ``matrix`` is all of J."""
        return self.matrix.shape == (self.rows, self.cols)

    @property
    def max_error(self) -> float | None:
        """max |gᵀJ − VJP(g)|, or None when J was not built whole."""
        if self.gtj is None:
            return None
        return _max_abs(self.gtj - self.vjp)

    @property
    def max_numeric_error(self) -> float:
        """max |J − central differences| over the block shown."""
        return _max_abs(self.matrix - self.numeric)

    def matches_numeric(self, atol: float = 1e-5, rtol: float = 1e-4) -> bool:
        """Every shown entry of J within atol + rtol·|numeric| of central differences (nan counts as a mismatch
        unless both are nan)."""
        both_nan = np.isnan(self.matrix) & np.isnan(self.numeric)
        close = np.abs(self.matrix - self.numeric) <= atol + rtol * np.abs(self.numeric)
        return bool(np.all(close | both_nan))


@dataclass(frozen=True)
class NodeJacobian:
    """The Jacobians of one op node with respect to each input that needs grad, and what its VJP costs."""

    op: str
    out_shape: tuple
    upstream: np.ndarray  # g, the gradient the VJP was given (out's shape)
    inputs: tuple  # of InputJacobian, in argument order
    constants: tuple  # argument positions of inputs without grad (no Jacobian is built for them)
    operations: int  # arithmetic operations the VJP did for g, undoing broadcasting included

    @property
    def entries(self) -> int:
        """Numbers in the full Jacobians (Σ rows × cols): what reverse mode never builds."""
        return sum(j.rows * j.cols for j in self.inputs)


def _max_abs(diff: np.ndarray) -> float:
    diff = np.abs(np.asarray(diff, dtype=np.float64))
    if diff.size == 0:
        return 0.0
    return float(np.nanmax(diff)) if not np.all(np.isnan(diff)) else float("nan")


def _check(node: Tensor) -> None:
    if not isinstance(node, Tensor) or node._prim is None:
        raise ValueError("a Jacobian needs a tensor made by an op (a leaf has no op to differentiate)")


# ---- the VJP, called as the engine calls it --------------------------------------------------------
def vjp(node: Tensor, g: np.ndarray) -> list:
    """What ``node``'s VJP sends each input for upstream ``g``, summed back to the input's shape (None for an
    input without grad): the call run_backward makes, with the node's recorded inputs and metadata."""
    _check(node)
    return _vjp(node, np.asarray(g, dtype=node.data.dtype), [p.data for p in node._parents], node.data)


def _vjp(node: Tensor, g, inputs, out) -> list:
    need = tuple(p.requires_grad for p in node._parents)
    meta = node._meta or {}
    raw = node._prim.vjp(g, out, *inputs, need=need, **meta)
    return [np.asarray(fit_gradient(r, x, node.op)) if n else None for r, x, n in zip(raw, inputs, need)]


# ---- counting the VJP's arithmetic ---------------------------------------------------------------
class _Counter:
    __slots__ = ("operations",)

    def __init__(self):
        self.operations = 0


class _Counted(np.ndarray):
    """An ndarray that counts the arithmetic done on it: one operation per element a ufunc computes (a
    matrix product: one multiply-add per output element and inner index; a reduction: one per element
    folded in; np.where: one selection per element). Results are counted arrays too, so a VJP's
    intermediate results keep counting."""

    counter: _Counter | None = None

    def __array_finalize__(self, obj):
        self.counter = getattr(obj, "counter", None)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        counter = next(x.counter for x in (*inputs, *kwargs.get("out", ())) if isinstance(x, _Counted))
        plain = [x.view(np.ndarray) if isinstance(x, _Counted) else x for x in inputs]
        if "out" in kwargs:
            kwargs["out"] = tuple(x.view(np.ndarray) if isinstance(x, _Counted) else x for x in kwargs["out"])
        result = getattr(ufunc, method)(*plain, **kwargs)
        first = result[0] if isinstance(result, tuple) else result
        if method == "__call__" and ufunc is np.matmul:
            inner = np.shape(plain[0])[-1]
            counter.operations += max(np.size(first), 1) * inner
        elif method in ("reduce", "accumulate", "reduceat"):
            counter.operations += max(np.size(plain[0]) - (np.size(first) if method == "reduce" else 0), 0)
        elif method == "at":
            counter.operations += np.size(plain[2]) if len(plain) > 2 else np.size(plain[1])
        elif first is not None:
            counter.operations += np.size(first)
        return _counted(result, counter)

    def __array_function__(self, func, types, args, kwargs):
        result = super().__array_function__(func, types, args, kwargs)
        if func is np.where and len(args) == 3:
            self.counter.operations += np.size(result)
        return result


def _counted(value, counter: _Counter):
    if isinstance(value, tuple):
        return tuple(_counted(v, counter) for v in value)
    if isinstance(value, np.ndarray) and not isinstance(value, _Counted):
        value = value.view(_Counted)
        value.counter = counter
    elif isinstance(value, np.generic):  # a ufunc on 0-d arrays gives a NumPy scalar
        value = np.asarray(value).view(_Counted)
        value.counter = counter
    return value


def counted_vjp(node: Tensor, g: np.ndarray) -> tuple[list, int]:
    """(``vjp(node, g)``, the arithmetic operations it took): the VJP runs on arrays that count every ufunc
    element, matrix multiply-add, reduction step and selection; summing a gradient back over broadcast axes
    counts one addition per element folded in."""
    _check(node)
    counter = _Counter()
    meta = {k: _counted(v, counter) if isinstance(v, np.ndarray) else v for k, v in (node._meta or {}).items()}
    inputs = [p.data for p in node._parents]
    need = tuple(p.requires_grad for p in node._parents)
    g = np.asarray(g, dtype=node.data.dtype)
    raw = node._prim.vjp(_counted(g, counter), _counted(node.data, counter),
                         *[_counted(x, counter) for x in inputs], need=need, **meta)
    grads = []
    for r, x, n in zip(raw, inputs, need):
        if not n:
            grads.append(None)
            continue
        r = np.asarray(r).view(np.ndarray) if isinstance(r, np.ndarray) else np.asarray(r)
        if r.shape != x.shape:
            counter.operations += max(r.size - x.size, 0)  # the sum that undoes broadcasting
        grads.append(np.asarray(fit_gradient(r, x, node.op)))
    return grads, counter.operations



def counted_jvp(node: Tensor, tangents) -> tuple[np.ndarray, int]:
    """(the node's JVP for ``tangents``, one per input or None, fitted to the output's shape; the arithmetic
    operations it took), counted as counted_vjp counts (forward mode's cost of one pass through this node)."""

    _check(node)
    counter = _Counter()
    meta = {k: _counted(v, counter) if isinstance(v, np.ndarray) else v for k, v in (node._meta or {}).items()}
    given = tuple(None if t is None else _counted(np.asarray(t, dtype=p.data.dtype), counter)
                  for t, p in zip(tangents, node._parents))
    raw = node._prim.jvp(given, _counted(node.data, counter), *[_counted(p.data, counter) for p in node._parents],
                         **meta)
    raw = raw.view(np.ndarray) if isinstance(raw, np.ndarray) else np.asarray(raw)
    return fit_tangent(raw, node.data, node.op), counter.operations

# ---- the op's own forward, called again -----------------------------------------------------------
def _squeezed_axes(before: tuple, after: tuple) -> tuple:
    """The size-1 axes of ``before`` that squeeze dropped to give ``after`` (kept axes matched from the left;
    where several size-1 axes could be the dropped one, any choice gives the same result)."""
    axes, j = [], 0
    for i, d in enumerate(before):
        if j < len(after) and after[j] == d:
            j += 1
        else:
            axes.append(i)
    return tuple(axes)


def _fill_value(node: Tensor):
    """The value masked_fill wrote (read back from its output: where the mask holds)."""
    mask = np.broadcast_to(node._meta["mask"], node.data.shape)
    return node.data[mask][0] if mask.any() else 0.0


#: How to call a primitive's forward again where its recorded metadata is not its keyword arguments:
#: op -> (forward, node, input Tensors) -> output Tensor. Every other forward takes (*inputs, **meta)
#: (metadata the forward does not take, such as gelu's saved cdf, is left out).
_CALLS = {
    "where": lambda f, node, xs: f(node._meta["cond"], *xs),
    "masked_fill": lambda f, node, xs: f(xs[0], node._meta["mask"], _fill_value(node)),
    "transpose": lambda f, node, xs: f(xs[0], *(node._meta["axes"] or ())),
    "concat": lambda f, node, xs: f(list(xs), axis=node._meta["axis"]),
    "stack": lambda f, node, xs: f(list(xs), axis=node._meta["axis"]),
    "reshape": lambda f, node, xs: f(xs[0], node.data.shape),
    "unsqueeze": lambda f, node, xs: f(xs[0], next(
        i for i in range(node.data.ndim) if node.data.shape[:i] + node.data.shape[i + 1:] == xs[0].shape)),
    "squeeze": lambda f, node, xs: f(xs[0], _squeezed_axes(xs[0].shape, node.data.shape)),
}


def _keywords(forward) -> frozenset:
    return frozenset(inspect.signature(forward).parameters)


def forward_of(node: Tensor):
    """``f(*arrays) -> array``: the node's op computed again by its own forward on new input arrays (in
    argument order), with the node's recorded metadata (axis, index, mask, labels, ...). No graph is recorded."""
    _check(node)
    prim = node._prim
    call = _CALLS.get(prim.name)
    keywords = _keywords(prim.forward)
    meta = {k: v for k, v in (node._meta or {}).items() if k in keywords}

    def f(*arrays):
        xs = [Tensor._constant(np.asarray(a)) for a in arrays]
        with no_grad():
            out = call(prim.forward, node, xs) if call else prim.forward(*xs, **meta)
        return out.data

    return f


def numeric_columns(node: Tensor, slot: int, cols: int, eps: float = EPS, rows: int | None = None) -> np.ndarray:
    """Columns 0..cols-1 of J = ∂out/∂input[slot] by central differences of the op's forward, in float64:
    column j = (f(x + ε·eⱼ) − f(x − ε·eⱼ)) / 2ε, a matrix of out.size × cols (of its first ``rows`` rows only,
    if given: what a shown block needs of a 1,000,000-element output)."""
    f = forward_of(node)
    arrays = [np.array(p.data, dtype=np.float64) for p in node._parents]
    flat = arrays[slot].reshape(-1)
    rows = node.data.size if rows is None else min(rows, node.data.size)
    columns = np.empty((rows, cols))
    for j in range(cols):
        saved = flat[j]
        flat[j] = saved + eps
        plus = np.array(f(*arrays), dtype=np.float64).reshape(-1)  # a copy: reshape's output is a view of x
        flat[j] = saved - eps
        minus = np.array(f(*arrays), dtype=np.float64).reshape(-1)
        flat[j] = saved
        columns[:, j] = (plus[:rows] - minus[:rows]) / (2 * eps)
    return columns


# ---- J, row by row ---------------------------------------------------------------------------------
def jacobian_rows(node: Tensor, count: int, widths: list | None = None) -> list:
    """Rows 0..count-1 of J for every input (None for an input without grad): row i is what the VJP sends
    back for the one-hot upstream eᵢ (1 at output element i, 0 elsewhere). float64, count × input.size each,
    or count × widths[k] (the first columns only) where ``widths`` gives one: a block of 64 whole rows of a
    1,000,000-element input is 512 MB."""
    _check(node)
    inputs = [p.data for p in node._parents]
    widths = widths or [None] * len(inputs)
    widths = [x.size if w is None else min(w, x.size) for w, x in zip(widths, inputs)]
    rows = [np.empty((count, w)) if p.requires_grad else None for p, w in zip(node._parents, widths)]
    one_hot = np.zeros(node.data.shape, dtype=node.data.dtype)
    flat = one_hot.reshape(-1)
    for i in range(count):
        flat[i] = 1
        for k, grad in enumerate(_vjp(node, one_hot, inputs, node.data)):
            if grad is not None:
                rows[k][i] = grad.reshape(-1)[:widths[k]]
        flat[i] = 0
    return rows


def jacobian(node: Tensor, upstream=None, limit: int = LIMIT) -> NodeJacobian:
    """The Jacobians of an op node (see the module docstring), with ``upstream`` as g (default: the node's
    grad if backward() reached it, else ones).

    Each input's J is built whole when it has at most WHOLE_ENTRIES entries and its rows cost at most
    WHOLE_WORK VJP operations; otherwise only its top-left ``limit`` × ``limit`` block is built (and gᵀJ
    is not formed). Central differences check the block shown.
    """
    _check(node)
    if upstream is None:
        upstream = node.grad if node.grad is not None else np.ones(node.data.shape)
    g = np.asarray(upstream, dtype=node.data.dtype)
    if g.shape != node.data.shape:
        raise ValueError(f"upstream gradient of shape {g.shape} for an output of shape {node.data.shape}")
    sent, operations = counted_vjp(node, g)
    parents = node._parents
    out_size = node.data.size
    per_row = max(operations, out_size, 1)
    whole = [p.requires_grad and out_size * p.data.size <= WHOLE_ENTRIES and out_size * per_row <= WHOLE_WORK
             for p in parents]
    count = out_size if any(whole) else min(out_size, limit)
    rows = jacobian_rows(node, count, [None if w else limit for w in whole])
    inputs = []
    for k, p in enumerate(parents):
        if not p.requires_grad:
            continue
        cols = p.data.size
        shown_rows, shown_cols = min(out_size, limit), min(cols, limit)
        full = rows[k]
        gtj = None
        if whole[k]:
            gtj = (g.reshape(-1).astype(np.float64) @ full).reshape(p.data.shape)
        inputs.append(InputJacobian(
            slot=k,
            shape=tuple(p.data.shape),
            rows=out_size,
            cols=cols,
            matrix=full[:shown_rows, :shown_cols].copy(),
            numeric=numeric_columns(node, k, shown_cols, rows=shown_rows),
            vjp=np.asarray(sent[k], dtype=np.float64),
            gtj=gtj,
        ))
    constants = tuple(k for k, p in enumerate(parents) if not p.requires_grad)
    return NodeJacobian(op=node.op, out_shape=tuple(node.data.shape), upstream=np.array(g, dtype=np.float64),
                        inputs=tuple(inputs), constants=constants, operations=int(operations))
