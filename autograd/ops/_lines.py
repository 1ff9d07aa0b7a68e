"""The VJPs as lines of the expression language (Primitive.vjp_lines), for the rules whose text depends on shapes
or metadata: what a reduction summed, a product's batch, an index. Constant rules are written in their blocks.

Each function takes (shapes, out_shape, meta, spell) and returns one line per input, ``dA += <expression>``, over
the slot names (A, B, X, W, Z, Y; ``A0``, ``A1``... for concat and stack), ``Out`` and ``dOut``. ``spell(array)``
writes a constant array of the metadata (labels, an index, a mask) in the language. The expression may keep
Out's broadcast shape, as a VJP may: the caller sums it back to the input's shape.
"""

import math

import numpy as np

# NOTE: as the VJP takes them (PyTorch's conventions): d(a^0)/da = 0 even at a = 0; d(0^b)/db = 0 for b >= 0.
POW_LINES = ("dA += where(B == 0, 0.0, dOut * B * A ** (B - 1))",
             "dB += where((A == 0) * (B >= 0), 0.0, dOut * Out * log(A))")


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    return tuple(sorted(int(ax) % ndim for ax in axes)) if ndim else ()


def _kept(name, shape, axis, keepdims):
    """``name`` (of the reduction's output) with the reduced axes back as size 1, so it broadcasts against A."""
    if axis is None or keepdims:
        return name
    axes = _axes(axis, len(shape))
    kept = tuple(1 if i in axes else d for i, d in enumerate(shape))
    return f"{name}.reshape{kept if len(kept) != 1 else f'({kept[0]},)'}"


def _count(shape, axis):
    return math.prod(shape[i] for i in _axes(axis, len(shape)))


def _axis_text(axis):
    return repr(None if axis is None else axis if isinstance(axis, (int, np.integer)) else tuple(axis))


def sum_lines(shapes, out_shape, meta, spell):
    g = _kept("dOut", shapes[0], meta["axis"], meta["keepdims"])
    return (f"dA += {g} * ones(A.shape)",)


def mean_lines(shapes, out_shape, meta, spell):
    g = _kept("dOut", shapes[0], meta["axis"], meta["keepdims"])
    return (f"dA += {g} * ones(A.shape) / {max(_count(shapes[0], meta['axis']), 1)}",)


def extremum_lines(shapes, out_shape, meta, spell):
    axis, keepdims = meta["axis"], meta["keepdims"]
    g, out = _kept("dOut", shapes[0], axis, keepdims), _kept("Out", shapes[0], axis, keepdims)
    return (f"dA += {g} * (A == {out}) / (A == {out}).sum(axis={_axis_text(axis)}, keepdims=True)",)


def _divisor(shape, meta):
    return float(max(_count(shape, meta["axis"]) - meta["correction"], 0))


def var_lines(shapes, out_shape, meta, spell):
    g = _kept("dOut", shapes[0], meta["axis"], meta["keepdims"])
    centred = f"(A - A.mean(axis={_axis_text(meta['axis'])}, keepdims=True))"
    return (f"dA += {g} * 2.0 * {centred} / {_divisor(shapes[0], meta)!r}",)


def std_lines(shapes, out_shape, meta, spell):
    g = _kept("dOut", shapes[0], meta["axis"], meta["keepdims"])
    out = _kept("Out", shapes[0], meta["axis"], meta["keepdims"])
    centred = f"(A - A.mean(axis={_axis_text(meta['axis'])}, keepdims=True))"
    return (f"dA += where({out} == 0, 0.0, {g} * {centred} / ({_divisor(shapes[0], meta)!r} * {out}))",)


def _swap(name, ndim):
    """The last two axes of ``name`` swapped (a matrix's transpose; a batch of them)."""
    if ndim <= 2:
        return f"{name}.T"
    axes = (*range(ndim - 2), ndim - 1, ndim - 2)
    return f"{name}.transpose{axes}"


def matmul_lines(shapes, out_shape, meta, spell):
    a, b = len(shapes[0]), len(shapes[1])
    if a == 1 and b == 1:
        return "dX += dOut * W", "dW += dOut * X"
    if a == 1:
        return "dX += (W @ dOut.unsqueeze(-1)).squeeze(-1)", "dW += X.unsqueeze(-1) * dOut.unsqueeze(-2)"
    if b == 1:
        return "dX += dOut.unsqueeze(-1) * W", f"dW += ({_swap('X', a)} @ dOut.unsqueeze(-1)).squeeze(-1)"
    return f"dX += dOut @ {_swap('W', b)}", f"dW += {_swap('X', a)} @ dOut"


