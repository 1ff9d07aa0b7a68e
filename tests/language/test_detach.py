"""x.detach() and round() in the language: the forward passes, backward stops (0 flows through detach), and the
straight-through estimator x + (round(x) - x).detach() gives round(x) forward and the identity's gradient backward.
Checked by hand, against the engine's own Tensor.detach(), against PyTorch where installed, and in forward mode."""

import numpy as np
import pytest

from autograd import Tensor
from autograd import functional as F
from autograd.func import jvp
from language import ExpressionError, compile_program

X = [[0.3, 1.7, -2.6], [2.2, -0.4, 0.9]]
STE = f"x = {X}\nq = x + (round(x) - x).detach()\nL = (q * q * x).sum()"


def run(text):
    result = compile_program(text).run()
    result.output.backward()
    return result


def test_detach_passes_the_value_and_stops_the_gradient():
    r = run(f"x = {X}\nd = (x * 2).detach()\nL = (d * x).sum()")
    x = np.array(X)
    np.testing.assert_array_equal(r.variables["d"].data, 2 * x)
    assert r.variables["d"].op == "detach" and r.variables["d"].parents[0].op == "mul"
    np.testing.assert_array_equal(r.variables["x"].grad, 2 * x)  # dL/dx = d only: nothing comes back through d
    # the engine's Tensor.detach() (a new leaf) gives the same grads
    t = Tensor(x, requires_grad=True)
    (((t * 2).detach()) * t).sum().backward()
    np.testing.assert_array_equal(r.variables["x"].grad, t.grad)


def test_a_tensor_reached_only_through_detach_gets_zero():
    r = run(f"x = {X}\nL = (x.detach() * 3).sum() + 0 * randn()")
    np.testing.assert_array_equal(r.variables["x"].grad, np.zeros((2, 3)))


def test_the_straight_through_estimator_by_hand():
    r = run(STE)
    x = np.array(X)
    q = np.round(x)
    np.testing.assert_array_equal(r.variables["q"].data, q)
    # L = sum(q² x) with dq/dx = 1 (straight through): dL/dx = 2 q x + q²
    np.testing.assert_allclose(r.variables["x"].grad, 2 * q * x + q * q, rtol=1e-14)


def test_round_alone_has_zero_gradient_and_rounds_half_to_even():
    r = run("x = [0.5, 1.5, 2.5, -0.5, 0.2]\nL = (round(x) * x.round()).sum() + (x * 0).sum()")
    np.testing.assert_array_equal(r.variables["x"].grad, np.zeros(5))
    np.testing.assert_array_equal(F.round(Tensor([0.5, 1.5, 2.5, -0.5])).data, [0.0, 2.0, 2.0, -0.0])


def test_forward_mode_through_detach_is_zero():
    x = Tensor(np.array(X))
    v = Tensor(np.ones((2, 3)))
    _, tangent = jvp(lambda a: a + F.detach(F.round(a) - a), (x,), (v,))
    np.testing.assert_array_equal(tangent.data, np.ones((2, 3)))  # the straight-through estimator's J is I
    _, tangent = jvp(lambda a: F.detach(a * 3), (x,), (v,))
    np.testing.assert_array_equal(tangent.data, np.zeros((2, 3)))


def test_detach_takes_no_arguments():
    with pytest.raises(ExpressionError):
        compile_program(f"x = {X}\ny = x.detach(1)").run()


def test_against_pytorch():
    torch = pytest.importorskip("torch")
    r = run(STE + "\nM = (x.detach() * x).sum() + L")
    t = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    q = t + (torch.round(t) - t).detach()
    ((t.detach() * t).sum() + (q * q * t).sum()).backward()
    np.testing.assert_allclose(r.variables["x"].grad, t.grad.numpy(), rtol=1e-13)
