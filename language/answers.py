"""Answer lines: a learner's backward pass, ``d<name> = …`` one line each, in the same safe language as programs.

    answers = compile_answers(text, scope)      # scope: name -> Given(shape, dtype kind, known value or None)
    answers.lines                               # one Line per statement: its target, reads, error (if any)
    results = answers.run(values)               # name -> array for the scope; per line an array or an error

The scope holds the program's forward values by name (constants: no grad, nothing is recorded); each line may
also use the names assigned above it. Lines are checked one by one, so a mistake on one line leaves the others
checked: a line that cannot be read or checked carries its ExpressionError (message, line and column); a line
that reads a name whose line failed is not run, and says which. Everything else is the language's own
(language/check.py): the same tables, the same limits on size and cost, nothing evaluated as Python.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

import numpy as np

from autograd import Tensor, no_grad
from language import messages as msg
from language.check import UNKNOWN, Checker, Value, _Node
from language.emit import code_name
from language.program import Call, Leaf, Slot, Store, _call
from language.source import ExpressionError, Source, parse

#: At most this many answer lines (a program has at most MAX_NODES tensors; a page asks for far fewer).
MAX_LINES = 2_000
#: At most this many characters of answers: a program's backward written out is longer than the program
#: (each tensor's line names its uses), so five programs' worth; every array an answer makes is charged as a
#: program's are.
MAX_CHARS = 5 * msg.MAX_CHARS


@dataclass(frozen=True)
class Given:
    """A forward value the answers may read: its shape, its dtype's kind ('f', 'i', 'b'), its value if fixed."""

    shape: tuple
    kind: str = "f"
    known: np.ndarray | None = None


@dataclass
class Line:
    """One statement of the answers: ``target = …`` (or ``+=``), on line ``line``."""

    line: int
    target: str
    text: str
    reads: tuple = ()  # names assigned by earlier lines that this one reads (its own target too, for +=)
    error: ExpressionError | None = None
    shape: tuple | None = None  # predicted before running
    blocked_by: str = ""  # an earlier target whose line has an error, which this line reads
    start: int = 0  # its instructions: [start, end)
    end: int = 0


@dataclass
class Outcome:
    """A line run: its value (an array) or why not (an ExpressionError, or the earlier line it needed)."""

    value: np.ndarray | None = None
    error: ExpressionError | None = None
    blocked_by: str = ""  # the name whose line failed, when this line could not run because of it


@dataclass
class Answers:
    text: str
    lines: list
    instructions: tuple
    slots: int
    inputs: dict  # scope name -> its slot
    problems: list = field(default_factory=list)  # errors not tied to one answer (text too long)

    def run(self, values: dict, seed: int = 0) -> list:
        """Each line's Outcome, in order, with ``values`` (name -> array) for the scope."""
        slots = [None] * self.slots
        slots[0] = np.random.default_rng(seed)
        for name, slot in self.inputs.items():
            array = values[name]
            slots[slot] = Tensor._constant(array if isinstance(array, np.ndarray) else np.asarray(array))
        failed: dict[str, str] = {}  # a name -> the name whose failure it carries
        current: dict[str, int] = {}
        outcomes = []
        with no_grad(), np.errstate(all="ignore"):
            for line in self.lines:
                if line.error is not None:
                    failed[line.target] = line.target
                    outcomes.append(Outcome(error=line.error))
                    continue
                blocked = next((failed[r] for r in line.reads if r in failed), "")
                if blocked:
                    failed[line.target] = blocked
                    outcomes.append(Outcome(blocked_by=blocked))
                    continue
                try:
                    value = self._run(line, slots)
                except ExpressionError as exc:
                    failed[line.target] = line.target
                    outcomes.append(Outcome(error=exc))
                    continue
                failed.pop(line.target, None)
                current[line.target] = len(outcomes)
                outcomes.append(Outcome(value=value))
        return outcomes

    def _run(self, line: Line, slots: list):
        value = None
        for ins in self.instructions[line.start : line.end]:
            kind = type(ins)
            if kind is Call:
                args = [slots[a.index] if type(a) is Slot else a for a in ins.args]
                slots[ins.out] = _call(ins, args, self.text)
            elif kind is Store:
                value = slots[ins.value.index]
        data = value.data if isinstance(value, Tensor) else np.asarray(value)
        return data


class _AnswerChecker(Checker):
    """The language's checker with the forward values in scope, and constants kept as constants (no leaves)."""

    def stored(self, value: Value, node: ast.AST, name: str | None) -> Value:
        if value.kind == "tensor":
            return value
        if value.kind in ("number", "list", "array"):
            return self.tensor(value, node)
        return super().stored(value, node, name)


_NEW_STATEMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\s*\+?=(?!=)")


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """(first line number, text) of each statement: a line, with the next ones while a bracket is open."""
    rows = re.split(r"\r\n|\r|\n", text)
    out, start, buffer, depth = [], 0, [], 0
    for number, row in enumerate(rows, 1):
        code = row.split("#", 1)[0]
        if buffer and _NEW_STATEMENT.match(row):  # an unclosed bracket above: it does not swallow the next answer
            out.append((start, "\n".join(buffer)))
            buffer, depth = [], 0
        if not buffer:
            start = number
        buffer.append(row)
        depth += sum(code.count(c) for c in "([{") - sum(code.count(c) for c in ")]}")
        if depth <= 0:
            out.append((start, "\n".join(buffer)))
            buffer, depth = [], 0
    if buffer:
        out.append((start, "\n".join(buffer)))
    return out


