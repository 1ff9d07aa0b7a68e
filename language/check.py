"""The checker: walks a parsed program once, refuses anything outside the language, and predicts every
value's shape, size and cost without running it; what it accepts becomes a list of instructions.

Each expression becomes a static `Value`: its kind, shape, whether it requires grad, its value when that
is known before running (numbers, shapes, small constants), how the run gets it (a slot the
instructions fill, or a constant), and how the exported script spells it (an `ast` expression).
Every result's size is charged before anything is computed: forward elements, the gradients the
backward pass computes, what the Backward Stepper would record, and matrix-multiply work.

Safety: only `ast` nodes are read, through explicit tables of what is allowed; names and attributes
are looked up in those tables, never with getattr on the user's strings, and nothing is evaluated.
"""

import ast
import builtins
import inspect
import math
import operator
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from autograd import Tensor
from autograd import functional as F
from autograd import ops as engine
from language import library as lib
from language import messages as msg
from language.budget import SAVED, Budget
from language.emit import code_attr, code_call, code_name, literal
from language.program import Call, Costs, Leaf, Program, Slot, Store, make_constant_tensor
from language.source import ExpressionError, Source

UNKNOWN = object()  # a value not known before running

_BINARY = {  # ast operator -> (symbol, primitive, the function: on Tensors, numbers and arrays alike)
    ast.Add: ("+", "add", operator.add), ast.Sub: ("-", "sub", operator.sub),
    ast.Mult: ("*", "mul", operator.mul), ast.Div: ("/", "div", operator.truediv),
    ast.Pow: ("**", "pow", operator.pow), ast.MatMult: ("@", "matmul", operator.matmul),
}
_COMPARE = {
    ast.Lt: ("<", operator.lt), ast.LtE: ("<=", operator.le), ast.Gt: (">", operator.gt),
    ast.GtE: (">=", operator.ge), ast.Eq: ("==", operator.eq), ast.NotEq: ("!=", operator.ne),
}
_KEEPS_MASK = frozenset({"getitem", "reshape", "transpose", "unsqueeze", "squeeze"})  # ops that leave a mask boolean
_RESERVED = {"np", "F", "Tensor", "rng", *dir(builtins)}  # names the exported script itself uses


@dataclass(eq=False)
class Value:
    """What the checker knows about an expression's value before the program runs.

    kind: 'number' (int or float), 'flag' (True, False, None), 'tuple', 'list', 'slice', 'ellipsis',
    'array' (a constant array: no grad, not a graph node until used), 'tensor'.
    """

    kind: str
    ref: Any  # how the run gets it: a Slot the instructions fill, or the constant itself
    code: ast.expr  # how the exported script computes it
    shape: tuple = ()
    known: Any = UNKNOWN  # the value, when known before running
    grad: bool = False  # a tensor that requires grad
    items: tuple = ()  # a tuple's or list's item Values
    sources: frozenset = frozenset()  # inputs a known tensor value was computed from
    node: "_Node | None" = None  # a tensor's graph node, shared by every name for that tensor
    boolean: bool = False  # a boolean mask (a comparison's result): attention masks with it, instead of adding it

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def describe(self) -> str:
        number = self.known if self.kind in ("number", "flag") else None
        return msg.describe(self.kind, self.shape, number)


class _Node:
    """What the checker tracks of one graph node, whatever names refer to it."""

    __slots__ = ("named", "uses")

    def __init__(self):
        self.named = False  # it carries a variable's name (the first one it was assigned to)
        self.uses = 0  # gradient contributions it receives (the Stepper keeps a running sum from the second)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_axis(value) -> bool:
    """An axis as the engine takes it: None, a whole number, or a tuple of whole numbers."""
    whole = lambda v: isinstance(v, int) and not isinstance(v, bool)  # noqa: E731
    return value is None or whole(value) or isinstance(value, tuple) and all(whole(v) for v in value)


