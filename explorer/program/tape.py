"""The memory of a step: what each node's backward keeps (its primitive's ``saves=``) and the bytes held over
forward → backward, from the saved sets and the topological order (no Streamlit).

Two accounts of the same program:
- ``engine``: what this engine holds. Its tape is the graph itself: every tensor of the output's graph is kept
  from the step that makes it until the output goes (the graph's parents keep them, the program's names too), and
  backward gives every node a .grad and keeps it (intermediates' too: backward twice doubles them). This is what
  ``tracemalloc`` measures (tests/explorer/test_tape.py, within 5 % on every preset).
- ``tape``: what backward needs, as PyTorch keeps it: a tensor is freed after its last use, the last forward op
  that reads it or the last backward step whose VJP reads it (``saves=``, and the arrays an op keeps in its
  metadata: softmax's probabilities, a mask); an intermediate's gradient is freed once its step has sent it on;
  leaves (inputs, weights) and their gradients stay. Under ``no_grad`` nothing is saved: a tensor is freed after
  its last forward reader. With checkpoints every k op nodes (autograd.checkpoint over each block), a block keeps
  only what leaves it; its inside is freed after its forward and made again when backward reaches the block.

Bytes are NumPy's: an array's ``nbytes``, a view (reshape, transpose, a basic index) costing nothing beside its base.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from autograd.graph import order
from autograd.tensor import Tensor


@dataclass(frozen=True)
class Saved:
    """What one node's backward keeps: its inputs by slot (and "out"), the arrays in its metadata, and their bytes."""

    node: int
    op: str
    names: tuple  # ("A", "B"), ("out",), () ...: the primitive's saves=
    tensors: tuple  # ids of the nodes whose data it keeps (an input, or the node itself for "out")
    extra_bytes: int  # arrays the op keeps in its metadata (cross_entropy's probabilities, gelu's Φ(A))
    bytes: int  # everything it keeps: those tensors' data and the extra arrays


@dataclass(frozen=True)
class Timeline:
    """Bytes held after each step of forward → backward."""

    labels: tuple  # one per step: "forward: mul", "backward: mul", ...
    bytes: tuple  # bytes held after that step
    backward_from: int  # index of the first backward step (== len(labels) when there is none)
    recomputed: int = 0  # forward operations run again in backward (checkpoints)
    freed: tuple = ()  # per step, the ids of the nodes whose data it frees

    @property
    def peak(self) -> int:
        return max(self.bytes, default=0)

    @property
    def peak_step(self) -> int:
        return self.bytes.index(self.peak) if self.bytes else 0


def _root(array):
    while isinstance(array, np.ndarray) and array.base is not None:
        array = array.base
    return array


def _buffer(array):
    """(key, bytes) of the memory an array lives in: a view shares its base's."""
    root = _root(array)
    return id(root), (root.nbytes if isinstance(root, np.ndarray) else 0)


def _meta_arrays(tensor):
    meta = tensor._meta or {}
    found = []
    for value in meta.values():
        for item in value if isinstance(value, tuple) else (value,):
            if isinstance(item, Tensor):
                item = item.data
            if isinstance(item, np.ndarray):
                found.append(item)
    return found


class _Program:
    """The output's graph in trace order (ids as autograd.graph.trace gives them), and who reads whom."""

    def __init__(self, output, uses=None):
        self.tensors = order(output, uses)
        self.ids = {t: i for i, t in enumerate(self.tensors)}
        self.output = self.ids[output]
        self.readers = {i: [] for i in range(len(self.tensors))}
        for i, t in enumerate(self.tensors):
            for p in t._parents:
                self.readers[self.ids[p]].append(i)
            for d in (uses or {}).get(t, ()):
                if d in self.ids:
                    self.readers[self.ids[d]].append(i)
        self.backward = [i for i in reversed(range(len(self.tensors)))
                         if self.tensors[i].requires_grad and self.tensors[i]._prim is not None]
        self.ops = [i for i, t in enumerate(self.tensors) if t._prim is not None]


def saved(output, uses=None) -> tuple:
    """Per op node that records a backward (trace order): what its backward keeps, and the bytes."""
    program = _Program(output, uses)
    return tuple(_saved(program, i) for i in program.ops)


def _saved(program, i):
    t = program.tensors[i]
    prim = t._prim
    slots = prim.slots or ()
    ids = []
    for name in prim.saves:
        node = i if name == "out" else (program.ids[t._parents[slots.index(name)]]
                                         if slots.index(name) < len(t._parents) else None)
        if node is not None and node not in ids:
            ids.append(node)
    if prim.name == "checkpoint":  # its backward reruns the block on its inputs
        ids = [program.ids[p] for p in t._parents]
    buffers = {}
    for k in ids:
        key, size = _buffer(program.tensors[k].data)
        buffers[key] = size
    extra = {}
    for array in _meta_arrays(t):
        key, size = _buffer(array)
        if key not in buffers:
            extra[key] = size
    return Saved(node=i, op=t.op, names=tuple(prim.saves), tensors=tuple(ids),
                 extra_bytes=sum(extra.values()), bytes=sum(buffers.values()) + sum(extra.values()))


class _Ledger:
    """Buffers alive, counted once each however many tensors share them."""

    def __init__(self):
        self.holders = {}
        self.sizes = {}

    def hold(self, holder, array):
        key, size = _buffer(array)
        self.holders.setdefault(key, set()).add(holder)
        self.sizes[key] = size

    def drop(self, holder):
        for key in [k for k, who in self.holders.items() if holder in who]:
            self.holders[key].discard(holder)
            if not self.holders[key]:
                del self.holders[key], self.sizes[key]

    @property
    def bytes(self):
        return sum(self.sizes.values())


