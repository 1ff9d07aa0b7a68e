"""Programs of the expression language for the sweep (tests/pages/test_sweep.py), generated from the op registry.

Every call form comes from the registry: a primitive's operators (through OPERATOR_FORMS), methods and
functions (with the argument kinds language.library declares for them), so a new primitive is swept by
existing code; a new *operator* needs one line in OPERATOR_FORMS (tests/pages/test_sweep.py says so when one is
missing). Operands come from a pool of leaves of the shapes that break panels: scalars, size-1 arrays
``tensor([2.0])``, (1, n), (n, 1), vectors, matrices, an empty (0, 3), and int data used as labels
(``tensor([2, 0, 1], requires_grad=False)``). Names are reused, so fan-out happens; shapes are mixed, so
broadcasting does. A candidate line is kept only when the program still runs (the language's own check and
one evaluation), so every program handed out is one a user could have typed.

``programs()`` is the Hypothesis strategy (the function-level sweeps); ``seeded(seed)`` makes the program of one seed
with the same choices from random.Random(seed), and ``sample(count, seed)`` a list of them, for sweeps that run each
program as a test of its own (the page and browser sweeps: a test's id is its seed); ``named(seed, text)`` makes a
failure name the program.
"""

from __future__ import annotations

import contextlib
import inspect
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass

from hypothesis import strategies as st

from autograd.ops import PRIMITIVES
from language.library import COMPOSITES, FUNCTIONS, METHODS

#: Leaves a program may declare: name -> its line. Float tensors require grad (a literal or a constructor);
#: ``y`` is integer data (labels for cross_entropy, indices for embedding and getitem).
LEAVES = {
    "s": "s = 1.5",  # a scalar
    "a": "a = tensor([2.0])",  # size 1, not a scalar: issue 17 item 1
    "r": "r = tensor([[0.5, -1.0, 2.0]])",  # (1, 3)
    "c": "c = tensor([[1.0], [-0.5], [0.25]])",  # (3, 1)
    "v": "v = tensor([0.3, -1.2, 0.8])",  # (3,)
    "M": "M = randn(3, 4)",  # (3, 4): logits for the 3 labels of y
    "W": "W = randn(4, 2)",  # (4, 2): M @ W
    "e": "e = zeros(0, 3)",  # empty: its sum is 0, its mean nan
    "y": "y = tensor([2, 0, 1], requires_grad=False)",  # int data
}
FLOATS = [name for name in LEAVES if name != "y"]
LABELS = ["y", "[0, 2, 1]"]

#: The Tensor operators as the language writes them: {0}, {1} are operands.
OPERATOR_FORMS = {
    "__add__": ["{0} + {1}"], "__radd__": ["1.5 + {0}"],
    "__sub__": ["{0} - {1}"], "__rsub__": ["1.5 - {0}"],
    "__mul__": ["{0} * {1}"], "__rmul__": ["2.0 * {0}"],
    "__truediv__": ["{0} / {1}"], "__rtruediv__": ["1.0 / {0}"],
    "__pow__": ["{0} ** 2", "{0} ** {1}"], "__rpow__": ["2.0 ** {0}"],
    "__neg__": ["-{0}"],
    "__matmul__": ["{0} @ {1}"], "__rmatmul__": ["[[1.0, -2.0, 0.5]] @ {0}"],
    "__getitem__": ["{0}[0]", "{0}[:, 1]", "{0}[[0, 0]]", "{0}[y]", "{0}[None]", "{0}[..., -1]", "{0}[1:]",
                    "{0}[[0, 1, 2], y]"],
}
#: Plain arguments (kind P, '*') to try, by keyword name or, positionally, generic ones.
PLAIN = {
    "axis": ["0", "-1", "1", "None"], "keepdims": ["True", "False"], "correction": ["0", "1"],
    "lo": ["-0.5"], "hi": ["0.5"],
}
GENERIC = ["0", "-1", "1", "0.5"]
#: The composites of autograd.functional the language offers (language.library.COMPOSITES), as the language writes
#: them, in shapes that fit: a norm over the operand's last axis, attention of an operand (2-D or more) on itself or
#: on another with as many features, masked by a comparison whose diagonal always holds, dropout in both modes.
COMPOSITE_FORMS = {
    "layer_norm": ["layer_norm({0}, {0}.shape[-1:])", "layer_norm({0}, {0}.shape[-1:], {1}, {2})",
                   "layer_norm({0}, [{0}.shape[-1]], bias={1}, eps=0.001)"],
    "rms_norm": ["rms_norm({0}, {0}.shape[-1:])", "rms_norm({0}, {0}.shape[-1:], weight={1}, eps=1e-6)"],
    "scaled_dot_product_attention": [
        "scaled_dot_product_attention({0}, {0}, {0})", "scaled_dot_product_attention({0}, {1}, {1})",
        "scaled_dot_product_attention({0}, {0}, {1}, is_causal=True)",
        "scaled_dot_product_attention({0}, {0}, {0}, attn_mask={0} @ {0}.T >= 0)",
        "scaled_dot_product_attention({0}, {1}, {1}, {0} @ {1}.T * 0.5, scale=0.5)",
    ],
    "dropout": ["dropout({0})", "dropout({0}, p=0.25)", "dropout({0}, 0.5, training=False)"],
}
STAR = {"reshape": ["-1", "-1, 1", "1, -1"], "transpose": ["", "1, 0"]}


