"""Each primitive's Jacobian caption says what its own structure is (issue 29 item 3): on every case of the op table
(tests/support/op_cases.py) the caption names no op but the node's own and no slot or variable the node does not
have; a mean's J is ``0.5 · [1 1] ⊗ I₃`` (it was captioned as a matmul's, "B ⊗ I₃ … where B = X") and a
transpose's a permutation."""

import re

import pytest

from autograd import Tensor
from autograd.jacobian import jacobian
from autograd.ops import PRIMITIVES
from explorer.program import jacobian_view
from tests.support.helpers import leaves
from tests.support.op_cases import IDS, TABLE

#: Names the inputs go by in these captions: a caption naming anything else (X, W, B) names what the node has not.
INPUTS = ("in0", "in1", "in2", "in3")
SLOTS = re.compile(r"\b(X|W|B|x|b|w)\b")  # (A is the article too)
OPS = re.compile(r"\b(" + "|".join(sorted(map(re.escape, PRIMITIVES), key=len, reverse=True)) + r")\b")


def captions(out: Tensor) -> list[str]:
    jac = jacobian(out)
    labels = [(name, "") for name in INPUTS[:len(jac.inputs) + len(jac.constants)]]
    return [jacobian_view.structure(j.matrix, j.whole, labels[j.slot][0],
                                    jacobian_view._weights(jac.op, j.slot, labels), jac.op) for j in jac.inputs]


@pytest.mark.parametrize(("name", "case"), TABLE, ids=IDS)
def test_a_caption_names_only_the_node_s_own_op_and_inputs(name, case):
    out = case.fn(*leaves(*case.arrays))
    for caption in captions(out):
        assert not SLOTS.search(caption), f"{name} {case.label}: a slot it does not have in {caption!r}"
        ops = set(OPS.findall(caption))
        assert ops <= {out._op.name if hasattr(out, "_op") else name, name}, f"{name} {case.label}: {caption!r}"


def test_a_mean_over_an_axis_is_half_ones_kron_identity():
    (caption,) = captions(leaves([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])[0].mean(axis=0))
    assert caption.startswith("Blocks of scaled identities: J = 0.5 · [1 1] ⊗ I₃"), caption
    assert "(mean)" in caption and "X @ W" not in caption


def test_a_transpose_is_a_permutation_and_x_at_w_keeps_its_weights():
    (caption,) = captions(leaves([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])[0].T)
    assert caption.startswith("A permutation") and "(transpose)" in caption, caption
    x, w = leaves([[1.0, 2.0], [3.0, 4.0]], [[0.5, -1.0], [2.0, 1.5]])
    from_w = captions(x @ w)[1]
    assert from_w.startswith("Blocks of scaled identities: J = in0 ⊗ I₂") and "in1[k, j]" in from_w, from_w
