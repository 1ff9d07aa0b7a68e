"""A program made ready for practice: run once, its graph traced, every tensor named, the engine's grads kept.

Every tensor of the graph gets a name the answers can use: its variable's name; for a name bound more than once
(``c += c + 1``) the last binding keeps the name and the earlier ones are ``c_1``, ``c_2``...; an unnamed
intermediate or constant is ``t<id>`` (its box's number). The tensors to answer are those that require grad, in
backward order (the output first); a comment line ``# ask: dW1, db1`` narrows the table to those.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import numpy as np

from autograd.graph import order, trace
from language import compile_program
from language.answers import Given

ASK = re.compile(r"^\s*#\s*ask\s*:(.*)$", re.MULTILINE)


@dataclass(frozen=True)
class Asked:
    """One tensor to answer: its node id, name, shape, op, and the ids of the ops that use it (its fan-out)."""

    id: int
    name: str
    shape: tuple
    op: str
    uses: tuple  # (child id, argument position), in the child's argument order


@dataclass(frozen=True)
class Setup:
    """A program ready for practice (see the module docstring)."""

    text: str
    program: object  # language.Program
    graph: object  # autograd.graph.Graph, nodes renamed with their practice names
    tensors: tuple  # the graph's Tensors, by node id
    names: dict  # node id -> practice name
    order: tuple  # of Asked: every tensor that requires grad, in backward order
    asked: tuple  # the names the table shows (the `# ask:` line's, else every one of `order`)
    scope: dict  # name -> language.answers.Given: what an answer may read
    values: dict  # name -> array: the forward values
    grads: dict  # name -> the engine's complete grad (fan-out summed)
    problems: tuple = ()  # what the `# ask:` line named that is not a tensor to answer

    @property
    def output(self) -> str:
        return self.names[self.graph.output]

    def by_name(self, name: str) -> Asked | None:
        return next((a for a in self.order if a.name == name), None)


def practice_names(graph, variables: dict) -> dict[int, str]:
    """Node id -> a name an answer can use (see the module docstring)."""
    final = {id(t): name for name, t in variables.items()}
    taken = set(variables)
    names: dict[int, str] = {}
    earlier: dict[str, int] = {}
    tensors = graph.tensors
    for node in graph.nodes:
        t = tensors[node.id]
        if node.name and final.get(id(t)) == node.name:
            names[node.id] = node.name
            continue
        if node.name:
            earlier[node.name] = earlier.get(node.name, 0) + 1
            base = f"{node.name}_{earlier[node.name]}"
        else:
            base = f"t{node.id}"
        name = base
        while name in taken:
            name += "_"
        taken.add(name)
        names[node.id] = name
    return names


class _Traced:
    """A Graph with its Tensors beside it (autograd.graph.order and trace give the same ids)."""

    def __init__(self, graph, tensors):
        self.nodes, self.tensors, self.output, self.graph = graph.nodes, tensors, graph.output, graph


def prepare(text: str, inputs: dict | None = None, seed: int | None = None, program=None) -> Setup:
    """Compiles (or reuses ``program``), runs with ``inputs`` and ``seed``, backward, traces: a Setup.

    Raises ExpressionError for a program that is not valid or cannot run.
    """
    program = program if program is not None else compile_program(text)
    result = program.run(inputs=inputs, seed=seed)
    output = result.output
    if output.requires_grad:
        output.backward()
    tensors = order(output, result.uses)
    graph = trace(output, result.uses)
    traced = _Traced(graph, tensors)
    names = practice_names(traced, result.variables)
    graph = replace(graph, nodes=tuple(replace(n, name=names[n.id]) for n in graph.nodes))
    children: dict[int, list] = {}
    for node in graph.nodes:
        for position, parent in enumerate(node.parents):
            children.setdefault(parent, []).append((node.id, position))
    asked_order = tuple(
        Asked(n.id, names[n.id], tuple(n.shape), n.op, tuple(children.get(n.id, ())))
        for n in reversed(graph.nodes) if n.requires_grad and n.grad is not None  # (a float read as labels: none)
    )
    fixed = set(program.fixed)
    scope, values = {}, {}
    for node in graph.nodes:
        name = names[node.id]
        kind = np.asarray(node.data).dtype.kind
        known = node.data if kind in "iub" or name in fixed else None
        scope[name] = Given(tuple(node.shape), "f" if kind == "f" else kind, known)
        values[name] = node.data
    for name, t in result.variables.items():  # named values the output does not depend on
        if name not in scope:
            kind = t.data.dtype.kind
            scope[name] = Given(tuple(t.shape), kind, t.data if kind in "iub" or name in fixed else None)
            values[name] = t.data
    grads = {a.name: graph.nodes[a.id].grad for a in asked_order}
    asked, problems = _asked(program.text, asked_order)
    return Setup(program.text, program, graph, tuple(tensors), names, asked_order, asked, scope, values, grads,
                 problems)


def _asked(text: str, order_: tuple) -> tuple[tuple, tuple]:
    everyone = [a.name for a in order_]
    wanted = []
    problems = []
    for found in ASK.finditer(text):
        for item in found.group(1).split(","):
            item = item.strip()
            if not item:
                continue
            name = item[1:] if item.startswith("d") and item[1:] in everyone else item
            if name in everyone:
                if name not in wanted:
                    wanted.append(name)
            else:
                problems.append(f"`# ask:` names {item}, which is not a tensor that needs a grad here")
    if not wanted:
        return tuple(everyone), tuple(problems)
    return tuple(n for n in everyone if n in wanted), tuple(problems)
