"""Backward twice, and zero_grad: a scene on the Stepper where grads accumulate across backward() calls."""
