"""The transformer's composites in the language (issue 35): layer_norm, rms_norm and scaled_dot_product_attention.

Each has no primitive of its own; its steps (autograd.functional.STEPS, declared beside it) give the checker its
shape, nodes and costs before anything runs. Here: the predicted shape is the engine's over a table of cases, the
values and grads are the engine's own call's, the steps are the graph the composite records (op for op, shape for
shape), the predicted nodes and costs are what the recorded graph and its backward pass hold, shapes that do not
fit are said with their line and column, the limits hold before running, and the Python export runs.
"""

import ast
import inspect
import math
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import autograd.functional as F
from autograd import Tensor
from autograd.gradcheck import numerical_vjp
from autograd.graph import backward_steps, trace
from autograd.ops import PRIMITIVES, matmul_work
from language import ExpressionError, compile_program, evaluate, to_python
from language import library as lib
from language import messages as msg
from tests.support.helpers import ROOT, assert_costs_bound_the_run

#: The leaves the cases use: x (2, 3, 4), w4/b4 (4,), w34 (3, 4), q (5, 4), k (6, 4), v (6, 3), batched qb
#: (2, 5, 4), kb (2, 6, 4), vb (2, 6, 3), a float mask fm (5, 6), and a boolean mask bm (5, 6) made from data D.
LEAVES = {
    "x": "x = randn(2, 3, 4)", "w4": "w4 = randn(4)", "b4": "b4 = randn(4)", "w34": "w34 = randn(3, 4)",
    "q": "q = randn(5, 4)", "k": "k = randn(6, 4)", "v": "v = randn(6, 3)",
    "qb": "qb = randn(2, 5, 4)", "kb": "kb = randn(2, 6, 4)", "vb": "vb = randn(2, 6, 3)", "fm": "fm = randn(5, 6)",
    "D": "D = tensor([[1.0, 0, 0, 0, 0, 0], [1, 1, 0, 0, 0, 0], [1, 1, 1, 0, 0, 0], [1, 0, 1, 1, 0, 1], "
         "[0, 0, 0, 0, 1, 0]], requires_grad=False)",
    "bm": "bm = D > 0",
}

CASES = {
    "layer_norm last axis": "layer_norm(x, 4)",
    "layer_norm two axes, affine": "layer_norm(x, (3, 4), w34, w34 * 0.5)",
    "layer_norm list shape, keywords": "layer_norm(x, [4], weight=w4, bias=b4, eps=1e-3)",
    "layer_norm shape from .shape": "layer_norm(x, x.shape[-1:], None, b4)",
    "layer_norm a vector": "layer_norm(w4, 4, w4)",
    "layer_norm a literal weight": "layer_norm(x, 4, [1.0, 2.0, 3.0, 4.0])",
    "rms_norm last axis": "rms_norm(x, 4)",
    "rms_norm two axes, weight": "rms_norm(x, (3, 4), w34)",
    "rms_norm eps keyword": "rms_norm(x, 4, weight=w4, eps=1e-6)",
    "attention": "scaled_dot_product_attention(q, k, v)",
    "attention causal": "scaled_dot_product_attention(q, k, v, is_causal=True)",
    "attention batched causal": "scaled_dot_product_attention(qb, kb, vb, is_causal=True)",
    "attention broadcast batch": "scaled_dot_product_attention(qb, k, v)",
    "attention float mask": "scaled_dot_product_attention(q, k, v, fm)",
    "attention float mask keyword, batched": "scaled_dot_product_attention(qb, kb, vb, attn_mask=fm * 0.5)",
    "attention boolean mask": "scaled_dot_product_attention(q, k, v, attn_mask=bm)",
    "attention boolean mask, scale": "scaled_dot_product_attention(qb, kb, vb, bm, scale=0.25)",
    "attention self, one head": "scaled_dot_product_attention(x, x, x, is_causal=True)",
    "dropout": "dropout(x)",
    "dropout p keyword": "dropout(x, p=0.25)",
    "dropout all": "dropout(x, 1.0)",
    "dropout not training": "dropout(x, 0.5, training=False)",
    "dropout p zero": "dropout(x, 0.0)",
}


def program_of(call):
    body = f"y = {call}\nloss = (y * y).sum()"
    used = {name for name in LEAVES if re.search(rf"(?<![\w.]){name}(?!\w)", call)}
    if "bm" in used:
        used.add("D")
    return "\n".join([*(line for name, line in LEAVES.items() if name in used), body])


