"""Tables and helpers the test modules share (no tests here)."""
