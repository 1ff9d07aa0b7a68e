"""The program's budget: every array it would create, every gradient its backward would compute, what
the Backward Stepper would record, and its matrix-multiply work, charged before anything runs.

The checker calls these as it predicts each value; a charge over a limit raises ExpressionError at the
operation that crossed it, saying what is too big, the total and the limit (language/messages.py).
"""

import ast
import math

import numpy as np

from language import messages as msg
from language.program import Costs
from language.source import Source

# Ops whose forward keeps an array of its first input's size for the backward (gelu's Φ(x), silu's σ(x),
# the fused losses' probabilities or differences): charged as forward elements too.
SAVED = frozenset({"gelu", "silu", "cross_entropy", "bce_with_logits", "mse_loss"})


def vjp_elements(prim: str, out: tuple, inputs: list) -> list:
    """Elements of each gradient a VJP returns (before broadcasting is undone), per input.

    Most VJPs return an array of the larger of the input's and the output's size (getitem's: a dense
    array of its input's shape, however small the slice); matmul's follow the broadcast batch.
    """
    if prim == "matmul":
        a, b = inputs
        a2 = (1, *a) if len(a) == 1 else a
        b2 = (*b, 1) if len(b) == 1 else b
        batch = math.prod(np.broadcast_shapes(a2[:-2], b2[:-2]))
        return [batch * a2[-2] * a2[-1], batch * b2[-2] * b2[-1]]
    if prim == "linear":
        return [math.prod(s) for s in inputs]
    return [max(math.prod(s), math.prod(out)) for s in inputs]


class Budget:
    """The costs predicted so far (see Costs), and where the Stepper's limit was crossed."""

    def __init__(self, source: Source):
        self.source = source
        self.costs = dict.fromkeys(Costs.__dataclass_fields__, 0)
        self.largest = (0, None)  # (elements, node) of the costliest single backward contribution
        self.stepper_over = None  # (line, col, end_col) where the Stepper's records cross their limit

    def charge(self, size: int, node: ast.AST, shape: tuple | None = None) -> None:
        """An array the program creates: within the limit for one tensor, and for all of them together."""
        if size > msg.MAX_ELEMENTS:
            raise self.source.error(node, msg.tensor_too_big(size, shape))
        if shape is not None and math.prod(d for d in shape if d) > msg.MAX_SPAN:
            # NOTE: a shape with a 0 holds no numbers (zeros(0, 10**8) is fine, as in PyTorch), but NumPy refuses
            # dimensions whose product overflows its index type ("array is too big", with no line or column).
            raise self.source.error(node, msg.shape_too_wide(shape))
        self.costs["forward_elements"] += size
        if self.costs["forward_elements"] > msg.MAX_TOTAL_ELEMENTS:
            raise self.source.error(node, msg.total_too_big(self.costs["forward_elements"]))

    def node(self, node: ast.AST) -> None:
        """A node of the graph: an op's result, a constant used as an operand, a leaf."""
        self.costs["nodes"] += 1
        if self.costs["nodes"] > msg.MAX_NODES:
            raise self.source.error(node, msg.too_many_nodes())

    def leaf(self, size: int) -> None:
        """A leaf that requires grad: its grad."""
        self.costs["backward_elements"] += size

    def matmul(self, work: int, node: ast.AST) -> None:
        self.costs["matmul_work"] += work
        if self.costs["matmul_work"] > msg.MAX_MATMUL_WORK:
            raise self.source.error(node, msg.too_much_matmul(self.costs["matmul_work"]))

    def backward(self, node: ast.AST, prim: str, out: tuple, parents: list) -> None:
        """The gradients an op's backward step computes, and what the Stepper would keep of them.

        `parents` are the checker's Values of the op's inputs (their `grad`, `size` and graph node).
        """
        costs = self.costs
        costs["backward_elements"] += math.prod(out)  # the node's own grad
        for parent, raw in zip(parents, vjp_elements(prim, out, [p.shape for p in parents])):
            if not parent.grad:
                continue
            costs["backward_elements"] += raw
            # The Stepper keeps the VJP's output, the gradient summed back to the parent's shape when
            # that differs, and the parent's running total from its second contribution on.
            kept = raw + (parent.size if raw != parent.size else 0) + (parent.size if parent.node.uses else 0)
            parent.node.uses += 1
            costs["stepper_elements"] += kept
            if raw > self.largest[0]:
                self.largest = (raw, node)
            if costs["stepper_elements"] > msg.MAX_STEPPER_ELEMENTS and self.stepper_over is None:
                self.stepper_over = self.source.place(node)
        if costs["backward_elements"] > msg.MAX_BACKWARD_ELEMENTS:
            raise self.source.error(node, msg.backward_too_big(costs["backward_elements"], self.culprit()))

    def culprit(self) -> str:
        raw, node = self.largest
        return msg.culprit(self.source.quote(node), raw) if raw else ""
