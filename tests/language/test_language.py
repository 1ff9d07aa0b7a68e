"""The language package: its tables against the op registry, the compiled Program (run again with new
inputs, costs predicted without running), the budgets, the new ops and forms, and its messages."""

import ast
import copy
import math
import pickle
import tracemalloc

import numpy as np
import pytest

import autograd.functional as F
from autograd import Tensor
from autograd.gradcheck import numerical_vjp
from autograd.graph import backward_steps, trace
from autograd.ops import PRIMITIVES
from language import ExpressionError, Program, compile_program, evaluate, to_python
from language import library as lib
from language import messages as msg
from tests.support.helpers import assert_costs_bound_the_run


def message(text):
    with pytest.raises(ExpressionError) as info:
        compile_program(text).run()
    return info.value


# ---- the language offers exactly what the registry declares ----------------------------------------
def test_every_registry_function_and_method_is_in_the_language():
    functions = {name for p in PRIMITIVES.values() for name in p.functions}
    methods = {name for p in PRIMITIVES.values() for name in p.methods}
    assert set(lib.FUNCTIONS) == functions
    assert set(lib.METHODS) | {"T"} == methods | lib.LANGUAGE_METHODS
    assert set(lib.ATTRIBUTES) == {"T", "shape"}
    for entry in [*lib.FUNCTIONS.values(), *lib.METHODS.values()]:
        assert entry.prim.name in PRIMITIVES
        plain = entry.method and entry.name not in lib.LANGUAGE_METHODS
        assert entry.run is (getattr(Tensor, entry.name) if plain else getattr(F, entry.name))
    # x.detach() is the detach primitive, which keeps the edge for the drawing (Tensor.detach makes a leaf)
    assert lib.METHODS["detach"].run is F.detach and lib.METHODS["detach"].prim is PRIMITIVES["detach"]


# One program per function and method of the language, and the same computation written with Tensors.
X = np.array([[0.5, -1.2, 2.0], [1.5, 0.3, -0.7]])
LANGUAGE_CASES = {
    "relu": ("y = relu(x)", lambda x: x.relu()),
    "tanh": ("y = tanh(x)", lambda x: x.tanh()),
    "sigmoid": ("y = sigmoid(x)", lambda x: x.sigmoid()),
    "gelu": ("y = gelu(x)", lambda x: x.gelu()),
    "silu": ("y = silu(x)", lambda x: x.silu()),
    "softmax": ("y = softmax(x, axis=0)", lambda x: x.softmax(axis=0)),
    "log_softmax": ("y = log_softmax(x)", lambda x: x.log_softmax()),
    "exp": ("y = exp(x)", lambda x: x.exp()),
    "log": ("y = log(abs(x))", lambda x: x.abs().log()),
    "sqrt": ("y = sqrt(abs(x))", lambda x: x.abs().sqrt()),
    "abs": ("y = abs(x)", lambda x: x.abs()),
    "maximum": ("y = maximum(x, 0.4)", lambda x: F.maximum(x, 0.4)),
    "minimum": ("y = minimum(x, x.T.T * 0.5)", lambda x: F.minimum(x, x.T.T * 0.5)),
    "linear": ("W = [[1.0, 2.0, 0.5], [0.0, -1.0, 1.0]]\ny = linear(x, W, [0.1, 0.2])",
               lambda x: F.linear(x, Tensor([[1.0, 2.0, 0.5], [0.0, -1.0, 1.0]]), Tensor([0.1, 0.2]))),
    "mse_loss": ("y = mse_loss(x, ones(2, 3))", lambda x: F.mse_loss(x, Tensor(np.ones((2, 3))))),
    "binary_cross_entropy_with_logits": ("y = binary_cross_entropy_with_logits(x, ones(2, 3) * 0.5)",
                                         lambda x: F.binary_cross_entropy_with_logits(x, Tensor(np.full((2, 3), .5)))),
    "cross_entropy": ("y = cross_entropy(x, [2, 0])", lambda x: F.cross_entropy(x, np.array([2, 0]))),
    "embedding": ("y = embedding(x, [1, 1, 0])", lambda x: F.embedding(x, [1, 1, 0])),
    "concat": ("y = concat([x, x * 2], axis=1)", lambda x: F.concat([x, x * 2], axis=1)),
    "stack": ("y = stack([x, x])", lambda x: F.stack([x, x])),
    "where": ("y = where(x > 0, x, x * 3)", lambda x: F.where(x.data > 0, x, x * 3)),
    "sum": ("y = x.sum(axis=1, keepdims=True)", lambda x: x.sum(axis=1, keepdims=True)),
    "mean": ("y = x.mean(0)", lambda x: x.mean(0)),
    "max": ("y = x.max()", lambda x: x.max()),
    "min": ("y = x.min(axis=-1)", lambda x: x.min(axis=-1)),
    "var": ("y = x.var(axis=1, correction=0)", lambda x: x.var(axis=1, correction=0)),
    "std": ("y = x.std()", lambda x: x.std()),
    "pow": ("y = x.pow(3)", lambda x: x.pow(3)),
    "reshape": ("y = x.reshape(3, -1)", lambda x: x.reshape(3, -1)),
    "transpose": ("y = x.transpose(1, 0)", lambda x: x.transpose(1, 0)),
    "unsqueeze": ("y = x.unsqueeze(1)", lambda x: x.unsqueeze(1)),
    "squeeze": ("y = x[None].squeeze(0)", lambda x: x[None].squeeze(0)),
    "masked_fill": ("y = x.masked_fill(x < 0, 0.0)", lambda x: x.masked_fill(x.data < 0, 0.0)),
    "clip": ("y = x.clip(-1, 1)", lambda x: x.clip(-1, 1)),
    "detach": ("y = (x * 2).detach()", lambda x: F.detach(x * 2)),
    "round": ("y = round(x * 3)", lambda x: F.round(x * 3)),
}


