"""Hints, in three steps per answer: the rule (the Stepper's formula for each use), the rule with this program's
numbers put in, then the answer itself (its line then carries ``# shown``, and the summary counts it as shown, not
solved)."""

from __future__ import annotations

import numpy as np

from explorer.practice.written import output_line, written_answers
from explorer.program.rules import plugged_rule, rule_slots

STEPS = ("the rule", "the rule with numbers", "the answer")
SHOWN_MARK = "  # shown"


def _uses(setup, name: str):
    asked = setup.by_name(name)
    for child, position in asked.uses if asked else ():
        node = setup.graph.nodes[child]
        if node.requires_grad:
            yield child, position, node


def rule(setup, name: str) -> str:
    """Step 1: for each use of ``name``, the op and its VJP's formula, and which input ``name`` is."""
    if name == setup.output:
        return f"{name} is the output: backward() starts from d{name} = ones({name}.shape), every element 1."
    parts = []
    for child, position, node in _uses(setup, name):
        slot = rule_slots(setup.tensors[child]._prim, len(node.parents))[position]
        parts.append(f"{setup.names[child]} = {node.op}(…): {name} is its {slot}; the rule is {node.formula} "
                     f"(G = d{setup.names[child]})")
    many = f" {name} has {len(parts)} uses: d{name} is the sum of what each sends." if len(parts) > 1 else ""
    return "\n".join(parts) + many


def with_numbers(setup, name: str) -> str:
    """Step 2: each use's rule with this step's numbers put in (the Stepper's plugged-in rule)."""
    if name == setup.output:
        return f"d{name} = {np.ones(setup.graph.nodes[setup.graph.output].shape).tolist()}"
    parts = []
    for child, position, node in _uses(setup, name):
        tensor = setup.tensors[child]
        inputs = tuple(p.data for p in tensor._parents)
        need = tuple(i == position for i in range(len(inputs)))
        text = plugged_rule(tensor._prim, node.grad, node.data, inputs, tensor._meta or {}, need)
        parts.append(f"from {setup.names[child]}: {text}")
    return "\n".join(parts)


def answer(setup, name: str) -> str:
    """Step 3: the answer line, marked as shown."""
    if name == setup.output:
        return output_line(name, setup.graph.nodes[setup.graph.output].shape) + SHOWN_MARK
    return written_answers(setup)[name] + SHOWN_MARK


def hint(setup, name: str, step: int) -> str:
    """Hint ``step`` (1, 2 or 3) for d<name>."""
    return (rule, with_numbers, answer)[min(max(step, 1), 3) - 1](setup, name)