def engine_call(call, variables):
    """The call's name and arguments as the engine takes them, each tensor argument a fresh leaf (so a graph
    made from them holds the composite's own nodes only)."""
    tree = ast.parse(call, mode="eval").body

    def value(node):
        if isinstance(node, ast.Name):
            tensor = variables[node.id]
            if tensor.dtype == bool:  # a mask: as an array (a Tensor of bools would be made float64)
                return tensor.data.copy()
            return Tensor(tensor.data.copy(), requires_grad=True)
        if isinstance(node, ast.BinOp):  # w34 * 0.5, fm * 0.5
            return Tensor(variables[node.left.id].data * node.right.value, requires_grad=True)
        if isinstance(node, ast.Subscript):  # x.shape[-1:]
            return variables["x"].shape[-1:]
        if isinstance(node, ast.List) and isinstance(node.elts[0].value, float):
            return Tensor([e.value for e in node.elts], requires_grad=True)
        return ast.literal_eval(node)

    return tree.func.id, [value(a) for a in tree.args], {kw.arg: value(kw.value) for kw in tree.keywords}


@pytest.mark.parametrize("call", CASES.values(), ids=CASES)
def test_predicted_shape_is_the_engines_and_the_grads_are_central_differences(call):
    program = compile_program(program_of(call))
    result = program.run()
    y = result.variables["y"]
    name, args, kwargs = engine_call(call, result.variables)
    expected = getattr(F, name)(*args, **kwargs)
    assert program.shapes["y"] == y.shape == expected.shape
    if name == "dropout":  # its mask: the program's generator, after x's draw (the dropout cases use x alone)
        rng = np.random.default_rng(program.seed)
        rng.standard_normal(x_shape := result.variables["x"].shape)
        expected = F.dropout(*args, **kwargs, generator=rng)
        assert x_shape == expected.shape
    np.testing.assert_array_equal(y.data, expected.data)
    result.output.backward()
    names = list(program.inputs)
    numeric = numerical_vjp(lambda *xs: program.run(inputs=dict(zip(names, (t.data for t in xs)))).output,
                            [Tensor(result.inputs[n].data.copy()) for n in names], 1.0)
    for input_name, estimate in zip(names, numeric):
        grad = result.inputs[input_name].grad
        np.testing.assert_allclose(grad, estimate, rtol=1e-6, atol=1e-7, err_msg=input_name)


def test_every_composite_is_offered_and_has_steps():
    assert set(lib.COMPOSITES) == set(F.COMPOSITES) == set(F.STEPS)
    assert set(lib.COMPOSITES) <= set(lib.function_names())
    for name in lib.COMPOSITES:
        assert any(call.startswith(name + "(") for call in CASES.values()), name


def step_shapes(steps, bound):
    """Each step's shape, through the primitives' shape rules (what the checker walks)."""
    shapes = []
    for step in steps:
        operands = [bound[a.name] if isinstance(a, F.Input) else shapes[a.index] if isinstance(a, F.Out)
                    else a.shape if isinstance(a, F.Constant) else a for a in step.args]
        shapes.append(tuple(PRIMITIVES[step.op].shape(*operands, **step.kwargs)))
    return shapes


@pytest.mark.parametrize("call", CASES.values(), ids=CASES)
def test_the_steps_are_the_graph_the_composite_records(call):
    """Op for op and shape for shape, constants counted: the steps the checker walks are what the engine records."""
    result = compile_program(program_of(call)).run()
    name, args, kwargs = engine_call(call, result.variables)
    out = getattr(F, name)(*args, **kwargs)
    graph = trace(out)
    recorded = sorted((n.op, n.shape) for n in graph.nodes if n.op and n is not graph.nodes[-1] or n.op and
                      len(graph.nodes) > 1)
    constants = sorted(n.shape for n in graph.nodes if n.kind == "const")
    entry = lib.COMPOSITES[name]
    bound = dict(zip(entry.parameters, args)) | kwargs
    mask = bound.get("attn_mask")
    shapes = {p: (v.shape if isinstance(v, (Tensor, np.ndarray)) else v) for p, v in bound.items()}
    if mask is not None:
        shapes["boolean_mask"] = mask.dtype == bool
    full = dict(shapes)
    for p, default in inspect.signature(entry.steps).parameters.items():
        full.setdefault(p, default.default)
    steps = entry.steps(**shapes)
    predicted = sorted(zip([s.op for s in steps], step_shapes(steps, full)))
    assert recorded == predicted
    assert constants == sorted(a.shape for s in steps for a in s.args if isinstance(a, F.Constant))
    assert F.composite_shape(name, **shapes) == out.shape