def test_every_function_and_method_has_a_case():
    assert set(LANGUAGE_CASES) == set(lib.FUNCTIONS) | set(lib.METHODS)


@pytest.mark.parametrize("name", sorted(LANGUAGE_CASES))
def test_each_function_and_method_computes_what_the_engine_does(name):
    body, engine = LANGUAGE_CASES[name]
    program = compile_program(f"x = {X.tolist()}\n{body}\nloss = (y * y).sum()")
    result = program.run()
    x = Tensor(X.copy(), requires_grad=True)
    expected = engine(x)
    y = result.variables["y"]
    assert y.op == PRIMITIVES[lib.FUNCTIONS[name].prim.name if name in lib.FUNCTIONS else
                              lib.METHODS[name].prim.name].name
    assert program.shapes["y"] == y.shape == expected.shape
    np.testing.assert_allclose(y.data, expected.data, rtol=1e-13)
    result.output.backward()
    (expected * expected).sum().backward()
    np.testing.assert_allclose(result.variables["x"].grad, x.grad, rtol=1e-12, atol=1e-14)


# ---- the new ops and forms, against central differences through the compiled program -------------------
GRADIENT_PROGRAMS = {
    "pow, min, std, var": "x = randn(3, 4)\ny = x.pow(2).sum() + x.min() + x.std() + x.var(axis=0, correction=0).sum()",
    "maximum, minimum": "a = randn(5)\nb = randn(5)\ny = (maximum(a, b) * minimum(a, 0.3)).sum()",
    "None and ...": "x = randn(2, 3)\ny = (x[None] * x[:, None]).sum() + (x[None, ..., 1] * x[..., None, 2]).sum()",
    "unsqueeze, squeeze": "x = randn(2, 3)\ny = (x.unsqueeze(0) * x.unsqueeze(-1).squeeze()).sum()",
    "linear": "x = randn(4, 3)\nW = randn(2, 3)\nb = randn(2)\ny = linear(x, W, b).tanh().sum()",
    "shape and unpacking": "x = randn(4, 3)\nn, d = x.shape\nW, c = randn(d, 2), randn(x.shape[0], 2)\n"
                           "y = ((x @ W) * c).sum()",
}


