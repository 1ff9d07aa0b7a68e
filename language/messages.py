"""Every limit of the expression language and every message it gives a student, in one place.

The checker and the runner only decide *what* is wrong and *where*; the words are here, so they can be
read (and improved) together. Each message says what is wrong, and what to write instead where there
is a better way.
"""

import ast
import difflib
import math

# ---- limits -----------------------------------------------------------------------------------------
MAX_CHARS = 10_000  # characters of program text
MAX_BRACKET_DEPTH = 64
MAX_DEPTH = 100  # levels of the syntax tree (a + b + c + ... with 100 terms is 100 levels)
MAX_INT = 10**15  # the largest integer literal
MAX_DIMS = 6
MAX_NODES = 5_000  # graph nodes: op results, constants used as operands, leaves
MAX_ELEMENTS = 1_000_000  # in one tensor
MAX_SPAN = 2**53  # the product of a shape's nonzero dimensions (NumPy overflows its index past ~2**60)
MAX_TOTAL_ELEMENTS = 10_000_000  # forward: every array the program creates, summed
MAX_BACKWARD_ELEMENTS = 30_000_000  # backward: every gradient a VJP returns, and every node's grad, summed
MAX_STEPPER_ELEMENTS = 20_000_000  # what the Backward Stepper records for its steps, summed
MAX_MATMUL_WORK = 1_000_000_000  # multiply-adds summed over every @ and linear in the program
# NOTE: why these limits keep a server safe. An element is 8 bytes (float64), so the forward holds at
# most 80 MB of results and the backward allocates at most 240 MB of gradients over its whole run
# (it holds far less: one grad per node, at most the forward's size). With the temporaries each op
# makes (a few arrays of at most MAX_ELEMENTS), no accepted program makes the server allocate near
# 1 GB; the Stepper's records (160 MB at most) are charged apart, as only the Stepper keeps them.
KNOWN_LIMIT = 16  # arrays this small are computed while checking, so a shape or index can use them

# ---- names a student may reach for, and where to find them here --------------------------------------
MODULES = ("torch", "np", "numpy", "F", "nn", "math", "autograd", "jnp", "jax", "tf", "scipy", "random", "os", "sys")
ALIASES = {  # a name from PyTorch or NumPy -> what this language calls it
    "array": "tensor", "asarray": "tensor", "from_numpy": "tensor", "zeros_like": "zeros", "ones_like": "ones",
    "randn_like": "randn", "rand_like": "rand", "normal": "randn", "uniform": "rand", "cat": "concat",
    "concatenate": "concat", "hstack": "concat", "vstack": "stack", "amax": "max", "amin": "min",
    "clamp": "clip", "clamp_min": "clip", "view": "reshape", "permute": "transpose", "mm": "@", "matmul": "@",
    "dot": "@", "t": ".T", "size": ".shape", "dim": ".shape", "square": "** 2", "power": "pow", "absolute": "abs",
    "softplus": "log(1 + exp(x))", "logsumexp": "log_softmax", "sub": "-", "add": "+", "mul": "*",
    "multiply": "*", "div": "/", "divide": "/", "neg": "-x", "negative": "-x", "flatten": "reshape(-1)",
    "swapaxes": "transpose", "expand_dims": "unsqueeze", "max_pool": "max", "sigmoid_": "sigmoid",
}

