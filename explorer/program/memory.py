"""The Explorer's Memory tab as plain data (no Streamlit): each node's saved set and bytes, and the bytes held over
forward → backward four ways (explorer/program/tape.py's accounts): this engine, the tape (what backward needs),
no_grad, and checkpointed every k operations, the last run for real through ``autograd.checkpoint``.

    memory = program_memory(text, poked, every=2)
    memory.lines            # Line per account: bytes after each step, the peak and where
    memory.rows             # one Row per op node: what its backward keeps, and the bytes
    memory.alive            # per node, the steps [start, end) its data is held by the tape (for scrubbing)
    memory.recomputed       # forward operations autograd.checkpoint ran again in backward (counted, not predicted)

The checkpointed run: the program's instructions are cut into blocks of at least k op nodes that end where exactly
one tensor leaves the block (checkpoint returns one tensor); each block runs as ``autograd.checkpoint(block,
*its inputs)``. Instructions that draw random numbers, and leaves, run outside any block (a block must compute the
same thing when run again). The tape's account of that run (tape.timeline with the same blocks) is the line shown,
and its count of recomputed operations must equal the one the real run counted (tests/explorer/program/
test_memory.py). The rule that makes the blocks (`plan`) and the counted checkpoint (`checkpointed`) are the
Playground's too: explorer/playground/step_memory.py runs a training step's layers in blocks of k with them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import autograd
from autograd import Tensor
from autograd.graph import order
from explorer.program import tape
from explorer.program.poke import resolve
from language import compile_program
from language.program import Call, Leaf, Slot, Store

#: The slider over k, checkpoints every k operations.
DEFAULT_EVERY, MAX_EVERY = 2, 16

#: The accounts, in the order the tab draws them: (name, label).
ACCOUNTS = (
    ("engine", "this engine (every tensor kept: what tracemalloc measures)"),
    ("tape", "the tape (what backward needs, freed after last use)"),
    ("no_grad", "no_grad (inference: nothing saved)"),
    ("checkpointed", "checkpointed every k operations"),
)


@dataclass(frozen=True)
class Line:
    """One account: bytes held after each step, its peak and the step of the peak."""

    name: str
    label: str
    bytes: tuple
    peak: int
    peak_step: int
    steps: int  # the steps it has (no_grad: forward's only; its bytes repeat the last to the end)


@dataclass(frozen=True)
class Row:
    """An op node's saved set: its id (the graph's), its name, op, what its primitive saves, and the bytes."""

    node: int
    name: str
    op: str
    saves: str
    bytes: int


@dataclass(frozen=True)
class Memory:
    labels: tuple  # one per step: "forward: mul", ..., "backward: mul", ... ("optimiser: ..." in the Playground)
    backward_from: int  # the first backward step
    lines: tuple  # Line per ACCOUNTS entry
    rows: tuple  # Row per op node that records a backward
    saves: dict  # node id (str, as the graph view names boxes) -> bytes its backward keeps
    alive: dict  # node id (str) -> [start, end) steps the tape holds its data (end = len(labels): to the end)
    every: int
    recomputed: int  # forward operations autograd.checkpoint ran again (counted in the real run)
    blocks: int  # checkpointed blocks in the real run
    grads_agree: bool  # the checkpointed run's grads equal the plain run's

    def peak(self, name: str) -> int:
        return next(line.peak for line in self.lines if line.name == name)


def program_memory(text: str, poked: tuple = (), every: int = DEFAULT_EVERY) -> Memory:
    """The tab's data for a program (run with its inputs' poked values) and checkpoints every `every` operations."""
    if not 1 <= every <= MAX_EVERY:
        raise ValueError(f"checkpoints every k operations takes k from 1 to {MAX_EVERY}, got {every}")
    program = compile_program(text)
    given = resolve(program, poked)
    plain, uses, calls, leaves = _execute(program, given)
    plan = _plan(program, calls, every)
    counter = [0]
    checked, _, _, again = _execute(program, given, plan, counter)
    with np.errstate(all="ignore"):  # as the page's run: inf and nan are shown, not warned about
        if plain.requires_grad:  # NOTE: else no backward (a program of literals only): the forward's memory alone
            plain.backward()
            checked.backward()
    agree = all(_same(a.grad, b.grad) for a, b in zip(leaves, again))
    tensors = order(plain, uses)
    ids = {t: i for i, t in enumerate(tensors)}
    blocks = {ids[t]: b for b, block in enumerate(plan) for k in block for t in calls.get(k, ())
              if t in ids and t.requires_grad}
    return account(plain, uses, blocks=blocks, every=every, recomputed=counter[0], n_blocks=len(plan),
                   grads_agree=agree)


def account(output: Tensor, uses=None, *, blocks=None, every: int = DEFAULT_EVERY, recomputed=None, n_blocks=0,
            grads_agree=True, after=(), checkpointed_label="") -> Memory:
    """Memory for a backpropagated `output`: the four accounts (checkpointed with `blocks`, else every `every` op
    nodes; `checkpointed_label` replaces that line's label); `after`: steps past backward (the Playground's
    optimiser step), (label, bytes added to each account's last backward figure, or None and the bytes every
    account holds then) triples."""
    timelines = {
        "engine": tape.timeline(output, uses, "engine"),
        "tape": tape.timeline(output, uses, "tape"),
        "no_grad": tape.timeline(output, uses, "no_grad"),
        "checkpointed": tape.timeline(output, uses, "tape", every=every, blocks=blocks),
    }
    base = timelines["engine"]
    labels = base.labels + tuple(label for label, _, _ in after)
    lines = []
    for name, label in ACCOUNTS:
        label = checkpointed_label if name == "checkpointed" and checkpointed_label else label
        held = list(timelines[name].bytes)
        steps = len(held) if name == "no_grad" else len(base.labels) + len(after)
        held += [held[-1]] * (len(base.labels) - len(held))  # no_grad stops after forward
        for _, added, total in after:
            held.append(held[len(base.labels) - 1] + added if total is None else total)
        peak = max(held[:steps], default=0)
        lines.append(Line(name, label, tuple(held), peak, held.index(peak) if held else 0, steps))
    tensors = order(output, uses)
    rows = []
    for s in tape.saved(output, uses):
        names = [tensors[k].name or f"#{k}" for k in s.tensors]
        kept = ", ".join(f"{slot} ({who})" if slot != "out" else "out" for slot, who in zip(s.names, names))
        if s.extra_bytes:
            kept = (kept + ", " if kept else "") + "arrays of its own"
        rows.append(Row(s.node, tensors[s.node].name or "", s.op, kept or "nothing", s.bytes))
    return Memory(labels=labels, backward_from=base.backward_from, lines=tuple(lines), rows=tuple(rows),
                  saves={str(r.node): r.bytes for r in rows}, alive=_alive(timelines["tape"], tensors, len(labels),
                                                                          _let_go(after, len(base.labels))),
                  every=every, recomputed=timelines["checkpointed"].recomputed if recomputed is None else recomputed,
                  blocks=n_blocks, grads_agree=grads_agree)


def _let_go(after, first):
    """The step of `after` where the graph is let go (one given as a total), or None."""
    return next((first + k for k, (_, _, total) in enumerate(after) if total is not None), None)


def _alive(line, tensors, steps, let_go=None):
    """node id -> [made, freed) in steps: the forward step that makes it, the step after the one that frees it; kept
    to the end, or to `let_go` (the graph let go: only the weights stay)."""
    end = {j: k + 1 for k, gone in enumerate(line.freed) for j in gone}
    last = {i: steps if let_go is None or (t.is_leaf and t.requires_grad) else let_go for i, t in enumerate(tensors)}
    return {str(i): [i, end.get(i, last[i])] for i in range(len(tensors))}


def _same(a, b):
    if a is None or b is None:
        return a is None and b is None
    return bool(np.allclose(a, b, rtol=1e-10, atol=1e-12, equal_nan=True))


def _execute(program, given, plan=None, counter=None):
    """Runs the program's instructions as Program.run does (the same values and graph): returns (output, uses,
    instruction index -> the graph's tensors that instruction made (plain runs only), the leaves made). With `plan`
    (blocks of instruction indices) each block runs through autograd.checkpoint, and `counter[0]` counts the op
    nodes its backward makes again."""
    values = [None] * program.slots
    values[0] = np.random.default_rng(program.seed)
    uses, calls, seen, leaves = {}, {}, set(), []
    starts = {block[0]: block for block in plan or ()}
    inside = {k for block in plan or () for k in block}
    with np.errstate(all="ignore"):
        for k, ins in enumerate(program.instructions):
            if k in starts:
                _run_block(program, starts[k], values, counter)
            if k in inside:
                continue
            kind = type(ins)
            if kind is Call:
                args = [values[a.index] if type(a) is Slot else a for a in ins.args]
                out = values[ins.out] = ins.fn(*args, **ins.kwargs)
                if ins.data_args:
                    uses[out] = tuple(args[j] for j in ins.data_args if isinstance(args[j], Tensor))
                if plan is None and isinstance(out, Tensor):
                    calls[k] = _made(out, seen)
            elif kind is Leaf:
                data = values[ins.value.index] if type(ins.value) is Slot else ins.value
                if ins.input and ins.name in given:
                    data = given[ins.name]
                leaf = values[ins.out] = Tensor(np.array(data, dtype=np.float64), requires_grad=True)
                seen.add(leaf)
                leaves.append(leaf)
    return values[program.output.index], uses, calls, leaves


def _made(out, seen):
    """The tensors of `out`'s graph not seen before (what one instruction made), marked seen."""
    made, stack = [], [out]
    while stack:
        t = stack.pop()
        if t in seen:
            continue
        seen.add(t)
        made.append(t)
        stack.extend(t._parents)
    return made


