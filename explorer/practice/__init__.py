"""Practice: the learner writes the backward pass, one answer line per tensor, and every tensor is checked."""
