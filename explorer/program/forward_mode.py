"""Forward mode for the explorer and the stepper as plain data: the direction v, each node's JVP step and tangent,
the line where forward and reverse meet (what each mode costs: explorer/program/mode_cost.py)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from autograd.graph import forward_steps
from explorer.graph.dot import slot_names
from explorer.graph.names import node_heading, node_label
from explorer.numbers import HUGE_WHOLE, array_text, fmt_number, plugged_text, whole_from_link
from explorer.program.poke import resolve
from explorer.program.rules import PLUG_LIMIT
from explorer.program.run import data_only
from explorer.program.stepper import SeedView, Timeline, step_labeller
from explorer.words import clip_text
from language import compile_program

# ----------------------------------------------------------------------------- the direction v


@dataclass(frozen=True)
class Direction:
    """The tangent v the forward pass pushes: all ones, ones in one input, or one element of one input.

    Written in a URL as ``ones``, ``input:x`` or ``element:x:3`` (``index`` counts x's elements in
    row-major order, as x.reshape(-1) does)."""

    kind: str  # 'ones' | 'input' | 'element'
    name: str = ""
    index: int = 0

    @property
    def text(self) -> str:
        if self.kind == "ones":
            return "ones"
        return f"input:{self.name}" if self.kind == "input" else f"element:{self.name}:{self.index}"

    def describe(self, shapes: Mapping[str, tuple] | None = None) -> str:
        """``v = all ones``, ``v = ones in x, zeros elsewhere``, ``v = 1 at x[1, 2], zeros elsewhere`` (the element's
        place from the inputs' ``shapes``, name -> shape: input_shapes)."""
        if self.kind == "ones":
            return "v = ones in every input"
        if self.kind == "input":
            return f"v = ones in {self.name}, zeros elsewhere"
        return f"v = 1 at {place_text(self.name, (shapes or {}).get(self.name, ()), self.index)}, zeros elsewhere"


ONES = Direction("ones")


def place_text(name: str, shape: tuple, index: int) -> str:
    """Element ``index`` (row-major) of input ``name`` of ``shape`` as an index: ``x[3]``, ``W[1, 2]``."""
    if len(shape) <= 1:
        return f"{name}[{index}]"
    return f"{name}[{', '.join(str(int(i)) for i in np.unravel_index(index, shape))}]"


def input_shapes(graph) -> dict[str, tuple]:
    """A program's inputs as its graph draws them, name -> shape: its named leaves that require grad (what v may
    name)."""
    return {n.name: n.shape for n in graph.nodes if n.kind in ("input", "param") and n.name}


def parse_direction(text: str | None) -> Direction:
    """A direction from its URL form (see Direction); None or '' is all ones. ValueError says what is wrong."""
    if not text or text == "ones":
        return ONES
    kind, _, rest = str(text).partition(":")
    if kind == "input" and rest:
        return Direction("input", rest)
    if kind == "element":
        name, _, index = rest.rpartition(":")
        if name and index.isascii() and index.isdigit():
            return Direction("element", name, whole_from_link(index))
    raise ValueError(f"a direction is 'ones', 'input:NAME' or 'element:NAME:INDEX', got {clip_text(str(text))!r}")


def direction_seeds(direction: Direction, inputs: Mapping) -> dict:
    """{input Tensor: its tangent} for ``direction`` over a program's inputs (name -> leaf Tensor): every input
    gets a tangent (zeros where v has none), so each input's tangent is shown. ValueError says what direction_problem
    finds wrong (an unknown input, an element out of range)."""
    problem = direction_problem(direction, {name: t.data.shape for name, t in inputs.items()})
    if problem:
        raise ValueError(problem)
    seeds = {}
    for name, t in inputs.items():
        v = np.zeros(t.data.shape, t.data.dtype)
        if direction.kind == "ones" or direction.kind == "input" and name == direction.name:
            v[...] = 1
        elif direction.kind == "element" and name == direction.name:
            v.reshape(-1)[direction.index] = 1
        seeds[t] = v
    return seeds


MODES = {"reverse": "reverse (VJP)", "forward": "forward (JVP)"}


def direction_problem(direction: Direction, shapes: Mapping[str, tuple]) -> str | None:
    """What is wrong with ``direction`` for a program whose inputs have ``shapes`` (name -> shape), or None."""
    if direction.kind == "ones":
        return None
    if direction.name not in shapes:
        known = ", ".join(shapes) or "none"
        return (f"the direction names `{clip_text(direction.name)}`, which is not an input of this program "
                f"(inputs: {clip_text(known, 160)})")
    size = int(np.prod(shapes[direction.name], dtype=np.int64))
    if direction.kind == "element" and size == 0:
        return f"`{clip_text(direction.name)}` has no elements: no element of it can be 1"
    if direction.kind == "element" and not 0 <= direction.index < size:
        index = f"{direction.index:,}" if direction.index < HUGE_WHOLE else "past 10^18"
        return (f"`{clip_text(direction.name)}` has {size:,} element{'s' * (size != 1)} (0 to {size - 1:,}); element "
                f"{index} is not one of them")
    return None


def mode_from_link(mode: str | None, v: str | None) -> tuple[str, Direction, list[str]]:
    """A link's ``mode`` and ``v``: (mode, direction, what was wrong). An unknown mode is reverse, an unreadable v
    all ones, each with a problem said (whether v fits the program is direction_problem's, once it has run)."""
    problems = []
    if mode not in (None, *MODES):
        problems.append(f"`mode={clip_text(str(mode))}` is not `reverse` or `forward`: opened in reverse mode")
        mode = "reverse"
    try:
        direction = parse_direction(v)
    except ValueError as exc:
        problems.append(f"`v={clip_text(str(v))}`: {exc}; v = ones instead")
        direction = ONES
    return mode or "reverse", direction, problems


# ----------------------------------------------------------------------------- the forward steps


def plugged_jvp_rule(prim, tangents, out, inputs, meta) -> str:
    """A step's JVP rule with its numbers put in (``dOut = 1 ⊙ 2 + -4 ⊙ 0 = 2``), from the rule's own
    plugged-in form (Primitive.jvp_plugged); a sentence instead when an operand has more than PLUG_LIMIT elements.
    The line ends in what the rule's arithmetic gives, which is the node's tangent (before broadcasting)."""
    largest = max(int(np.size(x)) for x in (out, *inputs, *(t for t in tangents if t is not None)))
    if largest > PLUG_LIMIT:
        return (f"Written with numbers for operands of up to {PLUG_LIMIT} elements; "
                f"this step's largest has {largest}: see the tangents below.")
    with np.errstate(all="ignore"):  # a pole or an overflow is shown as inf or nan, as the tangents are
        text, value = prim.jvp_plugged(plugged_text, tuple(tangents), out, *inputs, **meta)
    result = plugged_text(value, operand=False)
    return f"dOut = {result}" if text in (result, plugged_text(value)) else f"dOut = {text} = {result}"


@dataclass(frozen=True)
class MeetingLine:
    """Where the two modes meet on the output: forward mode's ∂f/∂v (the output's tangent, summed when the
    output has several numbers, as backward()'s ones seed sums it) and reverse mode's ∇f · v."""

    forward: float
    reverse: float
    agree: bool  # equal up to the rounding of the two orders of arithmetic (then printed with the same digits)
    text: str
    zero: bool = False  # both are 0 up to that rounding: the line prints 0 (and so does the output's box)


def meeting_line(output, out_tangent: np.ndarray, seeds: Mapping, backward: bool = True,
                 tangents: Mapping | None = None) -> MeetingLine:
    """The meeting line for ``output`` (a Tensor whose inputs are the keys of ``seeds``): ∇f · v = Σ over the
    inputs of grad ⊙ v, with the grads of backward() seeded with ones; run here unless ``backward`` is False (the
    inputs' grads are then those of a backward() already run, as the pages' one evaluation runs it).

    The two sums are the same algebra in two orders, so they may differ in the last bits: within 10⁴ machine
    epsilons of the size of the numbers summed on the way they are equal, and the line prints them from one
    number (0.54375 and 0.5437500000000001 would otherwise print as 0.5437 and 0.5438; a derivative that is 0,
    as Σ softmax(v)'s, prints as 0 rather than forward's -2.776e-17). The size on the way is that of the grad ⊙ v
    terms and of every tangent the forward walk made (``tangents``: node -> tangent)."""
    forward = float(np.sum(out_tangent, dtype=np.float64))
    reverse, scale = 0.0, 0.0
    if output.requires_grad:
        if backward:
            for t in seeds:
                t.grad = None
            output.backward()
        for t, v in seeds.items():
            if t.grad is not None:
                terms = np.asarray(t.grad * v, dtype=np.float64)
                reverse += float(np.sum(terms))
                scale += float(np.sum(np.abs(terms)))
    with np.errstate(all="ignore"):
        for tangent in (tangents or {}).values():
            scale = max(scale, float(np.sum(np.abs(tangent), dtype=np.float64)))
    eps = float(np.finfo(output.data.dtype).eps) if output.data.dtype.kind == "f" else float(np.finfo(float).eps)
    tolerance = 1e4 * eps * max(scale, abs(forward), abs(reverse))
    agree = abs(forward - reverse) <= tolerance
    name = output.name or "f"
    f = name if output.data.size == 1 else f"(Σ {name})"
    shown = "0" if agree and abs(forward) <= tolerance and abs(reverse) <= tolerance else fmt_number(forward)
    text = (f"forward: ∂{f}/∂v = {shown}  ·  reverse: ∇{f} · v = {shown if agree else fmt_number(reverse)}")
    return MeetingLine(forward=forward, reverse=reverse, agree=agree, text=text, zero=shown == "0")


@dataclass(frozen=True)
class ForwardRun:
    """A program's forward-mode pass along one direction: what the Explorer and the Stepper show in forward mode."""

    graph: object  # autograd.graph.Graph of the program's output, each node's tangent where its grad would be
    steps: tuple  # of autograd.graph.ForwardStep, topological order, plugged-in rules filled in
    tangents: dict  # node id -> the node's tangent (inputs: their share of v)
    direction: Direction
    meeting: MeetingLine
    note: str = ""  # why the direction asked for was not the one taken (it did not fit the program), '' if it was

    @property
    def described(self) -> str:
        """The direction in words, its element's place from the program's own shapes (Direction.describe)."""
        return self.direction.describe(input_shapes(self.graph))


def tangent_graph(graph, tangents: Mapping):
    """``graph`` with each node's tangent in place of its grad (zeros for a node that needs a grad but that no
    tangent reaches; None for one that needs none): what the graph view draws in forward mode."""
    nodes = tuple(
        dataclasses.replace(node, grad=tangents.get(node.id, np.zeros(node.shape, node.dtype)))
        if node.requires_grad else dataclasses.replace(node, grad=None)
        for node in graph.nodes
    )
    return dataclasses.replace(graph, nodes=nodes)


def forward_of(result, direction: Direction | str = ONES, backward: bool = True, fallback: bool = False) -> ForwardRun:
    """Pushes the tangent v of ``direction`` through a program's run (language's Result: output, inputs, uses) node
    by node. The nodes have the ids the reverse graph of the same run has. ``backward``: see meeting_line. A
    direction that does not fit the program (direction_problem) raises ValueError, or with ``fallback`` is all ones
    instead, the run's ``note`` saying why (the pages: a link's v, or a v kept while the program changed)."""

    if isinstance(direction, str):
        direction = parse_direction(direction)
    output = result.output
    problem = direction_problem(direction, {name: t.shape for name, t in result.inputs.items()}) if fallback else None
    if problem:
        direction = ONES
    seeds = direction_seeds(direction, result.inputs)  # without ``fallback``, ValueError for a v that does not fit
    graph, steps, tangents = forward_steps(output, seeds, plugged=plugged_jvp_rule, uses=result.uses)
    out_tangent = tangents.get(graph.output)
    if out_tangent is None:
        out_tangent = np.zeros(output.data.shape)
    meeting = meeting_line(output, out_tangent, seeds, backward=backward, tangents=tangents)
    if meeting.zero and output.data.size == 1 and graph.output in tangents:
        # NOTE: one rounding for the line and the box: the output's box printed forward's -8.327e-17 under a line
        # that says 0 (issue 29); within the line's tolerance the scalar output's tangent is 0, drawn as such
        tangents = {**tangents, graph.output: np.zeros_like(tangents[graph.output])}
        steps = tuple(dataclasses.replace(s, tangent=tangents[s.node]) if s.node == graph.output else s
                      for s in steps)
    return ForwardRun(graph=tangent_graph(graph, tangents), steps=steps, tangents=tangents, direction=direction,
                      meeting=meeting, note=f"{problem[0].upper()}{problem[1:]}: v = ones instead." if problem else "")


def forward_program(text: str, poked: tuple = (), direction: Direction | str = ONES) -> ForwardRun:
    """Evaluates a program (with its inputs' ``poked`` values, explorer.program.poke) and runs forward_of on it. Raises
    ExpressionError for a bad program (or one whose steps would be too big to record) and ValueError for a
    direction the program has no input for."""

    program = compile_program(text)
    program.check_stepper()
    return forward_of(program.run(inputs=resolve(program, poked)), direction)


def tangents_at(run: ForwardRun, k: int) -> dict:
    """The tangent known for each node once steps[0..k-1] have run (k = 0: the inputs' own, v)."""
    if not 0 <= k <= len(run.steps):
        raise IndexError(f"step {k} is outside 0..{len(run.steps)}")
    computed = {step.node for step in run.steps[k:]}
    return {node: t for node, t in run.tangents.items() if node not in computed}


def forward_timeline(run: ForwardRun) -> Timeline:
    """When each node changes state in the forward stepper (stepper.Timeline's rule, the walk reversed): an input
    is done from the seed on, holding its share of v; the node of step k is active at position k and done from
    k + 1 on (the last one stays active, as backward's last does)."""
    graph, n = run.graph, len(run.steps)
    active_at, done_at = [-1] * len(graph.nodes), [-1] * len(graph.nodes)
    for node in run.tangents:
        done_at[node] = 0
    for k, step in enumerate(run.steps, start=1):
        active_at[step.node] = k
        done_at[step.node] = k + 1 if k < n else -1
    as_data = data_only(graph)
    return Timeline(
        output=graph.output,
        takes_part=tuple(bool(node.requires_grad) and node.id not in as_data for node in graph.nodes),
        active_at=tuple(active_at),
        done_at=tuple(done_at),
    )


@dataclass(frozen=True)
class ReceivedView:
    parent: str  # the parent's label
    slot: str  # the argument slot ('A', 'W', ...), '' for a one-input op
    tangent: str  # the tangent it carried, or a note that it carries none


@dataclass(frozen=True)
class ForwardStepView:
    title: str
    node: str
    op: str
    formula: str  # the op's JVP rule
    plugged: str  # the rule with this step's numbers put in, '' if not recorded
    received: tuple[ReceivedView, ...]  # in argument order
    tangent: str  # the node's tangent, J·v


def describe_forward_step(graph, step, total: int) -> ForwardStepView:
    """What one forward-mode step did, in words and numbers: the mirror of stepper.describe_step."""
    node = graph.nodes[step.node]
    label_of = step_labeller(graph)

    slots = slot_names(node)
    received = tuple(
        ReceivedView(
            parent=label_of(graph.nodes[parent]),
            slot=slots[position] if len(node.parents) > 1 else "",
            tangent="none (a constant: its tangent is 0)" if t is None else array_text(t),
        )
        for position, (parent, t) in enumerate(step.received)
    )
    return ForwardStepView(
        title=f"Step {step.index + 1} of {total}: {node_heading(node)}",
        node=label_of(node),
        op=step.op,
        formula=step.formula,
        plugged=step.plugged or "",
        received=received,
        tangent=array_text(step.tangent),
    )


def describe_forward_seed(run: ForwardRun) -> SeedView:
    """What position 0 of the forward stepper shows: the inputs get their tangents from v."""
    leaves = [n for n in run.graph.nodes if n.kind in ("input", "param") and n.id in run.tangents]
    first = f" Press **Next** to run `{node_label(run.graph.nodes[run.steps[0].node])}`'s JVP." if run.steps else ""
    text = ("Forward mode starts at the inputs: each gets its part of the direction v as its tangent, and every "
            "op then computes its own tangent from its parents', in topological order, as it computes its value."
            + first)
    seed = "\n".join(f"d{node_label(n)} = {array_text(run.tangents[n.id])}" for n in leaves)
    return SeedView(title=f"Seed: {run.described}", text=text, seed=seed)


def forward_done(run: ForwardRun) -> str:
    """What the forward stepper's last step adds: where the walk ended, and the line where the two modes meet."""
    return ("Done: every tangent now equals what autograd.func.jvp gives, and the output's is J·v. "
            + run.meeting.text)


FORWARD_EXPLAINED = (
    ("Choose a direction v: one tangent per input, of its shape. Here: all ones, one input, or one element.",
     r"\dot{x} = v"),
    ("Walk the nodes in topological order (parents first), the same order the forward pass computes values in.",
     r"v_1, v_2, \dots, v_n = y"),
    ("At each node, its op's Jacobian-vector product (JVP) turns the parents' tangents into its own: for "
     "Y = X·W, dY = dX·W + X·dW. An input without a tangent adds nothing.",
     r"\dot{v} = \sum_i \frac{\partial v}{\partial x_i}\,\dot{x}_i"),
    ("The output's tangent is the directional derivative ∂f/∂v, one column-combination J·v of the Jacobian; "
     "reverse mode's ∇f · v gives the same number from the other end.",
     r"\dot{y} = J v \qquad \mathbf{1}^{\top} J v = \nabla(\textstyle\sum y) \cdot v"),
)
