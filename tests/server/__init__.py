"""The server side's tests (server/, deploy/): the run store, the sandbox, the launcher."""
