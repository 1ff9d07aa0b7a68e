"""Words and tables for the explorer and stepper pages: node names, error carets, the finite-difference
check and what each backward step did. Plain Python (no Streamlit): the pages only display these."""

from __future__ import annotations

import os
import time
import urllib.parse
from collections import Counter
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from explorer.graph.dot import slot_names
from explorer.numbers import array_text, compact, fmt_number, plugged_text, shape_dtype_text

# ----------------------------------------------------------------------------- the shared program


#: The longest program a link carries, once URL-encoded. The server refuses a request whose address is
#: much over ~120 KB (measured: 120 KB answered, 128 KB reset), so a program whose link would come near
#: that stays out of the address bar, and the page says so, rather than leave a link that cannot open.
LINK_LIMIT = 64 * 1024


STALE_NOTE = (
    ":material/history: **From the last program that ran.** The program in the editor has an error; "
    "the graph and the results below are dimmed until it runs."
)


def link_length(text: str) -> int:
    """The characters ``?program=`` takes for ``text`` in an address (as Streamlit encodes it)."""
    return len(urllib.parse.quote_plus(text))


def sync_program(state: MutableMapping, query: MutableMapping, default: str) -> str:
    """Keeps ``state['program']`` and the URL's ``?program=`` in step; returns the program.

    A link (a query param this session did not write) wins over the session's program, so a
    shared URL reproduces its program; otherwise the session's program is written to the URL,
    unless its link would be longer than ``LINK_LIMIT`` (then the URL keeps the last program
    that fitted: see ``link_note``).
    """
    from_url = query.get("program")
    if from_url is not None and from_url != state.get("_program_in_url"):
        state["program"] = from_url
    if not isinstance(state.get("program"), str):
        state["program"] = default
    text = state["program"]
    if query.get("program") != text and link_length(text) <= LINK_LIMIT:
        query["program"] = text
    if query.get("program") == text:
        state["_program_in_url"] = text
    return text


def link_note(text: str) -> str:
    """What to tell a user whose program is too long for a link ('' when it fits)."""
    size = link_length(text)
    if size <= LINK_LIMIT:
        return ""
    return (
        f"This program is too long for a link: {size / 1024:,.0f} KB once encoded in an address, and a link "
        f"holds at most {LINK_LIMIT // 1024} KB (programs are at most 10,000 characters, ~20 KB). The address "
        "bar keeps the last program that fitted; download this one with Export → As Python."
    )


# ----------------------------------------------------------------------------- node names