def linear_lines(shapes, out_shape, meta, spell):
    x, w = shapes[0], shapes[1]
    if len(x) == 1:
        dw = "dW += dOut.unsqueeze(-1) * X"
    elif len(x) == 2:
        dw = "dW += dOut.T @ X"
    else:
        dw = f"dW += dOut.reshape(-1, {w[0]}).T @ X.reshape(-1, {w[1]})"
    return ("dX += dOut @ W", dw, "db += dOut")[: len(shapes)]


def clip_lines(shapes, out_shape, meta, spell):
    tests = [f"(A >= {meta['lo']!r})" if meta["lo"] is not None else "",
             f"(A <= {meta['hi']!r})" if meta["hi"] is not None else ""]
    return ("dA += dOut * " + (" * ".join(t for t in tests if t) if all(tests) else "".join(tests)),)


def _index_text(part, spell):
    if part is None:
        return "None"
    if part is Ellipsis:
        return "..."
    if isinstance(part, slice):
        bounds = ["" if v is None else str(int(v)) for v in (part.start, part.stop, part.step)]
        return ":".join(bounds[:2]) + (f":{bounds[2]}" if bounds[2] else "")
    if isinstance(part, np.ndarray) and part.dtype == bool:  # a mask: the positions it picks, as index arrays
        return ", ".join(spell(ix) for ix in np.nonzero(part))
    if isinstance(part, np.ndarray):
        return spell(part)
    return str(int(part))


def getitem_lines(shapes, out_shape, meta, spell):
    idx, shape = meta["idx"], shapes[0]
    if isinstance(idx, np.ndarray) and idx.dtype.kind in "iu" and idx.size != 1 and len(shape) >= 1:
        # NOTE: rows picked by labels (an embedding's lookup): a one-hot matrix of the rows, transposed, times dOut
        rows, rest = shape[0], math.prod(shape[1:])
        return (f"dA += (eye({rows})[{spell(idx)}].reshape(-1, {rows}).T @ dOut.reshape(-1, {rest}))"
                ".reshape(A.shape)",)
    parts = idx if isinstance(idx, tuple) else (idx,)
    index = ", ".join(_index_text(p, spell) for p in parts) or "..."
    size = math.prod(shape)
    # Every element of A numbered and indexed as A was: each of dOut's elements goes back to the one it came from.
    return (f"dA += ((arange({size}) == arange({size}).reshape(A.shape)[{index}].reshape(-1, 1)) "
            "* dOut.reshape(-1, 1)).sum(axis=0).reshape(A.shape)",)


def transpose_lines(shapes, out_shape, meta, spell):
    axes = meta["axes"]
    if axes is None or not len(axes):
        return ("dA += dOut.T",)
    back = tuple(int(ax) for ax in np.argsort(axes))
    return (f"dA += dOut.transpose{back}",)


def _along(axis, ndim, part):
    """An index that takes ``part`` along axis ``axis`` of an ndim-dimensional array."""
    return "dOut[" + ":, " * (int(axis) % ndim) + part + "]"


def concat_lines(shapes, out_shape, meta, spell):
    ndim, axis = len(out_shape), meta["axis"]
    stops = np.cumsum([s[int(axis) % ndim] for s in shapes]).tolist()
    starts = [0, *stops[:-1]]
    return tuple(f"dA{i} += {_along(axis, ndim, f'{a}:{b}')}" for i, (a, b) in enumerate(zip(starts, stops)))


def stack_lines(shapes, out_shape, meta, spell):
    return tuple(f"dA{i} += {_along(meta['axis'], len(out_shape), str(i))}" for i in range(len(shapes)))


def _scale(reduction, count):
    return {"mean": f" * dOut / {max(count, 1)}", "sum": " * dOut"}.get(reduction, " * dOut")


def cross_entropy_lines(shapes, out_shape, meta, spell):
    n, c = shapes[0]
    scale = " * dOut.unsqueeze(-1)" if meta["reduction"] == "none" else _scale(meta["reduction"], n)
    return (f"dZ += (softmax(Z, axis=-1) - eye({c})[{spell(meta['labels'])}]){scale}",)


def bce_lines(shapes, out_shape, meta, spell):
    scale = _scale(meta["reduction"], math.prod(shapes[0]))
    return f"dZ += (sigmoid(Z) - Y){scale}", f"dY += -Z{scale}"


def mse_lines(shapes, out_shape, meta, spell):
    scale = _scale(meta["reduction"], math.prod(shapes[0]))
    return f"dX += 2 * (X - Y){scale}", f"dY += -2 * (X - Y){scale}"
