"""The Practice page's session keys, declared once (see explorer/keys.py)."""

from __future__ import annotations

PROGRAM = "practice_program"  # the exercise's program text, kept in step with ?program=
ANSWERS = "practice_answers"  # the answer lines, kept in step with ?answers=
EDITOR = "practice_editor"  # the answers' editor (its state: the text the browser sent)
PROGRAM_EDITOR = "practice_program_editor"  # the program's text area (a teacher's own exercise)
EXERCISE = "practice_exercise"  # the exercise box
HINT_FOR = "practice_hint_for"  # the tensor whose hint is asked
HINTS = "practice_hints"  # {tensor name: how many hint steps shown}
REDRAWS = "practice_redraws"  # (program, answers, the re-check's result)
GRAPH = "practice_graph"  # the graph view
STARTED = "practice_started"  # the program whose answers were started (its output line given)
EDITOR_FOR = "practice_program_editor_for"  # the program the program editor was last filled with
FAILED = "practice_failed"  # what a button's work raised, said on the next run
EDITOR_SESSION = "practice_editor_session"  # one random value per session: the editor sees a reconnect to another
EDITOR_VERSION = "practice_editor_version"  # grows when the server writes the answers: the editor takes them
ANSWERS_SHOWN = "practice_answers_shown"  # (program, answers) the editor was last sent
FIRST_BAD = "practice_first_bad"  # the node id of the first answer judged wrong (the graph selects it)
SELECT_SEQ = "practice_select_seq"  # grows when FIRST_BAD changes: the graph view applies the selection
TYPED = "practice_typed"  # the editor sent its text on this run: the link (maybe a stale echo) does not undo it