def timeline(output, uses=None, mode="tape", every=None, blocks=None) -> Timeline:
    """Bytes held after each forward and backward step of `output`'s program, run with grad (it must have been
    backpropagated for the gradients' sizes, or they are taken as its data's). `mode`: "engine" (what this
    engine holds), "tape" (what backward needs), "no_grad" (inference); `every`=k with "tape" checkpoints
    every k op nodes, or `blocks` (op node id -> its block's number) names the checkpointed blocks (those
    explorer.program.memory really runs through autograd.checkpoint)."""
    if mode not in ("engine", "tape", "no_grad"):
        raise ValueError(f"mode must be 'engine', 'tape' or 'no_grad', got {mode!r}")
    program = _Program(output, uses)
    tensors = program.tensors
    grad_on = mode != "no_grad" and tensors[program.output].requires_grad
    saves = {i: _saved(program, i) for i in program.ops} if grad_on else {}
    position = {i: k for k, i in enumerate(program.backward)}
    if mode != "tape":
        blocks = {}
    elif blocks is None:
        blocks = _blocks(program, every) if every else {}

    def last_forward_use(i):
        return max(program.readers[i], default=i)

    # When each tensor's data may go: after a forward step, or after a backward step (its position).
    frees_forward, frees_backward, again_frees = {}, {}, {}
    for i, t in enumerate(tensors):
        if mode == "engine" or t._prim is None or i == program.output:
            continue  # kept to the end
        if i in blocks and not _leaves_block(program, i, blocks):
            # inside a checkpointed block: freed after its forward use, made again when backward reaches the
            # block, and then kept as the tape keeps it
            frees_forward.setdefault(last_forward_use(i), []).append(i)
            savers = [position[r] for r, s in saves.items() if i in s.tensors and r in position]
            again_frees.setdefault(max(savers, default=position[_first_in(program, blocks, i, position)]),
                                   []).append(i)
            continue
        if i in blocks:  # a block's output: the next block's checkpoint keeps it until that block's backward
            savers = [position[r] for r in program.readers[i] if r in position]
        else:
            savers = [position[r] for r, s in saves.items() if i in s.tensors and r in position]
        if savers and grad_on:
            frees_backward.setdefault(max(savers), []).append(i)
        else:
            frees_forward.setdefault(last_forward_use(i), []).append(i)
    ledger, labels, held, freed = _Ledger(), [], [], []
    for i, t in enumerate(tensors):
        ledger.hold(("data", i), t.data)
        if grad_on and t._prim is not None and (i not in blocks or _leaves_block(program, i, blocks)):
            for array in _meta_arrays(t):
                ledger.hold(("meta", i), array)
        for j in frees_forward.get(i, ()):
            ledger.drop(("data", j))
            if j in blocks:
                ledger.drop(("meta", j))
        labels.append(f"forward: {t.op or 'leaf'}")
        held.append(ledger.bytes)
        freed.append(tuple(frees_forward.get(i, ())))
    backward_from = len(labels)
    recomputed = 0
    if grad_on:
        done_blocks = set()
        ledger.hold(("grad", program.output), _grad_of(tensors[program.output]))
        for k, i in enumerate(program.backward):
            t = tensors[i]
            block = blocks.get(i)
            if block is not None and block not in done_blocks:  # backward reaches the block: its forward again
                done_blocks.add(block)
                for j in [j for j, b in blocks.items() if b == block]:
                    recomputed += 1
                    if not _leaves_block(program, j, blocks):
                        ledger.hold(("data", j), tensors[j].data)
                        for array in _meta_arrays(tensors[j]):
                            ledger.hold(("meta", j), array)
            for p in t._parents:
                if p.requires_grad:
                    ledger.hold(("grad", program.ids[p]), _grad_of(p))
            gone = (*frees_backward.get(k, ()), *again_frees.get(k, ())) if mode == "tape" else ()
            if mode == "tape":
                if i != program.output:
                    ledger.drop(("grad", i))  # sent on to its parents
                ledger.drop(("meta", i))
                for j in gone:
                    ledger.drop(("data", j))
            labels.append(f"backward: {t.op}")
            held.append(ledger.bytes)
            freed.append(tuple(gone))
    return Timeline(labels=tuple(labels), bytes=tuple(held), backward_from=backward_from, recomputed=recomputed,
                    freed=tuple(freed))


def _first_in(program, blocks, i, position):
    """The block's node backward reaches first (where the block is made again)."""
    return min((j for j, b in blocks.items() if b == blocks[i]), key=lambda j: position[j])


def _grad_of(t):
    return t.grad if t.grad is not None else t.data


def _blocks(program, every):
    """Op node -> its block number: consecutive runs of `every` op nodes in topological order."""
    if every < 1:
        raise ValueError(f"checkpoints every k nodes needs k >= 1, got {every}")
    ops = [i for i in program.ops if program.tensors[i].requires_grad]
    return {i: k // every for k, i in enumerate(ops)}


def _leaves_block(program, i, blocks):
    """Whether op node `i` is read outside its block (its block's output, so checkpoint keeps it)."""
    return i == program.output or any(blocks.get(r) != blocks[i] for r in program.readers[i])


def peaks(output, uses=None, every=2) -> dict:
    """The peaks the tab shows: {"engine", "tape", "no_grad", "checkpointed"} bytes, and "recomputed" forward
    operations for the checkpointed run."""
    checkpointed = timeline(output, uses, "tape", every)
    return {
        "engine": timeline(output, uses, "engine").peak,
        "tape": timeline(output, uses, "tape").peak,
        "no_grad": timeline(output, uses, "no_grad").peak,
        "checkpointed": checkpointed.peak,
        "recomputed": checkpointed.recomputed,
    }