def recorded_costs(result):
    """What the run really made, counted as Costs counts it: the graph's nodes (and the named data and masks that
    feed it without being its parents), every array it holds (a leaf of 0 dimensions is a Python number the
    checker charges nothing for), every gradient the backward computes, what the Stepper keeps, the products'
    multiply-adds."""
    out = result.output
    graph, steps = backward_steps(out)
    seen = {id(n.data) for n in graph.nodes}
    outside = [t for t in result.variables.values() if id(t.data) not in seen]
    nodes = len(graph.nodes) + len(outside)
    forward = sum(n.data.size for n in graph.nodes if n.op or n.data.ndim) + sum(t.size for t in outside)
    backward = sum(n.data.size for n in graph.nodes if n.requires_grad)
    stepper = 0
    for step in steps:
        for c in step.contributions:
            parent = graph.nodes[c.parent]
            raw = np.size(c.raw)
            backward += raw
            stepper += raw + (parent.data.size if raw != parent.data.size else 0)
            stepper += parent.data.size if c.fan_out_index > 1 else 0
    work = sum(matmul_work(graph.nodes[n.parents[0]].shape, graph.nodes[n.parents[1]].shape)
               for n in graph.nodes if n.op == "matmul")
    return {"forward_elements": forward, "backward_elements": backward, "stepper_elements": stepper,
            "matmul_work": work, "nodes": nodes}


@pytest.mark.parametrize("call", CASES.values(), ids=CASES)
def test_predicted_nodes_and_costs_are_the_recorded_graphs(call):
    program = compile_program(program_of(call))
    predicted = program.costs
    recorded = recorded_costs(program.run())
    assert {field: getattr(predicted, field) for field in recorded} == recorded


def test_a_composite_costs_what_its_steps_written_out_cost():
    """layer_norm(x, 4) costs exactly what its primitives typed as a program cost."""
    head = "x = randn(2, 3, 4)\nw = randn(4)\n"
    composite = compile_program(head + "y = layer_norm(x, 4, w)\nloss = y.sum()").costs
    by_hand = compile_program(head + "y = (x - x.mean(axis=(2,), keepdims=True)) / "
                              "(x.var(axis=(2,), correction=0, keepdims=True) + 1e-5).sqrt() * w\n"
                              "loss = y.sum()").costs
    assert composite == by_hand
    np.testing.assert_allclose(evaluate(head + "y = layer_norm(x, 4, w)").output.data,
                               evaluate(head + "y = (x - x.mean(axis=2, keepdims=True)) / "
                                        "(x.var(axis=2, correction=0, keepdims=True) + 1e-5).sqrt() * w").output.data)


