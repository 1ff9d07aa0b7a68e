"""A program run for the pages: its backward pass recorded step by step, each step's rule with its numbers put in."""

from __future__ import annotations

from autograd.graph import backward_steps, trace
from explorer.program.poke import resolve
from explorer.program.rules import plugged_rule
from language import compile_program


def data_only(graph) -> set[int]:
    """Ids of the nodes an op reads only as data (labels, index tensors: Node.data_parents), never differentiated."""
    differentiated = {p for node in graph.nodes for p in node.parents} | {graph.output}
    return {d for node in graph.nodes for d in node.data_parents if d not in differentiated}


def step_program(text: str, poked: tuple = ()):
    """(graph, steps) of a program's backward pass, one step per processed node (none if nothing needs grad),
    with its inputs' ``poked`` values (explorer.program.poke).

    Raises ExpressionError for a bad program, or one whose steps would be too big to record.
    """
    graph, steps, _ = stepped_run(text, poked)
    return graph, steps


def stepped_run(text: str, poked: tuple = ()):
    """step_program's (graph, steps) and the run they were recorded from (language's Result: its output's graph
    keeps its grads, so explorer.program.jacobian_view builds each node's Jacobian from them in the same evaluation)."""

    program = compile_program(text)
    program.check_stepper()
    result = program.run(inputs=resolve(program, poked))
    return (*recorded_backward(result.output, result.uses), result)


def recorded_backward(output, uses=None):
    """(graph, steps): backward() of a program's output, each step recorded (none if nothing needs grad); ``uses``
    is the run's (language's Result.uses: the tensors its ops read as data, drawn as such)."""

    if not output.requires_grad:
        return trace(output, uses=uses), ()
    return backward_steps(output, plugged=plugged_rule, uses=uses)
