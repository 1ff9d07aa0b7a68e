"""A program's error as the pages show it: the message led by its place, and a caret under the column."""

from __future__ import annotations


def error_report(program: str, error: Exception) -> tuple[str, str]:
    """What a page shows for a program that failed: the message, led by "Line L, column C: " when
    the error knows its place (an ExpressionError does), and the caret block under it ("" if none)."""
    line, col = getattr(error, "line", None), getattr(error, "col", None)
    where = f"Line {line}, column {col}: " if line else ""
    return where + str(getattr(error, "message", error)), caret_block(program, line, col)


def caret_block(text: str, line: int | None, col: int | None, width: int = 100) -> str:
    """The offending line of a program with a ``^`` under the column (both 1-based).

    A line longer than ``width`` characters is shown as the ``width`` around the column, cut
    ends marked with ``…`` (a 5,000-character line is not echoed whole).
    """
    lines = text.splitlines() or [""]
    if not line or line < 1 or line > len(lines):
        return ""
    source = lines[line - 1].expandtabs(4)
    col = max(1, min(col or 1, len(source) + 1))
    if len(source) > width:
        start = max(0, min(col - 1 - width // 2, len(source) - width))
        shown = source[start:start + width]
        head = "…" if start > 0 else ""
        tail = "…" if start + width < len(source) else ""
        col = col - start + len(head)
        source = head + shown + tail
    gutter = f"{line} | "
    return f"{gutter}{source}\n{' ' * (len(gutter) + col - 1)}^"
