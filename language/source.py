"""Reading a program: limits on the raw text, `ast.parse` (which only parses), and positions.

Positions: `ExpressionError.line` and `.col` are 1-based; `col` counts characters (not bytes) from the
start of the line; `end_col` (1-based, exclusive) is set when the culprit ends on the same line.
"""

import ast
import contextlib
import io
import re
import tokenize

from language import messages as msg

_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # the same line breaks as Python's tokenizer


class ExpressionError(ValueError):
    """What is wrong with a program, and where: `line`, `col` (1-based characters), `end_col` (or None)."""

    def __init__(self, message: str, line: int = 1, col: int = 1, end_col: int | None = None):
        self.message = message
        self.line = line
        self.col = col
        self.end_col = end_col
        super().__init__(f"line {line}, col {col}: {message}")


class Source:
    """The program text, and the AST's positions (UTF-8 bytes) turned into 1-based characters."""

    def __init__(self, text: str):
        if not isinstance(text, str):
            raise TypeError(msg.NOT_A_STR.format(type(text).__name__))
        self.text = text
        self.lines = _LINE_BREAK.split(text)
        self._ascii = [row.isascii() for row in self.lines]

    def char_col(self, line: int, byte_offset: int) -> int:
        if 0 < line <= len(self.lines) and self._ascii[line - 1]:
            return byte_offset + 1  # NOTE: the common case, and a fast one: one byte per character
        row = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return len(row.encode("utf-8")[:byte_offset].decode("utf-8", "ignore")) + 1

    def place(self, node: ast.AST) -> tuple[int, int, int | None]:
        """(line, col, end_col) of a node."""
        line = node.lineno
        col = self.char_col(line, node.col_offset)
        end_col = self.char_col(line, node.end_col_offset) if node.end_lineno == line else None
        return line, col, end_col

    def error(self, node: ast.AST, message: str) -> ExpressionError:
        return ExpressionError(message, *self.place(node))

    def error_at_index(self, index: int, message: str) -> ExpressionError:
        before = self.text[:index]
        line = len(_LINE_BREAK.findall(before)) + 1
        col = index - max(before.rfind("\n"), before.rfind("\r"))
        return ExpressionError(message, line, col, col + 1)

    def quote(self, node: ast.AST) -> str:
        """The node's source text on one line, shortened to 60 characters (for messages)."""
        if getattr(node, "end_lineno", None) is None:
            return ""
        rows = [row.encode("utf-8") for row in self.lines[node.lineno - 1 : node.end_lineno]]
        if not rows:
            return ""
        rows[-1] = rows[-1][: node.end_col_offset]
        rows[0] = rows[0][node.col_offset :]
        segment = " ".join(b" ".join(rows).decode("utf-8", "replace").split())
        return segment if len(segment) <= 60 else segment[:57] + "..."


def parse(source: Source) -> ast.Module:
    """Limits on the raw text, then `ast.parse` with friendly syntax errors, then the depth limit."""
    text = source.text
    if len(text) > msg.MAX_CHARS:
        raise source.error_at_index(msg.MAX_CHARS, msg.too_long())
    if "\0" in text:
        raise source.error_at_index(text.index("\0"), msg.NULL_BYTE)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise source.error_at_index(exc.start, msg.NOT_TEXT) from None
    _check_brackets(source)
    try:
        tree = ast.parse(text, mode="exec")
    except SyntaxError as exc:
        # NOTE: Python refuses an integer literal of more than 4,300 digits with its own advice
        # ("use sys.set_int_max_str_digits()"); the language's words for a huge integer instead
        if exc.msg.startswith("Exceeds the limit"):
            raise _huge_literal(source, exc) from None
        raise _syntax_error(exc) from None
    except (RecursionError, MemoryError):
        raise _too_deep_to_read(source) from None
    _check_depth(tree, source)
    return tree


def _check_brackets(source: Source) -> None:
    depth = 0
    in_comment = False
    for index, char in enumerate(source.text):
        if char in "\r\n":
            in_comment = False
        elif in_comment:
            continue
        elif char == "#":
            in_comment = True
        elif char in "([{":
            depth += 1
            if depth > msg.MAX_BRACKET_DEPTH:
                raise source.error_at_index(index, msg.brackets_too_deep())
        elif char in ")]}":
            depth -= 1


def _huge_literal(source: Source, exc: SyntaxError) -> ExpressionError:
    """The language's error for an integer literal too long for Python to read, at the literal (the tokenizer
    finds it: it does not convert numbers)."""
    line, col, end = exc.lineno or 1, max(exc.offset or 1, 1), None
    with contextlib.suppress(tokenize.TokenError, SyntaxError, IndentationError):
        for token in tokenize.generate_tokens(io.StringIO(source.text).readline):
            if token.type == tokenize.NUMBER and len(token.string) > 4300 and token.start[0] == token.end[0]:
                line, col, end = token.start[0], token.start[1] + 1, token.end[1] + 1
                break
    return ExpressionError(msg.HUGE_INT, line, col, end)


def _syntax_error(exc: SyntaxError) -> ExpressionError:
    line = exc.lineno or 1
    col = max(exc.offset or 1, 1)
    end_col = exc.end_offset if exc.end_lineno == line and exc.end_offset and exc.end_offset > col else None
    return ExpressionError(msg.syntax_error(exc.msg), line, col, end_col)


def _too_deep_to_read(source: Source) -> ExpressionError:
    """Python's parser gave up (a chain such as x.T.T.T... thousands long): find the line that did it.

    Top-level statements parse independently, so each logical line (found by the tokenizer, which
    does not recurse) is parsed alone until one fails the same way.
    """
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source.text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        tokens = []
    start = None
    for token in tokens:
        if start is None and token.type not in (tokenize.NL, tokenize.COMMENT, tokenize.NEWLINE,
                                                tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER):
            start = token.start
        if token.type == tokenize.NEWLINE and start is not None:
            statement = "\n".join(source.lines[start[0] - 1 : token.end[0]])
            try:
                ast.parse(statement.lstrip(), mode="exec")
            except (RecursionError, MemoryError):
                return ExpressionError(msg.TOO_DEEP_TO_READ, start[0], 1)
            except SyntaxError:
                pass
            start = None
    return ExpressionError(msg.TOO_DEEP_TO_READ, 1, 1)


def _check_depth(tree: ast.Module, source: Source) -> None:
    """Rejects trees deeper than MAX_DEPTH; iterative, so it is safe on any tree `ast.parse` returns."""
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > msg.MAX_DEPTH and hasattr(node, "lineno"):
            raise source.error(node, msg.tree_too_deep())
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
