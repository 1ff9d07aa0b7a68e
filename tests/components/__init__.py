"""The components' server-side tests (components/)."""