def _moved(exc: ExpressionError, first: int) -> ExpressionError:
    return ExpressionError(exc.message, exc.line + first - 1, exc.col, exc.end_col)


def _target(statement: ast.stmt) -> str | None:
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
        return statement.targets[0].id
    if isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name):
        return statement.target.id
    return None


def compile_answers(text: str, scope: dict, protected: frozenset = frozenset()) -> Answers:
    """Checks every answer line of ``text`` against ``scope`` (name -> Given); never raises for a bad line.

    ``protected`` names (the program's own) may be read but not assigned.
    """
    if not isinstance(text, str):
        raise TypeError(msg.NOT_A_STR.format(type(text).__name__))
    source = Source(text)
    if len(text) > MAX_CHARS:
        error = source.error_at_index(MAX_CHARS, f"the answers are longer than {MAX_CHARS:,} characters")
        return Answers(text, [], (), 1, {}, problems=[error])
    parsed: list[tuple[int, str, ast.stmt | None, ExpressionError | None]] = []
    for first, chunk in _logical_lines(text):
        if not chunk.strip() or chunk.strip().startswith("#") and "\n" not in chunk.strip():
            continue
        try:
            tree = parse(Source(chunk))
        except ExpressionError as exc:
            parsed.append((first, chunk, None, _moved(exc, first)))
            continue
        ast.increment_lineno(tree, first - 1)
        for statement in tree.body:
            parsed.append((first, chunk, statement, None))
    if len(parsed) > MAX_LINES:
        error = ExpressionError(f"more than {MAX_LINES:,} answer lines", parsed[MAX_LINES][0], 1)
        return Answers(text, [], (), 1, {}, problems=[error])
    module = ast.Module(body=[s for _, _, s, _ in parsed if s is not None], type_ignores=[])
    checker = _AnswerChecker(source, module, seed=0)
    inputs = {}
    for name, given in scope.items():
        slot = Slot(checker.slots)
        checker.slots += 1
        inputs[name] = slot.index
        known = UNKNOWN if given.known is None else np.asarray(given.known)
        checker.scope[name] = Value("tensor", slot, code_name(name), tuple(given.shape), known=known, node=_Node())
    assigned: set[str] = set()
    failed: dict[str, int] = {}  # a target whose line has an error -> that line
    lines = []
    for first, chunk, statement, error in parsed:
        target = _target(statement) if statement is not None else None
        line = Line(first, target or "", chunk.strip())
        lines.append(line)
        if error is not None:
            line.error = error
            if line.target == "":
                line.target = _guess_target(chunk)
            continue
        if target is None:
            line.error = checker.fail(statement, "an answer is one line `d<name> = ...` (or `d<name> += ...`)")
            line.target = _guess_target(chunk)
            continue
        if target in protected:
            line.error = checker.fail(statement, f"'{target}' is the program's own tensor: an answer assigns "
                                                 f"'d{target}', not '{target}'")
            continue
        names = {n.id for n in ast.walk(statement) if isinstance(n, ast.Name)}
        reads = {n for n in names if n in assigned}
        if isinstance(statement, ast.AugAssign):
            reads.add(target)
        line.reads = tuple(sorted(reads))
        broken = sorted(n for n in names if n in failed and n not in assigned)
        if broken:
            line.error = checker.fail(statement, f"uses '{broken[0]}', whose line {failed[broken[0]]} has an error")
            line.blocked_by = broken[0]
            failed[target] = line.line
            continue
        mark, slots = len(checker.instructions), checker.slots
        try:
            value = checker.statement(statement, False)
        except ExpressionError as exc:
            del checker.instructions[mark:]
            checker.slots = slots
            line.error = exc
            failed[target] = line.line
            continue
        except (RecursionError, MemoryError):
            del checker.instructions[mark:]
            line.error = checker.fail(statement, msg.tree_too_deep())
            continue
        line.start, line.end = mark, len(checker.instructions)
        line.shape = value.shape
        assigned.add(target)
    instructions = tuple(i for i in checker.instructions if type(i) is not Leaf)
    if len(instructions) != len(checker.instructions):  # NOTE: _AnswerChecker makes no leaves; keep indices exact
        raise AssertionError("answers made a leaf")
    return Answers(text, lines, instructions, checker.slots, inputs)


def _guess_target(chunk: str) -> str:
    """The name before ``=`` of a line that could not be read (so its verdict lands on the right tensor)."""
    found = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*\+?=", chunk)
    return found.group(1) if found else ""


def replace_line(answers_text: str, target: str, new_line: str) -> str:
    """The answers with ``target``'s line (its first) replaced by ``new_line``, or ``new_line`` added at the end."""
    rows = answers_text.splitlines()
    for i, row in enumerate(rows):
        if _guess_target(row) == target:
            rows[i] = new_line
            return "\n".join(rows)
    return "\n".join([*rows, new_line]) if answers_text.strip() else new_line


def lines_of(answers_text: str, target: str) -> list[str]:
    """The answers' lines that assign ``target`` (``=`` or ``+=``), as typed."""
    return [row for row in answers_text.splitlines() if _guess_target(row) == target]


__all__ = ["Given", "Line", "Outcome", "Answers", "compile_answers", "replace_line", "MAX_LINES"]
