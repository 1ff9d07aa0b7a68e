"""The Backward Stepper's words: when each node is active and done, and what each step and the seed did."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from explorer.graph.dot import slot_names
from explorer.graph.names import node_heading, node_label
from explorer.numbers import array_text, shape_literal
from explorer.program.run import data_only

# ----------------------------------------------------------------------------- the backward stepper


@dataclass(frozen=True)
class Timeline:
    """When each node of the stepper's graph changes state: positions 0 (the seed) to n (after step n).

    ``state(i, position)`` is 'active' | 'done' | 'waiting' | None. The node of step k runs at
    position k and is done from k + 1 on; a node that is never processed (a leaf) is done once
    every contribution it receives has arrived. Nodes that do not require grad take no part (None).
    At the seed the output has its grad (the ones) and no state: it is drawn as the output.
    The graph view (components/graph_view) evaluates the same rule in the browser from these lists.
    """

    output: int
    takes_part: tuple[bool, ...]  # by node id: requires grad
    active_at: tuple[int, ...]  # by node id: the position whose step runs its VJP, -1 if none
    done_at: tuple[int, ...]  # by node id: the first position at which it is done, -1 if never

    def state(self, node: int, position: int) -> str | None:
        if not self.takes_part[node]:
            return None
        if position == self.active_at[node]:
            return "active"
        if 0 <= self.done_at[node] <= position:
            return "done"
        if position == 0 and node == self.output:
            return None
        return "waiting"


def step_timeline(graph, steps) -> Timeline:
    """The Timeline of a backward pass: see Timeline."""
    n = len(graph.nodes)
    active_at, done_at = [-1] * n, [-1] * n
    last_received = {}
    for k, step in enumerate(steps, start=1):
        active_at[step.node] = k
        done_at[step.node] = k + 1 if k < len(steps) else -1
        for c in step.contributions:
            if c.fan_out_index == c.fan_out_total:
                last_received[c.parent] = k
    for node, k in last_received.items():
        if active_at[node] == -1:
            done_at[node] = k
    as_data = data_only(graph)  # read as labels or an index: no grad ever flows into it
    return Timeline(
        output=graph.output,
        takes_part=tuple(bool(node.requires_grad) and node.id not in as_data for node in graph.nodes),
        active_at=tuple(active_at),
        done_at=tuple(done_at),
    )


def contribution_slots(node, step) -> list[int]:
    """The argument slot of each of a step's contributions (``x * x`` sends two to x: slots 0 and 1).

    Contributions come in argument order, parents without grad left out, so the k-th contribution
    to a parent belongs to its k-th slot.
    """
    seen: dict[int, int] = {}
    slots = []
    for c in step.contributions:
        positions = [i for i, p in enumerate(node.parents) if p == c.parent]
        k = seen.get(c.parent, 0)
        seen[c.parent] = k + 1
        slots.append(positions[min(k, len(positions) - 1)])
    return slots


_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def summed_back(plugged: str, formula: str, summed: dict) -> str:
    """A step's rule with its numbers (``plugged``), each line of a broadcast parent's slot (``summed``: slot ->
    its Contribution) being the sum back itself: ``dB = Σ₀ G = [0.6715, −1.044, 0.2749]``, the grad the parent
    gets, rather than the unsummed (4, 3) G (issue 29). The symbolic part is the slot's own from ``formula``."""
    if not summed or not plugged:
        return plugged
    rules = dict(part.strip().partition(" = ")[::2] for part in formula.split(",  ") if " = " in part)
    lines = []
    for line in plugged.split("\n"):
        head = line.partition(" = ")[0]
        c = summed.get(head[1:]) if head.startswith("d") else None
        if c is not None and head in rules:
            expr = rules[head]
            expr = expr if expr.replace("−", "").isalnum() else f"({expr})"
            axes = ",".join(str(a) for a in c.summed_axes).translate(_SUBSCRIPTS)
            line = f"{head} = Σ{axes} {expr} = {array_text(c.grad)}"
        lines.append(line)
    return "\n".join(lines)


def _axes(axes) -> str:
    """``axis 0``, ``axes 0, 1``."""
    return ("axis " if len(axes) == 1 else "axes ") + ", ".join(str(a) for a in axes)


def broadcast_axes_text(axes) -> str:
    """``Σ axis 0``, ``Σ axes 0, 1``: an edge's mark for a grad summed over broadcast axes."""
    return f"Σ {_axes(axes)}"


def broadcast_edges(graph, steps) -> dict[tuple[int, int], str]:
    """(node id, argument slot) -> ``Σ axis 0`` for every edge whose grad was summed over broadcast axes."""
    marks = {}
    for step in steps:
        node = graph.nodes[step.node]
        for c, slot in zip(step.contributions, contribution_slots(node, step)):
            if c.summed_axes:
                marks[(step.node, slot)] = broadcast_axes_text(c.summed_axes)
    return marks


