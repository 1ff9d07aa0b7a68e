"""Ops that move elements without computing new ones: indexing, reshape, transpose, unsqueeze,
squeeze, concat and stack."""

import math

import numpy as np

from autograd.ops import _lines as lines
from autograd.ops import xp_array
from autograd.ops._common import as_tensor, axes_of, sizes
from autograd.tensor import Primitive, Tensor, _result


# ---- getitem -------------------------------------------------------------------------------
def index_of(idx):
    """An index as NumPy takes it: Tensors and lists inside become integer (or boolean) arrays."""
    if isinstance(idx, tuple):
        return tuple(index_of(i) for i in idx)
    if isinstance(idx, Tensor):
        idx = idx.data
    if isinstance(idx, list):
        idx = np.asarray(idx)
    if isinstance(idx, np.ndarray) and idx.dtype.kind == "f":
        if not np.all(idx == np.round(idx)):
            raise IndexError("getitem: a float index must hold whole numbers")
        idx = idx.astype(np.int64)
    return idx


def _is_int(p):
    return isinstance(p, (int, np.integer)) and not isinstance(p, (bool, np.bool_))


def _is_basic(idx):
    parts = idx if isinstance(idx, tuple) else (idx,)
    return all(p is None or p is Ellipsis or isinstance(p, (int, np.integer, slice)) for p in parts)


def getitem(a, idx):
    idx = index_of(idx)
    try:
        out = a.data[idx]
    except IndexError as err:
        raise IndexError(f"getitem: {err} (tensor of shape {a.shape})") from None
    if _is_basic(idx):
        out = out.copy()  # NOTE: a view would let in-place updates of `a` change `out`
    return _result(out, (a,), GETITEM, {"idx": idx})


def getitem_shape(a, idx):
    """The shape of x[idx] for x of shape `a`, found without allocating the result.

    NumPy's rules: an int drops its axis, a slice keeps it, None adds one, ... stands for every axis
    no other part indexes. Integer arrays (and ints, when there is an array) broadcast together;
    their shape goes where the first of them stood if they are adjacent in the index, else in front.
    """
    a = tuple(a)
    parts = index_of(idx)
    parts = parts if isinstance(parts, tuple) else (parts,)
    if any(isinstance(p, np.ndarray) and p.dtype == bool for p in parts):
        # NOTE: a boolean mask's result depends on how many elements it selects: count them on a
        # zero-stride stand-in for x (this allocates one byte per element of the result).
        try:
            return np.broadcast_to(np.zeros((), np.int8), a)[parts].shape
        except IndexError as err:
            raise IndexError(f"getitem: {err} (tensor of shape {a})") from None
    where = f"(tensor of shape {a})"
    ellipses = sum(1 for p in parts if p is Ellipsis)
    consumed = sum(1 for p in parts if p is not None and p is not Ellipsis)
    if ellipses > 1:
        raise IndexError(f"getitem: an index can only have a single ellipsis ('...') {where}")
    if consumed > len(a):
        raise IndexError(f"getitem: too many indices for array: array is {len(a)}-dimensional, but {consumed} "
                         f"were indexed {where}")
    if not ellipses:
        parts = (*parts, Ellipsis)
    advanced = any(isinstance(p, np.ndarray) for p in parts)
    out, blocks, positions, first, dim = [], [], [], None, 0
    for position, p in enumerate(parts):
        if p is Ellipsis:
            rest = len(a) - consumed
            out.extend(a[dim : dim + rest])
            dim += rest
        elif p is None:
            out.append(1)
        elif isinstance(p, slice):
            out.append(len(range(*p.indices(a[dim]))))
            dim += 1
        elif isinstance(p, np.ndarray) and p.dtype.kind in "iu" or _is_int(p):
            values = np.asarray(p)
            if values.size and (values.max() >= a[dim] or values.min() < -a[dim]):
                bad = int(values.max()) if values.max() >= a[dim] else int(values.min())
                raise IndexError(f"getitem: index {bad} is out of bounds for axis {dim} with size {a[dim]} {where}")
            if advanced:
                first = len(out) if first is None else first
                positions.append(position)
                blocks.append(values.shape)
            dim += 1
        else:
            raise IndexError(f"getitem: {p!r} cannot be used as an index: use ints, slices, None, ... and "
                             f"integer arrays {where}")
    if blocks:
        try:
            block = tuple(np.broadcast_shapes(*blocks))
        except ValueError:
            raise IndexError(f"getitem: index arrays of shapes {', '.join(map(str, blocks))} cannot be "
                             f"broadcast together {where}") from None
        adjacent = positions == list(range(positions[0], positions[-1] + 1))
        at = first if adjacent else 0
        out[at:at] = block
    return tuple(out)


