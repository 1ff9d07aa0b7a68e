"""The engine's tests (autograd/): tensors, ops, graphs, Jacobians, forward mode, nn and optimisers."""