def _number_text(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _fold_numbers(op: type, a: int | float, b: int | float) -> int | float:
    """Arithmetic on two plain numbers without ever building a huge Python integer (2 ** 10 ** 10)."""
    if isinstance(a, int) and isinstance(b, int) and op in (ast.Add, ast.Sub, ast.Mult, ast.Pow):
        small_power = op is not ast.Pow or (b >= 0 and (abs(a) <= 1 or b * math.log2(abs(a)) <= 60))
        if small_power:
            result = _BINARY[op][2](a, b)  # operands are at most 10**15, so this stays small
            return result if abs(result) <= msg.MAX_INT else float(result)
    if op is ast.Div and b == 0:
        raise ArithmeticError(msg.DIVISION_BY_ZERO)
    with np.errstate(all="ignore"):
        result = float(_BINARY[op][2](np.float64(a), np.float64(b)))
    return _finite(result, a, b)


def _finite(result: float, *inputs: float) -> float:
    """Folded numbers must stay finite: 2 ** 10 ** 10 or log(0) in a constant is a mistake worth reporting."""
    if not math.isfinite(result) and all(math.isfinite(x) for x in inputs):
        raise ArithmeticError(msg.not_finite())
    return result


def _numbers_only(value: Any, whole: bool = False) -> bool:
    """A number or nested list of numbers; with ``whole``, of Python ints only (no floats, no bools): tensor()
    makes those an int64 tensor."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif not (isinstance(item, int) and not isinstance(item, bool) if whole else _is_number(item)):
            return False
    return True


def _integer(value: "Value") -> bool:
    return value.known is not UNKNOWN and np.asarray(value.known).dtype.kind in "iu"


class Checker:
    """Compiles one program. `compile()` returns the Program or raises ExpressionError."""

    def __init__(self, source: Source, tree: ast.Module, seed: int):
        self.source = source
        self.tree = tree
        self.seed = seed
        self.instructions: list = []
        self.slots = 1  # slot 0 holds the run's random generator
        self.scope: dict[str, Value] = {}
        self.inputs: dict[str, Value] = {}  # name -> the leaf made by the name's first literal assignment
        self.input_at: dict[str, tuple] = {}
        self.fixed: dict[str, int] = {}  # input name -> line where its value sets a shape, index or axis
        self.lines: list[ast.stmt] = []  # the exported script's statements
        self.budget = Budget(source)
        self.uses_rng = False
        self.assigned_on: dict[str, int] = {}
        for statement in tree.body:
            if isinstance(statement, ast.Assign):
                targets = statement.targets
            elif isinstance(statement, ast.AugAssign):
                targets = [statement.target]  # `pi += pi` makes a variable pi, shadowing the constant
            else:
                targets = ()
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        self.assigned_on.setdefault(name.id, statement.lineno)
        self.script_names = self._script_names()
        self.output_name = "output"
        while self.output_name in self.assigned_on or self.output_name in self.script_names.values():
            self.output_name += "_"

    def _script_names(self) -> dict[str, str]:
        names = set(self.assigned_on)
        chosen = {}
        for name in sorted(names):
            script_name = name
            while script_name in _RESERVED or (script_name != name and script_name in names):
                script_name += "_"
            chosen[name] = script_name
        return chosen

    # ---- bookkeeping ---------------------------------------------------------------------------------
    def fail(self, node: ast.AST, message: str) -> ExpressionError:
        return self.source.error(node, message)

    def at(self, node: ast.AST) -> tuple:
        """Where an instruction comes from, for errors found when it runs: its place and its node."""
        return (*self.source.place(node), node)

    def emit(self, node: ast.AST, fn: Callable, *args: Any, **kwargs: Any) -> Slot:
        slot = Slot(self.slots)
        self.slots += 1
        self.instructions.append(Call(fn, args, kwargs, slot.index, self.at(node)))
        return slot

    def reads_data(self, positions: list[int]) -> None:
        """The last instruction's arguments at ``positions`` are tensors it reads as data (cross_entropy's labels,
        an index tensor): the run records them (Result.uses), so the graph draws them."""
        if positions:
            self.instructions[-1] = replace(self.instructions[-1], data_args=tuple(positions))

    def charge(self, size: int, node: ast.AST, shape: tuple | None = None) -> None:
        self.budget.charge(size, node, shape)

    # ---- the program ---------------------------------------------------------------------------------
    def compile(self) -> Program:
        if not self.tree.body:
            raise ExpressionError(msg.EMPTY)
        output = None
        last = len(self.tree.body) - 1
        for index, statement in enumerate(self.tree.body):
            output = self.statement(statement, index == last)
        costs = Costs(**self.budget.costs)
        return Program(
            text=self.source.text,
            seed=self.seed,
            instructions=tuple(self.instructions),
            slots=self.slots,
            output=output.ref,
            output_shape=output.shape,
            shapes={name: value.shape for name, value in self.scope.items()},
            inputs={name: value.shape for name, value in self.inputs.items()},
            input_at=dict(self.input_at),
            fixed={name: (line, self.inputs[name].known) for name, line in self.fixed.items()},
            costs=costs,
            stepper_over=self.budget.stepper_over,
            stepper_culprit=self.budget.culprit() if self.budget.stepper_over else "",
            script=self.script(output),
        )

    def statement(self, node: ast.stmt, is_last: bool) -> Value | None:
        if isinstance(node, ast.Assign):
            if len(node.targets) > 1:
                raise self.fail(node.targets[1], msg.ONE_NAME_PER_LINE)
            target = node.targets[0]
            if isinstance(target, (ast.Tuple, ast.List)):
                return self.unpack(target, self.expr(node.value), node.value)
            self.target(target)
            return self.store(target.id, self.expr(node.value), node.value)
        if isinstance(node, ast.AugAssign):
            if not isinstance(node.target, ast.Name):
                raise self.fail(node.target, msg.AUGMENTED_TARGET)
            current = self.name(node.target)
            updated = self.binary(node, node.op, current, self.expr(node.value))
            return self.store(node.target.id, updated, node)
        if isinstance(node, ast.Expr):
            if not is_last:
                raise self.fail(node, msg.BARE_NOT_LAST)
            value = self.stored(self.expr(node.value), node.value, None)
            self.lines.append(ast.Assign(targets=[ast.Name(id=self.output_name, ctx=ast.Store())], value=value.code))
            return value
        raise self.fail(node, msg.hint(node))

    def target(self, node: ast.expr) -> None:
        if isinstance(node, ast.Name):
            if node.id.startswith("__"):
                raise self.fail(node, msg.DUNDER)
            return
        if isinstance(node, ast.Starred):
            raise self.fail(node, msg.STARRED_TARGET)
        if isinstance(node, ast.Subscript):
            raise self.fail(node, msg.SUBSCRIPT_TARGET)
        if isinstance(node, (ast.Tuple, ast.List)):
            raise self.fail(node, msg.NESTED_TARGET)
        raise self.fail(node, msg.PLAIN_TARGET)

    def unpack(self, target: ast.Tuple | ast.List, value: Value, node: ast.AST) -> Value:
        """`a, b = x, y` and `n, d = x.shape`: the right side is computed in full, then assigned in order."""
        for element in target.elts:
            self.target(element)
        if value.kind not in ("tuple", "list"):
            raise self.fail(node, msg.cannot_unpack(value.describe()))
        if len(value.items) != len(target.elts):
            raise self.fail(node, msg.unpack_count(len(target.elts), len(value.items)))
        result = None
        for element, item in zip(target.elts, value.items):
            result = self.store(element.id, item, node)
        return result

    def store(self, name: str, value: Value, node: ast.AST) -> Value:
        """Binds `name`: a tensor as it is, a constant as a new leaf that requires grad."""
        tensor = self.stored(value, node, name)
        script_name = self.script_names[name]
        self.lines.append(ast.Assign(targets=[ast.Name(id=script_name, ctx=ast.Store())], value=tensor.code))
        self.instructions.append(Store(name, tensor.ref, self.at(node)))
        if not tensor.node.named:
            tensor.node.named = True
            label = ast.Attribute(value=code_name(script_name), attr="name", ctx=ast.Store())
            self.lines.append(ast.Assign(targets=[label], value=ast.Constant(value=name)))
        # NOTE: from here on the script calls this tensor by this name (the Value is a copy, but its
        # graph node is shared, so every name for the tensor sees the same uses and name).
        self.scope[name] = replace(tensor, code=code_name(script_name))
        return self.scope[name]

    def stored(self, value: Value, node: ast.AST, name: str | None) -> Value:
        """The tensor a name (or the output) holds: tensors as they are, constants as new leaves.

        A name's first new leaf is an input: run(inputs=...) may give it another value.
        """
        if value.kind == "tensor":
            return value
        if value.kind in ("number", "list", "array"):
            array = self.constant_array(value, node)
            slot = Slot(self.slots)
            self.slots += 1
            is_input = name is not None and name not in self.inputs
            self.instructions.append(Leaf(array.ref, name, is_input, slot.index, self.at(node)))
            self.budget.node(node)
            self.budget.leaf(array.size)
            code = code_call(code_name("Tensor"), [array.code], {"requires_grad": ast.Constant(value=True)})
            sources = frozenset({name}) if is_input else frozenset()
            leaf = Value("tensor", slot, code, array.shape, array.known, True, sources=sources, node=_Node())
            if is_input:
                self.inputs[name] = leaf
                self.input_at[name] = self.at(node)
            return leaf
        if value.kind == "tuple":
            raise self.fail(node, msg.cannot_store(value.describe()) + "; unpack it instead, like `n, d = x.shape`")
        raise self.fail(node, msg.cannot_store(value.describe()))

    # ---- expressions ---------------------------------------------------------------------------------
    def expr(self, node: ast.expr) -> Value:
        if isinstance(node, ast.Constant):
            return self.constant(node)
        if isinstance(node, ast.Name):
            return self.name(node)
        if isinstance(node, ast.UnaryOp):
            return self.unary(node)
        if isinstance(node, ast.BinOp):
            return self.binary(node, node.op, self.expr(node.left), self.expr(node.right))
        if isinstance(node, ast.Compare):
            return self.compare(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Attribute):
            return self.attribute(node)
        if isinstance(node, ast.Subscript):
            return self.subscript(node)
        if isinstance(node, (ast.List, ast.Tuple)):
            return self.sequence(node)
        raise self.fail(node, msg.hint(node))

    def constant(self, node: ast.Constant) -> Value:
        value = node.value
        if isinstance(value, str):
            raise self.fail(node, msg.STRINGS)
        if isinstance(value, bytes):
            raise self.fail(node, msg.BYTES)
        if isinstance(value, complex):
            raise self.fail(node, msg.COMPLEX)
        if value is Ellipsis:
            return Value("ellipsis", Ellipsis, ast.Constant(value=Ellipsis), known=Ellipsis)
        if isinstance(value, bool) or value is None:
            return Value("flag", value, ast.Constant(value=value), known=value)
        if isinstance(value, int) and abs(value) > msg.MAX_INT:
            raise self.fail(node, msg.HUGE_INT)
        return Value("number", value, literal(value), known=value)

    def name(self, node: ast.Name) -> Value:
        name = node.id
        if name.startswith("__"):
            raise self.fail(node, msg.DUNDER)
        if name in self.scope:
            return self.scope[name]
        if name in lib.CONSTANTS:
            value = lib.CONSTANTS[name]
            return Value("number", value, literal(value), known=value)
        if name in lib.FUNCTIONS or name in lib.COMPOSITES or name in lib.CONSTRUCTORS:
            raise self.fail(node, msg.is_a_function(name))
        if name in self.assigned_on:
            raise self.fail(node, msg.used_before_assigned(name, self.assigned_on[name]))
        if name in msg.MODULES:
            raise self.fail(node, msg.not_available(name, None, lib.function_names()))
        raise self.fail(node, msg.unknown_name(name, [*self.scope, *lib.CONSTANTS, *lib.function_names()]))

    def sequence(self, node: ast.List | ast.Tuple) -> Value:
        items = tuple(self.expr(element) for element in node.elts)
        for item, element in zip(items, node.elts):
            if item.kind == "ellipsis":
                raise self.fail(element, msg.ELLIPSIS_OUTSIDE_INDEX)
        kind = "tuple" if isinstance(node, ast.Tuple) else "list"
        known = [i.known for i in items]
        known = UNKNOWN if any(k is UNKNOWN for k in known) else (tuple(known) if kind == "tuple" else known)
        code_type = ast.Tuple if kind == "tuple" else ast.List
        return Value(kind, None, code_type(elts=[i.code for i in items], ctx=ast.Load()), known=known, items=items)

    # -- conversions --
    def constant_array(self, value: Value, node: ast.AST) -> Value:
        """A number, a list of numbers or a constant array, as an 'array' Value (float64)."""
        if value.kind == "array":
            return value
        if value.kind == "number":
            array = np.asarray(float(value.known))
            return Value("array", array, literal(float(value.known)), (), known=array)
        if value.kind == "list":
            if value.known is UNKNOWN or not _numbers_only(value.known):
                raise self.fail(node, msg.LIST_OF_NUMBERS)
            try:
                array = np.array(value.known, dtype=np.float64)
            except ValueError:
                raise self.fail(node, msg.RAGGED) from None
            self.charge(array.size, node, array.shape)
            code = code_call(code_attr(code_name("np"), "array"), [literal(value.known)], {"dtype": code_name("float")})
            return Value("array", array, code, array.shape, known=array)
        raise self.fail(node, msg.expected_tensor(value.describe()))

    def tensor(self, value: Value, node: ast.AST) -> Value:
        """A tensor: tensors as they are, constants as new constant tensors (no grad, a graph node)."""
        if value.kind == "tensor":
            return value
        if value.kind in ("number", "list", "array"):
            array = self.constant_array(value, node)
            self.budget.node(node)
            slot = self.emit(node, make_constant_tensor, array.ref)
            code = code_call(code_name("Tensor"), [array.code], {"dtype": literal("int64")} if _integer(array) else {})
            return Value("tensor", slot, code, array.shape, known=array.known, node=_Node())
        raise self.fail(node, msg.expected_tensor(value.describe()))

    def operand(self, value: Value, node: ast.AST) -> Value:
        """An operand of + - * / ** and comparisons: numbers stay numbers (the engine wraps them)."""
        return value if value.kind == "number" else self.tensor(value, node)

    def known_number(self, value: Value, node: ast.AST, what: str) -> Any:
        """The value of a size-1 tensor or array known before running; marks the inputs it came from."""
        if value.known is UNKNOWN:
            raise self.fail(node, msg.not_known(what, value.describe()))
        for source in value.sources:
            self.fixed.setdefault(source, node.lineno)
        return np.asarray(value.known).item()

    def integer(self, value: Value, node: ast.AST, what: str) -> int:
        """A whole number from an int, an integral float, or a one-element tensor known to hold one."""
        number = value.known
        if value.kind in ("tensor", "array") and value.size == 1:
            number = self.known_number(value, node, what)
        if isinstance(number, float) and number.is_integer() and abs(number) <= msg.MAX_INT:
            number = int(number)
        if not isinstance(number, int) or isinstance(number, bool):
            raise self.fail(node, msg.whole_number(what, value.describe()))
        return number

    def plain(self, value: Value, node: ast.AST) -> Any:
        """A non-tensor argument (axis, keepdims, lo, a shape): numbers, True/False/None, tuples of them."""
        if value.kind in ("tensor", "array"):
            if value.size != 1:
                raise self.fail(node, msg.expected_number(value.describe()))
            number = self.known_number(value, node, "this argument")
            return int(number) if isinstance(number, float) and number.is_integer() else number
        if value.kind == "tuple":
            return tuple(self.plain(item, node) for item in value.items)
        if value.kind == "list":
            raise self.fail(node, msg.no_list_here(value.describe()))
        if value.kind in ("slice", "ellipsis"):
            raise self.fail(node, msg.expected_number(value.describe()))
        return value.known

    def integer_array(self, value: Value, node: ast.AST, what: str) -> np.ndarray:
        known = value.known
        try:
            array = np.array(known) if known else np.zeros(0, dtype=np.int64)
        except (ValueError, TypeError):
            array = None
        if array is None or array.dtype.kind not in "iu" or not _numbers_only(known):
            raise self.fail(node, msg.WHOLE_NUMBERS.format(what))
        self.charge(array.size, node, array.shape)
        return array

    # -- results of ops --
    def result(self, node: ast.AST, prim: str, shape: tuple, parents: list[Value], slot: Slot, code: ast.expr,
               known: Any = UNKNOWN) -> Value:
        """The tensor an op makes: its size charged, its node counted, its backward costs predicted."""
        shape = tuple(int(d) for d in shape)
        self.charge(math.prod(shape), node, shape)
        if prim in SAVED:
            self.charge(parents[0].size, node)
        self.budget.node(node)
        grad = any(p.grad for p in parents)
        if grad:
            self.budget.backward(node, prim, shape, parents)
        sources = frozenset().union(*(p.sources for p in parents)) if known is not UNKNOWN else frozenset()
        boolean = prim in _KEEPS_MASK and bool(parents) and parents[0].boolean  # (m > 0).T is a mask too
        return Value("tensor", slot, code, shape, known, grad, sources=sources, node=_Node(), boolean=boolean)

    def predict(self, node: ast.AST, prim: str, *args: Any, **kwargs: Any) -> tuple:
        """The primitive's shape rule on the arguments' shapes: an ExpressionError if they do not fit."""
        try:
            return engine.PRIMITIVES[prim].shape(*args, **kwargs)
        except (ValueError, IndexError) as exc:  # the engine's own words
            raise self.fail(node, msg.cannot_compute(self.source.quote(node), exc)) from None
        except TypeError:  # NOTE: Python's words ("'float' object is not iterable"), not the engine's: say ours
            raise self.fail(node, msg.cannot_compute(self.source.quote(node), msg.WRONG_KIND)) from None

    def fold(self, node: ast.AST, fn: Callable, *args: Any, **kwargs: Any) -> Any:
        """Computes a value known before running (small constants), as the run would."""
        try:
            with np.errstate(all="ignore"):
                return fn(*args, **kwargs)
        except (ValueError, TypeError, IndexError, ArithmeticError) as exc:
            raise self.fail(node, msg.cannot_compute(self.source.quote(node), exc)) from exc

    def known_result(self, node: ast.AST, fn: Callable, values: list, size: int, **kwargs: Any) -> Any:
        """The op's result computed now when every tensor input is known and the result is small."""
        if size > msg.KNOWN_LIMIT or any(v.known is UNKNOWN for v in values if v.kind in ("tensor", "array")):
            return UNKNOWN
        args = [Tensor(np.asarray(v.known)) if v.kind in ("tensor", "array") else v.known for v in values]
        return np.asarray(self.fold(node, fn, *args, **kwargs).data)

    def unary(self, node: ast.UnaryOp) -> Value:
        if not isinstance(node.op, (ast.USub, ast.UAdd)):
            raise self.fail(node, msg.NOT_OR_INVERT)
        value = self.expr(node.operand)
        if isinstance(node.op, ast.UAdd):
            if value.kind not in ("number", "list", "array", "tensor"):
                raise self.fail(node, msg.plus_on(value.describe()))
            return value
        if value.kind == "number":
            return Value("number", -value.known, literal(-value.known), known=-value.known)
        if value.kind in ("list", "array"):
            array = self.constant_array(value, node)
            return self.constant_op(node, operator.neg, [array], array.shape, ast.UnaryOp(ast.USub(), array.code))
        tensor = self.tensor(value, node)
        slot = self.emit(node, engine.neg, tensor.ref)
        known = self.known_result(node, engine.neg, [tensor], tensor.size)
        return self.result(node, "neg", tensor.shape, [tensor], slot, ast.UnaryOp(ast.USub(), tensor.code), known)

    def constant_op(self, node: ast.AST, fn: Callable, arrays: list, shape: tuple, code: ast.expr) -> Value:
        """An operation on constant arrays, folded in NumPy (W = randn(3, 4) * 0.1 stays a constant)."""
        size = math.prod(shape)
        self.charge(size, node, shape)
        if all(a.known is not UNKNOWN for a in arrays) and size <= msg.KNOWN_LIMIT:
            array = np.asarray(self.fold(node, fn, *[a.known for a in arrays]), dtype=np.float64)
            return Value("array", array, code, shape, known=array)
        slot = self.emit(node, fold_arrays, fn, *[a.ref for a in arrays])
        return Value("array", slot, code, shape)

    def binary(self, node: ast.AST, op: ast.operator, left: Value, right: Value) -> Value:
        if type(op) not in _BINARY:
            raise self.fail(node, msg.operator_not_supported(op))
        symbol, prim, fn = _BINARY[type(op)]
        if left.kind == "number" and right.kind == "number":
            if prim == "matmul":
                raise self.fail(node, msg.MATMUL_NUMBERS)
            try:
                result = _fold_numbers(type(op), left.known, right.known)
            except ArithmeticError as exc:
                raise self.fail(node, msg.cannot_compute(self.source.quote(node), exc)) from None
            return Value("number", result, literal(result), known=result)
        constants = ("number", "list", "array")
        if left.kind in constants and right.kind in constants:  # folded in NumPy
            left, right = self.constant_array(left, node), self.constant_array(right, node)
            shape = self.shape_of_binary(node, prim, left, right)
            return self.constant_op(node, fn, [left, right], shape, ast.BinOp(left.code, type(op)(), right.code))
        left, right = self.operand(left, node), self.operand(right, node)
        shape = self.shape_of_binary(node, prim, left, right)
        for operand in (left, right):
            if operand.kind == "number":  # the engine makes it a constant tensor: a node of the graph
                self.budget.node(node)
        slot = self.emit(node, fn, left.ref, right.ref)
        known = self.known_result(node, fn, [left, right], math.prod(shape))
        tensors = [v for v in (left, right) if v.kind == "tensor"]
        return self.result(node, prim, shape, tensors, slot, ast.BinOp(left.code, type(op)(), right.code), known)

    def shape_of_binary(self, node: ast.AST, prim: str, left: Value, right: Value) -> tuple:
        """The result's shape, with the language's own words for shapes that do not fit."""
        a, b = left.shape, right.shape
        if prim == "matmul":
            if not a or not b:
                raise self.fail(node, msg.matmul_scalar(a, b, self.source.quote(node)))
            a2, b2 = ((1, *a) if len(a) == 1 else a), ((*b, 1) if len(b) == 1 else b)
            if a2[-1] != b2[-2]:
                raise self.fail(node, msg.matmul_shapes(a, b, (a2[-1], b2[-2]), self.source.quote(node)))
            try:
                shape = engine.PRIMITIVES["matmul"].shape(a, b)
            except ValueError:
                raise self.fail(node, msg.matmul_batch(a, b, self.source.quote(node))) from None
            self.budget.matmul(engine.matmul_work(a, b), node)
            return shape
        try:
            return tuple(np.broadcast_shapes(a, b))
        except ValueError:
            raise self.fail(node, msg.broadcast([a, b], self.source.quote(node))) from None

    def compare(self, node: ast.Compare) -> Value:
        if len(node.ops) > 1:
            raise self.fail(node, msg.CHAINED_COMPARISON)
        if type(node.ops[0]) not in _COMPARE:
            raise self.fail(node, msg.COMPARISONS)
        symbol, fn = _COMPARE[type(node.ops[0])]
        left = self.tensor(self.expr(node.left), node)  # a comparison always gives a mask, never a Python bool
        right = self.operand(self.expr(node.comparators[0]), node)
        try:
            shape = tuple(np.broadcast_shapes(left.shape, right.shape))
        except ValueError:
            raise self.fail(node, msg.broadcast([left.shape, right.shape], self.source.quote(node))) from None
        self.charge(math.prod(shape), node, shape)
        self.budget.node(node)
        slot = self.emit(node, fn, left.ref, right.ref)
        known = self.known_result(node, fn, [left, right], math.prod(shape))
        code = ast.Compare(left=left.code, ops=[type(node.ops[0])()], comparators=[right.code])
        return Value("tensor", slot, code, shape, known, node=_Node(), boolean=True)  # a boolean mask, no grad

    # -- attributes and indexing --
    def attribute(self, node: ast.Attribute) -> Value:
        name = node.attr
        if isinstance(node.value, ast.Name) and node.value.id in msg.MODULES and node.value.id not in self.scope:
            raise self.fail(node.value, msg.not_available(node.value.id, name, lib.function_names()))
        if name in lib.METHODS:
            raise self.attribute_error(node, msg.is_a_method(name, lib.method_names(), lib.ATTRIBUTES))
        if name not in lib.ATTRIBUTES:
            raise self.attribute_error(node, msg.attribute_not_allowed(name, lib.method_names(), lib.ATTRIBUTES))
        value = self.expr(node.value)
        if name == "shape":
            if value.kind not in ("tensor", "array"):
                raise self.fail(node, msg.shape_of(value.describe()))
            items = tuple(Value("number", d, literal(d), known=d) for d in value.shape)
            return Value("tuple", None, code_attr(value.code, "shape"), known=value.shape, items=items)
        tensor = self.tensor(value, node.value)  # .T
        shape = self.predict(node, "transpose", tensor.shape)
        slot = self.emit(node, engine.transpose, tensor.ref)
        known = self.known_result(node, engine.transpose, [tensor], tensor.size)
        return self.result(node, "transpose", shape, [tensor], slot, code_attr(tensor.code, "T"), known)

    def attribute_error(self, node: ast.Attribute, message: str) -> ExpressionError:
        """Points at the attribute's name (after the dot) rather than at the start of the expression."""
        line = node.end_lineno
        end_col = self.source.char_col(line, node.end_col_offset)
        return ExpressionError(message, line, max(end_col - len(node.attr), 1), end_col)

    def subscript(self, node: ast.Subscript) -> Value:
        value = self.expr(node.value)
        if value.kind == "tuple":
            return self.tuple_item(node, value)
        tensor = self.tensor(value, node.value)
        index, code = self.index(node.slice)
        parts = index if isinstance(index, tuple) else (index,)
        by_tensor = any(isinstance(p, _TensorIndex) for p in parts)
        try:
            shape = engine.PRIMITIVES["getitem"].shape(tensor.shape, _index_with(index, "stand_in"))
        except (IndexError, ValueError) as exc:
            reason = str(exc).removeprefix("getitem: ").split(" (tensor of shape")[0]
            raise self.fail(node, msg.bad_index(self.source.quote(node), tensor.shape, reason)) from None
        if by_tensor:  # logp[[0, 1, 2], y]: the index tensors are read when the program runs
            refs = [p.value.ref if isinstance(p, _TensorIndex) else p for p in parts]
            slot = self.emit(node, _pick, tensor.ref, isinstance(index, tuple), *refs)
            self.reads_data([2 + k for k, p in enumerate(parts) if isinstance(p, _TensorIndex)])
        else:
            slot = self.emit(node, operator.getitem, tensor.ref, index)
        known = UNKNOWN
        if tensor.known is not UNKNOWN and math.prod(shape) <= msg.KNOWN_LIMIT and all(
                p.value.known is not UNKNOWN for p in parts if isinstance(p, _TensorIndex)):
            known = np.asarray(self.fold(node, operator.getitem, np.asarray(tensor.known), _index_with(index, "known")))
        return self.result(node, "getitem", shape, [tensor], slot, ast.Subscript(tensor.code, code, ast.Load()), known)

    def tensor_index(self, value: Value, node: ast.AST) -> "_TensorIndex":
        """A tensor used as an index (PyTorch's ``logp[rows, y]``): data of whole numbers (or a mask whose value
        is known), never one that requires grad. Its values are read when the program runs; the shape rule
        gets a stand-in of its shape (bounds are checked then), or its value when known."""
        if value.grad:
            raise self.fail(node, msg.GRAD_INDEX.format(value.describe()))
        known = value.known
        if known is not UNKNOWN:
            array = np.asarray(known)
            whole = array.dtype.kind in "iub" or array.dtype.kind == "f" and bool(np.all(array == np.round(array)))
            if not whole:
                raise self.fail(node, msg.WHOLE_NUMBERS.format("an index tensor"))
            for source in value.sources:  # a mask made from an input: a nudge would change the result's shape
                self.fixed.setdefault(source, node.lineno)
            stand_in = array if array.dtype.kind == "b" else array.astype(np.int64)
        else:
            stand_in = np.zeros(value.shape, np.int64)
        return _TensorIndex(value, stand_in)

    def tuple_item(self, node: ast.Subscript, value: Value) -> Value:
        """x.shape[0], x.shape[1:]: a tuple's item (or items), known before running."""
        if isinstance(node.slice, ast.Slice):
            bounds = [None if p is None else self.integer(self.expr(p), p, "a slice bound")
                      for p in (node.slice.lower, node.slice.upper, node.slice.step)]
            if bounds[2] == 0:
                raise self.fail(node.slice, msg.SLICE_STEP_ZERO)
            items = value.items[slice(*bounds)]
            return Value("tuple", None, literal(tuple(i.known for i in items)), known=tuple(i.known for i in items),
                         items=items)
        position = self.integer(self.expr(node.slice), node.slice, "an index")
        if not -len(value.items) <= position < len(value.items):
            raise self.fail(node, msg.tuple_index(len(value.items)))
        return value.items[position]

    def index(self, node: ast.expr) -> tuple[Any, ast.expr]:
        """An index as NumPy takes it (ints, slices, None, ..., integer arrays, a tuple of those), and its code."""
        if isinstance(node, ast.Tuple):
            parts = [self.index(element) for element in node.elts]
            return tuple(p for p, _ in parts), ast.Tuple(elts=[c for _, c in parts], ctx=ast.Load())
        if isinstance(node, ast.Slice):
            bounds = [None if p is None else self.integer(self.expr(p), p, "a slice bound")
                      for p in (node.lower, node.upper, node.step)]
            if bounds[2] == 0:
                raise self.fail(node, msg.SLICE_STEP_ZERO)
            code = ast.Slice(*[None if b is None else literal(b) for b in bounds])
            return slice(*bounds), code
        value = self.expr(node)
        if value.kind == "ellipsis":
            return Ellipsis, ast.Constant(value=Ellipsis)
        if value.kind == "flag" and value.known is None:
            return None, ast.Constant(value=None)
        if value.kind == "list":
            array = self.integer_array(value, node, "an index list")
            return array, literal(array)
        if value.kind == "tensor" and value.size != 1:
            return self.tensor_index(value, node), value.code
        number = self.integer(value, node, "an index")
        return number, literal(number)

    # -- calls --
    def call(self, node: ast.Call) -> Value:
        func = node.func
        for argument in node.args:
            if isinstance(argument, ast.Starred):
                raise self.fail(argument, msg.STAR_ARGS)
        seen = set()
        for keyword in node.keywords:
            if keyword.arg is None:
                raise self.fail(keyword, msg.DOUBLE_STAR)
            if keyword.arg in seen:  # NOTE: ast.parse accepts f(a=1, a=2); Python's compiler refuses it
                raise self.fail(keyword, msg.repeated_keyword(keyword.arg))
            seen.add(keyword.arg)
        if isinstance(func, ast.Name):
            name = func.id
            if name.startswith("__"):
                raise self.fail(func, msg.DUNDER)
            if name in lib.CONSTRUCTORS:
                return self.construct(node, name)
            if name in lib.FUNCTIONS:
                return self.apply(node, lib.FUNCTIONS[name], [])
            if name in lib.COMPOSITES:
                return self.composite(node, lib.COMPOSITES[name])
            if name in self.scope:
                raise self.fail(func, msg.is_a_tensor_not_a_function(name))
            if name in msg.MODULES:
                raise self.fail(func, msg.not_available(name, None, lib.function_names()))
            raise self.fail(func, msg.unknown_function(name, lib.function_names()))
        if isinstance(func, ast.Attribute):
            owner = func.value
            if isinstance(owner, ast.Name) and owner.id in msg.MODULES and owner.id not in self.scope:
                raise self.fail(owner, msg.not_available(owner.id, func.attr, lib.function_names()))
            if func.attr not in lib.METHODS:
                if func.attr in lib.ATTRIBUTES:
                    raise self.attribute_error(func, msg.not_callable(f"'.{func.attr}'"))
                raise self.attribute_error(func, msg.unknown_method(func.attr, lib.method_names(), lib.ATTRIBUTES))
            receiver = self.tensor(self.expr(owner), owner)
            return self.apply(node, lib.METHODS[func.attr], [receiver])
        raise self.fail(func, msg.only_named_calls(lib.function_names()))

    def apply(self, node: ast.Call, entry: lib.Entry, receiver: list[Value]) -> Value:
        """A function or method of the language: arguments converted, shape predicted, one instruction."""
        args = [self.expr(a) for a in node.args]
        keywords = {}
        for keyword in node.keywords:
            if keyword.arg not in entry.keywords:
                raise self.fail(keyword, msg.keyword_not_allowed(keyword.arg, entry.keywords))
            keywords[keyword.arg] = self.plain(self.expr(keyword.value), keyword.value)
            if keyword.arg == "axis" and not _is_axis(keywords["axis"]):
                raise self.fail(keyword.value, msg.whole_number("`axis`", _number_text(keywords["axis"])))
        if entry.number is not None and len(args) == 1 and not keywords and args[0].kind == "number":
            x = args[0].known
            with np.errstate(all="ignore"):  # sqrt(8), exp(1): plain numbers stay numbers
                result = float(entry.number(np.float64(x)))
            try:
                result = _finite(result, x)
            except ArithmeticError as exc:
                raise self.fail(node, msg.cannot_compute(self.source.quote(node), exc)) from None
            return Value("number", result, literal(result), known=result)
        try:
            entry.bind([*receiver, *args], keywords)
        except TypeError as exc:
            raise self.fail(node, msg.cannot_compute(self.source.quote(node), exc)) from None
        converted = list(receiver)
        shapes: list = [r.shape for r in receiver]
        parents = list(receiver)
        data_args = []  # positions of the tensors the op reads as data (labels, indices): drawn, not differentiated
        for i, (arg, arg_node) in enumerate(zip(args, node.args)):
            kind = entry.args[i] if i < len(entry.args) and entry.args != "*" else "P"
            value, shape_arg = self.argument(kind, arg, arg_node, entry.prim.name)
            if kind == "L" and value.kind == "tensor":
                data_args.append(len(converted))
            if kind == "N" and value.kind == "number":
                self.budget.node(arg_node)
            converted.append(value)
            shapes.append(shape_arg)
            if kind in ("T", "N") and value.kind == "tensor":
                parents.append(value)
            elif kind == "S":
                parents.extend(value.items)
        prim = entry.prim.name
        shape = self.predict(node, prim, *shapes, **keywords)
        if prim == "linear":
            self.budget.matmul(math.prod(shape) * shapes[1][-1], node)
        refs = [v.ref for v in converted]
        slot = self.emit(node, entry.run, *refs, **keywords)
        self.reads_data(data_args)
        known = UNKNOWN
        if math.prod(shape) <= msg.KNOWN_LIMIT and all(v.known is not UNKNOWN for v in converted):
            known_args = [self.known_argument(v) for v in converted]
            known = np.asarray(self.fold(node, entry.run, *known_args, **keywords).data)
        code = self.call_code(entry, converted, keywords)
        return self.result(node, prim, shape, parents, slot, code, known)

    def composite(self, node: ast.Call, entry: lib.Composite) -> Value:
        """layer_norm, rms_norm, scaled_dot_product_attention, dropout: functions written from primitives. Their
        steps (autograd.functional.STEPS, declared beside each one) give the result's shape and every node and cost
        of the graph the composite records, through the primitives' own shape rules, before anything runs; one
        instruction then runs the composite itself."""
        params = entry.parameters
        if len(node.args) > len(entry.args):
            raise self.fail(node.args[len(entry.args)], msg.too_many_in_order(entry.name, params[:len(entry.args)]))
        given = [(name, kind, arg) for name, kind, arg in zip(params, entry.args, node.args)]
        for keyword in node.keywords:
            if keyword.arg not in entry.keywords:
                raise self.fail(keyword, msg.keyword_not_allowed(keyword.arg, entry.keywords))
            given.append((keyword.arg, entry.keywords[keyword.arg], keyword.value))
        try:
            inspect.signature(entry.run).bind(*node.args, **{k.arg: None for k in node.keywords})
        except TypeError as exc:
            raise self.fail(node, msg.cannot_compute(self.source.quote(node), exc)) from None
        args: dict[str, Any] = {}  # parameter -> its Value (a tensor) or its plain value
        for name, kind, arg_node in given:
            value = self.expr(arg_node)
            if kind == "T" or (kind == "O" and not (value.kind == "flag" and value.known is None)):
                args[name] = self.tensor(value, arg_node)
            elif value.kind == "list" and name == "normalized_shape":  # [4] as PyTorch takes it, or (4,)
                args[name] = tuple(self.integer(item, arg_node, "a dimension") for item in value.items)
            else:
                args[name] = self.plain(value, arg_node)
                self.plain_kind(entry, name, args[name], value, arg_node)
        shapes = {name: v.shape if isinstance(v, Value) else v for name, v in args.items()}
        if isinstance(args.get("attn_mask"), Value):
            shapes["boolean_mask"] = args["attn_mask"].boolean
        quote = self.source.quote(node)
        try:
            steps = entry.steps(**shapes)
        except (ValueError, IndexError) as exc:
            raise self.fail(node, msg.cannot_compute(quote, exc)) from None
        except TypeError:
            raise self.fail(node, msg.cannot_compute(quote, msg.WRONG_KIND)) from None
        outs: list[Value] = []
        for step in steps:
            prim = engine.PRIMITIVES[step.op]
            operands, parents = [], []
            for position, a in enumerate(step.args):
                tensor = args[a.name] if isinstance(a, F.Input) else outs[a.index] if isinstance(a, F.Out) else None
                if isinstance(a, F.Constant):  # eps, the scale, dropout's mask: the engine makes a constant node
                    self.budget.node(node)
                    if a.shape:
                        self.charge(math.prod(a.shape), node, a.shape)
                operands.append(tensor.shape if tensor is not None else a.shape if isinstance(a, F.Constant) else a)
                if tensor is not None and position < len(prim.slots):
                    parents.append(tensor)
            shape = self.predict(node, step.op, *operands, **step.kwargs)
            if step.op == "matmul":
                self.budget.matmul(engine.matmul_work(*operands), node)
            outs.append(self.result(node, step.op, shape, parents, None, None))
        positional = [args[name] for name, _, _ in given[:len(node.args)]]
        keywords = {name: args[name] for name, _, _ in given[len(node.args):]}
        # The run fills Slots in positional arguments only: a tensor given by keyword is passed in its place, the
        # parameters before it at their defaults. A seeded composite draws from the run's generator (slot 0), in
        # program order, as randn does (the script passes it `generator=rng`).
        run_args = {**args, "generator": Slot(0)} if entry.seeded else args
        signature = inspect.signature(entry.run).parameters
        tensor_at = [i for i, p in enumerate(params) if isinstance(run_args.get(p), (Value, Slot))]
        in_order = [run_args[p] if p in run_args else signature[p].default for p in params[:max(tensor_at) + 1]]
        rest = {k: v for k, v in run_args.items() if params.index(k) > max(tensor_at)}
        slot = self.emit(node, entry.run, *(v.ref if isinstance(v, Value) else v for v in in_order), **rest)
        code_of = lambda v: v.code if isinstance(v, Value) else literal(v)  # noqa: E731
        script_keywords = {k: code_of(v) for k, v in keywords.items()}
        if entry.seeded:
            self.uses_rng = True
            script_keywords["generator"] = code_name("rng")
        code = code_call(code_attr(code_name("F"), entry.name), list(map(code_of, positional)), script_keywords)
        if not steps:  # the identity (dropout in eval, or p=0): the engine returns the input itself
            return replace(args["input"], ref=slot, code=code)
        tensors = [v for v in args.values() if isinstance(v, Value)]
        known, sources = UNKNOWN, frozenset()
        small = math.prod(outs[-1].shape) <= msg.KNOWN_LIMIT
        if small and not entry.seeded and all(v.known is not UNKNOWN for v in tensors):
            fold = lambda v: self.known_argument(v) if isinstance(v, Value) else v  # noqa: E731
            result = self.fold(node, entry.run, *map(fold, positional), **{k: fold(v) for k, v in keywords.items()})
            known = np.asarray(result.data)
            sources = frozenset().union(*(v.sources for v in tensors))
        return replace(outs[-1], ref=slot, code=code, known=known, sources=sources)

    def plain_kind(self, entry: lib.Composite, name: str, plain: Any, value: Value, node: ast.AST) -> None:
        """A composite's plain argument of the kind its default says: True or False for a flag (is_causal,
        training), a number for a number (eps, p; None too where that is the default, as for scale)."""
        default = inspect.signature(entry.run).parameters[name].default
        if isinstance(default, bool) and not isinstance(plain, bool):
            raise self.fail(node, msg.flag_argument(entry.name, name, value.describe()))
        number = isinstance(default, float) or (default is None and name in ("eps", "scale"))
        if number and not (_is_number(plain) or default is None and plain is None):
            raise self.fail(node, msg.number_argument(entry.name, name, value.describe(), default is None))

    def argument(self, kind: str, value: Value, node: ast.AST, prim: str) -> tuple[Value, Any]:
        """An argument as the engine takes it (a Value) and as the shape rule of `prim` takes it."""
        if kind == "T" or kind == "M":
            tensor = self.tensor(value, node)
            return tensor, tensor.shape
        if kind == "N":
            operand = self.operand(value, node)
            return operand, operand.shape  # a number has shape ()
        if kind == "L":  # getitem's shape rule takes the index itself; cross_entropy's, the labels' shape
            if value.kind == "list":
                array = self.integer_array(value, node, "labels and indices")
                return Value("array", array, literal(array), array.shape, known=array), (
                    array if prim == "getitem" else array.shape)
            tensor = self.tensor(value, node)
            for source in tensor.sources:  # labels made from an input: a nudge would make them fractional
                self.fixed.setdefault(source, node.lineno)
            if prim != "getitem":
                return tensor, tensor.shape
            # NOTE: the result's shape does not depend on the index's values, only its shape; a stand-in
            # of zeros gives it (bounds are then checked when the program runs).
            index = np.asarray(tensor.known) if tensor.known is not UNKNOWN else np.zeros(tensor.shape, np.int64)
            return tensor, index
        if kind == "S":
            if value.kind not in ("list", "tuple") or not value.items:
                raise self.fail(node, msg.TENSOR_LIST)
            items = tuple(self.tensor(item, node) for item in value.items)
            slot = self.emit(node, _list, *[i.ref for i in items])
            known = [i.known for i in items]
            known = UNKNOWN if any(k is UNKNOWN for k in known) else known
            code = ast.List(elts=[i.code for i in items], ctx=ast.Load())
            return Value("list", slot, code, known=known, items=items), [i.shape for i in items]
        plain = self.plain(value, node)
        return Value("flag", plain, literal(plain), known=plain), plain

    def known_argument(self, value: Value) -> Any:
        if value.kind == "tensor":
            return Tensor(np.asarray(value.known))
        if value.kind == "list" and value.items:
            return [Tensor(np.asarray(i.known)) for i in value.items]
        return value.known

    def call_code(self, entry: lib.Entry, converted: list[Value], keywords: dict) -> ast.expr:
        kws = {k: literal(v) for k, v in keywords.items()}
        if entry.method and entry.name not in lib.LANGUAGE_METHODS:  # x.detach() is F.detach(x) in Python too
            receiver, *rest = converted
            return code_call(code_attr(receiver.code, entry.name), [v.code for v in rest], kws)
        return code_call(code_attr(code_name("F"), entry.name), [v.code for v in converted], kws)

    def construct(self, node: ast.Call, name: str) -> Value:
        """tensor([...]), randn, rand, zeros, ones, eye, arange: constant arrays (leaves once assigned).

        With `requires_grad=False` the result is data instead: a constant tensor, a graph node without
        grad, which stays one when assigned to a name (it is not an input of the program).
        """
        requires_grad = True
        for keyword in node.keywords:
            if keyword.arg not in lib.CONSTRUCTOR_KEYWORDS:
                raise self.fail(keyword, msg.constructor_keyword(name, keyword.arg, lib.CONSTRUCTOR_KEYWORDS))
            flag = self.expr(keyword.value)
            if flag.kind != "flag" or not isinstance(flag.known, bool):
                raise self.fail(keyword.value, msg.requires_grad_flag(name, flag.describe()))
            requires_grad = flag.known
        # NOTE: tensor() of whole numbers is int64 only as data (requires_grad=False: labels, indices), as
        # torch.tensor makes it. Without the keyword it is an input, float64 as API.md fixes for integer
        # input (a Tensor of [1, 2] is float64 with a grad), so programs written before mean what they meant.
        array = self.construct_array(node, name, integers=not requires_grad)
        return array if requires_grad else self.tensor(array, node)

    def construct_array(self, node: ast.Call, name: str, integers: bool = False) -> Value:
        """What a constructor makes: an 'array' Value (its size charged); with ``integers``, tensor() of
        whole numbers makes int64 data."""
        args = [self.expr(a) for a in node.args]
        if name == "tensor":
            if len(args) != 1 or args[0].kind not in ("number", "list", "array"):
                raise self.fail(node, msg.tensor_argument())
            if integers and args[0].kind in ("number", "list") and _numbers_only(args[0].known, whole=True):
                array = self.integer_array(args[0], node, "tensor()'s numbers")
                code = code_call(code_attr(code_name("np"), "array"), [literal(args[0].known)])
                return Value("array", array, code, array.shape, known=array)
            array = self.constant_array(args[0], node)
            if args[0].kind == "array":  # a copy of its own
                code = code_call(code_attr(code_name("np"), "array"), [array.code])
                if array.known is not UNKNOWN:
                    return Value("array", array.ref, code, array.shape, known=array.known)
                self.charge(array.size, node, array.shape)
                return Value("array", self.emit(node, np.array, array.ref), code, array.shape)
            return array
        if name in ("eye", "arange"):
            if len(args) != 1:
                raise self.fail(node, msg.one_whole_number(name))
            n = self.integer(args[0], node.args[0], f"the argument of {name}()")
            shape = (n, n) if name == "eye" else (n,)
        else:
            arg_nodes = node.args
            if len(args) == 1 and args[0].kind == "tuple":
                arg_nodes, args = [node.args[0]] * len(args[0].items), list(args[0].items)
            shape = tuple(self.integer(a, n, "a dimension") for a, n in zip(args, arg_nodes, strict=True))
        if any(d < 0 for d in shape) or len(shape) > msg.MAX_DIMS:
            raise self.fail(node, msg.bad_shape(shape))
        size = math.prod(shape)
        self.charge(size, node, shape)
        if name in ("randn", "rand"):
            self.uses_rng = True
            method = "standard_normal" if name == "randn" else "random"
            slot = self.emit(node, _DRAWS[name], Slot(0), shape)
            return Value("array", slot, code_call(code_attr(code_name("rng"), method), [literal(shape)]), shape)
        make = _deterministic(name)
        if name in ("zeros", "ones"):
            code = code_call(code_attr(code_name("np"), name), [literal(shape)])
        elif name == "eye":
            code = code_call(code_attr(code_name("np"), "eye"), [literal(shape[0])])
        else:
            code = code_call(code_attr(code_name("np"), "arange"), [literal(shape[0])], {"dtype": code_name("float")})
        if size <= msg.KNOWN_LIMIT:
            array = make(shape)
            return Value("array", array, code, shape, known=array)
        return Value("array", self.emit(node, make, shape), code, shape)

    # ---- the exported script -----------------------------------------------------------------------
    def script(self, output: Value) -> dict:
        """What emit.py needs to write the script: its statements and names."""
        names = {name: self.script_names[name] for name in self.scope}
        out_name = self.output_name
        last = self.tree.body[-1]
        if isinstance(last, (ast.Assign, ast.AugAssign)):
            target = last.targets[0] if isinstance(last, ast.Assign) else last.target
            last_name = target.elts[-1].id if isinstance(target, (ast.Tuple, ast.List)) else target.id
            out_name = self.script_names[last_name]
        return {"statements": self.lines, "names": names, "output": out_name, "uses_rng": self.uses_rng}