@dataclass(frozen=True)
class ContributionView:
    parent: str  # the parent's label
    slot: str  # the argument slot ('A', 'W', ...)
    value: str  # the gradient added to the parent
    broadcast: str  # '' or "summed over axis 0 to undo broadcasting (3, 4) → (4,)"
    fan_out: str  # '' or "contribution 2 of 3 to b"
    accumulated: str  # the parent's grad so far


@dataclass(frozen=True)
class StepView:
    title: str
    node: str
    op: str
    formula: str
    plugged: str  # the rule with this step's numbers put in (plugged_rule), '' if not recorded
    upstream: str
    contributions: tuple[ContributionView, ...]


def step_labeller(graph) -> Callable:
    """How a step's words name a node of ``graph``. NOTE: `g += ...` gives two nodes the name g; such a name is
    shown with its op ("g = div"), as its box in the graph reads, so "→ g" does not leave the reader guessing
    which g."""
    names = Counter(n.name for n in graph.nodes if n.name)
    return lambda n: node_heading(n) if names[n.name] > 1 else node_label(n)


def describe_step(graph, step, total: int) -> StepView:
    """What one backward step did, in words and numbers."""
    node = graph.nodes[step.node]
    label_of = step_labeller(graph)
    label = label_of(node)
    slots = slot_names(node)
    views = []
    for c, position in zip(step.contributions, contribution_slots(node, step)):
        parent = graph.nodes[c.parent]
        plabel = label_of(parent)
        slot = slots[position] if len(node.parents) > 1 else ""
        broadcast = ""
        if c.summed_axes:
            broadcast = (
                f"summed over {_axes(c.summed_axes)} to undo broadcasting {shape_literal(np.shape(c.raw))} → "
                f"{shape_literal(parent.shape)}"
            )
        fan_out = ""
        if c.fan_out_total > 1:
            fan_out = f"contribution {c.fan_out_index} of {c.fan_out_total} to {plabel}"
        views.append(
            ContributionView(
                parent=plabel,
                slot=slot,
                value=array_text(c.grad),
                broadcast=broadcast,
                fan_out=fan_out,
                accumulated=array_text(c.accumulated),
            )
        )
    formula = step.formula or node.formula
    summed = {slots[position] if len(node.parents) > 1 else slots[0]: c
              for c, position in zip(step.contributions, contribution_slots(node, step)) if c.summed_axes}
    return StepView(
        title=f"Step {step.index + 1} of {total}: {node_heading(node)}",
        node=label,
        op=step.op or node.op,
        formula=formula,
        plugged=summed_back(step.plugged or "", formula, summed),
        upstream=array_text(step.upstream),
        contributions=tuple(views),
    )


@dataclass(frozen=True)
class SeedView:
    title: str
    text: str  # with `code` and **bold** spans
    seed: str  # the seed as text


def describe_seed(graph, steps) -> SeedView:
    """What position 0 of the stepper shows: backward() seeds the output's grad with ones."""
    out = graph.nodes[graph.output]
    name = node_label(out)
    first = f" Press **Next** to run `{node_label(graph.nodes[steps[0].node])}`'s VJP." if steps else ""
    at = f"Step 0 of {len(steps)}: the seed,"  # NOTE: not "Seed (of 25 steps)": it read as a random seed
    if out.shape == ():
        title = f"{at} {name}.grad = 1"
        text = f"backward() starts by setting the output's grad to 1: d{name}/d{name} = 1.{first}"
    else:
        title = f"{at} {name}.grad = ones{shape_literal(out.shape)}"
        text = (
            f"backward() starts by setting the output's grad to ones of its shape {shape_literal(out.shape)}: "
            f"the grads it then computes are those of `{name}.sum()`.{first}"
        )
    seed = steps[0].upstream if steps else out.grad
    return SeedView(title=title, text=text, seed=array_text(seed))


BACKWARD_EXPLAINED = (
    (
        "Seed the output's grad with ones: it is the derivative of the output with respect to itself.",
        r"\bar{y} = \frac{\partial y}{\partial y} = \mathbf{1}",
    ),
    (
        "Order the nodes topologically (every node after its parents), then walk that order in reverse, "
        "so a node is processed only when every node that uses it has sent its contribution.",
        r"v_1, v_2, \dots, v_n = y \quad\Rightarrow\quad \text{process } v_n, v_{n-1}, \dots, v_1",
    ),
    (
        "At each node, its op's vector-Jacobian product (VJP) turns the upstream grad G into one "
        "contribution per parent: for matmul Y = X·W, dX = G·Wᵀ and dW = Xᵀ·G.",
        r"\bar{x}_i \mathrel{+}= \bar{v}^{\top} \frac{\partial v}{\partial x_i}",
    ),
    (
        "Accumulate: a tensor used by several ops (fan-out) gets the sum of their contributions; "
        "a parent that was broadcast gets the contribution summed over the broadcast axes.",
        r"\bar{x} = \sum_{k \,\in\, \text{uses of } x} \bar{x}^{(k)}",
    ),
)
