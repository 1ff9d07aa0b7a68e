"""The Playground's session keys, declared once: see explorer/keys.py."""

from __future__ import annotations

PLAYGROUND = "pg"  # the page's Playground (controller.Playground): its network, its run, its settings
PROBLEMS = "pg_problems"  # what the link got wrong, said once
FULL = "pg_full"  # the next view update sends the layout and points, not only frames
VIEW = "pg_view"  # the live view (network, boundary, loss curve)
LIVE = "pg_live"
REPLAY = "pg_replay"
GRAPH = "pg_graph"  # the "this step's graph, live" toggle
GRAPH_PANEL = "pg_graph_panel"
STEP_GRAPH = "pg_step_graph"  # that graph's view
STEP_GRAPH_OPTIONS = "pg_graph_options"  # its pan and zoom
STEP_MEMORY = "pg_step_memory"  # that step's memory timeline (components/playground/step_memory.py)
STEP_MEMORY_SLIDER = "pg_step_memory_every"  # its slider: checkpoints every k layers
STEP_MEMORY_EVERY = "pg_step_memory_k"  # that k, kept while the panel is off (the slider's state goes with it)
GRAPH_ERROR = "pg_graph_error"
GOTO_EXPLORER = "pg_goto_explorer"  # the next run opens the step's program in the Explorer
FILE = "pg_file"  # the CSV uploader
UPLOAD_TASK = "pg_upload_task"  # the CSV's columns: classification or regression
UPLOAD_ERROR = "pg_upload_error"
MODEL_FILE = "pg_model_file"  # the model file uploader
MODEL_ERROR = "pg_model_error"


def setting(name: str) -> str:
    """The widget of the setting ``name`` (explorer/playground/settings.py's rows)."""
    return f"pg_{name}"


def choices_for(name: str) -> str:
    """The task whose choices the setting ``name``'s widget was drawn with (its choices depend on the task)."""
    return f"_pg_task_{name}"


DATASET, SEED = setting("dataset"), setting("seed")  # the two settings the page reads beside the form
