"""The explorer's tests (explorer/), one folder per room."""