def counted(n: int, noun: str) -> str:
    """``1 tensor``, ``35 tensors``, ``0 edges``."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


def graph_caption(graph, max_drawn: int) -> str:
    """The line under a graph: how many tensors and edges, and how it is drawn when there are too many."""
    caption = f"{counted(len(graph.nodes), 'tensor')}, {counted(len(graph.edges), 'edge')}."
    if len(graph.nodes) > max_drawn:
        caption += (f" Too many to read at once: chains of elementwise ops are collapsed and at most {max_drawn}"
                    " boxes nearest the output are drawn (the downloads hold the same picture).")
    return caption


def node_label(node) -> str:
    """How the pages name a node: its variable name, else its op and id (``mul #5``)."""
    if node.name:
        return node.name
    if node.op:
        return f"{node.op} #{node.id}"
    return f"{node.kind} #{node.id}"


def node_heading(node) -> str:
    """A node named as its box's title reads: ``d = mul`` for a named op, else ``node_label``."""
    return f"{node.name} = {node.op}" if node.name and node.op else node_label(node)


def node_choice(node) -> str:
    """A selectbox line for a node: ``d = mul  ·  op, (3, 4)``; a scalar shows its value, as its
    box does (``c = add  ·  op, scalar = -2``), which tells apart the nodes of ``c += ...``."""
    value = f" = {fmt_number(np.asarray(node.data).item())}" if np.size(node.data) == 1 else ""  # (1,), (1, 1) too
    return f"{node_heading(node)}  ·  {node.kind}, {shape_dtype_text(node.shape, node.dtype)}{value}"


# ----------------------------------------------------------------------------- values as text


def as_table(array: np.ndarray) -> np.ndarray:
    """An array as a 2-D table for display (scalar -> 1x1, vector -> one row, nd -> rows of the last axis)."""
    array = np.asarray(array)
    if array.ndim == 0:
        return array.reshape(1, 1)
    if array.ndim == 1:
        return array.reshape(1, -1)
    return array.reshape(-1, array.shape[-1])


# ----------------------------------------------------------------------------- errors


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


# ----------------------------------------------------------------------------- finite differences


@dataclass(frozen=True)
class GradCheckRow:
    name: str
    shape: tuple[int, ...]
    grad: np.ndarray | None  # what backward() gave
    numeric: np.ndarray | None  # central differences (nan where an element was not checked)
    max_abs_error: float | None
    checked: int  # elements checked
    total: int  # elements in the tensor
    ok: bool | None  # None: not checked (see note)
    note: str = ""  # why a variable was not checked
    float_error: float = 0.0  # > 0: it passed only once rounding noise this large was allowed for
    dtype: str = "float64"

    @property
    def finite(self) -> bool:
        """False when backward()'s grad or a checked central difference is nan or inf."""
        grad_ok = self.grad is None or bool(np.isfinite(self.grad).all())
        return grad_ok and (self.max_abs_error is None or bool(np.isfinite(self.max_abs_error)))


@dataclass(frozen=True)
class CheckTime:
    """What the check's time budget allowed: inputs (and elements) checked of all, and seconds spent."""

    inputs_checked: int
    inputs: int
    seconds: float
    budget: float | None
    eval_seconds: float  # the slowest evaluation of the program seen

    @property
    def partial(self) -> bool:
        return self.inputs_checked < self.inputs


def finite_difference_check(
    run: Callable[[dict[str, np.ndarray]], np.ndarray],
    inputs: Mapping[str, np.ndarray],
    analytic: Mapping[str, np.ndarray | None],
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-4,
    max_elements: int = 64,
    time_budget: float | None = None,
    eval_seconds: float = 0.0,
    float_error: float = 0.0,
    timing: list | None = None,
) -> list[GradCheckRow]:
    """Central differences in float64 of ``sum(run(values))`` for elements of each input
    (``autograd.gradcheck.numerical_vjp``).

    ``run(values)`` evaluates the program with the inputs set to ``values`` (name -> float64
    array) and returns the output's data; backward seeds with ones, so the scalar checked is
    the output's sum. Each input is checked on up to ``max_elements`` evenly spread elements,
    taken in turns (every input's first element, then every input's second...), and no pair of
    evaluations starts unless it is expected to end within ``time_budget`` seconds (the slowest
    evaluation so far, at first ``eval_seconds``, predicts the next): rows say how many elements
    were checked, and an input with none is not checked. An element passes when
    ``|grad - numeric| <= atol + rtol * |numeric|``, or within ``float_error`` more (the rounding
    noise of the program's own arithmetic; such rows carry it). ``timing``, if given, receives a
    ``CheckTime``.
    """
    from autograd.gradcheck import numerical_vjp

    started = time.monotonic()
    deadline = None if time_budget is None else started + time_budget
    names = list(inputs)
    tensors = [SimpleNamespace(data=np.array(inputs[name], dtype=np.float64)) for name in names]
    slowest = [eval_seconds]

    def fn(*xs):
        t = time.monotonic()
        out = run({name: x.data for name, x in zip(names, xs)})
        slowest[0] = max(slowest[0], time.monotonic() - t)
        return SimpleNamespace(data=out)

    picks = [np.unique(np.linspace(0, x.data.size - 1, min(x.data.size, max_elements)).astype(int)) for x in tensors]
    done: list[list[int]] = [[] for _ in names]

    def elements():
        for turn in range(max((p.size for p in picks), default=0)):
            for k, p in enumerate(picks):
                if turn < p.size:
                    done[k].append(int(p[turn]))
                    yield k, int(p[turn])

    def out_of_time() -> bool:
        return deadline is not None and time.monotonic() + 2 * slowest[0] > deadline

    numeric = numerical_vjp(fn, tensors, 1.0, eps, elements=elements(), stop=out_of_time)
    rows = []
    for name, x, num, picked in zip(names, tensors, numeric, done):
        grad = analytic.get(name)
        if not picked:
            why = (f"not checked: one evaluation takes {slowest[0]:.1f} s, too long for the check's "
                   f"{time_budget:.1f} s budget" if 2 * slowest[0] > (time_budget or 0) else
                   "not checked: the check's time budget ran out")
            rows.append(GradCheckRow(name=name, shape=tuple(x.data.shape), grad=grad, numeric=None,
                                     max_abs_error=None, checked=0, total=int(x.data.size), ok=None, note=why))
            continue
        index = np.array(picked, dtype=int)
        g = np.zeros(x.data.shape) if grad is None else np.asarray(grad, dtype=np.float64)
        got, want = g.reshape(-1)[index], num.reshape(-1)[index]
        err = np.abs(got - want)
        allowed = atol + rtol * np.abs(want)
        strict = bool(np.all(err <= allowed))
        ok = strict or bool(np.all(err <= allowed + float_error))
        rows.append(
            GradCheckRow(
                name=name,
                shape=tuple(x.data.shape),
                grad=grad,
                numeric=num,
                max_abs_error=float(err.max()),
                checked=int(index.size),
                total=int(x.data.size),
                ok=ok,
                float_error=float_error if ok and not strict else 0.0,
            )
        )
    if timing is not None:
        checked = sum(1 for picked in done if picked)
        timing.append(CheckTime(checked, len(names), time.monotonic() - started, time_budget, slowest[0]))
    return rows


def rounding_noise(graph, eps: float = 1e-6) -> float:
    """How far central differences of step ``eps`` can stray from the true slope by rounding alone.

    First-order forward error analysis: each node's value v carries a relative rounding error of up to
    one machine epsilon, which moves the output's sum by about |v · grad v|; summed over every element
    of every node, that bounds the error of one evaluation (the chain's conditioning), and a central
    difference divides the error of two evaluations by 2·eps. It is ~1e-9 for the presets and ~1e-4
    for a chain of eight ops over a million numbers, where one evaluation's rounding is no longer
    small next to the nudge.
    """
    total = 0.0
    for node in graph.nodes:
        if node.grad is None or node.data.dtype.kind != "f":
            continue
        with np.errstate(all="ignore"):
            total += float(np.finfo(node.data.dtype).eps * np.sum(np.abs(node.data * node.grad)))
    return total / eps if np.isfinite(total) else 0.0


def check_note(timing: CheckTime | None, rows: list[GradCheckRow]) -> str:
    """One line on how far the check went: how many inputs it checked in how long, and any that
    passed only within rounding noise ('' when everything was checked strictly)."""
    parts = []
    if timing is not None and timing.partial and not timing.inputs_checked:
        parts.append(
            f"No input was checked: one evaluation of the program takes {timing.eval_seconds:.2g} s, too long "
            f"for two of them in the check's {timing.budget:.1f} s budget."
        )
    elif timing is not None and timing.partial:
        parts.append(
            f"Checked {timing.inputs_checked:,} of {counted(timing.inputs, 'input')} in {timing.seconds:.1f} s, "
            f"the check's time budget (one evaluation of the program takes {timing.eval_seconds:.2g} s); "
            "the rest are marked 'not checked'."
        )
    noisy = [r for r in rows if r.ok and r.float_error > 0]
    if noisy:
        names = ", ".join(r.name for r in noisy[:5]) + (", …" if len(noisy) > 5 else "")
        parts.append(
            f"{names} {'matches' if len(noisy) == 1 else 'match'} within float error "
            f"(±{fmt_number(max(r.float_error for r in noisy))}): the program's own rounding moves its output more "
            "than the check's usual tolerance, so that is all central differences can tell here."
        )
    return " ".join(parts)


@dataclass(frozen=True)
class Analysis:
    """Everything the explorer shows about one program."""

    graph: object  # autograd.graph.Graph, grads filled in by backward()
    checks: tuple[GradCheckRow, ...]
    python: str  # the program as plain Python with autograd
    note: str = ""  # said above the graph when backward() could not run
    check_note: str = ""  # how far the gradient check went (see check_note())


def analyse_program(text: str, poked: tuple = (), max_elements: int = 64, time_budget: float = 3.0) -> Analysis:
    """Evaluates a program (with its inputs' ``poked`` values, explorer.poke), runs backward, traces the graph
    and checks each grad numerically.

    Each named input (a leaf that requires grad) is checked by re-running the compiled program with
    its elements nudged one at a time (``Program.run(inputs=...)``: no parsing again), for at most
    ``time_budget`` seconds. Other variables are listed with their grad. Raises
    ``autograd.expr.ExpressionError`` for a bad program.
    """
    from autograd.graph import trace
    from explorer.poke import resolve
    from language import compile_program

    started = time.monotonic()
    program = compile_program(text)
    result = program.run(inputs=resolve(program, poked))
    eval_seconds = time.monotonic() - started
    if result.output.requires_grad:
        result.output.backward()
    graph = trace(result.output, uses=result.uses)
    return checked_analysis(program, result, graph, started, eval_seconds, max_elements, time_budget)


#: The gradient check's default time budget, in seconds.
CHECK_SECONDS = 3.0


def check_seconds() -> float:
    """How long the Explorer's gradient check may take: ``AUTOGRAD_CHECK_SECONDS`` (a server sets it: less on a
    classroom's busy machine, more for a patient user), else CHECK_SECONDS; a value that is not a number of
    seconds from 0 to 25 (the check must end well within an evaluation's 30 s of wall clock) is ignored."""
    try:
        seconds = float(os.environ.get("AUTOGRAD_CHECK_SECONDS", CHECK_SECONDS))
    except ValueError:
        return CHECK_SECONDS
    return seconds if 0.0 <= seconds <= 25.0 else CHECK_SECONDS


def checked_analysis(program, result, graph, started: float, eval_seconds: float, max_elements: int = 64,
                     time_budget: float = 3.0) -> Analysis:
    """analyse_program's Analysis of a program already run (``result``, backward() done: ``graph`` traced with its
    grads), ``started`` at that monotonic time, one run having taken ``eval_seconds``."""
    from autograd import no_grad

    python = program.to_python()
    if not result.output.requires_grad:
        note = "Nothing here requires grad (the output is made of constants only), so backward() has nothing to do."
        rows = tuple(_unchecked(name, t, "no grad") for name, t in result.variables.items())
        return Analysis(graph=graph, checks=rows, python=python, note=note)
    # The inputs: leaves that require grad made by a name's first assignment, if the graph differentiates them
    # (a float tensor read as labels or an index is drawn, but a nudge would only make its labels fractional).
    as_data = data_only(graph)
    in_graph = {id(node.data) for node in graph.nodes if node.kind == "input" and node.id not in as_data}
    leaves = {name: t for name, t in result.inputs.items() if id(t.data) in in_graph}
    shadowed = [n for n in graph.nodes
                if n.kind == "input" and n.name and leaves.get(n.name) is None and n.id not in as_data]
    fixed = {name: leaves.pop(name) for name in program.fixed if name in leaves}  # a nudge would change a shape
    base = {name: t.data for name, t in leaves.items()}

    def run(values: Mapping[str, np.ndarray]) -> np.ndarray:
        with no_grad():  # only the output's numbers: no graph to record
            return program.run(inputs=values).output.data

    note = ""
    checked = []
    timing: list[CheckTime] = []
    try:
        grads = {name: node.grad for name, node in leaves.items()}
        checked = finite_difference_check(
            run, base, grads, max_elements=max_elements, eval_seconds=eval_seconds, timing=timing,
            time_budget=max(0.0, time_budget - (time.monotonic() - started)), float_error=rounding_noise(graph),
        )
    except ValueError as exc:  # ExpressionError: a nudged input made the program invalid
        note = f"not checked: {getattr(exc, 'message', exc)}"
    rows = checked or [_unchecked(name, node, note) for name, node in leaves.items()]
    for name, t in fixed.items():
        rows.append(_unchecked(name, t, "not checked: it sets a shape, an index or an axis"))
    for node in shadowed:
        note = "not checked: assigned more than once (give each input a name of its own)"
        rows.append(_unchecked(node.name, node, note))
    read = {graph.nodes[i].name for i in as_data}
    for name, t in result.variables.items():
        if name not in leaves and name not in fixed and not any(node.name == name for node in shadowed):
            rows.append(_unchecked(name, t, "not checked: read as labels or an index (data), not differentiated"
                                   if t.requires_grad and name in read else "not an input"))
    return Analysis(graph=graph, checks=tuple(rows), python=python,
                    check_note=check_note(timing[0] if timing else None, checked))


def data_only(graph) -> set[int]:
    """Ids of the nodes an op reads only as data (labels, index tensors: Node.data_parents), never differentiated."""
    differentiated = {p for node in graph.nodes for p in node.parents} | {graph.output}
    return {d for node in graph.nodes for d in node.data_parents if d not in differentiated}


def _unchecked(name: str, tensor, note: str) -> GradCheckRow:
    return GradCheckRow(
        name=name, shape=tuple(tensor.shape), grad=tensor.grad, numeric=None, max_abs_error=None,
        checked=0, total=int(tensor.data.size), ok=None, note=note, dtype=str(tensor.dtype),
    )


def step_program(text: str, poked: tuple = ()):
    """(graph, steps) of a program's backward pass, one step per processed node (none if nothing needs grad),
    with its inputs' ``poked`` values (explorer.poke).

    Raises ExpressionError for a bad program, or one whose steps would be too big to record.
    """
    graph, steps, _ = stepped_run(text, poked)
    return graph, steps


def stepped_run(text: str, poked: tuple = ()):
    """step_program's (graph, steps) and the run they were recorded from (language's Result: its output's graph
    keeps its grads, so explorer.jacobian_view builds each node's Jacobian from them in the same evaluation)."""
    from explorer.poke import resolve
    from language import compile_program

    program = compile_program(text)
    program.check_stepper()
    result = program.run(inputs=resolve(program, poked))
    return (*recorded_backward(result.output, result.uses), result)


def recorded_backward(output, uses=None):
    """(graph, steps): backward() of a program's output, each step recorded (none if nothing needs grad); ``uses``
    is the run's (language's Result.uses: the tensors its ops read as data, drawn as such)."""
    from autograd.graph import backward_steps, trace

    if not output.requires_grad:
        return trace(output, uses=uses), ()
    return backward_steps(output, plugged=plugged_rule, uses=uses)


#: Operands of up to this many elements are put into a rule whole; past it, one element's arithmetic is written.
PLUG_LIMIT = 64
#: How a rule written element by element begins (the inspector then offers to work out another element).
ELEMENT_NOTE_START = "(operands of"
_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def plugged_of(steps, node_id: int) -> str:
    """The rule of the step that ran ``node_id``'s VJP with that step's numbers put in; '' if none ran."""
    return next((step.plugged or "" for step in steps if step.node == node_id), "")


def plugged_rule(prim, g, out, inputs, meta, need) -> str:
    """A step's VJP rule with its numbers put in, one line per input that gets a grad (``dB = −1 ⊙ 49 / 2² =
    -12.25``), from the rule's own plugged-in form (Primitive.plugged), for operands of up to PLUG_LIMIT elements.
    Each line ends in what the rule's arithmetic gives, which is what the VJP sent (before broadcasting is undone:
    the panel says when it is). With a bigger operand, each line is the arithmetic of one element of that input's
    grad, the largest (``dW[0, 1] = Σᵢ X[i, 0]·G[i, 1] = …``: explorer.element_rule), where the op's is written."""
    slots = rule_slots(prim, len(inputs))  # concat, stack: A₀, A₁, ... as their formulas say Aᵢ
    largest = max(int(np.size(x)) for x in (g, *inputs))
    if largest > PLUG_LIMIT:
        return _element_rule(prim, list(slots), g, out, inputs, meta, need, largest)
    with np.errstate(all="ignore"):  # a pole or an overflow is shown as inf or nan, as the grads below are
        plugged = prim.plugged(plugged_text, g, out, *inputs, **meta)
    lines = []
    for slot, wanted, (text, value) in zip(slots, need, plugged):
        if wanted:
            result = plugged_text(value, operand=False)
            passed_on = text in (result, plugged_text(value))  # G itself (add, sub): the number once
            lines.append(f"d{slot} = {result}" if passed_on else f"d{slot} = {text} = {result}")
    return "\n".join(lines)


def rule_slots(prim, count: int) -> list[str]:
    """The inputs' names as a rule writes them (matmul: X, W; concat: A₀, A₁, ...)."""
    if len(prim.slots) >= count:
        return list(prim.slots[:count])
    return [f"A{i}".translate(_SUBSCRIPTS) for i in range(count)]


def element_of(text: str, poked: tuple, node_id: int, slot: int, index: tuple) -> str:
    """The arithmetic of element ``index`` of the grad node ``node_id``'s VJP sends its input ``slot``, for the
    program run with its ``poked`` values (the inspector's "work out another element"); a sentence for an op whose
    element arithmetic is not written out."""
    from autograd.graph import order
    from autograd.tensor import fit_gradient
    from explorer.element_rule import element_line
    from explorer.poke import resolve
    from language import compile_program

    program = compile_program(text)
    result = program.run(inputs=resolve(program, poked))
    if result.output.requires_grad:
        result.output.backward()
    tensor = order(result.output, result.uses)[node_id]
    inputs = [p.data for p in tensor.parents]
    names = rule_slots(tensor._prim, len(inputs))
    index = tuple(int(i) for i in index)
    with np.errstate(all="ignore"):
        written = element_line(tensor._prim, slot, names, tensor.grad, tensor.data, inputs, tensor._meta or {}, index)
        if written is not None:
            return written[0]
        need = tuple(i == slot for i in range(len(inputs)))
        raw = tensor._prim.vjp(tensor.grad, tensor.data, *inputs, need=need, **(tensor._meta or {}))[slot]
    value = fit_gradient(raw, inputs[slot], tensor.op)[index]
    return (f"d{names[slot]}{list(index)} = {fmt_number(float(value))} ({tensor.op}'s per-element arithmetic is its "
            "formula above)")


def _element_rule(prim, slots, g, out, inputs, meta, need, largest: int) -> str:
    """plugged_rule past PLUG_LIMIT: per input that gets a grad, the arithmetic of its grad's largest element."""
    from autograd.tensor import fit_gradient
    from explorer.element_rule import element_line

    with np.errstate(all="ignore"):
        raw = prim.vjp(np.asarray(g), out, *inputs, need=tuple(need), **meta)
    lines = [f"{ELEMENT_NOTE_START} {largest:,} elements: written whole up to {PLUG_LIMIT}; here each grad's largest "
             "element, worked out)"]
    for k, (slot, wanted) in enumerate(zip(slots, need)):
        if not wanted or raw[k] is None:
            continue
        grad = np.asarray(fit_gradient(raw[k], np.asarray(inputs[k]), prim.name), dtype=np.float64)
        if grad.size == 0:
            lines.append(f"d{slot} is empty (shape {_shape(grad.shape)})")
            continue
        index = tuple(int(i) for i in np.unravel_index(int(np.argmax(np.nan_to_num(np.abs(grad), nan=-1.0))),
                                                     grad.shape))
        with np.errstate(all="ignore"):
            written = element_line(prim, k, slots, g, out, inputs, meta, index)
        if written is None:
            lines.append(f"d{slot}{list(index)} = {fmt_number(float(grad[index]))} (the largest of d{slot}'s "
                         f"{grad.size:,}; {prim.name}'s per-element arithmetic is its formula above)")
        else:
            lines.append(written[0])
    return "\n".join(lines)


def check_verdicts(rows) -> list[tuple[str, str]]:
    """What the check says above its table, as (kind, message): "success" when every checked input matches,
    "warning" for inputs whose numbers are not finite and for those on a kink."""
    checked = [r for r in rows if r.ok is not None]
    left = [r for r in rows if r.ok is None and "budget" in r.note]  # inputs the time budget left unchecked
    said = []
    if checked and all(r.ok for r in checked):
        if left:  # never "all" when the budget stopped the check: only what was checked matched
            inputs = (f"The {counted(len(checked), 'input')} checked "
                      f"{'matches' if len(checked) == 1 else 'match'} (of {len(checked) + len(left):,})")
        else:
            inputs = "The input matches" if len(checked) == 1 else f"All {len(checked)} inputs match"
        said.append(("success", f"{inputs} central differences (float64, eps = 1e-6)."))
    not_finite = ", ".join(r.name for r in checked if not r.ok and not r.finite)
    kinked = ", ".join(r.name for r in checked if not r.ok and r.finite)
    if not_finite:
        said.append(("warning", f"Not a finite number (nan or inf) for: {not_finite}. The program divides by zero, "
                                "takes log or sqrt of a value ≤ 0, or overflows somewhere; there is no slope to "
                                "compare there."))
    if kinked:
        said.append(("warning", f"The numerical check disagrees for: {kinked}. Where an input sits on a kink (relu "
                                "of exactly 0, abs of 0, a tie in max) the two one-sided slopes differ: backward() "
                                "takes relu'(0) = 0, central differences average the two sides."))
    return said


CHECK_CAPTION = (
    "grad: what backward() gave (seeded with ones). numerical grad: (f(x + ε) − f(x − ε)) / 2ε per element "
    "of each input, ε = 1e-6; pass when |error| ≤ 1e-5 + 1e-4·|numerical|. Variables that are not inputs "
    "show their grad only."
)


def check_table(rows: list[GradCheckRow]) -> list[dict[str, object]]:
    """Rows for the check table: variable, shape, grad, numerical grad, max |error|, verdict."""
    table = []
    for row in rows:
        if row.ok is None:
            verdict = row.note or "not checked"
        elif row.ok:
            verdict = f"pass (within float error ±{fmt_number(row.float_error)})" if row.float_error else "pass"
        else:
            verdict = "FAIL"
        sample = "" if row.checked == row.total else f" ({row.checked} of {row.total} checked)"
        table.append(
            {
                "variable": row.name,
                "shape": shape_dtype_text(row.shape, row.dtype),
                "grad": compact(row.grad),
                "numerical grad": _numeric_text(row, sample),
                "max |error|": "—" if row.max_abs_error is None else fmt_number(row.max_abs_error),
                "check": verdict,
            }
        )
    return table


def _numeric_text(row: GradCheckRow, sample: str) -> str:
    if row.numeric is None:
        return "—"
    if row.checked < row.total and row.total > 12:
        return f"{row.checked} of {row.total} elements checked"
    return compact(row.numeric) + sample


# ----------------------------------------------------------------------------- the backward stepper


@dataclass(frozen=True)
class Timeline:
    """When each node of the stepper's graph changes state: positions 0 (the seed) to n (after step n).

    ``state(i, position)`` is 'active' | 'done' | 'waiting' | None. The node of step k runs at
    position k and is done from k + 1 on; a node that is never processed (a leaf) is done once
    every contribution it receives has arrived. Nodes that do not require grad take no part (None).
    At the seed the output has its grad (the ones) and no state: it is drawn as the output.
    The graph view (components/graph_view) evaluates the same rule in the browser from these lists.
    """

    output: int
    takes_part: tuple[bool, ...]  # by node id: requires grad
    active_at: tuple[int, ...]  # by node id: the position whose step runs its VJP, -1 if none
    done_at: tuple[int, ...]  # by node id: the first position at which it is done, -1 if never

    def state(self, node: int, position: int) -> str | None:
        if not self.takes_part[node]:
            return None
        if position == self.active_at[node]:
            return "active"
        if 0 <= self.done_at[node] <= position:
            return "done"
        if position == 0 and node == self.output:
            return None
        return "waiting"


def step_timeline(graph, steps) -> Timeline:
    """The Timeline of a backward pass: see Timeline."""
    n = len(graph.nodes)
    active_at, done_at = [-1] * n, [-1] * n
    last_received = {}
    for k, step in enumerate(steps, start=1):
        active_at[step.node] = k
        done_at[step.node] = k + 1 if k < len(steps) else -1
        for c in step.contributions:
            if c.fan_out_index == c.fan_out_total:
                last_received[c.parent] = k
    for node, k in last_received.items():
        if active_at[node] == -1:
            done_at[node] = k
    as_data = data_only(graph)  # read as labels or an index: no grad ever flows into it
    return Timeline(
        output=graph.output,
        takes_part=tuple(bool(node.requires_grad) and node.id not in as_data for node in graph.nodes),
        active_at=tuple(active_at),
        done_at=tuple(done_at),
    )


def contribution_slots(node, step) -> list[int]:
    """The argument slot of each of a step's contributions (``x * x`` sends two to x: slots 0 and 1).

    Contributions come in argument order, parents without grad left out, so the k-th contribution
    to a parent belongs to its k-th slot.
    """
    seen: dict[int, int] = {}
    slots = []
    for c in step.contributions:
        positions = [i for i, p in enumerate(node.parents) if p == c.parent]
        k = seen.get(c.parent, 0)
        seen[c.parent] = k + 1
        slots.append(positions[min(k, len(positions) - 1)])
    return slots


def _axes(axes) -> str:
    """``axis 0``, ``axes 0, 1``."""
    return ("axis " if len(axes) == 1 else "axes ") + ", ".join(str(a) for a in axes)


def broadcast_axes_text(axes) -> str:
    """``Σ axis 0``, ``Σ axes 0, 1``: an edge's mark for a grad summed over broadcast axes."""
    return f"Σ {_axes(axes)}"


def broadcast_edges(graph, steps) -> dict[tuple[int, int], str]:
    """(node id, argument slot) -> ``Σ axis 0`` for every edge whose grad was summed over broadcast axes."""
    marks = {}
    for step in steps:
        node = graph.nodes[step.node]
        for c, slot in zip(step.contributions, contribution_slots(node, step)):
            if c.summed_axes:
                marks[(step.node, slot)] = broadcast_axes_text(c.summed_axes)
    return marks


@dataclass(frozen=True)
class ContributionView:
    parent: str  # the parent's label
    slot: str  # the argument slot ('A', 'W', ...)
    value: str  # the gradient added to the parent
    broadcast: str  # '' or "summed over axis 0 to undo broadcasting (3, 4) → (4,)"
    fan_out: str  # '' or "contribution 2 of 3 to b"
    accumulated: str  # the parent's grad so far


@dataclass(frozen=True)
class StepView:
    title: str
    node: str
    op: str
    formula: str
    plugged: str  # the rule with this step's numbers put in (plugged_rule), '' if not recorded
    upstream: str
    contributions: tuple[ContributionView, ...]


def step_labeller(graph) -> Callable:
    """How a step's words name a node of ``graph``. NOTE: `g += ...` gives two nodes the name g; such a name is
    shown with its op ("g = div"), as its box in the graph reads, so "→ g" does not leave the reader guessing
    which g."""
    names = Counter(n.name for n in graph.nodes if n.name)
    return lambda n: node_heading(n) if names[n.name] > 1 else node_label(n)


def describe_step(graph, step, total: int) -> StepView:
    """What one backward step did, in words and numbers."""
    node = graph.nodes[step.node]
    label_of = step_labeller(graph)
    label = label_of(node)
    slots = slot_names(node)
    views = []
    for c, position in zip(step.contributions, contribution_slots(node, step)):
        parent = graph.nodes[c.parent]
        plabel = label_of(parent)
        slot = slots[position] if len(node.parents) > 1 else ""
        broadcast = ""
        if c.summed_axes:
            broadcast = (
                f"summed over {_axes(c.summed_axes)} to undo broadcasting {_shape(np.shape(c.raw))} → "
                f"{_shape(parent.shape)}"
            )
        fan_out = ""
        if c.fan_out_total > 1:
            fan_out = f"contribution {c.fan_out_index} of {c.fan_out_total} to {plabel}"
        views.append(
            ContributionView(
                parent=plabel,
                slot=slot,
                value=array_text(c.grad),
                broadcast=broadcast,
                fan_out=fan_out,
                accumulated=array_text(c.accumulated),
            )
        )
    return StepView(
        title=f"Step {step.index + 1} of {total}: {node_heading(node)}",
        node=label,
        op=step.op or node.op,
        formula=step.formula or node.formula,
        plugged=step.plugged or "",
        upstream=array_text(step.upstream),
        contributions=tuple(views),
    )


@dataclass(frozen=True)
class SeedView:
    title: str
    text: str  # with `code` and **bold** spans
    seed: str  # the seed as text


def describe_seed(graph, steps) -> SeedView:
    """What position 0 of the stepper shows: backward() seeds the output's grad with ones."""
    out = graph.nodes[graph.output]
    name = node_label(out)
    first = f" Press **Next** to run `{node_label(graph.nodes[steps[0].node])}`'s VJP." if steps else ""
    if out.shape == ():
        title = f"Seed: {name}.grad = 1"
        text = f"backward() starts by setting the output's grad to 1: d{name}/d{name} = 1.{first}"
    else:
        title = f"Seed: {name}.grad = ones{_shape(out.shape)}"
        text = (
            f"backward() starts by setting the output's grad to ones of its shape {_shape(out.shape)}: "
            f"the grads it then computes are those of `{name}.sum()`.{first}"
        )
    seed = steps[0].upstream if steps else out.grad
    return SeedView(title=title, text=text, seed=array_text(seed))


def _shape(shape) -> str:
    shape = tuple(int(s) for s in shape)
    if len(shape) == 1:
        return f"({shape[0]},)"
    return "(" + ", ".join(str(s) for s in shape) + ")"


BACKWARD_EXPLAINED = (
    (
        "Seed the output's grad with ones: it is the derivative of the output with respect to itself.",
        r"\bar{y} = \frac{\partial y}{\partial y} = \mathbf{1}",
    ),
    (
        "Order the nodes topologically (every node after its parents), then walk that order in reverse, "
        "so a node is processed only when every node that uses it has sent its contribution.",
        r"v_1, v_2, \dots, v_n = y \quad\Rightarrow\quad \text{process } v_n, v_{n-1}, \dots, v_1",
    ),
    (
        "At each node, its op's vector-Jacobian product (VJP) turns the upstream grad G into one "
        "contribution per parent: for matmul Y = X·W, dX = G·Wᵀ and dW = Xᵀ·G.",
        r"\bar{x}_i \mathrel{+}= \bar{v}^{\top} \frac{\partial v}{\partial x_i}",
    ),
    (
        "Accumulate: a tensor used by several ops (fan-out) gets the sum of their contributions; "
        "a parent that was broadcast gets the contribution summed over the broadcast axes.",
        r"\bar{x} = \sum_{k \,\in\, \text{uses of } x} \bar{x}^{(k)}",
    ),
)