@dataclass(frozen=True)
class Form:
    """One way to write a primitive's call: a template over operand slots and the slots' kinds."""

    prim: str
    template: str  # with {0}, {1}, ... for the arguments
    kinds: str  # one argument kind per slot (language.library's letters)


def _entry_forms(prim: str, entry, method: bool) -> list[Form]:
    kinds = entry.args
    params = list(inspect.signature(entry.run).parameters.values())[1 if method else 0:]
    required = sum(1 for p in params[: len(kinds)]
                   if p.default is inspect.Parameter.empty and p.kind != p.VAR_POSITIONAL)
    forms = []
    for count in range(required, len(kinds) + 1):
        used = kinds[:count]
        slots = ", ".join(f"{{{i + 1 if method else i}}}" for i in range(count))
        head = "{0}." + entry.name if method else entry.name
        call = f"{head}({slots})"
        forms.append(Form(prim, call, ("T" if method else "") + used))
        for key in sorted(entry.keywords):  # one keyword form each: sum(axis=0), clip(lo=...)
            n = count + (1 if method else 0)
            slots_kw = (slots + ", " if slots else "") + f"{key}={{{n}}}"
            forms.append(Form(prim, f"{head}({slots_kw})", ("T" if method else "") + used + "K" + key))
    return forms


def forms() -> list[Form]:
    """Every call form of every primitive in the registry (KeyError names an operator with no form), and of every
    composite the language offers."""
    out = []
    for name, prim in PRIMITIVES.items():
        for op in prim.operators:
            for template in OPERATOR_FORMS[op]:
                n = template.count("{1}") and 2 or 1
                out.append(Form(name, template, "T" * n))
        for method in prim.methods:
            if method == "T":
                out.append(Form(name, "{0}.T", "T"))
            elif method in METHODS:
                out.extend(_entry_forms(name, METHODS[method], method=True))
        for function in prim.functions:
            if function in FUNCTIONS:
                out.extend(_entry_forms(name, FUNCTIONS[function], method=False))
    for name in COMPOSITES:  # KeyError: a composite the language offers with no form here
        for template in COMPOSITE_FORMS[name]:
            n = len(set(re.findall(r"\{(\d)\}", template)))
            out.append(Form(name, template, "T" * n))
    return out


def _choices(kind: str, pool: list[str], form: Form) -> list[str]:
    """What may fill a slot of ``kind``, given the float names defined so far."""
    if kind == "T":
        return pool
    if kind == "N":
        return pool + ["0.5"]
    if kind == "M":
        return [f"{p} > 0" for p in pool]
    if kind == "L":
        return LABELS
    if kind == "S":
        return [f"[{p}, {q}]" for p in pool for q in pool]
    if kind == "*":
        return STAR.get(form.template.split(".")[-1].split("(")[0], [""])
    if kind.startswith("K"):
        return PLAIN.get(kind[1:], GENERIC)
    return GENERIC


def _slots(kinds: str) -> list[str]:
    """'TPKaxis' -> ['T', 'P', 'Kaxis']."""
    out, i = [], 0
    while i < len(kinds):
        if kinds[i] == "K":
            out.append(kinds[i:])
            break
        out.append(kinds[i])
        i += 1
    return out


def runs(text: str) -> bool:
    """True when the program compiles and runs (what a user would see as a graph, not an error)."""
    from autograd.expr import evaluate

    try:
        evaluate(text)
    except Exception:  # noqa: BLE001 - any refusal: the candidate is not kept
        return False
    return True


def _line(form: Form, picks: list[str]) -> str:
    return form.template.format(*picks)


def programs_of(prim: str, limit: int = 2, start: int = 0) -> Iterator[str]:
    """Up to ``limit`` small programs that call ``prim``, each with another leaf as its first operand (the pool's
    shapes in turn from ``start``), through the first call form and filling that runs."""
    found = 0
    own = [f for f in forms() if f.prim == prim]
    for k in range(len(FLOATS)):
        first = FLOATS[(start + k) % len(FLOATS)]
        text = next((t for form in own for t in _texts(form, first) if runs(t)), None)
        if text is not None:
            yield text
            found += 1
        if found >= limit:
            return