def _run_block(program, block, values, counter):
    """values[block's output] = autograd.checkpoint over the block's instructions, given the tensors it reads."""
    made = {program.instructions[k].out for k in block}
    reads = []
    for k in block:
        for a in program.instructions[k].args:
            if type(a) is Slot and a.index not in made and a.index not in reads and isinstance(values[a.index], Tensor):
                reads.append(a.index)

    def fn(*tensors):
        local = dict(zip(reads, tensors))
        for k in block:
            ins = program.instructions[k]
            args = [local.get(a.index, values[a.index]) if type(a) is Slot else a for a in ins.args]
            local[ins.out] = ins.fn(*args, **ins.kwargs)
        return local[program.instructions[block[-1]].out]

    values[program.instructions[block[-1]].out] = checkpointed(fn, [values[i] for i in reads], counter)


def checkpointed(fn, inputs, counter=None):
    """``autograd.checkpoint(fn, *inputs)``, adding to ``counter[0]`` the op nodes its backward makes again: counted
    on the graph the second call of `fn` makes, not predicted."""
    runs = [0]

    def counted(*tensors):
        out = fn(*tensors)
        runs[0] += 1
        if runs[0] > 1 and counter is not None:  # backward: the block made again
            counter[0] += sum(1 for t in order(out) if t._prim is not None)
        return out

    return autograd.checkpoint(counted, *inputs)