# ---- shapes that do not fit, and other mistakes, said where they are ---------------------------------------
@pytest.mark.parametrize(("text", "words", "at"), [
    ("x = randn(3, 4)\ny = layer_norm(x, 3)", "normalized_shape [3] does not match the trailing dimensions of an "
                                              "input of shape (3, 4)", "layer_norm"),
    ("x = randn(3, 4)\ny = layer_norm(x, (2, 3, 4))", "normalized_shape [2, 3, 4] does not match", "layer_norm"),
    ("x = randn(3, 4)\ny = rms_norm(x, (4, 3))", "rms_norm: normalized_shape [4, 3] does not match", "rms_norm"),
    ("x = randn(3, 4)\nw = randn(3)\ny = layer_norm(x, 4, w)", "shapes (3, 4) and (3,) cannot be broadcast",
     "layer_norm"),
    ("x = randn(3, 4)\ny = layer_norm(x, 2.5)", "not of the kind it takes", "layer_norm"),
    ("x = randn(3, 4)\ny = layer_norm(x, 4, eps=x)", "expected a number here", "x)"),
    ("q = randn(5, 4)\nk = randn(6, 3)\nv = randn(6, 3)\ny = scaled_dot_product_attention(q, k, v)",
     "the query's last dimension (4) must equal the key's (3)", "scaled"),
    ("q = randn(5, 4)\nk = randn(6, 4)\nv = randn(7, 3)\ny = scaled_dot_product_attention(q, k, v)",
     "key and value must have as many positions", "scaled"),
    ("q = randn(4)\nk = randn(6, 4)\ny = scaled_dot_product_attention(q, k, k)",
     "must each have at least 2 dimensions", "scaled"),
    ("q = randn(2, 5, 4)\nk = randn(3, 6, 4)\ny = scaled_dot_product_attention(q, k, k)", "matmul", "scaled"),
    ("q = randn(5, 4)\nk = randn(6, 4)\nm = randn(5, 5)\ny = scaled_dot_product_attention(q, k, k, m)",
     "an attn_mask of shape (5, 5) does not broadcast with the attention scores' shape (5, 6)", "scaled"),
    ("q = randn(5, 4)\nm = q @ q.T > 0\ny = scaled_dot_product_attention(q, q, q, m, is_causal=True)",
     "attn_mask and is_causal=True cannot be given together", "scaled"),
    ("q = randn(5, 4)\ny = scaled_dot_product_attention(q, q, q, None, 0.5)",
     "takes at most 4 arguments in order (query, key, value, attn_mask)", "0.5"),
    ("q = randn(5, 4)\ny = scaled_dot_product_attention(q, q, q, dropout_p=0.1)", "keyword 'dropout_p' is not "
                                                                                  "allowed here", "dropout_p"),
    ("q = randn(5, 4)\ny = scaled_dot_product_attention(q, q)", "missing a required argument: 'value'", "scaled"),
    ("q = randn(5, 4)\ny = layer_norm(q, 4, weight=q, weight=q)", "is given twice", "weight=q)"),
    ("q = randn(5, 4)\ny = layer_norm(q, 4, q[0], weight=q[0])", "multiple values for argument 'weight'", "layer"),
    ("q = randn(5, 4)\ny = layer_norm", "is a function", "layer_norm"),
    ("q = randn(5, 4)\ny = dropout(q, 1.5)", "dropout probability has to be between 0 and 1, but got 1.5", "drop"),
    ("q = randn(5, 4)\ny = dropout(q, 0.5, True, False)", "takes at most 3 arguments in order (input, p, "
                                                         "training)", "False"),
    ("q = randn(5, 4)\ny = dropout(q, generator=1)", "keyword 'generator' is not allowed here", "generator"),
    ("q = randn(5, 4)\ny = dropout(q, True)", "dropout(..., p=...) takes a number, not True", "True"),
    ("q = randn(5, 4)\ny = scaled_dot_product_attention(q, q, q, is_causal=1)", "takes True or False, not the "
                                                                               "number 1", "1)"),
    ("q = randn(5, 4)\ny = layer_norm(q, 4, eps=None)", "layer_norm(..., eps=...) takes a number, not None", "None"),
])
def test_shapes_that_do_not_fit_say_so_with_line_and_column(text, words, at):
    with pytest.raises(ExpressionError) as info:
        compile_program(text)
    error = info.value
    last = text.splitlines()[-1]
    assert words in error.message, error.message
    assert (error.line, error.col) == (len(text.splitlines()), last.index(at) + 1), error


# ---- the limits hold before anything runs -----------------------------------------------------------------
@pytest.mark.parametrize(("text", "words"), [
    # the scores (1, 1000, 2000) are 2,000,000 numbers, though every input is small
    ("q = randn(1000, 2)\nk = randn(2000, 2)\ny = scaled_dot_product_attention(q, k, k)", "2,000,000 elements"),
    # 15 layer norms of 7 nodes each and the leaf pass a limit of 100 graph nodes (5,000 is the real one)
    ("x = randn(3)\n" + "\n".join("x = layer_norm(x, 3)" for _ in range(15)), "nodes"),
])
def test_limits_hold_before_running(text, words, monkeypatch):
    monkeypatch.setattr(msg, "MAX_NODES", 100)
    for name in ("layer_norm", "scaled_dot_product_attention"):
        monkeypatch.setattr(F, name, lambda *a, **k: pytest.fail("ran before the limits were checked"))
    with pytest.raises(ExpressionError) as info:
        compile_program(text)
    assert words in info.value.message and "limit" in info.value.message, info.value.message
    assert info.value.line == len(text.splitlines())


