"""Each primitive's vjp_lines (its VJP once more, as lines of the language) against its VJP, on every case of the op
table: the line, run in the language over the case's arrays and a random upstream grad, then summed back to the
input's shape as the Practice page writes it, equals what the engine's VJP sends that input."""

import numpy as np
import pytest

from autograd.ops import PRIMITIVES
from autograd.tensor import fit_gradient
from explorer.practice import written
from language.answers import Given, compile_answers
from tests.support.op_cases import IDS, TABLE, made


def _scope(names_values):
    return {n: Given(tuple(np.shape(v)), np.asarray(v).dtype.kind) for n, v in names_values.items()}


@pytest.mark.parametrize("name", sorted(PRIMITIVES))
def test_every_primitive_writes_its_vjp_as_lines(name):
    lines = PRIMITIVES[name].vjp_lines
    assert lines is not None, f"{name} declares no vjp_lines"
    if not callable(lines):
        slots = PRIMITIVES[name].slots
        assert len(lines) == len(slots), (name, lines)
        for slot, line in zip(slots, lines):
            assert line.startswith(f"d{slot} += "), (name, line)


@pytest.mark.parametrize(("name", "case"), TABLE, ids=IDS)
def test_each_line_equals_the_vjp(name, case):
    out, _ = made(case)
    prim = out._prim
    rng = np.random.default_rng(7)
    g = rng.standard_normal(out.shape)
    parents = out.parents
    meta = out._meta or {}
    raw = prim.vjp(g, out.data, *[p.data for p in parents], need=(True,) * len(parents), **meta)
    slots = prim.slots or tuple(f"A{i}" for i in range(len(parents)))
    values = {slot: p.data for slot, p in zip(slots, parents)} | {"Out": out.data, "dOut": g}
    scope = _scope(values)
    lines = written._templates(prim, tuple(p.shape for p in parents), out.shape, meta,
                               lambda a: written.spell(a, {}))
    checked = 0
    for position, (slot, parent) in enumerate(zip(slots, parents)):
        if not parent.requires_grad:
            continue
        head = f"d{slot} += "
        assert lines[position].startswith(head), (name, lines[position])
        term = lines[position][len(head):]
        probe = compile_answers(f"probe = {term}", scope).lines[0]
        assert probe.error is None, (name, case.label, term, probe.error)
        text = written.summed(term, probe.shape, tuple(parent.shape))
        answers = compile_answers(f"d{slot} = {text}", scope)
        assert answers.lines[0].error is None, (name, text, answers.lines[0].error)
        (outcome,) = answers.run(values)
        assert outcome.error is None, (name, text, outcome.error)
        expected = fit_gradient(raw[position], parent.data, name)
        assert outcome.value.shape == expected.shape, (name, case.label, text)
        np.testing.assert_allclose(outcome.value, expected, rtol=1e-9, atol=1e-12, equal_nan=True,
                                   err_msg=f"{name} {case.label}: d{slot} = {text}")
        checked += 1
    assert checked, f"{name} {case.label}: no input needs a grad"