HINTS = (  # statements and expressions outside the language -> what to tell the student
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


def hint(node):
    for types, message in HINTS:
        if isinstance(node, types):
            return message
    return f"`{type(node).__name__}` is not part of this language; a program is lines of `name = expression`"


def suggest(name, candidates):
    """' — did you mean 'x'?' for the closest candidate, or ''."""
    match = difflib.get_close_matches(name, list(candidates), n=1)
    return f" — did you mean '{match[0]}'?" if match else ""


def alias(name):
    """' — here it is `x`' when PyTorch or NumPy call the language's `x` by `name`, or ''."""
    return f" — here it is `{ALIASES[name]}`" if name in ALIASES else ""


# ---- reading the text ---------------------------------------------------------------------------------
def too_long():
    return f"the program is longer than {MAX_CHARS:,} characters"


NULL_BYTE = "the program contains a null byte"
NOT_TEXT = "the program contains a character that is not valid text"
NOT_A_STR = "the program must be a str, got {}"
TOO_DEEP_TO_READ = "this line is nested too deeply to read; split it over several lines"
EMPTY = "the program is empty: write a line such as `y = (2 * randn(3)).sum()`"


def brackets_too_deep():
    return f"brackets are nested more than {MAX_BRACKET_DEPTH} deep"


def tree_too_deep():
    return f"the expression is nested more than {MAX_DEPTH} levels deep; split it up"


def syntax_error(message):
    message = message or "invalid syntax"
    if message.startswith("invalid syntax"):
        message += " (each line should look like `name = expression`)"
    elif "indent" in message:
        message += " (lines must start at the left edge)"
    return f"syntax error: {message}"


# ---- statements -------------------------------------------------------------------------------------
ONE_NAME_PER_LINE = "assign one name per line (`a = b = ...` is not allowed)"
AUGMENTED_TARGET = "augmented assignment (+=, *=, ...) works only on a plain name"
BARE_NOT_LAST = "only the last line may be a bare expression (it is the output); give this one a name, like `y = ...`"
SUBSCRIPT_TARGET = ("assigning into part of a tensor (`x[0] = ...`) is not allowed: build a new tensor instead, "
                    "e.g. with where(...) or masked_fill(...)")
PLAIN_TARGET = "only plain names can be assigned to, like `y = ...`"
NESTED_TARGET = "unpack into plain names only, like `a, b = x, y`"
STARRED_TARGET = "* in unpacking is not allowed: name each value, like `a, b = x, y`"
DUNDER = "names starting with '__' are not allowed"


def unpack_count(names, values):
    return f"cannot unpack {values} values into {names} names"


def cannot_unpack(what):
    return f"{what} cannot be unpacked: unpack a tuple or a shape, like `a, b = x, y` or `n, d = x.shape`"


def cannot_store(what):
    return f"{what} cannot be stored in a variable; only tensors and numbers can"


# ---- names --------------------------------------------------------------------------------------------
def is_a_function(name):
    return f"'{name}' is a function: call it, like {name}(x)"


def used_before_assigned(name, line):
    return f"'{name}' is used before it is assigned (on line {line})"


def unknown_name(name, known):
    return f"unknown name '{name}'" + (alias(name) or suggest(name, known))


def not_available(module, attribute, functions):
    """`torch.randn(3)`, `np.exp(x)`: the module is not here, and what to write instead."""
    message = f"`{module}` is not available here"
    if attribute in functions:
        return message + f"; did you mean `{attribute}`?"
    if attribute in ALIASES:
        return message + f"; did you mean `{ALIASES[attribute]}`?"
    match = difflib.get_close_matches(attribute or "", list(functions), n=1)
    if match:
        return message + f"; did you mean `{match[0]}`?"
    return message + ": the language's functions are called by their own names, like randn(3) or exp(x)"


def is_a_tensor_not_a_function(name):
    return f"'{name}' is a tensor, not a function"


def unknown_function(name, functions):
    hint_ = alias(name) or suggest(name, functions)
    return f"unknown function '{name}'{hint_}; you can use the functions {', '.join(functions)}"


def only_named_calls(functions):
    return f"only the built-in functions and tensor methods can be called: functions {', '.join(functions)}"


def method_summary(methods, attributes):
    return ", ".join(f".{a}" for a in attributes) + " and the methods " + ", ".join(f".{m}()" for m in methods)


def unknown_method(name, methods, attributes):
    return (f"unknown method '.{name}()'" + (alias(name) or suggest(name, [*methods, *attributes]))
            + f"; you can use {method_summary(methods, attributes)}")


def is_a_method(name, methods, attributes):
    return f"'.{name}' is a method: call it, like x.{name}(); you can use {method_summary(methods, attributes)}"


def attribute_not_allowed(name, methods, attributes):
    if name.startswith("__"):
        extra = " (names starting with '__' are never allowed)"
    else:
        extra = alias(name) or suggest(name, [*methods, *attributes])
    return f"attribute '.{name}' is not allowed{extra}; you can use {method_summary(methods, attributes)}"


def not_callable(what):
    return f"{what} cannot be called"


# ---- values -------------------------------------------------------------------------------------------
STRINGS = "strings are not allowed: the language works with numbers and tensors only"
BYTES = "bytes are not allowed: the language works with numbers and tensors only"
COMPLEX = "complex numbers (like 1j) are not allowed"
ELLIPSIS_OUTSIDE_INDEX = "... is only allowed inside [ ], as in x[..., 0]"
HUGE_INT = "this integer is too large (the limit is 10**15); write it as a float, like 1e20"
NOT_OR_INVERT = "`not` and `~` are not allowed; the unary operators are - and +"
CHAINED_COMPARISON = "chained comparisons (a < b < c) are not allowed; compare two things"
COMPARISONS = "only the comparisons < <= > >= == != are allowed"
MATMUL_NUMBERS = "@ multiplies tensors (matrices, vectors); use * for numbers"
LIST_OF_NUMBERS = ("a list here may hold only numbers (or lists of numbers); to combine tensors use stack([a, b]) "
                   "or concat([a, b])")
RAGGED = "the rows of this nested list have different lengths"
TENSOR_LIST = "expected a list of tensors here, like [a, b]"
WHOLE_NUMBERS = "{} must hold whole numbers only, like [0, 2, 1]"
GRAD_INDEX = ("an index cannot be a tensor that requires grad (got {}); make it data, like "
              "y = tensor([2, 0, 1], requires_grad=False)")
SLICE_STEP_ZERO = "a slice step cannot be zero"
STAR_ARGS = "* unpacking is not allowed: pass the arguments one by one"
DOUBLE_STAR = "** unpacking is not allowed: write keywords out, like axis=0"


def operator_not_supported(op):
    symbol = {ast.FloorDiv: "//", ast.Mod: "%", ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&",
              ast.BitOr: "|", ast.BitXor: "^"}.get(type(op), "this operator")
    return f"{symbol} is not supported; the operators are + - * / ** @ and comparisons"


def describe(value_kind, shape=None, number=None):
    """How a message names a value: 'a tensor of shape (3,)', 'the number 2', 'a tuple', 'True'."""
    if value_kind in ("tensor", "array"):
        return f"a tensor of shape {shape}"
    if value_kind == "number":
        return f"the number {number!r}"
    if value_kind == "flag":
        return repr(number)
    return {"tuple": "a tuple", "list": "a list", "slice": "a slice", "ellipsis": "..."}.get(value_kind, "a value")


def expected_tensor(what):
    return f"expected a tensor or a number here, got {what}"


def expected_number(what):
    return f"expected a number here, got {what}"


def plus_on(what):
    return f"+ cannot be applied to {what}"


def no_list_here(what):
    return f"a list cannot be used here; write a tuple like (0, 1), got {what}"


def whole_number(what, got):
    return (f"{what} must be a whole number, got {got}; indices and shapes are integers, slices like 1:3, "
            "or lists of integers")


def not_known(what, got):
    return (f"{what} must be known before the program runs, but {got} is computed from random numbers or "
            "from values too large to follow; use a number, a shape (x.shape[0]) or a name assigned a number")


def fixed_input(name, line, value):
    shown = f"{value:g}" if isinstance(value, float) else value
    return (f"the value given for '{name}' cannot change: it sets a shape, an index or an axis (line {line}), "
            f"so it stays {shown}")


def input_shape(name, got, expected):
    return f"the value given for '{name}' has shape {got}, not {expected}"


def unknown_input(name, inputs):
    listed = ", ".join(f"'{n}'" for n in inputs) or "none"
    return f"'{name}' is not an input of this program (its inputs are {listed})"


def tuple_index(length):
    return f"this tuple has {length} items; index it with a whole number from {-length} to {length - 1} or a slice"


def shape_of(what):
    return f".shape is the shape of a tensor, not of {what}"


def constructor_keyword(name, keyword, allowed):
    options = ", ".join(f"{k}=..." for k in sorted(allowed))
    return f"{name}() takes no keyword '{keyword}' (it takes {options})"


def flag_argument(function, name, got):
    return f"{function}(..., {name}=...) takes True or False, not {got}"


def number_argument(function, name, got, or_none):
    return f"{function}(..., {name}=...) takes a number{' or None' if or_none else ''}, not {got}"


def requires_grad_flag(name, got):
    return f"{name}(..., requires_grad=...) takes True or False, not {got}"


def tensor_argument():
    return "tensor() takes one number or (nested) list of numbers, like tensor([1, 2])"


def one_whole_number(name):
    return f"{name}() takes one whole number, like {name}(3)"


def bad_shape(shape):
    return f"a shape needs at most {MAX_DIMS} dimensions, none negative; got {shape}"


def repeated_keyword(keyword):
    return f"keyword '{keyword}' is given twice"


def too_many_in_order(function, names):
    return (f"{function}() takes at most {len(names)} arguments in order ({', '.join(names)}); "
            "give the others by keyword, like `is_causal=True`")


def keyword_not_allowed(keyword, allowed):
    options = ", ".join(f"{k}=..." for k in sorted(allowed)) or "none"
    return f"keyword '{keyword}' is not allowed here (allowed: {options})"


# ---- shapes and sizes, predicted before anything runs ------------------------------------------------
def broadcast(shapes, quote):
    listed = " and ".join(str(tuple(s)) for s in shapes)
    return (f"shapes {listed} cannot be broadcast together (in `{quote}`): each dimension, counted from the right, "
            "must match or be 1")


def matmul_shapes(a, b, inner, quote):
    return f"shapes {a} @ {b} do not fit: the inner dimensions {inner[0]} and {inner[1]} differ (in `{quote}`)"


def matmul_batch(a, b, quote):
    return f"shapes {a} @ {b} do not fit: the batch dimensions cannot be broadcast (in `{quote}`)"


def matmul_scalar(a, b, quote):
    return f"@ needs tensors with at least one dimension, got shapes {a} and {b} (in `{quote}`)"


def bad_index(quote, shape, reason):
    return f"bad index in `{quote}` for a tensor of shape {shape}: {reason}"


WRONG_KIND = ("an argument is not of the kind it takes (an axis is a whole number or a tuple of them, a shape a "
              "tuple of whole numbers)")


def cannot_compute(quote, reason):
    return f"cannot compute `{quote}`: {reason}"


def out_of_memory(quote):
    return f"ran out of memory computing `{quote}`"


def engine_bug(quote, error):
    return f"internal error in the engine computing `{quote}`: {type(error).__name__}: {error}"


def tensor_too_big(size, shape):
    where = f" (shape {shape})" if shape is not None else ""
    return f"this would make a tensor of {size:,} elements{where}; the limit is {MAX_ELEMENTS:,}"


def shape_too_wide(shape):
    span = math.prod(d for d in shape if d)
    return (f"this would make a tensor of shape {shape}: its dimensions other than 0 multiply to {span:,}, more "
            f"than the {MAX_SPAN:,} a shape may span even when it holds no numbers")


def total_too_big(total):
    return (f"the program would create {total:,} numbers in total (the limit is {MAX_TOTAL_ELEMENTS:,}); "
            "use smaller tensors")


def backward_too_big(total, culprit):
    return (f"the backward pass would compute {total:,} gradient numbers in total (the limit is "
            f"{MAX_BACKWARD_ELEMENTS:,}); {culprit} Use smaller tensors or fewer operations on large ones")


def stepper_too_big(total, culprit):
    return (f"the Backward Stepper would record {total:,} numbers for its steps (the limit is "
            f"{MAX_STEPPER_ELEMENTS:,}); {culprit} Use smaller tensors to step through this program")


def culprit(quote, size):
    """Names the operation that costs the most in a budget message."""
    return f"the largest part comes from `{quote}`, whose backward step makes {size:,} numbers."


def too_much_matmul(work):
    return (f"the program's matrix products would take {work:,} multiply-adds (the limit is {MAX_MATMUL_WORK:,}); "
            "use smaller tensors")


def too_many_nodes():
    return f"the program would build more than {MAX_NODES:,} graph nodes (the limit); make it smaller"


def not_finite():
    return "the result is not a finite number (it overflows or is undefined)"


DIVISION_BY_ZERO = "division by zero"
