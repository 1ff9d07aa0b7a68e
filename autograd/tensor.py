"""The Tensor: an np.ndarray that remembers how it was made, and the backward pass over that record."""

import functools
import threading
import weakref

import numpy as np

_FLOAT_KINDS = "f"


# Threads inside a no_grad() block, with their nesting depth. Per thread, so one Streamlit
# session's no_grad() cannot switch off another's graph; a dict, so the common case (nobody is
# in no_grad) costs one truth test per op.
_no_grad_depth = {}


class no_grad:
    """Context manager (and decorator): inside it no graph is recorded."""

    def __enter__(self):
        thread = threading.get_ident()
        _no_grad_depth[thread] = _no_grad_depth.get(thread, 0) + 1
        return self

    def __exit__(self, *exc):
        thread = threading.get_ident()
        depth = _no_grad_depth.pop(thread) - 1
        if depth:
            _no_grad_depth[thread] = depth
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with no_grad():
                return fn(*args, **kwargs)

        return wrapper


def is_grad_enabled():
    return not (_no_grad_depth and threading.get_ident() in _no_grad_depth)


class Primitive:
    """One differentiable operation, declared once, in its block in autograd/ops/.

    The VJP contract, the same for every primitive:
        vjp(g, out, *inputs, need, **meta) -> one gradient (or None) per input
    `g` is the gradient of the final output with respect to `out`; `inputs` are the parents'
    arrays in argument order; `need[i]` says whether input i wants a gradient (a VJP may skip
    work for the others and return None); `meta` holds the op's keyword metadata (axis, shape).
    A returned gradient may still have `out`'s broadcast shape: the engine undoes broadcasting.
    Each body is written once, against `xp` (a keyword, last): autograd.ops.xp_array by default, so
    backward() calls it on arrays exactly as above; under create_graph (autograd.grad) the engine passes
    autograd.ops.xp_tensor and the node, its parents and `g` as Tensors, and the same body records the
    gradient from the primitives, so that it can be differentiated again. The body uses only the operators
    and methods arrays and Tensors share, and `xp` for the rest (xp.where, xp.sum_to, xp.kept(...) for what
    the forward saved in `meta`, which on Tensors is recomputed from the inputs).

    Declared beside the VJP:
      forward      the function that computes the op and records it (ops.mul)
      formula      the VJP as the Backward Stepper shows it, G being the upstream gradient
      plugged      plugged(t, g, out, *inputs, **meta) -> per input (text, value): the formula with this
                   call's numbers put in, each array written by `t` (the caller's formatter), and what that
                   arithmetic gives, worked out here as the text reads (it equals the VJP's result, before
                   broadcasting is undone: tests/engine/test_plugged.py)
      slots        the inputs' names in argument order, as the formula names them (matmul:
                   ("X", "W")); () when the number of inputs varies (concat, stack)
      commutative  swapping the two inputs gives the same result (drawings then name no slot)
      shape        shape(*args, **kwargs) -> the output's shape without computing it: the
                   forward's signature with every array argument replaced by its shape; raises
                   ValueError or IndexError where the forward would
      methods      the Tensor methods and properties that make this op ("sum"; "transpose", "T")
      operators    the Tensor operators that make it ("__add__", "__radd__")
      functions    the autograd.functional functions that make it ("relu")
    The expression language offers every method and function under the same name.

    The JVP contract (forward mode, declared beside the VJP):
        jvp(tangents, out, *inputs, **meta) -> the output's tangent
    `tangents[i]` is input i's tangent (input i's shape), or None for an input without one (at least one
    is given); the result is J·(tangents), which may have any shape that broadcasts to `out`'s (the
    engine broadcasts it). No `need`: forward mode computes one thing per node.
      jvp_formula  the JVP as the Stepper shows it, dA, dB being the inputs' tangents (mul:
                   "dOut = dA ⊙ B + A ⊙ dB")
      jvp_plugged  jvp_plugged(t, tangents, out, *inputs, **meta) -> (text, value): the formula with this
                   call's numbers put in, the terms of inputs without a tangent left out, and what that
                   arithmetic gives (it equals the JVP's result: tests/engine/test_forward.py)

    What the VJP reads (the tape), declared on the line after the formula:
      saves        the arrays the VJP reads, by slot name, and "out" for the output (exp: ("out",), mul:
                   ("A", "B"), add: ()); the other arrays it is given it may only ask for their shape and
                   dtype. Arrays in `meta` (an index, a mask, softmax's probabilities) are kept as well.
                   tests/engine/test_saves.py runs every VJP with the undeclared arrays poisoned.
    The VJP once more, as lines of the expression language (the Practice page writes any program's backward
    from them: hints, "show the whole backward as a program", the sweep):
      vjp_lines    one line per input, ``dA += <expression>`` over the slot names (A0, A1... when the number
                   of inputs varies), ``Out`` and ``dOut`` (mul: ("dA += dOut * B", "dB += dOut * A")); ``{key}``
                   stands for the metadata array ``key`` written in the language (a mask, labels). Or a function
                   (shapes, out_shape, meta, spell) -> those lines, for rules whose text depends on shapes or
                   metadata (autograd/ops/_lines.py). The expression may keep Out's broadcast shape, as the VJP
                   may; tests/explorer/practice/test_vjp_lines.py checks every line against the VJP on every case.
    """

    __slots__ = (
        "name", "forward", "vjp", "formula", "plugged", "slots", "commutative", "shape",
        "methods", "operators", "functions", "jvp", "jvp_formula", "jvp_plugged",
        "saves",
        "vjp_lines",
    )

    def __init__(
        self, name, forward, vjp, formula, *, plugged=None,
        slots=(), shape=None, commutative=False, methods=(), operators=(), functions=(),
        jvp=None, jvp_formula=None, jvp_plugged=None,
        saves=(),
        vjp_lines=None,
    ):
        self.name = name
        self.forward = forward
        self.vjp = vjp
        self.formula = formula
        self.plugged = plugged
        self.slots = tuple(slots)
        self.commutative = commutative
        self.shape = shape
        self.methods = tuple(methods)
        self.operators = tuple(operators)
        self.functions = tuple(functions)
        self.jvp = jvp
        self.jvp_formula = jvp_formula
        self.jvp_plugged = jvp_plugged
        self.saves = tuple(saves)
        if not set(self.saves) <= {*self.slots, "out"}:
            raise ValueError(f"{name}: saves={self.saves} names neither a slot of {self.slots} nor 'out'")
        self.vjp_lines = vjp_lines

    def __repr__(self):
        return f"Primitive({self.name!r})"