@pytest.mark.parametrize("text", GRADIENT_PROGRAMS.values(), ids=GRADIENT_PROGRAMS)
def test_gradients_of_new_forms_match_central_differences(text):
    program = compile_program(text)
    result = program.run()
    result.output.backward()
    names = [n for n in program.inputs if n not in program.fixed]
    tensors = [Tensor(result.inputs[n].data.copy()) for n in names]

    def run(*values):
        return program.run(inputs=dict(zip(names, (t.data for t in values)))).output

    numeric = numerical_vjp(run, tensors, 1.0)
    for name, estimate in zip(names, numeric):
        grad = result.inputs[name].grad
        grad = np.zeros(estimate.shape) if grad is None else grad  # an input the output does not use
        np.testing.assert_allclose(grad, estimate, rtol=1e-6, atol=1e-7, err_msg=name)


def test_tuple_unpacking_computes_the_right_side_first():
    r = evaluate("a, b = 1.0, 2.0\na, b = b, a - b\nc = a * 10 + b")
    assert r.variables["a"].item() == 2.0 and r.variables["b"].item() == -1.0 and r.output.item() == 19.0
    assert list(r.variables) == ["a", "b", "c"]
    r = evaluate("x = randn(3, 2)\nn, d = x.shape\ny = zeros(n, d) + x")
    assert r.variables["n"].item() == 3 and r.variables["y"].shape == (3, 2)


def test_shape_reads_a_shape_and_its_parts():
    r = evaluate("x = randn(4, 3)\ny = x.reshape(x.shape[1], x.shape[0])\nz = randn(x.shape[1:]).sum()")
    assert r.variables["y"].shape == (3, 4)
    assert message("x = randn(2)\ns = x.shape").message.endswith("unpack it instead, like `n, d = x.shape`")
    assert "index it with a whole number from -2 to 1" in message("x = randn(2, 3)\nn = x.shape[2]").message


def test_index_with_none_and_ellipsis():
    r = evaluate("x = randn(2, 3, 4)\na = x[None]\nb = x[..., 0]\nc = x[0, ..., None]\nd = x[:, None, 1]")
    assert [r.variables[k].shape for k in "abcd"] == [(1, 2, 3, 4), (2, 3), (3, 4, 1), (2, 1, 4)]
    assert "single ellipsis" in message("x = randn(2)\ny = x[..., ...]").message


def test_a_tensor_of_labels_picks_elements_as_in_pytorch():
    """``logp[[0, 1, 2, 3], y]`` (issue 17 item 7): PyTorch's label picking, grads as central differences give."""
    text = ("y = tensor([2, 0, 1, 1], requires_grad=False)\nlogits = randn(4, 3)\n"
            "logp = log_softmax(logits, axis=-1)\nloss = -logp[[0, 1, 2, 3], y].mean()")
    program = compile_program(text)
    r = program.run()
    logits = r.variables["logits"].data
    expected = F.cross_entropy(Tensor(logits), [2, 0, 1, 1]).item()
    assert r.output.item() == pytest.approx(expected, rel=1e-12)
    r.output.backward()

    def loss(x):
        return Tensor(program.run(inputs={"logits": x.data}).output.data)

    numeric = numerical_vjp(loss, [Tensor(logits.copy())], 1.0, 1e-6)[0]
    np.testing.assert_allclose(r.variables["logits"].grad, numeric, atol=1e-8)
    assert "loss = -logp[np.array([0, 1, 2, 3], dtype=np.int64), y].mean()" in program.to_python()
    # a tensor alone, a mask known before running, and the refusals, each pointing at the index
    assert evaluate("x = randn(5)\ni = tensor([4, 0, 4], requires_grad=False)\nz = x[i]").output.shape == (3,)
    assert evaluate("x = tensor([1.0, -2.0, 3.0])\nz = x[x > 0]").output.shape == (2,)
    err = message("x = randn(3)\ni = randn(2)\nz = x[i]")
    assert "cannot be a tensor that requires grad" in err.message and (err.line, err.col) == (3, 7)
    halves = "x = randn(2, 3)\ni = tensor([1.5, 0], requires_grad=False)\nz = x[[0, 1], i]"
    assert "whole numbers" in message(halves).message
    assert "out of bounds" in message("x = randn(3)\nz = x[tensor([5, 0], requires_grad=False)]").message


