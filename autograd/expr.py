"""The expression language typed into the explorer: parsed with `ast`, checked against a whitelist, evaluated.

    r = evaluate("a = -4.0\\nb = 2.0\\ng = ((a + b) ** 2 + (a * b + b ** 3).relu()).sum()")
    r.output, r.variables          # the last statement's Tensor; name -> Tensor in assignment order

Safety: the text is only ever parsed (`ast.parse`), never compiled or run. A whitelist walk of the tree
rejects anything outside the language before a single number is computed, and every operation goes
through explicit tables of allowed functions and methods (no `getattr` on user strings). Limits on text
size, nesting, tensor sizes, graph nodes and total work are checked before the work is done.

Positions: `ExpressionError.line` and `.col` are 1-based; `col` counts characters (not bytes) from the
start of the line; `end_col` (1-based, exclusive) is set when the culprit ends on the same line.
"""

import ast
import builtins
import difflib
import math
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from autograd import functional as F
from autograd.tensor import Tensor

__all__ = ["ExpressionError", "Result", "evaluate", "check", "to_python"]

MAX_CHARS = 10_000
MAX_BRACKET_DEPTH = 64
MAX_DEPTH = 100  # levels of the syntax tree (a + b + c + ... with 100 terms is 100 levels)
MAX_ELEMENTS = 1_000_000  # in one tensor
MAX_TOTAL_ELEMENTS = 10_000_000  # summed over every tensor the program creates
MAX_MATMUL_WORK = 1_000_000_000  # multiply-adds summed over every @ in the program
MAX_NODES = 5_000
MAX_INT = 10**15
MAX_DIMS = 6


class ExpressionError(ValueError):
    """What is wrong with a program, and where: `line`, `col` (1-based characters), `end_col` (or None)."""

    def __init__(self, message: str, line: int = 1, col: int = 1, end_col: int | None = None):
        self.message = message
        self.line = line
        self.col = col
        self.end_col = end_col
        super().__init__(f"line {line}, col {col}: {message}")


@dataclass(frozen=True)
class Result:
    """An evaluated program: the last statement's Tensor, every named Tensor (first-assignment order), the text."""

    output: Tensor
    variables: dict[str, Tensor]
    text: str
    inputs: dict[str, Tensor]  # name -> the leaf that requires grad made by the name's first literal assignment


# ---- what the language offers ----------------------------------------------------------------
@dataclass(frozen=True)
class _Spec:
    """One callable: the engine entry point and how the generated script spells it.

    `args` gives the kind of each leading positional argument: T a tensor, L integer labels or indices,
    S a list of tensors; later positional arguments and keywords are plain values (axis, shape, ...).
    `size` says how to predict the result's element count before computing it.
    `number` is the NumPy function used when the argument is a plain number (sqrt(8)).
    """

    call: Callable
    code: str
    args: str = "T"
    size: str = "same"  # same | broadcast | concat | embedding
    keywords: frozenset = frozenset()
    number: Callable | None = None


_AXIS = frozenset({"axis"})
_REDUCE = frozenset({"axis", "keepdims"})

_FUNCTIONS = {
    "relu": _Spec(F.relu, "F.relu"),
    "tanh": _Spec(F.tanh, "F.tanh"),
    "sigmoid": _Spec(F.sigmoid, "F.sigmoid"),
    "gelu": _Spec(F.gelu, "F.gelu"),
    "silu": _Spec(F.silu, "F.silu"),
    "softmax": _Spec(F.softmax, "F.softmax", keywords=_AXIS),
    "log_softmax": _Spec(F.log_softmax, "F.log_softmax", keywords=_AXIS),
    "exp": _Spec(F.exp, "F.exp", number=np.exp),
    "log": _Spec(F.log, "F.log", number=np.log),
    "sqrt": _Spec(F.sqrt, "F.sqrt", number=np.sqrt),
    "abs": _Spec(F.abs, "F.abs", number=np.abs),
    "mse_loss": _Spec(F.mse_loss, "F.mse_loss", "TT", "broadcast"),
    "binary_cross_entropy_with_logits": _Spec(
        F.binary_cross_entropy_with_logits, "F.binary_cross_entropy_with_logits", "TT", "broadcast"
    ),
    "cross_entropy": _Spec(F.cross_entropy, "F.cross_entropy", "TL"),
    "embedding": _Spec(F.embedding, "F.embedding", "TL", "embedding"),
    "concat": _Spec(F.concat, "F.concat", "S", "concat", _AXIS),
    "stack": _Spec(F.stack, "F.stack", "S", "concat", _AXIS),
    "where": _Spec(F.where, "F.where", "TTT", "broadcast"),
}

_METHODS = {  # the receiver is the first argument; `args` describes the ones after it
    "sum": _Spec(Tensor.sum, ".sum", "", keywords=_REDUCE),
    "mean": _Spec(Tensor.mean, ".mean", "", keywords=_REDUCE),
    "max": _Spec(Tensor.max, ".max", "", keywords=_REDUCE),
    "exp": _Spec(Tensor.exp, ".exp", ""),
    "log": _Spec(Tensor.log, ".log", ""),
    "sqrt": _Spec(Tensor.sqrt, ".sqrt", ""),
    "abs": _Spec(Tensor.abs, ".abs", ""),
    "relu": _Spec(Tensor.relu, ".relu", ""),
    "tanh": _Spec(Tensor.tanh, ".tanh", ""),
    "sigmoid": _Spec(Tensor.sigmoid, ".sigmoid", ""),
    "gelu": _Spec(Tensor.gelu, ".gelu", ""),
    "silu": _Spec(Tensor.silu, ".silu", ""),
    "softmax": _Spec(Tensor.softmax, ".softmax", "", keywords=_AXIS),
    "log_softmax": _Spec(Tensor.log_softmax, ".log_softmax", "", keywords=_AXIS),
    "reshape": _Spec(Tensor.reshape, ".reshape", ""),
    "transpose": _Spec(Tensor.transpose, ".transpose", ""),
    "masked_fill": _Spec(Tensor.masked_fill, ".masked_fill", "T", "broadcast"),
    "clip": _Spec(Tensor.clip, ".clip", "", keywords=frozenset({"lo", "hi"})),
}

