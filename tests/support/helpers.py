"""Shared test helpers: a float64 central-difference gradient checker with a precise failure message,
micrograd's test program written with Tensors, and the traced graph of a program."""

from pathlib import Path

import numpy as np

from autograd import Tensor
from autograd.expr import evaluate
from autograd.gradcheck import numerical_vjp
from autograd.graph import trace

#: The repository's root, for the tests that read its files or run its app.
ROOT = Path(__file__).resolve().parents[2]


def leaves(*arrays, dtype=np.float64):
    """Fresh leaf Tensors (requires_grad=True) holding copies of `arrays`."""
    return [Tensor(np.array(a, dtype=dtype), requires_grad=True) for a in arrays]


def check_grads(op, fn, arrays, *, seed=0, eps=1e-6, atol=1e-6, rtol=1e-5):
    """Asserts that backward() through `fn(*tensors)` matches central differences for every input.

    `op` names the thing being checked in the failure message, which also names the input, the index
    and both values. The backward pass is seeded with a random cotangent, so the whole
    vector-Jacobian product is exercised, not only its sum. Returns the analytic gradients.
    """
    tensors = leaves(*arrays)
    out = fn(*tensors)
    cotangent = np.random.default_rng(seed).standard_normal(out.shape)
    out.backward(cotangent)
    numeric = numerical_vjp(fn, [Tensor(np.array(a, dtype=np.float64)) for a in arrays], cotangent, eps)
    analytic = []
    for k, (t, num) in enumerate(zip(tensors, numeric)):
        assert t.grad is not None, f"{op}: input {k} got no gradient (grad is None)"
        # NOTE: 0-d grads are checked for being np.ndarray (not NumPy scalars) in test_engine.py.
        grad = np.asarray(t.grad)
        assert grad.shape == t.shape, f"{op}: input {k} grad has shape {grad.shape}, data has {t.shape}"
        assert grad.dtype == t.dtype, f"{op}: input {k} grad has dtype {grad.dtype}, data has {t.dtype}"
        excess = np.abs(grad - num) - (atol + rtol * np.abs(num))
        if excess.size and excess.max() > 0:
            i = np.unravel_index(int(np.argmax(excess)), excess.shape)
            index = tuple(int(j) for j in i)
            raise AssertionError(
                f"{op}: gradient of input {k} (shape {t.shape}) at index {index}: "
                f"analytic {float(grad[i])!r} vs numerical {float(num[i])!r}"
            )
        analytic.append(grad)
    return analytic


def micrograd_tensors():
    """micrograd's test program (explorer.program.presets.MICROGRAD) written with Tensors: (a, b, g).

    Its known answers: g = 24.7041, dg/da = 138.8338, dg/db = 645.5773.
    """
    a = Tensor(-4.0, requires_grad=True, name="a")
    b = Tensor(2.0, requires_grad=True, name="b")
    c = a + b
    d = a * b + b**3
    c += c + 1
    c += 1 + c + (-a)
    d += d * 2 + (b + a).relu()
    d += 3 * d + (b - a).relu()
    e = c - d
    f = e**2
    g = f / 2.0
    g += 10.0 / f
    g.name = "g"
    return a, b, g


def traced(program: str):
    """The graph the engine builds for a program, after backward() (what the pages draw)."""
    result = evaluate(program)
    result.output.backward()
    return trace(result.output)


def fan_out_program(lines: int, per_line: int) -> str:
    """x feeding ``lines`` chains of ``per_line - 1`` adds each (the language has no loops: one line per chain)."""
    sums = "".join(f"y{k} = " + " + ".join(["x"] * per_line) + "\n" for k in range(lines))
    return "x = randn(4)\n" + sums + "y = (" + " + ".join(f"y{k}" for k in range(lines)) + ").sum()\n"


def program_or_skip(program: str, package: str, why: str) -> str:
    """The path of ``program``, for a test that runs it; without it the test skips, except under CI, where it
    fails (.ci/run installs Debian's ``package``, so a missing program there is a broken install, not a pass)."""
    import os
    import shutil

    import pytest

    path = shutil.which(program)
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"{program} is not installed, and CI must run {why} (Debian: apt-get install {package})",
                        pytrace=False)
        pytest.skip(f"{program} is not installed (Debian: apt-get install {package}); {why} did not run")
    return path


def node_or_skip(why: str) -> str:
    """The path of Node, for a test that runs JS (see program_or_skip)."""
    return program_or_skip("node", "nodejs", why)


def assert_costs_bound_the_run(program) -> None:
    """What the language's checker charged a compiled ``program`` (its costs) bounds what its run and backward really
    allocate (tracemalloc's peak, 8 bytes an element, 1 MB of slack), after a warm-up run (tables, caches)."""
    import tracemalloc

    costs = program.costs
    program.run()
    tracemalloc.start()
    result = program.run()
    result.output.backward()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak <= 8 * (costs.forward_elements + costs.backward_elements) + 2**20, (peak, costs)