def _as_array(data, dtype=None):
    """Converts user data to an ndarray: floats stay as they are, everything else becomes float64."""
    if isinstance(data, Tensor):
        data = data.data
    if dtype is not None:
        return np.array(data, dtype=np.dtype(dtype))
    arr = np.array(data)
    if arr.dtype.kind not in _FLOAT_KINDS:
        if arr.dtype == object:
            raise TypeError(f"Tensor data must be numeric, got {type(data).__name__}")
        arr = arr.astype(np.float64)
    return arr


class Tensor:
    """An n-dimensional array with reverse-mode automatic differentiation.

    `data` is an np.ndarray; `grad` is None until a backward pass reaches the tensor. A tensor made
    by an op records `parents` (argument order) and `op`; `backward()` walks that record in reverse.
    """

    __slots__ = ("data", "grad", "requires_grad", "name", "_parents", "_prim", "_meta", "__weakref__")
    # NOTE: NumPy defers to our reflected operators (ndarray * Tensor -> Tensor.__rmul__).
    __array_ufunc__ = None

    def __init__(self, data, requires_grad=False, dtype=None, name=None):
        self.data = _as_array(data, dtype)
        if requires_grad and self.data.dtype.kind not in _FLOAT_KINDS:
            raise TypeError(
                f"only floating-point tensors can require gradients, got dtype {self.data.dtype}"
            )
        self.grad = None
        self.requires_grad = bool(requires_grad)
        self.name = name
        self._parents = ()
        self._prim = None
        self._meta = None

    @classmethod
    def _constant(cls, data):
        out = object.__new__(cls)
        out.data = data
        out.grad = None
        out.name = None
        out.requires_grad = False
        out._parents = ()
        out._prim = None
        out._meta = None
        return out

    # ---- graph metadata -------------------------------------------------------------------
    @property
    def op(self):
        return self._prim.name if self._prim is not None else ""

    @property
    def parents(self):
        return self._parents

    @property
    def is_leaf(self):
        return self._prim is None

    # ---- array facts ----------------------------------------------------------------------
    @property
    def shape(self):
        return self.data.shape

    @property
    def ndim(self):
        return self.data.ndim

    @property
    def size(self):
        return self.data.size

    @property
    def dtype(self):
        return self.data.dtype

    @property
    def T(self):
        return _ops.transpose(self)

    def item(self):
        if self.data.size != 1:
            raise ValueError(f"item() needs a tensor with one element, this one has shape {self.shape}")
        return self.data.item()

    def numpy(self):
        return self.data

    def __array__(self, dtype=None, copy=None):
        if dtype is not None and dtype != self.data.dtype:
            return self.data.astype(dtype)
        return self.data.copy() if copy else self.data

    def __len__(self):
        if self.data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return len(self.data)

    def __bool__(self):
        if self.data.size != 1:
            raise ValueError(
                f"the truth value of a tensor with shape {self.shape} is ambiguous; use .any() or .all()"
            )
        return bool(self.data)

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __format__(self, spec):
        if self.data.size == 1 and spec:
            return format(self.item(), spec)
        return repr(self) if not spec else format(str(self), spec)

    def __repr__(self):
        body = np.array2string(self.data, precision=4, separator=", ", prefix="Tensor(")
        extras = []
        if self.data.dtype != np.float64:
            extras.append(f"dtype={self.data.dtype}")
        if self._prim is not None:
            extras.append(f"op={self.op!r}")
        elif self.requires_grad:
            extras.append("requires_grad=True")
        if self.name:
            extras.append(f"name={self.name!r}")
        return "Tensor(" + ", ".join([body, *extras]) + ")"

    __hash__ = object.__hash__

    # ---- gradients ------------------------------------------------------------------------
    def zero_grad(self):
        self.grad = None

    def detach(self):
        """A new leaf sharing this tensor's data, cut off from the graph."""
        return Tensor._constant(self.data)

    def backward(self, grad=None):
        """Accumulates d(self)/d(node), seeded with `grad` (ones if None), into every node's .grad."""
        run_backward(self, grad)

    def register_hook(self, fn):
        """Calls `fn(grad)` with the complete gradient flowing into this tensor (an np.ndarray, fan-out summed),
        once per backward, hooks in the order registered; a non-None return replaces the gradient: for a leaf
        before it is added to .grad, for an intermediate both what flows on to its parents and what .grad keeps.
        Returns a handle whose remove() takes the hook off again (torch.Tensor.register_hook)."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that does not require grad")
        return HookHandle(self, fn)

    # ---- operators and methods ----------------------------------------------------------------
    # NOTE: the operators and methods that take their arguments in the primitive's order (__add__,
    # sum, reshape, ...) are the ops functions themselves, bound at the end of autograd/ops/__init__.py:
    # `t * u` is ops.mul(t, u), with no forwarding call on the per-op hot path. Those that swap or
    # convert their arguments are here.
    def __radd__(self, other):
        return _ops.add(other, self)

    def __rsub__(self, other):
        return _ops.sub(other, self)

    def __rmul__(self, other):
        return _ops.mul(other, self)

    def __rtruediv__(self, other):
        return _ops.div(other, self)

    def __rpow__(self, other):
        return _ops.pow(other, self)

    def __rmatmul__(self, other):
        return _ops.matmul(other, self)

    def __pos__(self):
        return self

    # Comparisons give boolean tensors without grad (usable as masks).
    def __lt__(self, other):
        return _ops.compare(np.less, self, other)

    def __le__(self, other):
        return _ops.compare(np.less_equal, self, other)

    def __gt__(self, other):
        return _ops.compare(np.greater, self, other)

    def __ge__(self, other):
        return _ops.compare(np.greater_equal, self, other)

    def __eq__(self, other):
        return _ops.compare(np.equal, self, other)

    def __ne__(self, other):
        return _ops.compare(np.not_equal, self, other)


class Parameter(Tensor):
    """A leaf tensor that a Module trains (requires_grad=True)."""

    __slots__ = ()

    def __init__(self, data, requires_grad=True, dtype=None, name=None):
        super().__init__(data, requires_grad=requires_grad, dtype=dtype, name=name)


# ---- hooks -------------------------------------------------------------------------------------
# id(tensor) -> (weak reference to the tensor, its hooks in the order registered). Kept out of the Tensor, so
# making a tensor costs nothing more, and backward pays one truth test per node while no hook exists anywhere.
_hooks = {}


class HookHandle:
    """What Tensor.register_hook returns: remove() takes the hook off (again is harmless)."""

    __slots__ = ("_key", "_fn")

    def __init__(self, tensor, fn):
        key = id(tensor)
        entry = _hooks.get(key)
        if entry is None or entry[0]() is not tensor:
            entry = _hooks[key] = (weakref.ref(tensor, lambda _, key=key: _hooks.pop(key, None)), [])
        entry[1].append(fn)
        self._key, self._fn = key, fn

    def remove(self):
        entry = _hooks.get(self._key)
        if entry is not None and self._fn in entry[1]:
            entry[1].remove(self._fn)
            if not entry[1]:
                del _hooks[self._key]


def _run_hooks(node, g):
    """`g` (a node's complete gradient) after the node's hooks; the array itself if none replaces it."""
    entry = _hooks.get(id(node))
    if entry is None or entry[0]() is not node:
        return g
    g = np.asarray(g)
    for fn in list(entry[1]):
        new = fn(g)
        if new is not None:
            new = np.asarray(new.data if isinstance(new, Tensor) else new)
            if new.shape != node.data.shape:
                raise RuntimeError(f"a hook returned a gradient of shape {new.shape} for a tensor of shape "
                                   f"{node.data.shape}")
            g = new.astype(node.data.dtype, copy=False)
    return g


# ---- the backward pass -----------------------------------------------------------------------
_new = object.__new__


def _result(data, parents, prim, meta=None):
    """A tensor made by `prim` from `parents`; records the graph only if a parent needs grad.

    Every op's forward ends here, so it is written for speed: a module function, not a method.
    """
    out = _new(Tensor)
    # NOTE: NumPy returns scalars, not 0-d arrays, from elementwise ops on 0-d arrays.
    out.data = data if type(data) is np.ndarray else np.asarray(data)
    out.grad = None
    out.name = None
    for parent in parents:
        if parent.requires_grad:
            if _no_grad_depth and not is_grad_enabled():
                break
            out.requires_grad = True
            out._parents = parents
            out._prim = prim
            out._meta = meta
            return out
    out.requires_grad = False
    out._parents = ()
    out._prim = None
    out._meta = None
    return out


def broadcast_axes(grad_shape, shape):
    """The axes of an array of `grad_shape` to sum so that it takes `shape` (undoing broadcasting).

    Raises ValueError if `shape` does not broadcast to `grad_shape`.
    """
    lead = len(grad_shape) - len(shape)
    if lead < 0 or any(s != 1 and s != g for s, g in zip(shape, grad_shape[lead:])):
        raise ValueError(f"a gradient of shape {tuple(grad_shape)} cannot be reduced to shape {tuple(shape)}")
    return tuple(range(lead)) + tuple(
        lead + i for i, size in enumerate(shape) if size == 1 and grad_shape[lead + i] != 1
    )


def unbroadcast(grad, shape):
    """Sums `grad` over the axes that broadcasting added or stretched, giving it `shape`."""
    if grad.shape == shape:
        return grad
    axes = broadcast_axes(grad.shape, shape)
    return grad.sum(axis=axes).reshape(shape)


def toposort(root, only_grad=True):
    """Nodes reachable from `root`, parents before children, deterministic (argument order).

    Iterative depth-first search, so graphs of any depth work. With `only_grad`, only nodes that
    require grad are visited (the ones backward() runs through).
    """
    order = []
    seen = {root}  # NOTE: Tensors hash by identity, so sets and dicts of them are cheap and exact
    nodes = [root]
    parents = [iter(root._parents)]
    while parents:
        for parent in parents[-1]:
            if parent not in seen and (parent.requires_grad or not only_grad):
                seen.add(parent)
                nodes.append(parent)
                parents.append(iter(parent._parents))
                break
        else:
            parents.pop()
            order.append(nodes.pop())
    return order


def run_backward(root, grad=None, observer=None):
    """Reverse-mode sweep from `root`: every node requiring grad gets d(root)/d(node) added to .grad.

    `observer(node, g, raw, pending)`, if given, is called after each op node is processed (the
    stepper uses it): `g` is the node's complete gradient, `raw` what its VJP returned per parent,
    `pending` the gradients accumulated so far for the nodes not yet processed.
    """
    if not root.requires_grad:
        raise RuntimeError(
            "backward() called on a tensor that does not require grad: none of the tensors it was "
            "computed from has requires_grad=True (or it was computed under no_grad())"
        )
    if grad is None:
        seed = np.ones(root.data.shape, dtype=root.data.dtype)
    else:
        seed = np.array(grad.data if isinstance(grad, Tensor) else grad, dtype=root.data.dtype)
        if seed.shape != root.data.shape:
            raise ValueError(f"backward(): grad has shape {seed.shape} but the tensor has shape {root.shape}")
    pending = {root: seed}
    passed = set()  # ids of arrays a VJP passed on unchanged: they are the grads of two nodes
    # NOTE: bound once, as locals: each saves an attribute lookup per node on the hot path.
    pop, get, ndarray = pending.pop, pending.get, np.ndarray
    for node in reversed(toposort(root)):
        g = pop(node)
        if _hooks:
            g = _run_hooks(node, g)
        if node.grad is None:
            if type(g) is not ndarray:  # a NumPy scalar from a 0-d VJP
                g = np.asarray(g)
            elif g.base is not None or id(g) in passed:
                # NOTE: VJPs pass G on unchanged (add) or as a view (reshape), so this array is also
                # another node's grad. A leaf gets a copy of its own (users write into leaf grads:
                # clipping, scaling); an intermediate shares it read-only, so an in-place write
                # fails loudly instead of changing another node's grad, and the hot path stays copy-free.
                if node._prim is None:
                    g = g.copy()
                else:
                    _read_only(g, False)
            node.grad = g
        else:
            node.grad = np.asarray(node.grad + g)  # NOTE: 0-d + 0-d gives a NumPy scalar
        prim = node._prim
        if prim is None:
            continue
        parents = node._parents
        meta = node._meta
        # NOTE: ops without metadata and with one or two inputs (most of them) are called without
        # building argument tuples or keyword dicts: this is the engine's hot path.
        if meta is None and len(parents) == 1:  # a one-input op node exists only if its input needs grad
            parent = parents[0]
            data = parent.data
            raw = prim.vjp(g, node.data, data, need=_NEED_ONE)
            contribution = raw[0]
            if contribution.shape != data.shape or contribution.dtype is not data.dtype:
                contribution = fit_gradient(contribution, data, prim.name)
            elif contribution is g:
                passed.add(id(g))
            previous = get(parent)
            pending[parent] = contribution if previous is None else previous + contribution
            if observer is not None:
                observer(node, g, raw, pending)
            continue
        if meta is None and len(parents) == 2:
            a, b = parents
            raw = prim.vjp(g, node.data, a.data, b.data, need=(a.requires_grad, b.requires_grad))
        else:
            need = tuple([p.requires_grad for p in parents])
            inputs = [p.data for p in parents]
            if meta is None:
                raw = prim.vjp(g, node.data, *inputs, need=need)
            else:
                raw = prim.vjp(g, node.data, *inputs, need=need, **meta)
        sent = None
        for parent, contribution in zip(parents, raw):
            if parent.requires_grad:
                data = parent.data
                if contribution.shape != data.shape or contribution.dtype is not data.dtype:
                    contribution = fit_gradient(contribution, data, prim.name)
                elif contribution is g or contribution is sent:  # passed on, or sent to two parents
                    passed.add(id(contribution))
                sent = contribution
                previous = get(parent)
                pending[parent] = contribution if previous is None else previous + contribution
        if observer is not None:
            observer(node, g, raw, pending)


_NEED_ONE = (True,)
# NOTE: ndarray.setflags(a, False) clears the writeable flag in ~30 ns; `a.flags.writeable = False`
# builds a flags object first and costs 20x that, once per gradient passed through an add.
_read_only = np.ndarray.setflags


def fit_gradient(contribution, data, op):
    """A VJP's output for an input `data`, summed over broadcast axes and cast to data's dtype."""
    try:
        fitted = unbroadcast(np.asarray(contribution), data.shape)
    except (ValueError, AttributeError):
        fitted = None
    if fitted is None or fitted.shape != data.shape:
        raise RuntimeError(
            f"bug in the VJP of '{op}': it returned a gradient of shape {np.shape(contribution)} "
            f"for an input of shape {data.shape}"
        )
    return fitted.astype(data.dtype, copy=False)


from autograd import ops as _ops  # noqa: E402  (ops builds on Tensor; the methods above call into it)