# ---- the Program: compiled once, run many times -----------------------------------------------------
def test_a_program_runs_again_with_new_inputs_without_parsing(monkeypatch):
    program = compile_program("W = randn(2, 3)\nx = [1.0, 2.0, 3.0]\ny = (W @ x).sum()")
    assert program.inputs == {"W": (2, 3), "x": (3,)}
    first = program.run()
    monkeypatch.setattr(ast, "parse", lambda *a, **k: pytest.fail("parsed again"))
    again = program.run()
    np.testing.assert_array_equal(again.variables["W"].data, first.variables["W"].data)  # same draws
    assert again.output is not first.output and again.variables["W"] is not first.variables["W"]
    nudged = program.run(inputs={"x": [0.0, 0.0, 1.0]})
    assert nudged.output.item() == pytest.approx(first.variables["W"].data[:, 2].sum())
    assert program.run(seed=5).variables["W"].data.tolist() != first.variables["W"].data.tolist()


def test_run_refuses_unknown_names_wrong_shapes_and_changes_to_shapes():
    program = compile_program("n = 3\nx = randn(n, 2)\n\ny = (x * n).sum()")
    assert program.fixed == {"n": (2, program.fixed["n"][1])}
    with pytest.raises(ExpressionError, match="'z' is not an input of this program"):
        program.run(inputs={"z": 1.0})
    with pytest.raises(ExpressionError, match=r"shape \(2,\), not \(3, 2\)") as info:
        program.run(inputs={"x": [1.0, 2.0]})
    assert (info.value.line, info.value.col) == (2, 5)
    with pytest.raises(ExpressionError, match="sets a shape, an index or an axis \\(line 2\\), so it stays 3"):
        program.run(inputs={"n": 4.0})
    assert program.run(inputs={"n": 3.0}).output.shape == ()


def test_a_program_can_be_pickled_and_copied():
    program = compile_program("x = randn(30)\nW = zeros(30, 30) + 1\ny = (W @ x).relu().sum()")
    for clone in (pickle.loads(pickle.dumps(program)), copy.deepcopy(program)):
        assert isinstance(clone, Program)
        np.testing.assert_array_equal(clone.run().output.data, program.run().output.data)


def test_runtime_errors_point_at_the_operation():
    program = compile_program("x = randn(2, 3)\ny = randn(2)\nloss = cross_entropy(x, y)")
    with pytest.raises(ExpressionError, match="labels must be whole class numbers") as info:
        program.run()
    assert (info.value.line, info.value.col) == (3, 8)


# ---- costs, predicted ---------------------------------------------------------------------------------
BUDGET_PROGRAMS = [
    "x = randn(200, 300)\nW = randn(300, 100)\nh = (x @ W).relu()\ny = h.softmax(axis=1).log().mean()",
    "x = randn(100000)\ny = x[0] + x[1] + x[2] + x[3] + x[4]",
    "x = randn(300, 1)\nb = randn(1, 400)\ny = (maximum(x, b) * x).std(axis=0).sum()",
    "x = randn(500, 400)\ny = where(x > 0, x, x * 0.1).var() + x.max(axis=1).sum()",
    "x = randn(50, 40, 30)\ny = x.transpose(2, 0, 1).reshape(30, -1).unsqueeze(0).squeeze().sum(axis=1).sum()",
    "x = randn(300, 200)\ny = gelu(gelu(silu(x)))\nz = cross_entropy(y, arange(300) * 0) + mse_loss(y, x)",
]


@pytest.mark.parametrize("text", BUDGET_PROGRAMS)
def test_predicted_costs_bound_what_forward_and_backward_allocate(text):
    program = compile_program(text)
    costs = program.costs
    assert_costs_bound_the_run(program)
    tracemalloc.start()
    backward_steps(program.run().output)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    total = costs.forward_elements + costs.backward_elements + costs.stepper_elements
    assert peak <= 8 * total + 2**20, (peak, costs)