_CONSTRUCTORS = ("tensor", "randn", "rand", "zeros", "ones", "eye", "arange")
_CONSTANTS = {"pi": math.pi, "e": math.e}
_ATTRIBUTES = ("T",)

_BINARY = {  # ast operator -> (symbol, function)
    ast.Add: ("+", operator.add), ast.Sub: ("-", operator.sub), ast.Mult: ("*", operator.mul),
    ast.Div: ("/", operator.truediv), ast.Pow: ("**", operator.pow), ast.MatMult: ("@", operator.matmul),
}
_COMPARE = {
    ast.Lt: ("<", operator.lt), ast.LtE: ("<=", operator.le), ast.Gt: (">", operator.gt),
    ast.GtE: (">=", operator.ge), ast.Eq: ("==", operator.eq), ast.NotEq: ("!=", operator.ne),
}

_HINTS = (  # statements and expressions outside the language -> what to tell the student
    ((ast.Import, ast.ImportFrom), "imports are not allowed: everything the language offers is already available"),
    ((ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda), "defining functions (def, lambda) is not allowed"),
    ((ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp),
     "loops and comprehensions are not allowed: tensor operations work on whole arrays (x * 2, x.sum())"),
    ((ast.If, ast.IfExp), "if is not allowed: use where(cond, a, b) to choose between values"),
    ((ast.BoolOp,), "`and` / `or` are not allowed: use comparisons and where(cond, a, b)"),
    ((ast.Delete,), "del is not allowed: assign a new value to the name instead"),
    ((ast.AnnAssign,), "type annotations are not allowed: write `name = expression`"),
    ((ast.NamedExpr,), "the walrus operator := is not allowed: assign on a line of its own"),
    ((ast.Starred,), "* unpacking is not allowed: pass the arguments one by one"),
    ((ast.JoinedStr,), "f-strings are not allowed: the language works with numbers and tensors only"),
    ((ast.Dict, ast.Set), "dictionaries and sets are not allowed"),
    ((ast.Slice,), "slices (a:b) are only allowed inside [ ]"),
)


def _hint(node: ast.AST) -> str:
    for types, message in _HINTS:
        if isinstance(node, types):
            return message
    kind = type(node).__name__
    return f"`{kind}` is not part of this language; a program is lines of `name = expression`"


def _allowed_summary() -> str:
    return "functions " + ", ".join([*_FUNCTIONS, *_CONSTRUCTORS])


def _method_summary() -> str:
    return ".T and the methods " + ", ".join(f".{name}()" for name in _METHODS)


# ---- positions and the source text --------------------------------------------------------------
class _Source:
    """The program text with helpers that turn AST positions (UTF-8 bytes) into 1-based characters."""

    def __init__(self, text: str):
        if not isinstance(text, str):
            raise TypeError(f"the program must be a str, got {type(text).__name__}")
        self.text = text
        self.lines = re.split(r"\r\n|\r|\n", text)  # the same line breaks as Python's tokenizer

    def char_col(self, line: int, byte_offset: int) -> int:
        row = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return len(row.encode("utf-8")[:byte_offset].decode("utf-8", "ignore")) + 1

    def error(self, node: ast.AST, message: str) -> ExpressionError:
        line = node.lineno
        col = self.char_col(line, node.col_offset)
        end_col = self.char_col(line, node.end_col_offset) if node.end_lineno == line else None
        return ExpressionError(message, line, col, end_col)

    def error_at_index(self, index: int, message: str) -> ExpressionError:
        before = self.text[:index]
        line = len(re.findall(r"\r\n|\r|\n", before)) + 1
        col = index - max(before.rfind("\n"), before.rfind("\r"))
        return ExpressionError(message, line, col, col + 1)

    def quote(self, node: ast.AST) -> str:
        segment = " ".join((ast.get_source_segment(self.text, node) or "").split())
        return segment if len(segment) <= 60 else segment[:57] + "..."


def _parse(source: _Source) -> ast.Module:
    """Limits on the raw text, then `ast.parse` (which only parses) with friendly syntax errors."""
    text = source.text
    if len(text) > MAX_CHARS:
        raise source.error_at_index(MAX_CHARS, f"the program is longer than {MAX_CHARS:,} characters")
    if "\0" in text:
        raise source.error_at_index(text.index("\0"), "the program contains a null byte")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise source.error_at_index(exc.start, "the program contains a character that is not valid text") from None
    depth = 0
    in_comment = False
    for index, char in enumerate(text):
        if char in "\r\n":
            in_comment = False
        elif in_comment:
            continue
        elif char == "#":
            in_comment = True
        elif char in "([{":
            depth += 1
            if depth > MAX_BRACKET_DEPTH:
                raise source.error_at_index(index, f"brackets are nested more than {MAX_BRACKET_DEPTH} deep")
        elif char in ")]}":
            depth -= 1
    try:
        return ast.parse(text, mode="exec")
    except SyntaxError as exc:
        raise _syntax_error(exc) from None
    except (RecursionError, MemoryError):
        raise ExpressionError("the program is nested too deeply to read; split it over several lines") from None


def _syntax_error(exc: SyntaxError) -> ExpressionError:
    message = exc.msg or "invalid syntax"
    if message.startswith("invalid syntax"):
        message += " (each line should look like `name = expression`)"
    elif "indent" in message:
        message += " (lines must start at the left edge)"
    line = exc.lineno or 1
    col = max(exc.offset or 1, 1)
    end_col = exc.end_offset if exc.end_lineno == line and exc.end_offset and exc.end_offset > col else None
    return ExpressionError(f"syntax error: {message}", line, col, end_col)


def _check_depth(tree: ast.Module, source: _Source) -> None:
    """Rejects trees deeper than MAX_DEPTH; iterative, so it is safe on any tree `ast.parse` returns."""
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH and hasattr(node, "lineno"):
            raise source.error(node, f"the expression is nested more than {MAX_DEPTH} levels deep; split it up")
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


