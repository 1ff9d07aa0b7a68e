"""One element of a VJP's result, its arithmetic written out (explorer/program/rules.py, issue 17 item 4): for every
case of every primitive (tests/support/op_cases.py's table) the written sum gives the engine's grad element, and the
Stepper's and the inspector's rule with its numbers shows it past 64 elements."""

import re

import numpy as np
import pytest

from autograd.tensor import fit_gradient
from explorer import numbers
from explorer.program import rules, run
from explorer.program.rules import element_line
from tests.support.op_cases import IDS, TABLE, case_vjp

RNG = np.random.default_rng(11)
#: Ops whose element arithmetic is written (the others' lines name the element and point at the formula).
WRITTEN = {"matmul", "linear", "sum", "mean", "add", "sub", "mul", "div", "pow", "neg", "maximum", "minimum", "exp",
           "log", "sqrt", "abs", "relu", "tanh", "sigmoid", "gelu", "silu"}


@pytest.mark.parametrize(("name", "case"), TABLE, ids=IDS)
def test_the_written_element_is_the_engine_s_grad_element(name, case):
    out, prim, g, inputs, meta, raw = case_vjp(case, RNG)
    names = list(prim.slots) if len(prim.slots) >= len(inputs) else [f"A{i}" for i in range(len(inputs))]
    for slot, r in enumerate(raw):
        if r is None:
            continue
        grad = fit_gradient(r, inputs[slot], prim.name)
        for index in list(np.ndindex(*grad.shape))[:12]:
            line = element_line(prim, slot, names, g, out.data, inputs, meta, index)
            if line is None:
                batched = name in ("matmul", "linear") and any(np.ndim(x) != 2 for x in inputs[:2])
                assert name not in WRITTEN or batched, f"{name}: its element's arithmetic is written"
                continue
            text, value = line
            assert text.startswith(f"d{names[slot]}"), text
            assert value == pytest.approx(float(grad[index]), rel=1e-12, abs=1e-12, nan_ok=True), (name, index, text)
            shown = float(text.rsplit(" = ", 1)[1])
            assert shown == pytest.approx(value, rel=1e-3, abs=1e-12, nan_ok=True), text


def test_a_lecture_layer_is_written_whole_and_a_bigger_one_element_by_element():
    """A 3→2 layer on 5 points: every operand whole (they stopped at 4 elements before). A 20-point batch of 8→4:
    the arithmetic of each grad's largest element, its sum equal to the engine's grad there."""
    graph, steps = run.step_program("X = randn(5, 3)\nW = randn(3, 2)\nout = (X @ W).tanh().mean()")
    matmul = next(s for s in steps if s.op == "matmul")
    dx, dw = matmul.plugged.splitlines()
    assert dw.startswith("dW = [[") and dw.count("[") == (1 + 5) * 2 + 1 + 3, "Xᵀ · G, 5 rows each, = dW (3 rows)"
    w = next(n for n in graph.nodes if n.name == "W")
    assert dw.endswith(numbers.plugged_text(w.grad, operand=False))

    text = "X = randn(20, 8)\nW = randn(8, 4)\nb = randn(4)\nout = (X @ W + b).tanh().mean()"
    graph, steps = run.step_program(text)
    by_name = {n.name: n for n in graph.nodes if n.name}
    matmul = next(s for s in steps if s.op == "matmul")
    lines = matmul.plugged.splitlines()
    assert lines[0].startswith("(operands of 160 elements: written whole up to 64")
    m = re.match(r"dW\[(\d+), (\d+)\] = Σᵢ X\[i, \1\]·G\[i, \2\] = .* \(20 terms\) .* = (\S+)$", lines[2])
    assert m, lines[2]
    k, j = int(m.group(1)), int(m.group(2))
    assert abs(by_name["W"].grad[k, j]) == np.abs(by_name["W"].grad).max(), "the largest element"
    assert float(m.group(3)) == pytest.approx(by_name["W"].grad[k, j], rel=1e-3)
    add = next(s for s in steps if s.op == "add")
    db = add.plugged.splitlines()[2]
    assert db.startswith("dB[") and "over the 20 outputs it was broadcast to" in db, db


def test_any_element_is_worked_out_on_request():
    """The inspector's "Work out another element": rules.element_of, the same arithmetic for a chosen index."""
    text = "X = randn(20, 8)\nW = randn(8, 4)\nout = (X @ W).softmax(axis=-1).sum()"
    graph, _ = run.step_program(text)
    w = next(n for n in graph.nodes if n.name == "W")
    matmul = next(n for n in graph.nodes if n.op == "matmul")
    line = rules.element_of(text, (), matmul.id, 1, (2, 3))
    assert line.startswith("dW[2, 3] = Σᵢ X[i, 2]·G[i, 3] = ")
    assert float(line.rsplit(" = ", 1)[1]) == pytest.approx(w.grad[2, 3], rel=1e-3, abs=1e-12)
    softmax = next(n for n in graph.nodes if n.op == "softmax")
    said = rules.element_of(text, (), softmax.id, 0, (0, 1))
    assert said.startswith("dA[0, 1] = ") and "its formula above" in said


def test_the_inspector_offers_another_element_of_a_big_operand():
    from tests.support.apptest import app, no_exception, open_tab

    text = "X = randn(20, 8)\nW = randn(8, 4)\nout = (X @ W).sum()"
    graph, _ = run.step_program(text)
    matmul = next(n for n in graph.nodes if n.op == "matmul")
    w = next(n for n in graph.nodes if n.name == "W")
    at = app()
    at.query_params["program"] = text
    at.run()
    open_tab(at, "Inspect a node")
    at.selectbox(key="explorer_node").select(matmul.id).run()
    chooser = at.selectbox(key=f"explorer_element_{matmul.id}")
    assert chooser.value is None and len(chooser.options) == 160 + 32
    chooser.select((1, (7, 2))).run()
    no_exception(at)
    shown = [c.value for c in at.code if c.value.startswith("dW[7, 2] = Σᵢ X[i, 7]·G[i, 2] = ")]
    assert shown and float(shown[0].rsplit(" = ", 1)[1]) == pytest.approx(w.grad[7, 2], rel=1e-3)