def test_costs_are_exposed_and_add_up():
    costs = compile_program("x = randn(10, 20)\nW = randn(20, 5)\ny = (x @ W).sum()").costs
    assert costs.matmul_work == 10 * 20 * 5
    assert costs.forward_elements == 200 + 100 + 50 + 1
    assert costs.nodes == 4
    # backward: each node's grad, and each VJP's output (matmul: dX, dW; sum: a dense (10, 5))
    assert costs.backward_elements == (200 + 100) + (50 + 200 + 100) + (1 + 50)


@pytest.mark.parametrize(("text", "where", "words"), [
    ("x = zeros(0, 100000000)\ny = x.mean(axis=0)", (2, 5), "100,000,000 elements (shape (100000000,)); the limit"),
    ("x = zeros(0, 300000000)\ny = x.sum(axis=0, keepdims=True)", (2, 5), "300,000,000 elements"),
    ("x = randn(1000000)\ny = " + " + ".join(["x[0]"] * 40), (2, None), "gradient numbers in total (the limit is 30"),
    ("x = randn(1000, 1)\ny = x.unsqueeze(0) * randn(1001, 1, 1)", (2, 5), "1,001,000 elements"),
    ("x = randn(1000, 1000)\nW = randn(1000, 1000)\ny = linear(x, W)\nz = linear(y, W)", (4, 5), "multiply-adds"),
])
def test_budgets_say_what_is_too_big_where_and_the_limit(text, where, words):
    error = message(text)
    assert words in error.message and "limit" in error.message
    assert error.line == where[0] and (where[1] is None or error.col == where[1])


@pytest.mark.parametrize(("text", "where"), [
    ("y = zeros(10**15, 10**15, 10**15, 0)", (1, 5)),
    ("y = randn(0, 10**9, 10**9)", (1, 5)),
    ("x = randn(3)\ny = ones((10**15, 10**15, 0))", (2, 5)),
])
def test_an_empty_tensor_with_an_enormous_dimension_is_refused_with_its_place(text, where):
    """Issue 23 item 6: NumPy's own 'array is too big' came through with no line or column."""
    error = message(text)
    assert (error.line, error.col) == where
    assert "its dimensions other than 0 multiply to 1,000,000,000,000,000" in error.message
    assert f"more than the {msg.MAX_SPAN:,} a shape may span" in error.message


def test_the_stepper_budget_is_checked_apart():
    text = "x = randn(1000000)\ny = " + " + ".join(["x[0]"] * 12)
    program = compile_program(text)  # fine for forward and backward
    assert program.costs.stepper_elements > msg.MAX_STEPPER_ELEMENTS
    with pytest.raises(ExpressionError, match="Backward Stepper would record") as info:
        program.check_stepper()
    assert info.value.line == 2 and "`x[0]`" in info.value.message and "20,000,000" in info.value.message
    compile_program("x = randn(1000)\ny = (x * 2).sum()").check_stepper()  # small: fine
    from explorer.program import check
    from explorer.program import run as program_run

    with pytest.raises(ExpressionError, match="Backward Stepper would record"):
        program_run.step_program(text)  # the Stepper's page refuses it before recording a single step
    assert check.analyse_program(text).checks  # the Explorer still shows it


def test_a_parser_give_up_is_reported_on_its_own_line():
    chain = "y = x" + ".T" * 3000
    for line, text in ((2, "x = randn(2, 2)\n" + chain), (3, "a = 1\nx = randn(2, 2)\n" + chain + "\nz = 1")):
        error = message(text)
        assert (error.line, error.col) == (line, 1), error
        assert "nested too deeply" in error.message


