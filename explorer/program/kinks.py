"""Where a program is not twice differentiable at its point: each node's inputs checked against its op's kinks.

One rule per op, in ``KINKS``: a function of the node that counts the elements sitting exactly on a kink (relu and
abs at 0, clip at its bounds, maximum/minimum where the two sides are equal, max/min reductions with a tie, sqrt at
0, x ** 1.5 at 0, round halfway, and a detach the inputs reach), and the words for it. Smooth ops have no entry.
At such a point the gradient jumps (or is infinite), so the Hessian does not exist there: the engine still returns
a number (its one-sided rule, relu'(0) = 0, a tie's even split), finite differences of the gradient see the jump,
and the two need not agree. A detach (``CUTS``) is not a kink but a cut: the gradient is smooth but leaves out how
the detached value moves, so finite differences of it may differ too.

    for kink in kinks_at(result.output, result.uses): kink.node, kink.op, kink.count, kink.words
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from autograd.graph import order as graph_order


@dataclass(frozen=True)
class Kink:
    node: int  # the node's id in the program's graph (autograd.graph.order: the graph view's ids)
    name: str  # the node's name, or '' when it has none
    op: str
    count: int  # elements of the node's input sitting on the kink
    words: str  # what the kink is, e.g. "relu's input is exactly 0"

    @property
    def jumps(self) -> bool:
        """The gradient jumps here (a kink); False for a detach, where the gradient is smooth but not the output's
        derivative."""
        return self.op not in CUTS

    @property
    def label(self) -> str:
        """'h (relu, node 7)' or 'relu (node 7)'."""
        return f"{self.name} ({self.op}, node {self.node})" if self.name else f"{self.op} (node {self.node})"


def _equal_to(value) -> Callable:
    return lambda node: int(np.count_nonzero(node._parents[0].data == value))


def _clip(node) -> int:
    x, meta = node._parents[0].data, node._meta or {}
    on = np.zeros(x.shape, bool)
    for bound in (meta.get("lo"), meta.get("hi")):
        if bound is not None:
            on |= x == bound
    return int(np.count_nonzero(on))


def _ties_between(node) -> int:
    a, b = (p.data for p in node._parents[:2])
    return int(np.count_nonzero(np.broadcast_to(a == b, node.data.shape)))


def _ties_within(node) -> int:
    """Slices of a max/min reduction whose extreme value more than one element shares."""
    x, meta = node._parents[0].data, node._meta or {}
    axis = meta.get("axis")
    extreme = np.max(x, axis=axis, keepdims=True) if node.op == "max" else np.min(x, axis=axis, keepdims=True)
    shared = np.sum(x == extreme, axis=axis)
    return int(np.count_nonzero(np.asarray(shared) > 1))


def _pow_at_zero(node) -> int:
    """A base of exactly 0 under an exponent below 2 that is not a whole number ≥ 0 (x ** 1.5, x ** 0.5): the
    second derivative b(b − 1)·x^(b − 2) is infinite there. x ** 2 and x ** 3 are smooth at 0."""
    a, b = (p.data for p in node._parents[:2])
    whole = (b == np.round(b)) & (b >= 0)
    return int(np.count_nonzero(np.broadcast_to((a == 0) & ~whole & (b < 2), node.data.shape)))


def _at_a_half(node) -> int:
    x = node._parents[0].data
    return int(np.count_nonzero(x - np.floor(x) == 0.5))


def _all(node) -> int:
    """Every element of a detach whose input the inputs reach: the value flows on, the gradient does not."""
    return int(node._parents[0].data.size) if node._parents[0].requires_grad else 0


#: Ops whose entry is not a kink but a cut: the engine's gradient leaves out how the value moves.
CUTS = frozenset({"detach"})

#: op -> (how many elements of the node's input are on a kink, the words for one).
KINKS: dict[str, tuple[Callable, str]] = {
    "relu": (_equal_to(0), "relu's input is exactly 0 (its slope jumps from 0 to 1)"),
    "abs": (_equal_to(0), "abs's input is exactly 0 (its slope jumps from −1 to 1)"),
    "sqrt": (_equal_to(0), "sqrt's input is exactly 0 (its slope is infinite there)"),
    "pow": (_pow_at_zero, "pow's base is exactly 0 under an exponent below 2 that is not a whole number (its second "
                          "derivative is infinite there)"),
    "clip": (_clip, "clip's input sits exactly on a bound (its slope jumps between 1 and 0)"),
    "maximum": (_ties_between, "maximum's two sides are equal (a tie: the gradient switches sides there)"),
    "minimum": (_ties_between, "minimum's two sides are equal (a tie: the gradient switches sides there)"),
    "max": (_ties_within, "max has a tie (several elements share the largest value)"),
    "min": (_ties_within, "min has a tie (several elements share the smallest value)"),
    "round": (_at_a_half, "round's input is exactly halfway between two whole numbers (its value jumps there)"),
    "detach": (_all, "detach stops the backward while its value still moves with the inputs (the gradient is not "
                     "the output's derivative there, so finite differences of it differ: the straight-through "
                     "estimator's way)"),
}


def kinks_at(output, uses=None) -> list[Kink]:
    """The nodes of ``output``'s graph (ids as autograd.graph.order numbers them with ``uses``) that sit on a kink
    of their op, in graph order; only nodes the inputs reach (that require grad) count."""
    found = []
    for node_id, node in enumerate(graph_order(output, uses)):
        rule = KINKS.get(node.op)
        if rule is None or not node.requires_grad:
            continue
        count = rule[0](node)
        if count:
            found.append(Kink(node_id, node.name or "", node.op, count, rule[1]))
    return found
