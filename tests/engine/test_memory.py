"""Training leaves no reference cycles: with Streamlit's post-run gc.collect off, memory is freed at once."""

import gc

import numpy as np

from autograd import Tensor
from autograd.nn import MLP, cross_entropy
from autograd.optim import Adam


def test_training_steps_create_no_cyclic_garbage():
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((64, 2)))
    y = rng.integers(0, 2, size=64)
    model = MLP([2, 16, 16, 2], activation="tanh", rng=rng)
    opt = Adam(model.parameters(), lr=0.01)
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(1_000):
            opt.zero_grad()
            loss = cross_entropy(model(x), y)
            loss.backward()
            opt.step()
        unreachable = gc.collect()
    finally:
        if was_enabled:
            gc.enable()
    assert unreachable == 0, f"1,000 steps left {unreachable} objects that only the cycle collector frees"
