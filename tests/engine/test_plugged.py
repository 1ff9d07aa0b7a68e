"""Each primitive's rule with the numbers plugged in (Primitive.plugged): for every case of every primitive
(tests/support/op_cases.py's table), the value its plugged-in arithmetic gives is what the VJP itself returned, for a
random upstream grad, and its text names the numbers it was given."""

import numpy as np
import pytest

from autograd.ops import PRIMITIVES
from tests.support.op_cases import IDS, TABLE, case_vjp, written

RNG = np.random.default_rng(7)


def test_every_primitive_has_its_rule_with_numbers():
    assert not [name for name, prim in PRIMITIVES.items() if prim.plugged is None]


@pytest.mark.parametrize(("name", "case"), TABLE, ids=IDS)
def test_the_plugged_in_rule_gives_the_vjp_s_own_result(name, case):
    out, prim, g, inputs, meta, raw = case_vjp(case, RNG)
    plugged = prim.plugged(written, g, out.data, *inputs, **meta)
    assert len(plugged) == len(inputs), f"{name}: one plugged-in rule per input"
    for i, ((text, value), expected) in enumerate(zip(plugged, raw)):
        assert "<" in text, f"{name}, input {i}: the text shows numbers ({text!r})"
        value = np.asarray(value)
        assert value.shape == np.shape(expected), f"{name}, input {i}: shape {value.shape} vs {np.shape(expected)}"
        np.testing.assert_allclose(
            value, expected, rtol=1e-12, atol=1e-12, equal_nan=True, err_msg=f"{name}, input {i}: {text}"
        )