def _texts(form: Form, first: str) -> Iterator[str]:
    for picks in _fills(form, FLOATS):
        if picks and _uses(picks[0], first):
            yield _program(["x = " + _line(form, picks)])


def _fills(form: Form, pool: list[str]) -> Iterator[list[str]]:
    """Every way to fill the form's slots, operands varied fastest so the first few try different shapes."""
    options = [_choices(k, pool, form) for k in _slots(form.kinds)]

    def walk(i):
        if i == len(options):
            yield []
            return
        for rest in walk(i + 1):
            for choice in options[i]:
                yield [choice, *rest]

    yield from walk(0)


def _program(lines: list[str], output: str | None = None) -> str:
    """The leaves the lines use, the lines, and the output line."""
    body = "\n".join(lines)
    used = [LEAVES[name] for name in LEAVES if _uses(body, name)]
    out = [f"out = {output}"] if output else []
    return "\n".join([*used, *lines, *out]) + "\n"


def _uses(body: str, name: str) -> bool:
    return re.search(rf"(?<![\w.]){name}(?![\w])", body) is not None


class _Drawn:
    """The generator's choices drawn by Hypothesis (shrinkable; the sweep's derandomized settings fix them)."""

    def __init__(self, draw):
        self.draw = draw

    def pool(self) -> list[str]:
        return list(self.draw(st.lists(st.sampled_from(FLOATS), min_size=1, max_size=3, unique=True)))

    def integer(self, lo: int, hi: int) -> int:
        return self.draw(st.integers(lo, hi))

    def one(self, options: list[str]) -> str:
        return self.draw(st.sampled_from(options))


class _Seeded:
    """The same choices from a seeded random.Random: one program per seed, the same on every machine and run (the
    browser sweep parametrises its tests over them, so each program is a test of its own, under its own limit)."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def pool(self) -> list[str]:
        return self.rng.sample(FLOATS, self.rng.randint(1, 3))

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def one(self, options: list[str]) -> str:
        return self.rng.choice(options)


def _generate(source, max_lines: int) -> str:
    all_forms = forms()
    lines: list[str] = []
    pool = source.pool()
    wanted = source.integer(1, max_lines)
    tries = 0
    while len(lines) < wanted and tries < 4 * max_lines:
        tries += 1
        form = source.one(all_forms)
        picks = [source.one(_choices(k, pool, form)) for k in _slots(form.kinds)]
        name = f"t{len(lines)}"
        candidate = [*lines, f"{name} = {_line(form, picks)}"]
        if runs(_program(candidate)):
            lines = candidate
            pool.append(name)
    if not lines:
        lines = [f"t0 = {pool[0]} * {pool[-1]}"]  # fan-out when the pool has one name
    names = [line.split(" = ")[0] for line in lines]
    every = " + ".join(f"{name}.sum()" for name in names)  # every line in the graph, each leaf's fan-out
    ending = source.one([every, f"{names[-1]}.sum()", names[-1]])
    text = _program(lines, ending)
    return text if runs(text) else _program(lines, names[-1])


@st.composite
def programs(draw, max_lines: int = 4) -> str:
    """A program of 1..max_lines op lines over the pool (names reused: fan-out; shapes mixed: broadcasting),
    ending in ``out = ...``: the sum of every line's sum, the last line's sum, or the last line itself. Every
    line kept runs."""
    return _generate(_Drawn(draw), max_lines)


def seeded(seed: int, max_lines: int = 4) -> str:
    """The program of ``seed``: what ``programs`` makes, its choices from random.Random(seed)."""
    return _generate(_Seeded(seed), max_lines)


def sample(count: int, seed: int, max_lines: int = 4) -> list[tuple[int, str]]:
    """``count`` different programs, (seed, program) from ``seed`` on (a seed whose program repeats one is
    skipped): ``seeded(s, max_lines)`` gives each again."""
    out: dict[str, int] = {}
    s = seed
    while len(out) < count:
        out.setdefault(seeded(s, max_lines), s)
        s += 1
    return [(s, text) for text, s in out.items()]


@contextlib.contextmanager
def named(seed: int, text: str) -> Iterator[None]:
    """A failure inside (an assertion, a browser's timeout, any exception) re-raised as an AssertionError that names
    the generated program and its seed first, so the sweep's report says which program broke and how to get it."""
    try:
        yield
    except Exception as exc:  # noqa: BLE001 - re-raised, with the program named
        raise AssertionError(f"generated program (program_gen.seeded({seed})):\n{text}\n{type(exc).__name__}: "
                             f"{exc}") from exc