def test_a_long_stack_of_layer_norms_counts_every_node():
    text = "x = randn(3)\n" + "\n".join("x = layer_norm(x, 3)" for _ in range(100))
    program = compile_program(text)
    assert program.costs.nodes == 1 + 100 * 7  # the leaf; mean, sub, var, eps, add, sqrt, div per norm
    assert program.costs.nodes <= msg.MAX_NODES
    assert len(trace(program.run().output).nodes) == program.costs.nodes


# ---- the Python export and the inline fold ------------------------------------------------------------------
EXPORT = """q = randn(2, 4, 3)
w = ones(3)
h = layer_norm(q, [3], w, zeros(3))
m = q[0] @ q[0].T > 0
a = scaled_dot_product_attention(h, h, h, attn_mask=m)
c = scaled_dot_product_attention(h, q, q, is_causal=True, scale=0.5)
r = rms_norm(a + c, 3, weight=w, eps=1e-6)
d = dropout(r, 0.5) + randn(3)
loss = (d * d).sum()
"""


def test_the_python_export_calls_the_composites_and_reproduces_grads(tmp_path):
    script = to_python(EXPORT)
    for line in ("h = F.layer_norm(q, (3,), w, Tensor(np.zeros((3,))))",
                 "a = F.scaled_dot_product_attention(h, h, h, attn_mask=m)",
                 "c = F.scaled_dot_product_attention(h, q, q, is_causal=True, scale=0.5)",
                 "r = F.rms_norm(a + c, 3, weight=w, eps=1e-06)",
                 "d = F.dropout(r, 0.5, generator=rng) + Tensor(rng.standard_normal((3,)))"):
        assert line in script, script
    path = tmp_path / "program.py"
    path.write_text(script)
    run = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=60, cwd=tmp_path,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stderr
    printed = dict(line.split(" = ", 1) for line in run.stdout.splitlines())
    result = evaluate(EXPORT)
    result.output.backward()
    np.testing.assert_allclose(ast.literal_eval(printed["output"]), result.output.data, rtol=1e-12)
    for name in ("q", "w"):
        np.testing.assert_allclose(ast.literal_eval(printed[f"{name}.grad"]), result.variables[name].grad,
                                   rtol=1e-12, err_msg=name)


def test_known_small_inputs_are_folded_as_the_engine_computes_them():
    """A composite of constants known before running is computed at check time, as any small constant is, and
    a name set from it may then set a shape."""
    r = evaluate("x = tensor([[1.0, 2.0, 3.0]], requires_grad=False)\n"
                 "y = layer_norm(x, 3)\nz = randn(2, 3) * y")
    np.testing.assert_allclose(r.variables["y"].data, F.layer_norm(Tensor([[1.0, 2.0, 3.0]]), 3).data)
    assert math.isclose(float(r.variables["y"].data.sum()), 0.0, abs_tol=1e-12)


def test_a_boolean_mask_masks_and_a_float_mask_adds():
    base = "q = randn(3, 2)\nk = randn(4, 2)\n"
    masked = evaluate(base + "y = scaled_dot_product_attention(q, k, k, attn_mask=k[:, 0][None] > 10)")
    assert np.isnan(masked.output.data).all()  # every key masked: softmax of nothing, as in PyTorch
    added = evaluate(base + "y = scaled_dot_product_attention(q, k, k, attn_mask=zeros(3, 4) - 1)")
    plain = evaluate(base + "y = scaled_dot_product_attention(q, k, k)")
    np.testing.assert_allclose(added.output.data, plain.output.data, rtol=1e-12)
    ops = [n.op for n in trace(masked.output).nodes if n.op]
    assert "masked_fill" in ops and "add" not in ops
    assert "add" in [n.op for n in trace(added.output).nodes if n.op]


def test_a_mask_stays_a_mask_through_indexing_and_transposes():
    """(m > 0).T, m[None][0]: the checker predicts the masking the engine does (not an addition), and costs the
    four ops on the mask on top of what the mask itself costs."""
    straight = compile_program(program_of("scaled_dot_product_attention(q, k, v, attn_mask=bm)"))
    moved = compile_program(program_of("scaled_dot_product_attention(q, k, v, attn_mask=bm.T.T[None][0])"))
    assert "masked_fill" in [n.op for n in trace(moved.run().output).nodes]
    assert moved.costs.nodes == straight.costs.nodes + 4
    assert moved.costs.forward_elements == straight.costs.forward_elements + 4 * 30
    for field in ("backward_elements", "stepper_elements", "matmul_work"):
        assert getattr(moved.costs, field) == getattr(straight.costs, field), field


