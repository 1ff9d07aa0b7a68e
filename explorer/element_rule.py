"""The arithmetic of one element of a VJP's result, written out (``dW[0, 1] = Σᵢ X[i, 0]·G[i, 1] = 0.5·0.1 + … =
0.42``): what a step's rule with its numbers shows when its operands are too big to write whole (explain.plugged_rule).

Matmul and linear sum products over the shared index; sum and mean pass one element of G on; an elementwise op
(broadcasting or not) multiplies G by the local derivative at each output position the element reached. The
result is computed from the terms as written, so it can be compared with the engine's grad element.
"""

from __future__ import annotations

import numpy as np

from autograd.ops._common import broadcast_shape, expand, reduced_count, same_shape
from explorer.numbers import fmt_number

#: Terms written out in full up to this many; past it the first few and the last are, with the count.
TERMS_SHOWN = 8


def _index(idx: tuple) -> str:
    """``[0, 1]``; '' for a scalar's (G of a scalar output is just G)."""
    return "[" + ", ".join(str(int(i)) for i in idx) + "]" if len(idx) else ""


def _term(x: float) -> str:
    text = fmt_number(x)
    return f"({text})" if text.startswith("-") else text


def _terms(pairs: list[tuple[float, ...]]) -> str:
    """``a·b + c·d + …`` for the products' factors; a long sum shows its first and last terms and its length."""
    written = ["·".join(_term(f) for f in factors) for factors in pairs]
    if len(written) > TERMS_SHOWN:
        written = [*written[: TERMS_SHOWN - 2], f"… ({len(written)} terms)", written[-1]]
    return " + ".join(written) if written else "0 (no terms)"


def _sum_line(head: str, symbolic: str, factors: list[np.ndarray]) -> tuple[str, float]:
    """``head = symbolic = terms = value``, the value the sum of the products in float64."""
    products = np.prod(np.stack([np.asarray(f, dtype=np.float64) for f in factors]), axis=0)
    value = float(np.sum(products))
    pairs = list(zip(*[np.asarray(f, dtype=np.float64).tolist() for f in factors]))
    return f"{head} = {symbolic} = {_terms(pairs)} = {fmt_number(value)}", value


def element_line(prim, slot: int, names: list[str], g, out, inputs, meta: dict, index: tuple
                 ) -> tuple[str, float] | None:
    """The arithmetic of element ``index`` of the grad the VJP of ``prim`` sends input ``slot`` (after broadcasting is
    undone), as (text, value); ``names`` are the inputs' names in the rule (X, W). None for an op whose element
    arithmetic is not written here (the rule's formula and the grads say it then)."""
    name = names[slot]
    head = f"d{name}{_index(index)}"
    g = np.asarray(g, dtype=np.float64)
    a = [np.asarray(x) for x in inputs]
    if prim.name == "matmul" and a[0].ndim == 2 and a[1].ndim == 2:
        x, w = names
        if slot == 0:  # dX[i, k] = Σⱼ G[i, j]·W[k, j]
            i, k = index
            return _sum_line(head, f"Σⱼ G[{i}, j]·{w}[{k}, j]", [g[i, :], a[1][k, :]])
        k, j = index  # dW[k, j] = Σᵢ X[i, k]·G[i, j]
        return _sum_line(head, f"Σᵢ {x}[i, {k}]·G[i, {j}]", [a[0][:, k], g[:, j]])
    if prim.name == "linear" and a[0].ndim == 2:
        x, w = names[0], names[1]
        if slot == 0:  # dX[n, i] = Σₒ G[n, o]·W[o, i]
            n, i = index
            return _sum_line(head, f"Σₒ G[{n}, o]·{w}[o, {i}]", [g[n, :], a[1][:, i]])
        if slot == 1:  # dW[o, i] = Σₙ G[n, o]·X[n, i]
            o, i = index
            return _sum_line(head, f"Σₙ G[n, {o}]·{x}[n, {i}]", [g[:, o], a[0][:, i]])
        (o,) = index  # db[o] = Σₙ G[n, o]
        return _sum_line(head, f"Σₙ G[n, {o}]", [g[:, o]])
    if prim.name in ("sum", "mean"):
        axis, keepdims = meta.get("axis"), meta.get("keepdims", False)
        spread = np.broadcast_to(expand(g, axis, keepdims, a[0].ndim), a[0].shape)
        at = _reduced_index(index, axis, keepdims, a[0].ndim)
        value = float(spread[index])
        if prim.name == "sum":
            return f"{head} = G{_index(at)} = {fmt_number(value)}", value
        n = reduced_count(a[0].shape, axis)
        each = float(spread[index] / max(n, 1))
        return f"{head} = G{_index(at)} / {n} = {_term(value)} / {n} = {fmt_number(each)}", each
    if _elementwise(prim) and out is not None:
        return _elementwise_line(prim, slot, name, head, g, out, a, meta, index)
    return None


def _reduced_index(index: tuple, axis, keepdims: bool, ndim: int) -> tuple:
    """G's index for input element ``index`` of a reduction over ``axis``."""
    from autograd.ops._common import axes_of

    axes = axes_of(axis, ndim)
    if keepdims:
        return tuple(0 if d in axes else i for d, i in enumerate(index))
    return tuple(i for d, i in enumerate(index) if d not in axes)


def _elementwise(prim) -> bool:
    """An op whose output element depends on the inputs' elements at its own position (broadcast) only."""
    rule = prim.shape
    return rule is same_shape or getattr(rule, "__qualname__", "").startswith(broadcast_shape.__qualname__)


def _elementwise_line(prim, slot, name, head, g, out, a, meta, index) -> tuple[str, float] | None:
    need = tuple(i == slot for i in range(len(a)))
    with np.errstate(all="ignore"):
        local = prim.vjp(np.ones(np.shape(out)), np.asarray(out), *a, need=need, **meta)[slot]
    if local is None:
        return None
    local = np.asarray(local, dtype=np.float64)
    if local.shape != np.shape(out):
        if local.shape != a[slot].shape:
            return None
        local = np.broadcast_to(local, np.shape(out))
    positions = _positions(index, a[slot].shape, np.shape(out))
    gs = [float(np.broadcast_to(g, np.shape(out))[p]) for p in positions]
    ls = [float(local[p]) for p in positions]
    value = float(np.sum(np.array(gs) * np.array(ls))) if positions else 0.0
    derivative = f"∂out/∂{name}"
    if len(positions) == 1:
        (p,) = positions
        text = f"{head} = G{_index(p)}·{derivative} = {_terms([(gs[0], ls[0])])} = {fmt_number(value)}"
        return text, value
    text = (f"{head} = Σ G·{derivative} over the {len(positions)} outputs it was broadcast to = "
            f"{_terms(list(zip(gs, ls)))} = {fmt_number(value)}")
    return text, value


def _positions(index: tuple, shape: tuple, out_shape: tuple) -> list[tuple]:
    """The output positions input element ``index`` (of an input of ``shape``) reaches under broadcasting."""
    lead = len(out_shape) - len(shape)
    ranges = []
    for d, size in enumerate(out_shape):
        if d < lead or shape[d - lead] == 1 and size != 1:
            ranges.append(range(size))
        else:
            ranges.append(range(index[d - lead], index[d - lead] + 1))
    return [tuple(r[i] for r, i in zip(ranges, p)) for p in np.ndindex(*[len(r) for r in ranges])]
