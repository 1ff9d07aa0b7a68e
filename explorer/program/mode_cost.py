"""What building a program's full Jacobian costs each way: forward mode (one JVP per input number) against reverse
mode (one VJP per output number), counted on the nodes' own rules and measured; and the lab's y = tanh(W @ x)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from autograd import Tensor
from autograd.func import forward_blocks, reverse_blocks
from autograd.jacobian import counted_jvp, counted_vjp
from autograd.tensor import toposort
from explorer.numbers import fmt_number
from explorer.program.poke import resolve
from language import compile_program

#: The full Jacobian is built (and timed) both ways up to this many entries...
BUILD_ENTRIES = 250_000
#: ...as long as each way costs at most this many counted operations...
BUILD_OPERATIONS = 20_000_000
#: ...and this many passes...
BUILD_PASSES = 4_096
#: ...and this many node visits one way (passes × the graph's nodes: each pass walks the whole graph in Python), so
#: that a program inside every other cap (4,096 inputs through a 700-node chain: 2.9 million visits) is not built
#: for the sandbox's whole CPU time. Each way is built twice (the faster build is shown).
BUILD_VISITS = 200_000
#: What one node visit of a build takes (benchmarks/cost_tab.py measures it: 3.3-4.8 µs of CPU on this project's
#: 2-core machine, for chains of 52-402 nodes and 64-512 inputs): the estimate a note gives of an unbuilt J.
SECONDS_PER_VISIT = 4e-6


@dataclass(frozen=True)
class ModeCost:
    mode: str  # 'forward' or 'reverse'
    passes: int  # JVPs (one per input number) or VJPs (one per output number)
    operations: int  # arithmetic operations counted over all passes (a matmul: its multiply-adds)
    seconds: float | None  # measured building J this way; None when J was too big to build


@dataclass(frozen=True)
class JacobianCost:
    """What building f's full Jacobian (m × n) costs each way, for f: ℝⁿ → ℝᵐ on the program's own numbers."""

    n: int  # numbers in the inputs
    m: int  # numbers in the output
    forward: ModeCost
    reverse: ModeCost
    built: bool  # False: too big, the counts only
    max_difference: float | None  # max |J by forward − J by reverse| over J's finite entries, when built (inf: the
    # two ways disagree on which entries are nan or inf)
    note: str  # why J was not built ('' when it was)
    inputs: tuple[tuple[str, int], ...] = ()  # each input's name and how many of the n numbers it holds
    max_entry: float | None = None  # max |J| over its finite entries, when built (what max_difference is against)
    nonfinite: int = 0  # entries of J that are nan or inf (the same both ways unless max_difference is inf)

    @property
    def winner(self) -> str:
        """'forward', 'reverse' or 'tie', by the operations counted (the same every run, unlike a time)."""
        f, r = self.forward.operations, self.reverse.operations
        return "tie" if f == r else "forward" if f < r else "reverse"

    @property
    def verdict(self) -> str:
        n, m = self.n, self.m
        shape = f"f maps {n:,} input number{'s' * (n != 1)} to {m:,} output number{'s' * (m != 1)}"
        if self.forward.operations == self.reverse.operations == 0:
            return f"A tie at 0 operations: {shape}, with nothing between them to differentiate."
        if self.winner == "tie":
            return f"A tie: {shape}, and both ways do {self.forward.operations:,} operations."
        win, lose = (self.forward, self.reverse) if self.winner == "forward" else (self.reverse, self.forward)
        reason = (f"{shape}: forward mode needs a pass per input number ({n:,}), reverse mode one per output "
                  f"number ({m:,})")
        return (f"{win.mode.capitalize()} mode wins: {reason}, so {win.passes:,} {_passes(win)} "
                f"{'does' if win.passes == 1 else 'do'} the work ({win.operations:,} operations against "
                f"{lose.operations:,}).")


def _passes(cost: ModeCost) -> str:
    return ("JVP" if cost.mode == "forward" else "VJP") + ("s" if cost.passes != 1 else "")


def forward_pass_operations(order, seeded) -> int:
    """Operations of one forward-mode pass over ``order`` (nodes, parents first) from the ``seeded`` leaves, ones
    as their tangents: each op node the seeds reach runs its JVP, counted (autograd.jacobian's counter)."""
    reached, total = set(seeded), 0
    with np.errstate(all="ignore"):
        for node in order:
            if node._prim is None or not any(p in reached for p in node._parents):
                continue
            given = [np.ones(p.data.shape) if p in reached else None for p in node._parents]
            total += counted_jvp(node, given)[1]
            reached.add(node)
    return int(total)


def reverse_pass_operations(order) -> int:
    """Operations of one reverse pass over ``order``'s op nodes (each node's VJP on ones, counted)."""
    with np.errstate(all="ignore"):
        return int(sum(counted_vjp(node, np.ones(node.data.shape))[1] for node in order if node._prim is not None))


def pass_operations(output, inputs) -> tuple[list[int], int]:
    """(operations of one forward-mode pass seeded in each input alone, operations of one reverse-mode pass),
    counted on the nodes' own JVPs and VJPs (autograd.jacobian's counter; the numbers do not change them)."""
    order = toposort(output) if output.requires_grad else [output]
    return [forward_pass_operations(order, {leaf}) for leaf in inputs], reverse_pass_operations(order)


def operation_counts(output, inputs) -> tuple[int, int]:
    """(forward mode's, reverse mode's) operations for output's full Jacobian with respect to ``inputs``, counted
    without building it: an input's seeded pass once per number it holds, and the reverse pass once per output
    number (none when the output does not depend on anything that requires grad)."""
    per_input, per_reverse = pass_operations(output, inputs)
    forward = sum(t.data.size * ops for t, ops in zip(inputs, per_input))
    reverse = output.data.size * per_reverse if output.requires_grad else 0
    return int(forward), int(reverse)


def node_visits(output, inputs) -> tuple[int, int]:
    """(forward mode's, reverse mode's) node visits for output's full Jacobian: each pass walks the whole graph, n
    passes forward (one per input number), m back (none when the output does not depend on anything that requires
    grad)."""
    nodes = len(toposort(output)) if output.requires_grad else 1
    n = sum(t.data.size for t in inputs)
    return n * nodes, (int(output.data.size) * nodes if output.requires_grad else 0)


def jacobian_cost(output, inputs, clock: Callable[[], float] = time.perf_counter, max_entries: int = BUILD_ENTRIES,
                  max_operations: int = BUILD_OPERATIONS, max_passes: int = BUILD_PASSES,
                  max_visits: int = BUILD_VISITS) -> JacobianCost:
    """The cost of output's full Jacobian with respect to ``inputs`` (leaf Tensors that require grad) both ways:
    passes, counted operations, and, when it is small enough, the time ``clock`` measures building it (the
    faster of two builds each way; building runs backward() m times: the graph's grads are cleared afterwards)."""

    inputs = list(inputs)
    n, m = sum(t.data.size for t in inputs), int(output.data.size)
    forward_ops, reverse_ops = operation_counts(output, inputs)
    note = ""
    if n * m > max_entries:
        note = f"J has {n * m:,} entries (m × n = {m:,} × {n:,}), more than the {max_entries:,} built here"
    elif max(forward_ops, reverse_ops) > max_operations:
        note = (f"building J would take {max(forward_ops, reverse_ops):,} operations, more than the "
                f"{max_operations:,} allowed here")
    elif max(n, m) > max_passes:
        note = f"building J would take {max(n, m):,} passes one way, more than the {max_passes:,} allowed here"
    elif max(visits := node_visits(output, inputs)) > max_visits:
        way = "forward" if visits[0] >= visits[1] else "reverse"
        passes = n if way == "forward" else m
        seconds_needed = 2 * sum(visits) * SECONDS_PER_VISIT  # NOTE: each way is built twice
        note = (f"J would take about {seconds_needed:,.0f} s to build: {passes:,} {way} passes over "
                f"{max(visits) // max(passes, 1):,} nodes are {max(visits):,} node visits, more than the "
                f"{max_visits:,} allowed here")
    seconds = {"forward": None, "reverse": None}
    difference = entry = None
    nonfinite = 0
    if not note:
        built = {}
        for mode, build in (("forward", forward_blocks), ("reverse", reverse_blocks)):
            for _ in range(2):  # NOTE: the first build of a graph also warms caches; the faster one is kept
                start = clock()
                built[mode], _ = build(output, inputs)
                took = clock() - start
                seconds[mode] = took if seconds[mode] is None else min(seconds[mode], took)
        difference, entry, nonfinite = _compared(built["forward"], built["reverse"])
    reverse_passes = m if output.requires_grad else 0
    return JacobianCost(
        n=n, m=m,
        forward=ModeCost("forward", n, int(forward_ops), seconds["forward"]),
        reverse=ModeCost("reverse", reverse_passes, int(reverse_ops), seconds["reverse"]),
        built=not note, max_difference=difference, note=f"Not built: {note}; the counts only." if note else "",
        inputs=tuple((t.name or f"input {i + 1}", int(t.data.size)) for i, t in enumerate(inputs)), max_entry=entry,
        nonfinite=nonfinite,
    )


def _compared(forward: list, reverse: list) -> tuple[float, float, int]:
    """(max |f − r| over the entries finite both ways, or inf where the ways disagree on a nan or an inf; max |f|
    over those entries; how many entries are nan or inf) for J's blocks built each way."""
    difference = entry = 0.0
    nonfinite = 0
    for f, r in zip(forward, reverse):
        finite = np.isfinite(f) & np.isfinite(r)
        same = (f == r) | (np.isnan(f) & np.isnan(r))
        nonfinite += int(f.size - np.count_nonzero(finite))
        if not np.all(finite | same):
            difference = math.inf
        with np.errstate(invalid="ignore"):  # nan − nan outside ``finite``, not looked at
            difference = max(difference, float(np.max(np.abs(f - r), where=finite, initial=0.0)))
        entry = max(entry, float(np.max(np.abs(f), where=finite, initial=0.0)))
    return difference, entry, nonfinite


def program_cost(text: str, poked: tuple = (), clock: Callable[[], float] = time.perf_counter) -> JacobianCost:
    """jacobian_cost for a program's output with respect to its inputs (on a run of its own)."""

    program = compile_program(text)
    result = program.run(inputs=resolve(program, poked))
    return jacobian_cost(result.output, list(result.inputs.values()), clock=clock)


def lab_program(n: int, m: int, seed: int = 0):
    """The lab's (y, x): y = tanh(W @ x) with W of m × n (a constant, randn / √n) and x of n numbers (randn)."""
    if not (n >= 1 and m >= 1 and n * m <= 10**7):
        raise ValueError(f"the lab takes n, m ≥ 1 with m × n at most 10,000,000, got n = {n}, m = {m}")

    rng = np.random.default_rng(seed)
    w = Tensor(rng.standard_normal((m, n)) / math.sqrt(n))
    x = Tensor(rng.standard_normal(n), requires_grad=True, name="x")
    return (w @ x).tanh(), x


def lab_cost(n: int, m: int, seed: int = 0, clock: Callable[[], float] = time.perf_counter) -> JacobianCost:
    """jacobian_cost for the lab's y = tanh(W @ x) with W of m × n (a constant) and x of n numbers: forward mode
    takes n passes, reverse mode m, each pass one matrix-vector product of m·n multiply-adds."""
    y, x = lab_program(n, m, seed)
    return jacobian_cost(y, [x], clock=clock)


@dataclass(frozen=True)
class LabCurve:
    """The lab's counted operations, each way, for each n at one m (the crossover plot's two lines)."""

    m: int
    ns: tuple[int, ...]
    forward: tuple[int, ...]
    reverse: tuple[int, ...]

    @property
    def crossover(self) -> int | None:
        """The first n at which forward mode stops doing fewer operations than reverse mode (None: never here)."""
        return next((n for n, f, r in zip(self.ns, self.forward, self.reverse) if f >= r), None)


def lab_counts(ns, m: int) -> LabCurve:
    """The lab's operations each way at every n in ``ns`` for this m, counted (operation_counts) on its graph
    without building any Jacobian."""
    ns = tuple(int(n) for n in ns)
    counts = [operation_counts(y, [x]) for y, x in (lab_program(n, m) for n in ns)]
    return LabCurve(m=int(m), ns=ns, forward=tuple(f for f, _ in counts), reverse=tuple(r for _, r in counts))


def cost_rows(cost: JacobianCost) -> list[dict[str, object]]:
    """The cost table: one row per mode (passes, operations per pass (forward mode's: the mean over its passes),
    operations, time or 'not built')."""
    rows = []
    for c in (cost.forward, cost.reverse):
        rows.append({
            "mode": "forward (JVP)" if c.mode == "forward" else "reverse (VJP)",
            "passes": f"{c.passes:,} ({'n' if c.mode == 'forward' else 'm'})",
            "per pass": fmt_number(c.operations / c.passes) if c.passes else "—",
            "operations": f"{c.operations:,}",
            "time": "not built" if c.seconds is None else f"{c.seconds * 1e3:.3g} ms",
        })
    return rows