def _plan(program, calls, every):
    """Blocks of instruction indices: consecutive calls (names bound between them are fine) of at least `every`
    op nodes that need grad, ending where one tensor, the last call's, is read after the block: `plan`'s rule."""
    instructions = program.instructions
    last_read = {program.output.index: len(instructions)}
    for k, ins in enumerate(instructions):
        for a in (*getattr(ins, "args", ()), *getattr(ins, "kwargs", {}).values(), getattr(ins, "value", None)):
            if type(a) is Slot and type(ins) is not Store:
                last_read[a.index] = k
    units = []
    for k, ins in enumerate(instructions):
        if type(ins) is Store:
            continue
        alone = type(ins) is not Call or any(type(a) is Slot and a.index == 0 for a in ins.args) or any(
            type(v) is Slot for v in ins.kwargs.values())  # a leaf, a random draw, a value read as a keyword
        units.append((k, None if alone else sum(1 for t in calls.get(k, ()) if t._prim is not None),
                      getattr(ins, "out", None), k in calls))  # a call that made no Tensor (a list literal) ends none
    return plan(units, every, last_read)


def plan(units, every, last_read):
    """The checkpointed blocks, one rule for the Explorer's programs and the Playground's networks: runs of
    consecutive units weighing at least `every` (op nodes, or layers), each ending where one value, its last
    unit's, is read after it (checkpoint returns one tensor). `units`: (position, weight, the value it makes, whether
    that value is a Tensor: only a Tensor can end a block) in order, weight None for a unit that runs on its
    own (blocks stop there); `last_read`: value -> the last position that reads it. Returns the blocks as lists of
    positions."""
    blocks, current, weight = [], [], 0
    for at, w, out, tensor in units:
        if w is None:
            current, weight = [], 0
            continue
        current.append((at, out))
        weight += w
        if weight >= every:
            leaving = {made for _, made in current if last_read.get(made, -1) > at}
            if leaving == {out} and tensor:  # stack's list literal is no Tensor: seed 6251
                blocks.append([a for a, _ in current])
                current, weight = [], 0
    return blocks


def payload(data: Memory, key: str, title: str = "") -> dict:
    """What components/frontend/memory/memory.js draws, as JSON: ``key`` is the graph view's data key (its boxes
    light when the timeline is scrubbed)."""
    return {
        "key": key, "title": title, "labels": list(data.labels), "backward_from": data.backward_from,
        "lines": [{"name": line.name, "label": line.label, "bytes": list(line.bytes), "peak": line.peak,
                   "peak_step": line.peak_step, "steps": line.steps} for line in data.lines],
        "alive": data.alive, "saves": data.saves, "scrub": "tape",
    }