# ---- the whitelist check (no computing) ----------------------------------------------------------
class _Checker:
    """Walks the tree and raises ExpressionError at the first node outside the language.

    It also counts the graph nodes the program will build (operations, plus constants used as operands).
    """

    def __init__(self, source: _Source, tree: ast.Module):
        self.source = source
        self.defined: set[str] = set()
        self.nodes = 0
        self.assigned_on: dict[str, int] = {}
        for statement in tree.body:
            if isinstance(statement, ast.Assign) and isinstance(statement.targets[0], ast.Name):
                self.assigned_on.setdefault(statement.targets[0].id, statement.lineno)

    def fail(self, node: ast.AST, message: str) -> ExpressionError:
        return self.source.error(node, message)

    def program(self, tree: ast.Module) -> None:
        if not tree.body:
            raise ExpressionError("the program is empty: write a line such as `y = (2 * randn(3)).sum()`")
        last = len(tree.body) - 1
        for index, statement in enumerate(tree.body):
            self.statement(statement, is_last=index == last)

    def statement(self, node: ast.stmt, is_last: bool) -> None:
        if isinstance(node, ast.Assign):
            if len(node.targets) > 1:
                raise self.fail(node.targets[1], "assign one name per line (`a = b = ...` is not allowed)")
            self.target(node.targets[0])
            self.expr(node.value, counts=True)
            self.defined.add(node.targets[0].id)
        elif isinstance(node, ast.AugAssign):
            if not isinstance(node.target, ast.Name):
                raise self.fail(node.target, "augmented assignment (+=, *=, ...) works only on a plain name")
            self.binary_op(node, node.op)
            self.expr(node.target, counts=True)
            self.expr(node.value, counts=True)
            self.count(node)
        elif isinstance(node, ast.Expr):
            if not is_last:
                raise self.fail(node, "only the last line may be a bare expression (it is the output); "
                                      "give this one a name, like `y = ...`")
            self.expr(node.value, counts=True)
        else:
            raise self.fail(node, _hint(node))

    def target(self, node: ast.expr) -> None:
        if isinstance(node, ast.Name):
            self.name_allowed(node)  # a variable may shadow pi or e (micrograd's test names one `e`)
        elif isinstance(node, (ast.Tuple, ast.List, ast.Starred)):
            raise self.fail(node, "unpacking (`a, b = ...`) is not allowed: assign each name on its own line")
        elif isinstance(node, ast.Subscript):
            raise self.fail(node, "assigning into part of a tensor (`x[0] = ...`) is not allowed: "
                                  "build a new tensor instead, e.g. with where(...) or masked_fill(...)")
        else:
            raise self.fail(node, "only plain names can be assigned to, like `y = ...`")

    def name_allowed(self, node: ast.Name) -> None:
        if node.id.startswith("__"):
            raise self.fail(node, "names starting with '__' are not allowed")

    def count(self, node: ast.AST, amount: int = 1) -> None:
        self.nodes += amount
        if self.nodes > MAX_NODES:
            raise self.fail(node, f"the program would build more than {MAX_NODES:,} graph nodes; make it smaller")

    def binary_op(self, node: ast.AST, op: ast.operator) -> None:
        if type(op) not in _BINARY:
            symbol = {ast.FloorDiv: "//", ast.Mod: "%"}.get(type(op), "this operator")
            raise self.fail(node, f"{symbol} is not supported; the operators are + - * / ** @ and comparisons")

    def expr(self, node: ast.expr, counts: bool) -> None:
        """Checks one expression. `counts`: a constant here becomes a graph node (an operand)."""
        if isinstance(node, ast.Constant):
            self.constant(node, counts)
        elif isinstance(node, ast.Name):
            self.name(node)
        elif isinstance(node, ast.UnaryOp):
            if not isinstance(node.op, (ast.USub, ast.UAdd)):
                raise self.fail(node, "`not` and `~` are not allowed; the unary operators are - and +")
            if isinstance(node.operand, ast.Constant):  # a literal such as -4.0
                self.constant(node.operand, counts)
            else:
                self.count(node)
                self.expr(node.operand, counts=True)
        elif isinstance(node, ast.BinOp):
            self.binary_op(node, node.op)
            self.count(node)
            self.expr(node.left, counts=True)
            self.expr(node.right, counts=True)
        elif isinstance(node, ast.Compare):
            if len(node.ops) > 1:
                raise self.fail(node, "chained comparisons (a < b < c) are not allowed; compare two things")
            if type(node.ops[0]) not in _COMPARE:
                raise self.fail(node, "only the comparisons < <= > >= == != are allowed")
            self.count(node)
            self.expr(node.left, counts=True)
            self.expr(node.comparators[0], counts=True)
        elif isinstance(node, ast.Call):
            self.call(node)
        elif isinstance(node, ast.Attribute):
            self.attribute(node)
        elif isinstance(node, ast.Subscript):
            self.count(node)
            self.expr(node.value, counts=True)
            self.index(node.slice)
        elif isinstance(node, (ast.List, ast.Tuple)):
            if counts:
                self.count(node)
            for element in node.elts:
                self.expr(element, counts=False)
        else:
            raise self.fail(node, _hint(node))

    def constant(self, node: ast.Constant, counts: bool) -> None:
        value = node.value
        if isinstance(value, str):
            raise self.fail(node, "strings are not allowed: the language works with numbers and tensors only")
        if isinstance(value, bytes):
            raise self.fail(node, "bytes are not allowed: the language works with numbers and tensors only")
        if isinstance(value, complex):
            raise self.fail(node, "complex numbers (like 1j) are not allowed")
        if value is Ellipsis:
            raise self.fail(node, "... is not allowed in this language")
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
            raise self.fail(node, "this integer is too large (the limit is 10**15); write it as a float, like 1e20")
        if counts:
            self.count(node)

    def name(self, node: ast.Name) -> None:
        self.name_allowed(node)
        name = node.id
        if name in self.defined or name in _CONSTANTS:
            return
        if name in _FUNCTIONS or name in _CONSTRUCTORS:
            raise self.fail(node, f"'{name}' is a function: call it, like {name}(x)")
        if name in self.assigned_on:
            raise self.fail(node, f"'{name}' is used before it is assigned (on line {self.assigned_on[name]})")
        known = [*self.defined, *_CONSTANTS, *_FUNCTIONS, *_CONSTRUCTORS]
        raise self.fail(node, f"unknown name '{name}'" + _suggest(name, known))

    def call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name):
            self.name_allowed(func)
            name = func.id
            if name in _CONSTRUCTORS:
                spec = None
            elif name in _FUNCTIONS:
                spec = _FUNCTIONS[name]
            elif name in self.defined:
                raise self.fail(func, f"'{name}' is a tensor, not a function")
            else:
                raise self.fail(func, f"unknown function '{name}'" + _suggest(name, [*_FUNCTIONS, *_CONSTRUCTORS])
                                + f"; you can use the {_allowed_summary()}")
        elif isinstance(func, ast.Attribute):
            if func.attr not in _METHODS:
                raise self.attribute_error(func, f"unknown method '.{func.attr}()'")
            spec = _METHODS[func.attr]
            self.expr(func.value, counts=True)
        else:
            raise self.fail(func, f"only the built-in functions and tensor methods can be called: {_allowed_summary()}")
        self.count(node)
        for position, argument in enumerate(node.args):
            if isinstance(argument, ast.Starred):
                raise self.fail(argument, _hint(argument))
            self.expr(argument, counts=spec is not None and position < len(spec.args))
        for keyword in node.keywords:
            allowed = spec.keywords if spec is not None else frozenset()
            if keyword.arg is None:
                raise self.fail(keyword, "** unpacking is not allowed: write keywords out, like axis=0")
            if keyword.arg not in allowed:
                options = ", ".join(f"{k}=..." for k in sorted(allowed)) or "none"
                raise self.fail(keyword, f"keyword '{keyword.arg}' is not allowed here (allowed: {options})")
            self.expr(keyword.value, counts=False)

    def attribute(self, node: ast.Attribute) -> None:
        if node.attr in _METHODS:
            raise self.attribute_error(node, f"'.{node.attr}' is a method: call it, like x.{node.attr}()")
        if node.attr not in _ATTRIBUTES:
            raise self.attribute_error(node, f"attribute '.{node.attr}' is not allowed")
        self.count(node)
        self.expr(node.value, counts=True)

    def attribute_error(self, node: ast.Attribute, message: str) -> ExpressionError:
        """Points at the attribute's name (after the dot) rather than at the start of the expression."""
        line = node.end_lineno
        end_col = self.source.char_col(line, node.end_col_offset)
        if node.attr.startswith("__"):
            message += " (names starting with '__' are never allowed)"
        elif node.attr not in _METHODS:
            message += _suggest(node.attr, [*_METHODS, *_ATTRIBUTES])
        col = max(end_col - len(node.attr), 1)
        return ExpressionError(f"{message}; you can use {_method_summary()}", line, col, end_col)

    def index(self, node: ast.expr) -> None:
        if isinstance(node, ast.Slice):
            for part in (node.lower, node.upper, node.step):
                if part is not None:
                    self.expr(part, counts=False)
        elif isinstance(node, ast.Tuple):
            for element in node.elts:
                self.index(element)
        else:
            self.expr(node, counts=False)