def _getitem_vjp(g, out, a, need, idx, xp=xp_array):
    return (xp.scatter(a.shape, a.dtype, idx, g, unique=_is_basic(idx)),)  # repeated indices add up


def _getitem_plugged(t, g, out, a, idx):
    # NOTE: the scatter is the VJP's own (repeated indices add up); the text names it.
    return ((f"zeros{a.shape} with {t(g)} added where A was indexed", _getitem_vjp(g, out, a, (True,), idx)[0]),)


def _getitem_jvp(tangents, out, a, idx):
    return tangents[0][idx]


def _getitem_jvp_plugged(t, tangents, out, a, idx):
    return f"{t(tangents[0])} indexed as A was", tangents[0][idx]


GETITEM = Primitive("getitem", getitem, _getitem_vjp, "dA = zeros_like(A);  dA[idx] += G", plugged=_getitem_plugged,
                    saves=(),
                    slots=("A",),
                    shape=getitem_shape, operators=("__getitem__",), functions=("embedding",),
                    jvp=_getitem_jvp, jvp_formula="dOut = dA[idx]", jvp_plugged=_getitem_jvp_plugged,
                    vjp_lines=lines.getitem_lines)


# ---- reshape, unsqueeze, squeeze (one VJP: put G back into A's shape) -------------------------------
def reshape(a, *shape):
    shape = sizes(shape)
    try:
        out = a.data.reshape(shape)
    except (ValueError, TypeError):
        reshape_shape(a.shape, shape)
        raise
    return _result(out, (a,), RESHAPE)


