"""Every primitive's `saves=` is what its VJP really reads: run on every case of the op table with the arrays it
does not declare poisoned, the VJP gives the same gradients; and each declared array is needed (poisoning it
changes some gradient), so the declaration can drift neither way."""

import itertools

import numpy as np
import pytest

from autograd.ops import PRIMITIVES
from tests.support.helpers import leaves
from tests.support.op_cases import TABLE

RNG = np.random.default_rng(33)


def poisons(array):
    """Stand-ins for an array the VJP must not read: its shape and dtype, other values. NaN spreads through any
    arithmetic; other finite values catch what NaN can slip through (a comparison, np.sign, a mask)."""
    array = np.asarray(array)
    if array.dtype.kind == "f":
        return (np.full(array.shape, np.nan, dtype=array.dtype),
                (RNG.standard_normal(array.shape) * 3.0 + 1.5).astype(array.dtype))
    return (array + 1,)


def recorded(case):
    """The node the case's last op made, its parents' arrays and a random upstream gradient."""
    out = case.fn(*leaves(*case.arrays))
    g = np.random.default_rng(0).standard_normal(out.shape)
    return out, [p.data for p in out.parents], g


def run(prim, g, out, inputs, need, meta):
    return prim.vjp(g, out, *inputs, need=need, **(meta or {}))


def same(a, b):
    return a is None and b is None or (
        a is not None and b is not None and np.shape(a) == np.shape(b)
        and np.allclose(a, b, rtol=1e-12, atol=1e-12, equal_nan=True))


def reads_undeclared(name, case, saves):
    """The (need, poisoned names) for which poisoning what `saves` leaves out changes a gradient; [] if none."""
    prim = PRIMITIVES[name]
    node, inputs, g = recorded(case)
    slots = prim.slots or (None,) * len(inputs)
    names = [*(slots[i] if i < len(slots) else None for i in range(len(inputs))), "out"]
    arrays = [*inputs, node.data]
    poisoned = [i for i, n in enumerate(names) if n not in saves]
    found = []
    for need in itertools.product((True, False), repeat=len(inputs)):
        if not any(need):
            continue
        want = run(prim, g, node.data, inputs, need, node._meta)
        for choice in itertools.product(*(range(len(poisons(arrays[i]))) for i in poisoned)):
            given = list(arrays)
            for i, k in zip(poisoned, choice):
                given[i] = poisons(arrays[i])[k]
            with np.errstate(all="ignore"):
                try:
                    got = run(prim, g, given[-1], given[:-1], need, node._meta)
                except (ValueError, IndexError, TypeError, FloatingPointError):
                    got = None
            if got is None or any(n and not same(w, r) for n, w, r in zip(need, want, got)):
                found.append((need, [names[i] for i in poisoned]))
    return found


@pytest.mark.parametrize("name,case", TABLE, ids=[f"{n}-{c.label}" for n, c in TABLE])
def test_the_vjp_reads_only_what_it_saves(name, case):
    assert reads_undeclared(name, case, PRIMITIVES[name].saves) == [], (name, PRIMITIVES[name].saves)


@pytest.mark.parametrize("name", sorted(PRIMITIVES))
def test_every_declared_array_is_read(name):
    """Drop any one declared array and the poison catches the VJP reading it, on some case of the table: the
    poison does catch reads, and no primitive declares more than it needs."""
    saves = PRIMITIVES[name].saves
    cases = [case for n, case in TABLE if n == name]
    assert cases, f"{name} has no case in the op table"
    for dropped in saves:
        fewer = tuple(s for s in saves if s != dropped)
        assert any(reads_undeclared(name, case, fewer) for case in cases), (
            f"{name}: its VJP gives the same gradients with {dropped!r} poisoned, so saves= should not name it")


def test_a_wrong_declaration_fails():
    """mul reads both inputs; declaring only A (or nothing) is caught on every case."""
    cases = [case for n, case in TABLE if n == "mul" and len(case.arrays) == 2]
    assert cases and all(reads_undeclared("mul", case, ("A",)) for case in cases)
    assert all(reads_undeclared("exp", case, ()) for n, case in TABLE if n == "exp")


def test_saves_names_slots_or_out():
    for name, prim in PRIMITIVES.items():
        assert isinstance(prim.saves, tuple) and set(prim.saves) <= {*prim.slots, "out"}, (name, prim.saves)
        assert len(set(prim.saves)) == len(prim.saves), name
    assert PRIMITIVES["exp"].saves == ("out",) and PRIMITIVES["mul"].saves == ("A", "B")
    assert PRIMITIVES["add"].saves == ()