def _suggest(name: str, candidates: list[str]) -> str:
    match = difflib.get_close_matches(name, candidates, n=1)
    return f" — did you mean '{match[0]}'?" if match else ""


def _parse_checked(text: str) -> tuple[_Source, ast.Module]:
    source = _Source(text)
    tree = _parse(source)
    _check_depth(tree, source)
    _Checker(source, tree).program(tree)
    return source, tree


# ---- evaluation --------------------------------------------------------------------------------
class _Val(NamedTuple):
    """A value during evaluation and the Python code that recomputes it in the generated script.

    `value` is a Tensor, a number, True/False/None, a tuple, a list, a slice, or an np.ndarray (a constant
    array: from a constructor, a list, or arithmetic on constants). `items` holds a list's elements.
    """

    value: Any
    code: str
    items: tuple = ()


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_constant(value: Any) -> bool:
    """Numbers, lists and constant arrays: folded in NumPy, made leaf tensors when assigned to a name."""
    return _is_number(value) or isinstance(value, (list, np.ndarray))


def _describe(value: Any) -> str:
    if isinstance(value, Tensor):
        return f"a tensor of shape {value.shape}"
    if isinstance(value, bool) or value is None:
        return repr(value)
    if _is_number(value):
        return f"the number {value!r}"
    return {tuple: "a tuple", list: "a list", slice: "a slice"}.get(type(value), "a value")