# ---- names from elsewhere -----------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "words", "col"), [
    ("x = torch.randn(3)", "`torch` is not available here; did you mean `randn`?", 5),
    ("x = np.array([1.0])", "`np` is not available here; did you mean `tensor`?", 5),
    ("y = F.relu(tensor([1.0]))", "`F` is not available here; did you mean `relu`?", 5),
    ("x = math.pi", "`math` is not available here", 5),
    ("x = torch", "`torch` is not available here", 5),
    ("x = randn(3)\ny = x.view(3)", "unknown method '.view()' — here it is `reshape`", 7),
    ("x = randn(3)\ny = x.clamp(0, 1)", "here it is `clip`", 7),
    ("x = cat([randn(2)])", "unknown function 'cat' — here it is `concat`", 5),
    ("x = randn(3)\ny = x.shape()", "'.shape' cannot be called", 7),
])
def test_names_from_pytorch_and_numpy_say_what_to_write(text, words, col):
    error = message(text)
    assert words in error.message and error.col == col


def test_autograd_expr_is_a_facade_over_the_language():
    import autograd.expr as expr

    assert expr.evaluate is evaluate and expr.to_python is to_python and expr.ExpressionError is ExpressionError
    assert issubclass(ExpressionError, ValueError)
    result = expr.evaluate("a = -4.0\nb = 2.0\ng = ((a + b) ** 2 + (a * b + b ** 3).relu()).sum()")
    assert list(result.variables) == ["a", "b", "g"] and result.output.item() == 4.0


def test_limits_live_in_messages():
    assert msg.MAX_ELEMENTS == 1_000_000 and msg.MAX_NODES == 5_000 and msg.MAX_CHARS == 10_000
    # forward and backward together stay far under a gigabyte of float64
    assert 8 * (msg.MAX_TOTAL_ELEMENTS + msg.MAX_BACKWARD_ELEMENTS) < 2**30 * 0.5
    assert math.isclose(lib.CONSTANTS["pi"], math.pi)


def test_the_explorers_check_skips_only_the_inputs_that_set_a_shape():
    from explorer.program import check

    analysis = check.analyse_program("n = 3\nx = randn(n, 2)\ny = (x * n).sum()")
    rows = {row.name: row for row in analysis.checks}
    assert rows["x"].ok is True and rows["x"].checked == 6
    assert rows["n"].ok is None and "sets a shape" in rows["n"].note


# ---- data: constructors with requires_grad=False ----------------------------------------------------
DATA_PROGRAM = """
X = tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 0.0]], requires_grad=False)
y = tensor([[1.0], [0.0], [1.0]], requires_grad=False)
W = [[0.5, -1.0]]
b = [0.1]
loss = binary_cross_entropy_with_logits(linear(X, W, b), y)
"""


def test_requires_grad_false_makes_named_data_that_is_not_an_input():
    program = compile_program(DATA_PROGRAM)
    assert program.inputs == {"W": (1, 2), "b": (1,)}  # X and y are data: run(inputs=...) cannot replace them
    result = program.run()
    result.output.backward()
    X, y, W, b = (result.variables[name] for name in ("X", "y", "W", "b"))
    for data in (X, y):
        assert data.is_leaf and not data.requires_grad and data.grad is None and data.name in ("X", "y")
    kinds = {node.name: node.kind for node in trace(result.output).nodes if node.name}
    assert kinds == {"X": "const", "y": "const", "W": "input", "b": "input", "loss": "output"}
    # The grads are BCE's closed form: dZ = (sigmoid(Z) - Y) / N, dW = dZᵀ X, db = Σ dZ.
    Xd, yd = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.0]]), np.array([[1.0], [0.0], [1.0]])
    dz = (1 / (1 + np.exp(-(Xd @ np.array([[0.5], [-1.0]]) + 0.1))) - yd) / 3
    np.testing.assert_allclose(W.grad, dz.T @ Xd, rtol=1e-12)
    np.testing.assert_allclose(b.grad, dz.sum(axis=0), rtol=1e-12)
    with pytest.raises(ExpressionError, match="'X'"):
        program.run(inputs={"X": np.zeros((3, 2))})


