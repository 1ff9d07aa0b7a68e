"""The Training Playground's tests (explorer/playground/): data, training, the controller, settings, files."""