def _literal(value: Any) -> str:
    """Python code for a plain value (number, bool, None, tuple, list, integer array)."""
    if isinstance(value, float) and not math.isfinite(value):
        return "np.nan" if math.isnan(value) else ("np.inf" if value > 0 else "-np.inf")
    if isinstance(value, tuple):
        return "(" + ", ".join(_literal(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, np.ndarray):
        return f"np.array({_literal(value.tolist())}, dtype=np.{value.dtype})"
    return repr(value)


def _index_code(index: Any) -> str:
    if isinstance(index, tuple):
        return ", ".join(_index_code(part) for part in index) + ("," if len(index) == 1 else "")
    if isinstance(index, slice):
        parts = ["" if p is None else repr(p) for p in (index.start, index.stop, index.step)]
        return ":".join(parts if index.step is not None else parts[:2])
    return _literal(index)


def _fold_numbers(op: type, a: int | float, b: int | float) -> int | float:
    """Arithmetic on two plain numbers without ever building a huge Python integer (2 ** 10 ** 10)."""
    if isinstance(a, int) and isinstance(b, int) and op in (ast.Add, ast.Sub, ast.Mult, ast.Pow):
        small_power = op is not ast.Pow or (b >= 0 and (abs(a) <= 1 or b * math.log2(abs(a)) <= 60))
        if small_power:
            result = _BINARY[op][1](a, b)  # operands are at most 10**15, so this stays small
            return result if abs(result) <= MAX_INT else float(result)
    with np.errstate(all="ignore"):
        result = float(_BINARY[op][1](np.float64(a), np.float64(b)))
    if op is ast.Div and b == 0:
        raise ArithmeticError("division by zero")
    return _finite(result, a, b)


def _finite(result: float, *inputs: float) -> float:
    """Folded numbers must stay finite: 2 ** 10 ** 10 or log(0) in a constant is a mistake worth reporting."""
    if not math.isfinite(result) and all(math.isfinite(x) for x in inputs):
        raise ArithmeticError("the result is not a finite number (it overflows or is undefined)")
    return result


def _matmul_shape(a: tuple, b: tuple) -> tuple[tuple, int]:
    """np.matmul's result shape and its multiply-add count, or ValueError with a student-sized message."""
    if not a or not b:
        raise ValueError(f"@ needs tensors with at least one dimension, got shapes {a} and {b}")
    a2 = (1, *a) if len(a) == 1 else a
    b2 = (*b, 1) if len(b) == 1 else b
    if a2[-1] != b2[-2]:
        raise ValueError(f"shapes {a} @ {b} do not fit: the inner dimensions {a2[-1]} and {b2[-2]} differ")
    try:
        batch = np.broadcast_shapes(a2[:-2], b2[:-2])
    except ValueError:
        raise ValueError(f"shapes {a} @ {b} do not fit: the batch dimensions cannot be broadcast") from None
    full = (*batch, a2[-2], b2[-1])
    shape = full[:-2] + full[-2:-1] * (len(a) > 1) + full[-1:] * (len(b) > 1)
    return shape, math.prod(full) * a2[-1]


def _index_size(shape: tuple, index: Any) -> int:
    """Element count of `x[index]` for x of `shape`, found on a zero-memory broadcast view."""
    parts = index if isinstance(index, tuple) else (index,)
    arrays = [p for p in parts if isinstance(p, np.ndarray)]
    basic = tuple(0 if isinstance(p, np.ndarray) else p for p in parts)
    rest = np.broadcast_to(np.zeros((), np.int8), shape)[basic].size
    return rest * (math.prod(np.broadcast_shapes(*(a.shape for a in arrays))) if arrays else 1)


class _Run:
    """Evaluates a checked tree, statement by statement, and writes the equivalent Python script."""

    def __init__(self, source: _Source, tree: ast.Module, seed: int, inputs: dict | None = None):
        self.source = source
        self.seed = seed
        self.inputs = dict(inputs or {})  # name -> array replacing that input's value (first assignment)
        self.leaves: dict[str, Tensor] = {}  # name -> the input leaf made by its first assignment
        self.rng = np.random.default_rng(seed)
        self.uses_rng = False
        self.env: dict[str, Tensor] = {}
        self.script_names: dict[str, str] = {}
        self.lines: list[str] = []
        self.elements = 0
        self.matmul_work = 0
        reserved = {"np", "F", "Tensor", "rng", *dir(builtins)}  # names the script itself uses
        names = {s.targets[0].id for s in tree.body if isinstance(s, ast.Assign)}
        for name in sorted(names):
            script_name = name
            while script_name in reserved or (script_name != name and script_name in names):
                script_name += "_"
            self.script_names[name] = script_name
        self.output_name = "output"
        while self.output_name in names or self.output_name in self.script_names.values():
            self.output_name += "_"

    def fail(self, node: ast.AST, message: str) -> ExpressionError:
        return self.source.error(node, message)

    # -- statements --
    def program(self, tree: ast.Module) -> Tensor:
        for statement in tree.body:
            if isinstance(statement, ast.Assign):
                name = statement.targets[0].id
                self.assign(name, self.value_of(statement.value), statement.value)
            elif isinstance(statement, ast.AugAssign):
                name = statement.target.id
                current = _Val(self.env[name], self.script_names[name])
                updated = self.binary(statement, statement.op, current, self.value_of(statement.value))
                self.assign(name, updated, statement)
            else:  # a bare expression, always the last statement
                tensor, code = self.stored(self.value_of(statement.value), statement.value)
                self.lines.append(f"{self.output_name} = {code}")
                return tensor
        self.output_name = self.script_names[name]
        return self.env[name]

    def stored(self, val: _Val, node: ast.AST) -> tuple[Tensor, str]:
        """The Tensor a name holds: tensors as they are, constants as new leaves that require grad."""
        if isinstance(val.value, Tensor):
            return val.value, val.code
        if _is_constant(val.value):
            array = self.constant_array(val, node)
            return Tensor(array.value, requires_grad=True), f"Tensor({array.code}, requires_grad=True)"
        raise self.fail(node, f"{_describe(val.value)} cannot be stored in a variable; only tensors and numbers can")

    def assign(self, name: str, val: _Val, node: ast.AST) -> Tensor:
        tensor, code = self.stored(val, node)
        if name not in self.leaves and tensor.is_leaf and tensor.requires_grad and tensor.name is None:
            self.leaves[name] = tensor
            if name in self.inputs:
                value = np.array(self.inputs[name], dtype=tensor.dtype)  # a copy of its own
                if value.shape != tensor.shape:
                    raise self.fail(node, f"the value given for '{name}' has shape {value.shape}, not {tensor.shape}")
                tensor.data = value
        script_name = self.script_names[name]
        self.lines.append(f"{script_name} = {code}")
        if tensor.name is None:
            tensor.name = name
            self.lines.append(f"{script_name}.name = {name!r}")
        self.env[name] = tensor
        return tensor

    # -- expressions --
    def value_of(self, node: ast.expr) -> _Val:
        if isinstance(node, ast.Constant):
            return _Val(node.value, _literal(node.value))
        if isinstance(node, ast.Name):
            if node.id in self.env:
                return _Val(self.env[node.id], self.script_names[node.id])
            return _Val(_CONSTANTS[node.id], repr(_CONSTANTS[node.id]))
        if isinstance(node, ast.BinOp):
            return self.binary(node, node.op, self.value_of(node.left), self.value_of(node.right))
        if isinstance(node, ast.UnaryOp):
            return self.unary(node, self.value_of(node.operand))
        if isinstance(node, ast.Compare):
            return self.compare(node, self.value_of(node.left), self.value_of(node.comparators[0]))
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Attribute):  # .T, the only attribute the checker lets through
            tensor = self.tensor(self.value_of(node.value), node.value)
            self.charge(tensor.value.size, node)
            return _Val(self.engine(node, Tensor.transpose, tensor.value), f"{tensor.code}.T")
        if isinstance(node, ast.Subscript):
            return self.subscript(node)
        if isinstance(node, (ast.List, ast.Tuple)):
            items = tuple(self.value_of(element) for element in node.elts)
            values = [item.value for item in items]
            if isinstance(node, ast.Tuple):
                return _Val(tuple(values), "(" + "".join(f"{i.code}, " for i in items) + ")", items)
            return _Val(values, "[" + ", ".join(i.code for i in items) + "]", items)
        raise self.fail(node, "this expression is not allowed")  # unreachable after the checker

    def binary(self, node: ast.AST, op: ast.operator, left: _Val, right: _Val) -> _Val:
        symbol, function = _BINARY[type(op)]
        a, b = left.value, right.value
        if _is_number(a) and _is_number(b):
            if isinstance(op, ast.MatMult):
                raise self.fail(node, "@ multiplies tensors (matrices, vectors); use * for numbers")
            result = self.engine(node, _fold_numbers, type(op), a, b)
            return _Val(result, _literal(result))
        if _is_constant(a) and _is_constant(b):  # constants fold in NumPy: W = randn(3, 4) * 0.1 stays a leaf
            left, right = self.constant_array(left, node), self.constant_array(right, node)
            self.predict(node, symbol, left.value.shape, right.value.shape)
            with np.errstate(all="ignore"):  # np.asarray: a 0-d result must stay an array, not become a number
                result = np.asarray(self.engine(node, function, left.value, right.value))
            return _Val(result, f"({left.code} {symbol} {right.code})")
        left, right = self.operand(left, node), self.operand(right, node)
        self.predict(node, symbol, np.shape(left.value), np.shape(right.value))
        return _Val(self.engine(node, function, left.value, right.value), f"({left.code} {symbol} {right.code})")

    def predict(self, node: ast.AST, symbol: str, a: tuple, b: tuple) -> None:
        """Checks the shapes fit and the result is within the limits, before anything is computed."""
        if symbol == "@":
            try:
                shape, work = _matmul_shape(a, b)
            except ValueError as exc:
                raise self.fail(node, f"{exc} (in `{self.source.quote(node)}`)") from None
            self.matmul_work += work
            if self.matmul_work > MAX_MATMUL_WORK:
                raise self.fail(node, f"the program's matrix products would take more than {MAX_MATMUL_WORK:,} "
                                      "multiply-adds; use smaller tensors")
        else:
            shape = self.broadcast(node, a, b)
        self.charge(math.prod(shape), node, shape)

    def broadcast(self, node: ast.AST, *shapes: tuple) -> tuple:
        try:
            return np.broadcast_shapes(*shapes)
        except ValueError:
            listed = " and ".join(str(s) for s in shapes)
            raise self.fail(node, f"shapes {listed} cannot be broadcast together (in `{self.source.quote(node)}`): "
                                  "each dimension, counted from the right, must match or be 1") from None

    def charge(self, size: int, node: ast.AST, shape: tuple | None = None) -> None:
        if size > MAX_ELEMENTS:
            where = f" (shape {shape})" if shape is not None else ""
            raise self.fail(node, f"this would make a tensor of {size:,} elements{where}; "
                                  f"the limit is {MAX_ELEMENTS:,}")
        self.elements += size
        if self.elements > MAX_TOTAL_ELEMENTS:
            raise self.fail(node, f"the program would create more than {MAX_TOTAL_ELEMENTS:,} numbers in total; "
                                  "use smaller tensors")

    def unary(self, node: ast.UnaryOp, val: _Val) -> _Val:
        if isinstance(node.op, ast.UAdd):
            if not (_is_constant(val.value) or isinstance(val.value, Tensor)):
                raise self.fail(node, f"+ cannot be applied to {_describe(val.value)}")
            return val
        if _is_number(val.value):
            return _Val(-val.value, _literal(-val.value))
        if _is_constant(val.value):
            array = self.constant_array(val, node)
            self.charge(array.value.size, node)
            return _Val(np.asarray(-array.value), f"(-{array.code})")
        tensor = self.tensor(val, node)
        self.charge(tensor.value.size, node)
        return _Val(self.engine(node, operator.neg, tensor.value), f"(-{tensor.code})")

    def compare(self, node: ast.Compare, left: _Val, right: _Val) -> _Val:
        symbol, function = _COMPARE[type(node.ops[0])]
        left = self.tensor(left, node)  # comparisons always give a boolean tensor (a mask), never a Python bool
        right = self.operand(right, node)
        self.charge(math.prod(self.broadcast(node, left.value.shape, np.shape(right.value))), node)
        return _Val(self.engine(node, function, left.value, right.value), f"({left.code} {symbol} {right.code})")

    def subscript(self, node: ast.Subscript) -> _Val:
        tensor = self.tensor(self.value_of(node.value), node.value)
        index = self.index(node.slice)
        try:
            size = _index_size(tensor.value.shape, index)
        except (IndexError, ValueError) as exc:
            raise self.fail(node, f"bad index in `{self.source.quote(node)}` for a tensor of shape "
                                  f"{tensor.value.shape}: {exc}") from None
        self.charge(size, node)
        return _Val(self.engine(node, operator.getitem, tensor.value, index), f"{tensor.code}[{_index_code(index)}]")

    def index(self, node: ast.expr) -> Any:
        """An index as NumPy wants it: ints, slices, integer arrays, or a tuple of those."""
        if isinstance(node, ast.Tuple):
            return tuple(self.index(element) for element in node.elts)
        if isinstance(node, ast.Slice):
            parts = [None if p is None else self.integer(self.value_of(p), p, "a slice bound")
                     for p in (node.lower, node.upper, node.step)]
            if parts[2] == 0:
                raise self.fail(node, "a slice step cannot be zero")
            return slice(*parts)
        val = self.value_of(node)
        if isinstance(val.value, list):
            return self.integer_array(val, node, "an index list")
        return self.integer(val, node, "an index")

    def integer(self, val: _Val, node: ast.AST, what: str) -> int:
        """A whole number from an int, an integral float, or a one-element tensor holding one."""
        value = val.value
        if isinstance(value, (Tensor, np.ndarray)) and np.size(value) == 1:
            value = np.asarray(value.data if isinstance(value, Tensor) else value).item()
        if isinstance(value, float) and value.is_integer() and abs(value) <= MAX_INT:
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.fail(node, f"{what} must be a whole number, got {_describe(val.value)}; indices and "
                                  "shapes are integers, slices like 1:3, or lists of integers")
        return value

    def integer_array(self, val: _Val, node: ast.AST, what: str) -> np.ndarray:
        try:
            array = np.array(val.value) if val.value else np.zeros(0, dtype=np.int64)
        except (ValueError, TypeError):
            array = None
        if array is None or array.dtype.kind not in "iu":
            raise self.fail(node, f"{what} must hold whole numbers only, like [0, 2, 1]")
        return array

    def constant_array(self, val: _Val, node: ast.AST) -> _Val:
        """A number, list or array as a float64 ndarray, with the code that makes it."""
        value = val.value
        if isinstance(value, np.ndarray):
            return val
        if _is_number(value):
            return _Val(np.asarray(float(value)), _literal(float(value)))
        if not _numbers_only(value):
            raise self.fail(node, "a list here may hold only numbers (or lists of numbers); "
                                  "to combine tensors use stack([a, b]) or concat([a, b])")
        try:
            array = np.array(value, dtype=np.float64)
        except ValueError:
            raise self.fail(node, "the rows of this nested list have different lengths") from None
        self.charge(array.size, node)
        return _Val(array, f"np.array({_literal(value)}, dtype=float)")

    def tensor(self, val: _Val, node: ast.AST) -> _Val:
        """A Tensor: tensors as they are, constants as new constant tensors (no grad)."""
        if isinstance(val.value, Tensor):
            return val
        if _is_constant(val.value):
            array = self.constant_array(val, node)
            return _Val(Tensor(array.value), f"Tensor({array.code})")
        raise self.fail(node, f"expected a tensor or a number here, got {_describe(val.value)}")

    def operand(self, val: _Val, node: ast.AST) -> _Val:
        """An operand for + - * / ** and comparisons: numbers stay numbers (the engine wraps them)."""
        return val if _is_number(val.value) else self.tensor(val, node)

    def plain(self, val: _Val, node: ast.AST) -> Any:
        """A non-tensor argument (axis, shape, keepdims, lo, ...): numbers, True/False/None, tuples."""
        value = val.value
        if isinstance(value, (Tensor, np.ndarray)):
            if np.size(value) != 1:
                raise self.fail(node, f"expected a number here, got {_describe(value)}")
            value = np.asarray(value.data if isinstance(value, Tensor) else value).item()
            return int(value) if isinstance(value, float) and value.is_integer() else value
        if isinstance(value, tuple):
            return tuple(self.plain(item, node) for item in val.items)
        if isinstance(value, list):
            raise self.fail(node, f"a list cannot be used here; write a tuple like (0, 1), got {_describe(value)}")
        return value

    # -- calls --
    def call(self, node: ast.Call) -> _Val:
        func = node.func
        if isinstance(func, ast.Name) and func.id in _CONSTRUCTORS:
            return self.construct(node, func.id, [self.value_of(a) for a in node.args])
        if isinstance(func, ast.Name):
            spec, receiver = _FUNCTIONS[func.id], []
            prefix = spec.code
        else:
            receiver = [self.tensor(self.value_of(func.value), func.value)]
            spec = _METHODS[func.attr]
            prefix = receiver[0].code + spec.code
        args = [self.value_of(a) for a in node.args]
        keywords = {k.arg: self.value_of(k.value) for k in node.keywords}
        if spec.number is not None and len(args) == 1 and not keywords and _is_number(args[0].value):
            with np.errstate(all="ignore"):  # sqrt(8), exp(1): plain numbers stay numbers
                result = float(spec.number(np.float64(args[0].value)))
            result = self.engine(node, _finite, result, args[0].value)
            return _Val(result, _literal(result))
        converted = receiver + [self.argument(spec.args[i] if i < len(spec.args) else "", arg, node.args[i])
                                for i, arg in enumerate(args)]
        plain_keywords = {k: self.plain(v, node) for k, v in keywords.items()}
        values = [c.value for c in converted]
        self.charge(self.result_size(spec, values, node), node)
        code_args = [c.code for c in converted[len(receiver) :]]
        code_args += [f"{k}={_literal(v)}" for k, v in plain_keywords.items()]
        result = self.engine(node, spec.call, *values, **plain_keywords)
        return _Val(result, f"{prefix}({', '.join(code_args)})")

    def argument(self, kind: str, val: _Val, node: ast.AST) -> _Val:
        if kind == "T":
            return self.tensor(val, node)
        if kind == "L":
            if isinstance(val.value, list):
                array = self.integer_array(val, node, "labels and indices")
                return _Val(array, _literal(array))
            return self.tensor(val, node)
        if kind == "S":
            if not isinstance(val.value, (list, tuple)) or not val.items:
                raise self.fail(node, "expected a list of tensors here, like [a, b]")
            items = [self.tensor(item, node) for item in val.items]
            return _Val([i.value for i in items], "[" + ", ".join(i.code for i in items) + "]")
        plain = self.plain(val, node)
        return _Val(plain, _literal(plain))

    def result_size(self, spec: _Spec, values: list, node: ast.AST) -> int:
        tensors = [v for v in values if isinstance(v, Tensor)]
        if spec.size == "broadcast":
            return math.prod(self.broadcast(node, *(t.shape for t in tensors)))
        if spec.size == "concat" and values and isinstance(values[0], list):
            return sum(t.size for t in values[0])
        if spec.size == "embedding" and len(values) == 2:
            weight, index = values
            return int(np.size(index)) * math.prod(weight.shape[1:])
        return tensors[0].size if tensors else 1

    def construct(self, node: ast.Call, name: str, args: list[_Val]) -> _Val:
        """tensor([...]), randn, rand, zeros, ones, eye, arange: constant arrays (leaves once assigned)."""
        if node.keywords:
            raise self.fail(node.keywords[0], f"{name}() takes no keywords")
        if name == "tensor":
            if len(args) != 1 or not _is_constant(args[0].value):
                raise self.fail(node, "tensor() takes one number or (nested) list of numbers, like tensor([1, 2])")
            array = self.constant_array(args[0], node)
            copy = isinstance(args[0].value, np.ndarray)
            return _Val(np.array(array.value, dtype=np.float64), f"np.array({array.code})" if copy else array.code)
        if name in ("eye", "arange"):
            if len(args) != 1:
                raise self.fail(node, f"{name}() takes one whole number, like {name}(3)")
            n = self.integer(args[0], node.args[0], f"the argument of {name}()")
            shape = (n, n) if name == "eye" else (n,)
        else:
            if len(args) == 1 and isinstance(args[0].value, tuple):
                node_args, args = node.args[0].elts, list(args[0].items)
            else:
                node_args = node.args
            shape = tuple(self.integer(a, n, "a dimension") for a, n in zip(args, node_args, strict=True))
        if any(d < 0 for d in shape) or len(shape) > MAX_DIMS:
            raise self.fail(node, f"a shape needs at most {MAX_DIMS} dimensions, none negative; got {shape}")
        self.charge(math.prod(shape), node, shape)
        if name == "randn":
            self.uses_rng = True
            return _Val(self.rng.standard_normal(shape), f"rng.standard_normal({shape!r})")
        if name == "rand":
            self.uses_rng = True
            return _Val(self.rng.random(shape), f"rng.random({shape!r})")
        if name == "zeros":
            return _Val(np.zeros(shape), f"np.zeros({shape!r})")
        if name == "ones":
            return _Val(np.ones(shape), f"np.ones({shape!r})")
        if name == "eye":
            return _Val(np.eye(shape[0]), f"np.eye({shape[0]})")
        return _Val(np.arange(shape[0], dtype=np.float64), f"np.arange({shape[0]}, dtype=float)")

    def engine(self, node: ast.AST, function: Callable, *args: Any, **kwargs: Any) -> Any:
        """Calls the engine (or NumPy); any failure becomes an ExpressionError pointing at `node`."""
        try:
            return function(*args, **kwargs)
        except (ValueError, TypeError, IndexError, ArithmeticError) as exc:
            raise self.fail(node, f"cannot compute `{self.source.quote(node)}`: {exc}") from exc
        except MemoryError:
            raise self.fail(node, f"ran out of memory computing `{self.source.quote(node)}`") from None
        except Exception as exc:  # an engine bug must not crash the app; say so plainly
            raise self.fail(node, f"internal error in the engine computing `{self.source.quote(node)}`: "
                                  f"{type(exc).__name__}: {exc}") from exc

    # -- the script --
    def script(self, text: str) -> str:
        program = "\n".join("#   " + line for line in text.strip().splitlines())
        rng = f"rng = np.random.default_rng({self.seed!r})\n\n" if self.uses_rng else ""
        pairs = ", ".join(f"{name!r}: {self.script_names[name]}" for name in self.env)
        out = self.output_name
        return (
            f"# Generated by Autograd Explorer from this program:\n#\n{program}\n#\n"
            "# Run it from a checkout of Autograd Explorer: `autograd` is its engine, not the PyPI package.\n\n"
            "import numpy as np\n\nfrom autograd import Tensor\nfrom autograd import functional as F\n\n"
            + rng + "\n".join(self.lines) + "\n\n"
            f"if {out}.requires_grad:\n    {out}.backward()\nprint('output =', {out}.data.tolist())\n"
            f"for label, value in {{{pairs}}}.items():\n"
            "    print(f'{label}.grad =', None if value.grad is None else value.grad.tolist())\n"
        )