@pytest.mark.parametrize("name", lib.CONSTRUCTORS)
def test_every_constructor_takes_requires_grad(name):
    call = {"tensor": "tensor([[1.0, 2.0], [3.0, 4.0]]", "eye": "eye(3", "arange": "arange(4"}.get(name, f"{name}(2, 3")
    given = evaluate(f"a = {call})\nb = {call}, requires_grad=True)\nc = {call}, requires_grad=False)", seed=5)
    a, b, c = (given.variables[k] for k in "abc")
    assert a.requires_grad and b.requires_grad and set(given.inputs) == {"a", "b"}  # True is the default
    assert not c.requires_grad and c.is_leaf and c.name == "c"
    plain = evaluate(f"a = {call})\nb = {call})\nc = {call})", seed=5)  # the same numbers, random draws too
    for k in "abc":
        np.testing.assert_array_equal(given.variables[k].data, plain.variables[k].data)


def test_whole_numbers_as_data_make_an_integer_tensor_as_in_pytorch():
    # labels stay labels: data (requires_grad=False) of whole numbers is int64, drawn and exported as such;
    # without the keyword a tensor is an input, float64 as API.md fixes for integer input
    text = ("logits = [[2.0, 1.0, 0.1], [0.5, 2.5, -1.0]]\ny = tensor([0, 2], requires_grad=False)\n"
            "loss = cross_entropy(logits, y)")
    r = evaluate(text)
    y = r.variables["y"]
    assert y.dtype == np.int64 and not y.requires_grad and y.is_leaf and set(r.inputs) == {"logits"}
    r.output.backward()
    assert r.variables["logits"].grad.shape == (2, 3)
    assert "y = Tensor(np.array([0, 2]), dtype='int64')" in to_python(text)
    scalar = evaluate("n = tensor(3, requires_grad=False)\nw = 2.0\nz = w * n")
    assert scalar.variables["n"].dtype == np.int64 and scalar.output.dtype == np.float64
    assert evaluate("x = tensor([1, 2.5], requires_grad=False)").variables["x"].dtype == np.float64, "a float: float"
    for text in ("x = tensor([1, 2])", "x = tensor([1, 2], requires_grad=True)"):
        x = evaluate(text + "\ny = (x * x).sum()")
        x.output.backward()
        given = x.variables["x"]
        assert given.dtype == np.float64 and given.requires_grad and "x" in x.inputs, text
        np.testing.assert_array_equal(given.grad, [2.0, 4.0])
    # the script it exports runs as the program does: tests/language/test_expr.py's INTEGER_LABELS


def test_data_in_the_python_export_and_inline():
    script = to_python(DATA_PROGRAM)
    assert "X = Tensor(np.array(" in script and "requires_grad=True" not in script.split("W = ")[0]
    r = evaluate("w = [2.0]\nz = (w * tensor([3.0], requires_grad=False)).sum()")
    r.output.backward()
    np.testing.assert_array_equal(r.variables["w"].grad, [3.0])


@pytest.mark.parametrize(("text", "words", "at"), [
    ("x = tensor([1.0], requires_grad=1)", "takes True or False, not the number 1", "1)"),
    ("x = tensor([1.0], requires_grad=None)", "takes True or False, not None", "None"),
    ("a = randn(2)\nx = ones(2, requires_grad=a)", "takes True or False, not a tensor", "a)"),
    ("x = zeros(2, dtype=1)", "zeros() takes no keyword 'dtype' (it takes requires_grad=...)", "dtype"),
    ("x = eye(2, requires_grad=False, requires_grad=True)", "is given twice", "requires_grad=T"),
    ("x = randn(2).sum(axis=0, axis=0)", "keyword 'axis' is given twice", "axis=0)"),
    ("x = relu(ones(2), requires_grad=False)", "keyword 'requires_grad' is not allowed here", "requires_grad"),
    ("x = tensor(requires_grad=False)", "tensor() takes one number", "tensor"),
    ("x = zeros(10**4, 10**4, requires_grad=False)", "100,000,000 elements", "zeros"),
])
def test_requires_grad_mistakes_say_what_and_where(text, words, at):
    error = message(text)
    last = text.splitlines()[-1]
    assert words in error.message
    assert (error.line, error.col) == (len(text.splitlines()), last.index(at) + 1)