# ---- run-time helpers the instructions call ---------------------------------------------------------
@dataclass(frozen=True)
class _TensorIndex:
    """A tensor in an index: its Value, and what the shape rule takes for it."""

    value: Value
    stand_in: np.ndarray


def _index_with(index, what: str):
    """The index with each tensor in it replaced by its ``stand_in`` or its ``known`` value."""
    if isinstance(index, tuple):
        return tuple(_index_with(p, what) for p in index)
    if isinstance(index, _TensorIndex):
        return index.stand_in if what == "stand_in" else np.asarray(index.value.known)
    return index


def _pick(a, whole_tuple: bool, *parts):
    """a[parts] (a tuple index) or a[parts[0]], with index tensors filled in when the program runs."""
    return a[parts] if whole_tuple else a[parts[0]]


def _list(*items):
    return list(items)


def fold_arrays(fn, *arrays):
    """fn on constant arrays (NumPy arithmetic), always an array (a 0-d result too)."""
    return np.asarray(fn(*arrays))


def _normal(rng, shape):
    return rng.standard_normal(shape)


def _uniform(rng, shape):
    return rng.random(shape)


_DRAWS = {"randn": _normal, "rand": _uniform}


def _eye(shape):
    return np.eye(shape[0])


def _arange(shape):
    return np.arange(shape[0], dtype=np.float64)


def _deterministic(name):
    return {"zeros": np.zeros, "ones": np.ones, "eye": _eye, "arange": _arange}[name]
