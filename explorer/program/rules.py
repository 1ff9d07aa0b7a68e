"""A VJP rule with a step's numbers put in: whole for small operands, else one element's arithmetic written out."""

from __future__ import annotations

import numpy as np

from autograd.graph import order
from autograd.ops._common import axes_of, broadcast_shape, expand, reduced_count, same_shape
from autograd.tensor import fit_gradient
from explorer.numbers import fmt_number, plugged_text, shape_literal
from explorer.program.poke import resolve
from language import compile_program

#: Operands of up to this many elements are put into a rule whole; past it, one element's arithmetic is written.
PLUG_LIMIT = 64
#: How a rule written element by element begins (the inspector then offers to work out another element).
ELEMENT_NOTE_START = "(operands of"
_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def plugged_of(steps, node_id: int) -> str:
    """The rule of the step that ran ``node_id``'s VJP with that step's numbers put in; '' if none ran."""
    return next((step.plugged or "" for step in steps if step.node == node_id), "")


def plugged_rule(prim, g, out, inputs, meta, need) -> str:
    """A step's VJP rule with its numbers put in, one line per input that gets a grad (``dB = −1 ⊙ 49 / 2² =
    -12.25``), from the rule's own plugged-in form (Primitive.plugged), for operands of up to PLUG_LIMIT elements.
    Each line ends in what the rule's arithmetic gives, which is what the VJP sent (before broadcasting is undone:
    the panel says when it is). With a bigger operand, each line is the arithmetic of one element of that input's
    grad, the largest (``dW[0, 1] = Σᵢ X[i, 0]·G[i, 1] = …``: explorer.program.rules), where the op's is written."""
    slots = rule_slots(prim, len(inputs))  # concat, stack: A₀, A₁, ... as their formulas say Aᵢ
    largest = max(int(np.size(x)) for x in (g, *inputs))
    if largest > PLUG_LIMIT:
        return _element_rule(prim, list(slots), g, out, inputs, meta, need, largest)
    with np.errstate(all="ignore"):  # a pole or an overflow is shown as inf or nan, as the grads below are
        plugged = prim.plugged(plugged_text, g, out, *inputs, **meta)
    lines = []
    for slot, wanted, (text, value) in zip(slots, need, plugged):
        if wanted:
            result = plugged_text(value, operand=False)
            passed_on = text in (result, plugged_text(value))  # G itself (add, sub): the number once
            lines.append(f"d{slot} = {result}" if passed_on else f"d{slot} = {text} = {result}")
    return "\n".join(lines)


def rule_slots(prim, count: int) -> list[str]:
    """The inputs' names as a rule writes them (matmul: X, W; concat: A₀, A₁, ...)."""
    if len(prim.slots) >= count:
        return list(prim.slots[:count])
    return [f"A{i}".translate(_SUBSCRIPTS) for i in range(count)]


def element_of(text: str, poked: tuple, node_id: int, slot: int, index: tuple) -> str:
    """The arithmetic of element ``index`` of the grad node ``node_id``'s VJP sends its input ``slot``, for the
    program run with its ``poked`` values (the inspector's "work out another element"); a sentence for an op whose
    element arithmetic is not written out."""

    program = compile_program(text)
    result = program.run(inputs=resolve(program, poked))
    if result.output.requires_grad:
        result.output.backward()
    tensor = order(result.output, result.uses)[node_id]
    inputs = [p.data for p in tensor.parents]
    names = rule_slots(tensor._prim, len(inputs))
    index = tuple(int(i) for i in index)
    with np.errstate(all="ignore"):
        written = element_line(tensor._prim, slot, names, tensor.grad, tensor.data, inputs, tensor._meta or {}, index)
        if written is not None:
            return written[0]
        need = tuple(i == slot for i in range(len(inputs)))
        raw = tensor._prim.vjp(tensor.grad, tensor.data, *inputs, need=need, **(tensor._meta or {}))[slot]
    value = fit_gradient(raw, inputs[slot], tensor.op)[index]
    return (f"d{names[slot]}{list(index)} = {fmt_number(float(value))} ({tensor.op}'s per-element arithmetic is its "
            "formula above)")


def _element_rule(prim, slots, g, out, inputs, meta, need, largest: int) -> str:
    """plugged_rule past PLUG_LIMIT: per input that gets a grad, the arithmetic of its grad's largest element."""

    with np.errstate(all="ignore"):
        raw = prim.vjp(np.asarray(g), out, *inputs, need=tuple(need), **meta)
    lines = [f"{ELEMENT_NOTE_START} {largest:,} elements: written whole up to {PLUG_LIMIT}; here each grad's largest "
             "element, worked out)"]
    for k, (slot, wanted) in enumerate(zip(slots, need)):
        if not wanted or raw[k] is None:
            continue
        grad = np.asarray(fit_gradient(raw[k], np.asarray(inputs[k]), prim.name), dtype=np.float64)
        if grad.size == 0:
            lines.append(f"d{slot} is empty (shape {shape_literal(grad.shape)})")
            continue
        index = tuple(int(i) for i in np.unravel_index(int(np.argmax(np.nan_to_num(np.abs(grad), nan=-1.0))),
                                                     grad.shape))
        with np.errstate(all="ignore"):
            written = element_line(prim, k, slots, g, out, inputs, meta, index)
        if written is None:
            lines.append(f"d{slot}{list(index)} = {fmt_number(float(grad[index]))} (the largest of d{slot}'s "
                         f"{grad.size:,}; {prim.name}'s per-element arithmetic is its formula above)")
        else:
            lines.append(written[0])
    return "\n".join(lines)


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
