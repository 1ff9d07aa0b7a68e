"""The program room's tests (explorer/program/): explanations, the inspector, forward mode, costs, poking."""
