"""The optimiser race's tests (explorer/race/)."""
