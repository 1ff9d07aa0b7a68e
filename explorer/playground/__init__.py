"""The Training Playground's room: controller, training, data sets, layer health, the catalogue of parts,
settings, the step graph, model files and run snapshots."""
