"""What the language offers: its functions, methods, constructors, constants and attributes.

Every function and method is an engine surface, and each entry knows the primitive that declares it in
the op registry (autograd.ops.PRIMITIVES), which gives its shape rule; tests/language/test_language.py checks
that the language offers exactly the functions and methods the registry declares. What is written
here is the language's own business: which arguments are tensors, labels, masks or plain values, and
which keywords a student may pass.
"""

import inspect
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from autograd import Tensor
from autograd import functional as F
from autograd.ops import PRIMITIVES
from autograd.tensor import Primitive

# Argument kinds, one letter per positional argument (after the receiver, for a method):
#   T  a tensor the op differentiates (numbers and lists become constant tensors)
#   N  a number or a tensor (numbers stay numbers, as for + - * /)
#   M  a mask or condition: a tensor, not differentiated
#   L  labels or indices: a list of whole numbers, or a tensor
#   S  a list of tensors, like [a, b]
#   P  a plain value: a number, True/False/None or a tuple of them
#   *  any number of plain values (reshape(2, 3), transpose(1, 0))
#   O  a tensor or None (a composite's optional weight, bias or attn_mask)
_OWNER = {}
for _prim in PRIMITIVES.values():
    for _name in _prim.functions:
        _OWNER["F." + _name] = _prim
    for _name in _prim.methods:
        _OWNER["Tensor." + _name] = _prim
_OWNER["Tensor.detach"] = PRIMITIVES["detach"]  # the language's x.detach() (see METHODS)
#: Methods of the language that no primitive declares as a Tensor method (their Tensor member means something else).
LANGUAGE_METHODS = frozenset({"detach"})


@dataclass(frozen=True)
class Entry:
    """One function or method of the language."""

    name: str
    run: Callable  # the engine surface called at run time: F.relu, or Tensor.sum with the receiver first
    args: str  # kinds of the positional arguments (after the receiver, for a method)
    keywords: frozenset = frozenset()
    number: Callable | None = None  # a NumPy function for a plain-number argument: sqrt(8) stays a number
    method: bool = False

    @property
    def prim(self) -> Primitive:
        return _OWNER[("Tensor." if self.method else "F.") + self.name]

    def bind(self, args, keywords):
        """Checks the argument count and keywords against the engine's own signature; raises TypeError."""
        inspect.signature(self.run).bind(*args, **keywords)


_AXIS = frozenset({"axis"})
_REDUCE = frozenset({"axis", "keepdims"})
_VARIANCE = frozenset({"axis", "correction", "keepdims"})


def _function(name, args="T", keywords=frozenset(), number=None):
    return Entry(name, getattr(F, name), args, keywords, number)


def _method(name, args="", keywords=frozenset()):
    return Entry(name, getattr(Tensor, name), args, keywords, method=True)


FUNCTIONS = {
    entry.name: entry
    for entry in (
        _function("relu"), _function("tanh"), _function("sigmoid"), _function("gelu"), _function("silu"),
        _function("softmax", "TP", _AXIS), _function("log_softmax", "TP", _AXIS),
        _function("exp", number=np.exp), _function("log", number=np.log), _function("sqrt", number=np.sqrt),
        _function("abs", number=np.abs),
        _function("maximum", "NN"), _function("minimum", "NN"),
        _function("linear", "TTT"),
        _function("mse_loss", "TT"), _function("binary_cross_entropy_with_logits", "TT"),
        _function("cross_entropy", "TL"), _function("embedding", "TL"),
        _function("concat", "SP", _AXIS), _function("stack", "SP", _AXIS),
        _function("where", "MTT"),
        _function("detach"), _function("round", number=np.round),
    )
}

METHODS = {
    entry.name: entry
    for entry in (
        _method("sum", "PP", _REDUCE), _method("mean", "PP", _REDUCE), _method("max", "PP", _REDUCE),
        _method("min", "PP", _REDUCE), _method("var", "PPP", _VARIANCE), _method("std", "PPP", _VARIANCE),
        _method("pow", "N"),
        _method("exp"), _method("log"), _method("sqrt"), _method("abs"), _method("relu"), _method("tanh"),
        _method("sigmoid"), _method("gelu"), _method("silu"),
        _method("softmax", "P", _AXIS), _method("log_softmax", "P", _AXIS),
        _method("reshape", "*"), _method("transpose", "*"),
        _method("unsqueeze", "P", _AXIS), _method("squeeze", "P", _AXIS),
        _method("masked_fill", "MP"), _method("clip", "PP", frozenset({"lo", "hi"})),
        _method("round"),
        # NOTE: x.detach() is the detach primitive (F.detach), not Tensor.detach: the engine's member makes a new leaf
        # (API.md, as PyTorch's), which would leave nothing to draw; the primitive keeps the edge and sends back 0.
        Entry("detach", F.detach, "", method=True),
    )
}



@dataclass(frozen=True)
class Composite:
    """A function of the language that is a composite of primitives (autograd.functional.COMPOSITES): no registry
    entry of its own; its steps (autograd.functional.STEPS) give its shape, nodes and costs."""

    name: str
    run: Callable  # the engine's function: F.layer_norm
    args: str  # kinds of the positional arguments a program may give, in order (no more than these)
    keywords: dict  # keyword -> its kind
    seeded: bool = False  # it draws random numbers: from the program's generator, in order, as randn does

    @property
    def steps(self) -> Callable:
        return F.STEPS[self.name]

    @property
    def parameters(self) -> list[str]:
        return list(inspect.signature(self.run).parameters)


#: The composites the language offers (all of autograd.functional.COMPOSITES). dropout draws its mask from the
#: program's seeded generator, in program order, so a program (and its Python export) gives the same mask each run.
COMPOSITES = {
    entry.name: entry
    for entry in (
        Composite("dropout", F.dropout, "TPP", {"p": "P", "training": "P"}, seeded=True),
        Composite("layer_norm", F.layer_norm, "TPOOP", {"weight": "O", "bias": "O", "eps": "P"}),
        Composite("rms_norm", F.rms_norm, "TPOP", {"weight": "O", "eps": "P"}),
        Composite("scaled_dot_product_attention", F.scaled_dot_product_attention, "TTTO",
                  {"attn_mask": "O", "is_causal": "P", "scale": "P"}),
    )
}

CONSTRUCTORS = ("tensor", "randn", "rand", "zeros", "ones", "eye", "arange")
#: Keywords every constructor takes. `requires_grad=False` makes data: a constant tensor (no grad) that
#: keeps that when assigned to a name (it is not an input); True, the default, is what a literal does.
CONSTRUCTOR_KEYWORDS = frozenset({"requires_grad"})
CONSTANTS = {"pi": float(np.pi), "e": float(np.e)}
ATTRIBUTES = ("T", "shape")


def function_names():
    return [*FUNCTIONS, *COMPOSITES, *CONSTRUCTORS]


def method_names():
    return list(METHODS)
