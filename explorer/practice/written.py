"""Any program's backward written out as answer lines, from each primitive's ``vjp_lines`` (its registry block).

A tensor's answer is the sum of what each of its uses sends it: for a use by an op, the op's line for that argument
with the program's names put in (slot names -> the arguments, ``Out`` -> the op's result, ``dOut`` -> its answer),
summed back to the tensor's shape where broadcasting stretched it (``.sum(axis=0)``), exactly as the engine undoes
broadcasting after a VJP.
"""

from __future__ import annotations

import ast
import re

import numpy as np

from autograd.tensor import broadcast_axes
from language.answers import Given, compile_answers
from language.emit import literal

_HEAD = re.compile(r"^\s*d([A-Za-z_][A-Za-z0-9_]*)\s*\+=\s*")


def output_line(name: str, shape: tuple) -> str:
    """The output's answer, given on the page: the seed backward() starts from."""
    return f"d{name} = ones({name}.shape)"


def spell(array: np.ndarray, named: dict) -> str:
    """A constant array of an op's metadata in the language: the name of a graph tensor holding it, else a literal."""
    array = np.asarray(array)
    for name, value in named.items():
        value = np.asarray(value)
        if value.shape == array.shape and value.dtype.kind == array.dtype.kind and np.array_equal(value, array):
            return name
    if array.dtype.kind == "b":
        return f"(tensor({array.astype(np.int64).tolist()}, requires_grad=False) > 0)"
    if array.dtype.kind in "iu":
        return f"tensor({array.tolist()}, requires_grad=False)"
    return f"tensor({ast.unparse(literal(array.tolist()))}, requires_grad=False)"


def _templates(prim, shapes, out_shape, meta, speller) -> tuple:
    lines = prim.vjp_lines
    if callable(lines):
        lines = lines(shapes, out_shape, meta, speller)
    fields = {}
    for key, value in meta.items():
        fields[key] = speller(value) if isinstance(value, np.ndarray) else repr(value)
    return tuple(None if line is None else line.format_map(fields) for line in lines)


class _Rename(ast.NodeTransformer):
    def __init__(self, names: dict):
        self.names = names

    def visit_Name(self, node: ast.Name):
        if node.id in self.names:
            return ast.copy_location(ast.Name(id=self.names[node.id], ctx=node.ctx), node)
        return node


def term(setup, child: int, position: int) -> str:
    """What the op ``child`` sends its argument ``position``, in the program's names (before any broadcast sum)."""
    node = setup.graph.nodes[child]
    tensor = setup.tensors[child]
    prim = tensor._prim
    parents = tensor._parents
    shapes = tuple(tuple(p.shape) for p in parents)
    named = {setup.names[d]: setup.graph.nodes[d].data for d in node.data_parents}
    named.update({setup.names[n.id]: n.data for n in setup.graph.nodes
                  if not n.requires_grad and np.asarray(n.data).dtype.kind in "iub"})
    lines = _templates(prim, shapes, tuple(node.shape), tensor._meta or {}, lambda a: spell(a, named))
    line = lines[position]
    match = _HEAD.match(line)
    if match is None:
        raise ValueError(f"{prim.name}'s vjp_lines item {position} is not `dA += ...`: {line!r}")
    slots = prim.slots or tuple(f"A{i}" for i in range(len(parents)))
    renames = {slot: setup.names[p] for slot, p in zip(slots, node.parents)}
    renames.update({"Out": setup.names[child], "dOut": "d" + setup.names[child]})
    tree = ast.parse(line[match.end():], mode="eval")
    return ast.unparse(_Rename(renames).visit(tree).body)


def _axis(axes: tuple) -> str:
    return str(axes[0]) if len(axes) == 1 else str(tuple(axes))


def summed(text: str, shape: tuple, target: tuple) -> str:
    """``text`` (of ``shape``) summed over the axes broadcasting stretched, so that it has ``target``'s shape."""
    if tuple(shape) == tuple(target):
        return text
    if not target:
        return f"({text}).sum()"
    axes = broadcast_axes(tuple(shape), tuple(target))
    lead = len(shape) - len(target)
    out = f"({text})"
    if lead:
        out += f".sum(axis={_axis(tuple(range(lead)))})"
    stretched = tuple(a - lead for a in axes if a >= lead)
    if stretched:
        out += f".sum(axis={_axis(stretched)}, keepdims=True)"
    return out


def _shape_of(expression: str, scope: dict) -> tuple | None:
    line = compile_answers(f"probe_ = {expression}", scope).lines[0]
    if line.error is not None:
        raise ValueError(f"the written-out term `{expression}` is not valid: {line.error}")
    return line.shape


def written_answers(setup) -> dict[str, str]:
    """Tensor name -> its answer line, for every tensor that requires grad, in backward order."""
    scope = dict(setup.scope)
    for asked in setup.order:
        scope["d" + asked.name] = Given(asked.shape)
    out = {}
    for asked in setup.order:
        if asked.id == setup.graph.output:
            out[asked.name] = output_line(asked.name, asked.shape)
            continue
        parts = []
        for child, position in asked.uses:
            if not setup.graph.nodes[child].requires_grad:
                continue
            text = term(setup, child, position)
            parts.append(summed(text, _shape_of(text, scope), asked.shape))
        out[asked.name] = f"d{asked.name} = " + " + ".join(
            p if len(parts) == 1 or not _needs_brackets(p) else f"({p})" for p in parts)
    return out


def _needs_brackets(text: str) -> bool:
    body = ast.parse(text, mode="eval").body
    return isinstance(body, ast.BinOp) and isinstance(body.op, (ast.Add, ast.Sub))


def whole_backward(setup) -> str:
    """Every answer at once: "Show the whole backward as a program"."""
    return "\n".join(written_answers(setup).values())