def test_dropout_is_seeded_like_randn_and_repeats_each_run():
    """Its mask comes from the program's generator, in program order: the same text and seed give the same mask
    on every run (so the gradient check's nudged runs see it too), another seed another mask; the kept numbers
    are scaled by 1/(1 − p), and the Stepper's step is the product with that mask."""
    text = "x = ones(50, 40)\ny = dropout(x, 0.25)\nloss = y.sum()"
    program = compile_program(text)
    first, again = program.run(), program.run(inputs={"x": np.full((50, 40), 2.0)})
    mask = first.variables["y"].data
    np.testing.assert_array_equal(again.variables["y"].data, 2 * mask)
    assert set(np.unique(mask)) == {0.0, 1 / 0.75} and 0.2 < (mask == 0).mean() < 0.3
    assert not np.array_equal(compile_program(text, seed=1).run().variables["y"].data, mask)
    first.output.backward()
    np.testing.assert_array_equal(first.variables["x"].grad, mask)
    graph = trace(first.output)
    assert [n.op for n in graph.nodes if n.op] == ["mul", "sum"]
    eval_mode = evaluate("x = randn(3)\ny = dropout(x, 0.9, training=False)")
    assert eval_mode.variables["y"] is eval_mode.variables["x"]  # the identity, as F.dropout returns it


def test_the_sweeps_generator_writes_every_composite_in_shapes_that_run():
    """tests/support/program_gen.py (the pages' sweep) has call forms for every composite, and fills that run."""
    from tests.support import program_gen

    for name in lib.COMPOSITES:
        texts = list(program_gen.programs_of(name, limit=2))
        assert len(texts) == 2, name
        for text in texts:
            assert f"{name}(" in text and compile_program(text).run().output is not None
    assert {f.prim for f in program_gen.forms()} >= set(lib.COMPOSITES)


# ---- fuzzing the composites' arguments: refused with a place, or run with every shape as predicted -------------
FUZZ_ARGS = ["q", "k", "w", "m", "s", "None", "3", "(3,)", "[3]", "(2, 3)", "[]", "()", "0.5", "-1", "True",
             "q > 0", "q @ k.T > 0", "q.shape[-1:]", "randn(2, 3)", "[1.0, 2.0, 3.0]", "1e308", "(1.5,)"]
FUZZ_KEYWORDS = ["", "eps=0.1", "weight=w", "bias=q", "attn_mask=m", "attn_mask=None", "is_causal=True",
                 "is_causal=1", "scale=2", "p=0.5", "p=2", "training=False", "dropout_p=0.1", "generator=1",
                 "weight=None", "scale=q"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(lib.COMPOSITES)), st.lists(st.sampled_from(FUZZ_ARGS), max_size=5),
       st.lists(st.sampled_from(FUZZ_KEYWORDS), max_size=2))
def test_fuzz_composite_arguments(name, args, keywords):
    text = ("q = randn(2, 3)\nk = randn(4, 3)\nw = ones(3)\nm = k @ q.T > 0\ns = 2.0\n"
            f"y = {name}({', '.join(args + [kw for kw in keywords if kw])})\nz = y * 1")
    try:
        program = compile_program(text)
        result = program.run()
    except ExpressionError as error:
        assert error.line >= 1 and error.col >= 1
        assert "internal error" not in error.message and "Traceback" not in error.message, error.message
    else:
        assert program.shapes == {n: t.shape for n, t in result.variables.items()}
        assert program.costs.nodes >= len(trace(result.output).nodes)


@pytest.mark.parametrize("text", [
    "q = randn(300, 64)\nk = randn(400, 64)\ny = scaled_dot_product_attention(q, k, k, is_causal=True).sum()",
    "q = randn(4, 100, 32)\nm = q[0] @ q[0].T > 0\ny = scaled_dot_product_attention(q, q, q, m).sum()",
    "x = randn(500, 200)\nw = randn(200)\ny = rms_norm(layer_norm(x, 200, w, w), 200, w).sum()",
    "x = randn(500, 200)\ny = (dropout(x, 0.3) * x).sum()",
])
def test_predicted_costs_bound_what_forward_and_backward_allocate(text):
    """What the checker charges bounds what the run and its backward really allocate, the composites' own
    temporaries (a causal mask, dropout's draw) included."""
    assert_costs_bound_the_run(compile_program(text))