def _numbers_only(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif not isinstance(item, (int, float)):
            return False
    return True


# ---- the public functions ---------------------------------------------------------------------
def check(text: str) -> None:
    """Raises ExpressionError if `text` is not a valid program; computes nothing (for live feedback)."""
    _parse_checked(text)


def _run(text: str, seed: int, inputs: dict | None = None) -> tuple[_Run, Tensor]:
    source, tree = _parse_checked(text)
    run = _Run(source, tree, seed, inputs)
    with np.errstate(all="ignore"):  # overflow gives inf and 0/0 gives nan, as in NumPy; both are shown
        output = run.program(tree)
    return run, output


def evaluate(text: str, seed: int = 0, inputs: dict | None = None) -> Result:
    """Runs a program; constructors draw from np.random.default_rng(seed), so the same text gives the same numbers.

    `inputs` (name -> array) replaces the value of those named inputs (`Result.inputs`: the leaves that require
    grad made by a name's first assignment) and leaves everything else, random draws included, as it was: this
    is how gradients are checked by finite differences.
    """
    run, output = _run(text, seed, inputs)
    return Result(output=output, variables=dict(run.env), text=text, inputs=dict(run.leaves))


def to_python(text: str, seed: int = 0) -> str:
    """A standalone Python script that rebuilds the program with the engine, runs backward and prints the grads.

    The program is evaluated first (so errors surface here, as ExpressionError); constants are written out
    as the exact NumPy calls that made them, in the same order, so the script gives identical numbers.
    """
    run, _ = _run(text, seed)
    return run.script(text)