def reshape_shape(a, *shape):
    a, shape = tuple(a), sizes(shape)
    size = math.prod(a)
    known = math.prod(d for d in shape if d != -1)
    unknown = [i for i, d in enumerate(shape) if d == -1]
    bad = (
        len(unknown) > 1 or any(not isinstance(d, (int, np.integer)) or d < -1 for d in shape)
        or (size != known if not unknown else known == 0 or size % known)
    )
    if bad:
        raise ValueError(f"reshape: cannot reshape a tensor of shape {a} ({size} elements) into {shape}")
    if unknown:
        shape = shape[: unknown[0]] + (size // known,) + shape[unknown[0] + 1 :]
    return tuple(int(d) for d in shape)


def _reshape_vjp(g, out, a, need, xp=xp_array):
    return (g.reshape(a.shape),)


def _reshape_plugged(t, g, out, a):
    return ((f"reshape({t(g)}, {a.shape})", g.reshape(a.shape)),)


def _reshape_jvp(tangents, out, a):
    return tangents[0].reshape(out.shape)


def _reshape_jvp_plugged(t, tangents, out, a):
    return f"reshape({t(tangents[0])}, {out.shape})", tangents[0].reshape(out.shape)


RESHAPE = Primitive("reshape", reshape, _reshape_vjp, "dA = reshape(G, A.shape)", plugged=_reshape_plugged,
                    saves=(),
                    slots=("A",),
                    shape=reshape_shape, methods=("reshape",),
                    jvp=_reshape_jvp, jvp_formula="dOut = reshape(dA, Out.shape)", jvp_plugged=_reshape_jvp_plugged,
                    vjp_lines=("dA += dOut.reshape(A.shape)",))


def unsqueeze(a, axis):
    return _result(a.data.reshape(unsqueeze_shape(a.shape, axis)), (a,), UNSQUEEZE)


def unsqueeze_shape(a, axis):
    a = tuple(a)
    if not _is_int(axis) or not -len(a) - 1 <= axis <= len(a):
        raise ValueError(f"unsqueeze: axis {axis!r} is out of range for a tensor with {len(a)} dimensions "
                         f"(it may be {-len(a) - 1} to {len(a)})")
    axis = axis % (len(a) + 1)
    return a[:axis] + (1,) + a[axis:]


UNSQUEEZE = Primitive("unsqueeze", unsqueeze, _reshape_vjp, "dA = reshape(G, A.shape)", plugged=_reshape_plugged,
                      saves=(),
                      slots=("A",),
                      shape=unsqueeze_shape, methods=("unsqueeze",),
                      jvp=_reshape_jvp, jvp_formula="dOut = reshape(dA, Out.shape)", jvp_plugged=_reshape_jvp_plugged,
                      vjp_lines=("dA += dOut.reshape(A.shape)",))


def squeeze(a, axis=None):
    return _result(a.data.reshape(squeeze_shape(a.shape, axis)), (a,), SQUEEZE)


def squeeze_shape(a, axis=None):
    """`a` without its size-1 axes; with `axis`, only those of its axes that have size 1 (PyTorch)."""
    a = tuple(a)
    if a:
        axes = axes_of(axis, len(a))
    else:  # NOTE: a 0-d tensor has no axes to drop; like PyTorch, axis 0 or -1 is accepted
        for ax in () if axis is None else (axis,) if _is_int(axis) else tuple(axis):
            if ax not in (0, -1):
                raise ValueError(f"axis {ax} is out of range for a tensor with 0 dimensions")
        axes = ()
    return tuple(d for i, d in enumerate(a) if not (i in axes and d == 1))


SQUEEZE = Primitive("squeeze", squeeze, _reshape_vjp, "dA = reshape(G, A.shape)", plugged=_reshape_plugged,
                    saves=(),
                    slots=("A",),
                    shape=squeeze_shape, methods=("squeeze",),
                    jvp=_reshape_jvp, jvp_formula="dOut = reshape(dA, Out.shape)", jvp_plugged=_reshape_jvp_plugged,
                    vjp_lines=("dA += dOut.reshape(A.shape)",))


# ---- transpose -----------------------------------------------------------------------------
def transpose(a, *axes):
    axes = sizes(axes) or None
    if axes is not None:
        transpose_shape(a.shape, axes)
        axes = tuple(ax % a.ndim for ax in axes)
    return _result(np.transpose(a.data, axes), (a,), TRANSPOSE, {"axes": axes})


def transpose_shape(a, *axes):
    a, axes = tuple(a), sizes(axes)
    if not axes:
        return a[::-1]
    ok = len(axes) == len(a) and all(isinstance(ax, (int, np.integer)) and -len(a) <= ax < len(a) for ax in axes)
    if not ok or sorted(ax % len(a) for ax in axes) != list(range(len(a))):
        raise ValueError(f"transpose: axes {axes} are not a permutation of a {len(a)}-d tensor's axes")
    return tuple(a[ax] for ax in axes)


def _transpose_vjp(g, out, a, need, axes, xp=xp_array):
    return (xp.transpose(g, None if axes is None else np.argsort(axes)),)


def _transpose_plugged(t, g, out, a, axes):
    back = None if axes is None else tuple(int(ax) for ax in np.argsort(axes))
    return ((f"{t(g)}ᵀ" if back is None else f"transpose({t(g)}, {back})", np.transpose(g, back)),)


def _transpose_jvp(tangents, out, a, axes):
    return np.transpose(tangents[0], axes)


def _transpose_jvp_plugged(t, tangents, out, a, axes):
    text = f"{t(tangents[0])}ᵀ" if axes is None else f"transpose({t(tangents[0])}, {tuple(int(ax) for ax in axes)})"
    return text, np.transpose(tangents[0], axes)


TRANSPOSE = Primitive("transpose", transpose, _transpose_vjp, "dA = Gᵀ (the inverse permutation)",
                      saves=(),
                      plugged=_transpose_plugged, slots=("A",),
                      shape=transpose_shape, methods=("transpose", "T"),
                      jvp=_transpose_jvp,
                      jvp_formula="dOut = dAᵀ (the same permutation)",
                      jvp_plugged=_transpose_jvp_plugged,
                      vjp_lines=lines.transpose_lines)


# ---- concat, stack -------------------------------------------------------------------------
def concat(tensors, axis=0):
    tensors = tuple(as_tensor(t) for t in tensors)
    try:
        out = np.concatenate([t.data for t in tensors], axis=axis)
    except ValueError:
        concat_shape([t.shape for t in tensors], axis)
        raise
    return _result(out, tensors, CONCAT, {"axis": axis})


def concat_shape(shapes, axis=0):
    shapes = [tuple(s) for s in shapes]
    listed = ", ".join(str(s) for s in shapes)
    if not shapes:
        raise ValueError("concat needs at least one tensor")
    ndim = len(shapes[0])
    if ndim == 0 or any(len(s) != ndim for s in shapes):
        raise ValueError(f"concat along axis {axis}: shapes {listed} do not fit (all need the same number of "
                         "dimensions, at least one)")
    (ax,) = axes_of(axis, ndim)
    if any(s[:ax] + s[ax + 1 :] != shapes[0][:ax] + shapes[0][ax + 1 :] for s in shapes):
        raise ValueError(f"concat along axis {axis}: shapes {listed} do not fit (they may differ only along "
                         f"axis {axis})")
    return shapes[0][:ax] + (sum(s[ax] for s in shapes),) + shapes[0][ax + 1 :]


def _concat_vjp(g, out, *inputs, need, axis, xp=xp_array):
    bounds = np.cumsum([x.shape[axis] for x in inputs])[:-1]
    return tuple(xp.split(g, bounds, axis))


def _concat_plugged(t, g, out, *inputs, axis):
    stops = np.cumsum([x.shape[axis] for x in inputs])
    return tuple(
        (f"{t(g)}[{start}:{stop}] along axis {axis}", np.take(g, np.arange(start, stop), axis=axis))
        for start, stop in zip([0, *stops[:-1].tolist()], stops.tolist())
    )


def _filled(tangents, inputs, dtype):
    """The tangents of a concat or stack, zeros for an input without one."""
    return [np.zeros(x.shape, dtype) if d is None else d for d, x in zip(tangents, inputs)]


def _concat_jvp(tangents, out, *inputs, axis):
    return np.concatenate(_filled(tangents, inputs, out.dtype), axis=axis)


def _concat_jvp_plugged(t, tangents, out, *inputs, axis):
    parts = _filled(tangents, inputs, out.dtype)
    texts = ", ".join("0" if d is None else t(d) for d in tangents)
    return f"concat({texts}) along axis {axis}", np.concatenate(parts, axis=axis)


CONCAT = Primitive("concat", concat, _concat_vjp, "dAᵢ = the slice of G that Aᵢ filled", plugged=_concat_plugged,
                   saves=(),
                   slots=(),
                   shape=concat_shape, functions=("concat",),
                   jvp=_concat_jvp,
                   jvp_formula="dOut = concat(dAᵢ), 0 for an Aᵢ without a tangent",
                   jvp_plugged=_concat_jvp_plugged,
                   vjp_lines=lines.concat_lines)


def stack(tensors, axis=0):
    tensors = tuple(as_tensor(t) for t in tensors)
    try:
        out = np.stack([t.data for t in tensors], axis=axis)
    except ValueError:
        stack_shape([t.shape for t in tensors], axis)
        raise
    return _result(out, tensors, STACK, {"axis": axis})


def stack_shape(shapes, axis=0):
    shapes = [tuple(s) for s in shapes]
    if not shapes:
        raise ValueError("stack needs at least one tensor")
    if any(s != shapes[0] for s in shapes):
        raise ValueError(f"stack: all tensors need the same shape, got {', '.join(str(s) for s in shapes)}")
    (ax,) = axes_of(axis, len(shapes[0]) + 1)
    return shapes[0][:ax] + (len(shapes),) + shapes[0][ax:]


def _stack_vjp(g, out, *inputs, need, axis, xp=xp_array):
    return tuple(xp.take(g, i, axis) for i in range(len(inputs)))


def _stack_plugged(t, g, out, *inputs, axis):
    return tuple((f"{t(g)}[{i}] along axis {axis}", np.take(g, i, axis=axis)) for i in range(len(inputs)))


def _stack_jvp(tangents, out, *inputs, axis):
    return np.stack(_filled(tangents, inputs, out.dtype), axis=axis)


def _stack_jvp_plugged(t, tangents, out, *inputs, axis):
    texts = ", ".join("0" if d is None else t(d) for d in tangents)
    return f"stack({texts}) along axis {axis}", np.stack(_filled(tangents, inputs, out.dtype), axis=axis)


STACK = Primitive("stack", stack, _stack_vjp, "dAᵢ = G[i] along the stacked axis", plugged=_stack_plugged, slots=(),
                  saves=(),
                  shape=stack_shape, functions=("stack",),
                  jvp=_stack_jvp,
                  jvp_formula="dOut = stack(dAᵢ), 0 for an Aᵢ without a tangent",
                  jvp_plugged=_stack_jvp_plugged,
                  vjp_lines=lines.stack_lines)
