"""A compiled program: its instructions, its predicted costs, and running it with new input values.

`Program.run(inputs=...)` executes the instructions without parsing or checking again: a fresh set of
Tensors each time (the same random draws for the same seed), so re-running with nudged inputs (the
gradient check) or slider values is cheap.
"""

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from autograd import Tensor, is_grad_enabled
from language import messages as msg
from language.emit import script
from language.source import ExpressionError, Source

#: What this process has evaluated: ``compiles`` (language.compile_program), ``runs`` (Program.run) and, of those,
#: ``recorded``: runs with grad enabled, which record a graph for backward() (a page's forward and backward pass;
#: the gradient check's nudged runs and the pictures' sweeps run under no_grad). Tests and benchmarks read it to
#: count a page run's evaluations (explorer/program/page_data.py).
EVALUATIONS: Counter = Counter()


class Slot(NamedTuple):
    """A value the instructions compute, by its position in the run's list of values (0: the random generator)."""

    index: int


@dataclass(frozen=True)
class Call:
    """values[out] = fn(*args, **kwargs), arguments given as Slots or constants."""

    fn: Any
    args: tuple
    kwargs: dict
    out: int
    at: tuple  # (line, col, end_col, ast node) for errors
    data_args: tuple = ()  # positions of args that are tensors read as data (labels, indices): see Result.uses


@dataclass(frozen=True)
class Leaf:
    """values[out] = a new leaf Tensor that requires grad, holding a copy of `value` (a Slot or an array).

    `name` is set for a name's leaf; `input` is True for a name's first leaf, which run(inputs=...) may replace.
    """

    value: Any
    name: str | None
    input: bool
    out: int
    at: tuple


@dataclass(frozen=True)
class Store:
    """Binds `name` to the Tensor in `value`; the Tensor takes the name if it has none yet."""

    name: str
    value: Any
    at: tuple


@dataclass(frozen=True)
class Costs:
    """What a program costs, predicted before it runs (elements are numbers: 8 bytes each in float64).

    forward_elements   every array the forward pass creates, summed
    backward_elements  every gradient backward() computes (each VJP's output and each node's grad), summed
    stepper_elements   what the Backward Stepper records for its steps on top of that, summed
    matmul_work        multiply-adds of the forward's matrix products (@ and linear)
    nodes              graph nodes: op results, constants used as operands, leaves
    """

    forward_elements: int
    backward_elements: int
    stepper_elements: int
    matmul_work: int
    nodes: int


@dataclass(frozen=True)
class Result:
    """An evaluated program: the last statement's Tensor, every named Tensor (first-assignment order), the text."""

    output: Tensor
    variables: dict[str, Tensor]
    text: str
    inputs: dict[str, Tensor]  # name -> the leaf that requires grad made by the name's first literal assignment
    # op result -> the tensors it read as data, not as differentiated inputs (cross_entropy's labels y, the y of
    # logp[rows, y]): autograd.graph.trace(output, uses=...) draws them beside the op's parents
    uses: dict = field(default_factory=dict)


def make_constant_tensor(array):
    """A constant operand (no grad): a Tensor of its own copy of the array (integers stay integers: labels)."""
    return Tensor(array, dtype=array.dtype if array.dtype.kind in "iu" else None)


@dataclass(frozen=True)
class Program:
    """A checked, compiled program. Build one with `language.compile_program(text, seed)`."""

    text: str
    seed: int
    instructions: tuple
    slots: int
    output: Slot
    output_shape: tuple
    shapes: dict  # variable name -> the shape of its last value, in order of first assignment
    inputs: dict  # name -> shape: the leaves run(inputs=...) may replace
    input_at: dict  # name -> (line, col, end_col, quote) of its first assignment
    fixed: dict  # input name -> (line, value): inputs that set a shape, an index or an axis
    costs: Costs
    stepper_over: tuple | None  # (line, col, end_col) where the Stepper's records cross their limit
    stepper_culprit: str
    script: dict  # what emit.py needs to write the program as Python

    def run(self, inputs: dict | None = None, seed: int | None = None) -> Result:
        """Runs the program: fresh Tensors, random draws from np.random.default_rng(seed or self.seed).

        `inputs` (name -> array) replaces the value of those inputs (see `inputs`) and leaves everything
        else, random draws included, as it was. Raises ExpressionError for an unknown name, a value of
        the wrong shape, a new value for an input that sets a shape, or an error the engine finds at
        run time (labels out of range), with the line and column of the statement or operation.
        """
        given = self._validate(inputs or {})
        EVALUATIONS["runs"] += 1
        EVALUATIONS["recorded"] += is_grad_enabled()
        values = [None] * self.slots
        values[0] = np.random.default_rng(self.seed if seed is None else seed)
        variables: dict[str, Tensor] = {}
        leaves: dict[str, Tensor] = {}
        uses: dict[Tensor, tuple] = {}
        with np.errstate(all="ignore"):  # overflow gives inf and 0/0 gives nan, as in NumPy; both are shown
            for ins in self.instructions:
                kind = type(ins)
                if kind is Call:
                    args = [values[a.index] if type(a) is Slot else a for a in ins.args]
                    values[ins.out] = _call(ins, args, self.text)
                    if ins.data_args:
                        uses[values[ins.out]] = tuple(args[k] for k in ins.data_args if isinstance(args[k], Tensor))
                elif kind is Leaf:
                    data = values[ins.value.index] if type(ins.value) is Slot else ins.value
                    if ins.input and ins.name in given:
                        data = given[ins.name]
                    leaf = Tensor(np.array(data, dtype=np.float64), requires_grad=True)
                    if ins.input:
                        leaves[ins.name] = leaf
                    values[ins.out] = leaf
                else:  # Store
                    tensor = values[ins.value.index]
                    if tensor.name is None:
                        tensor.name = ins.name
                    variables[ins.name] = tensor
        return Result(output=values[self.output.index], variables=variables, text=self.text, inputs=leaves,
                      uses=uses)

    def _validate(self, inputs: dict) -> dict:
        given = {}
        for name, value in inputs.items():
            if name not in self.inputs:
                raise ExpressionError(msg.unknown_input(name, list(self.inputs)))
            array = np.array(value, dtype=np.float64)  # a copy of its own
            line, col, end_col = self.input_at[name][:3]
            if array.shape != self.inputs[name]:
                raise ExpressionError(msg.input_shape(name, array.shape, self.inputs[name]), line, col, end_col)
            if name in self.fixed:
                fixed_line, known = self.fixed[name]
                if not np.array_equal(array, known):
                    shown = np.asarray(known).item() if np.size(known) == 1 else known
                    raise ExpressionError(msg.fixed_input(name, fixed_line, shown), line, col, end_col)
            given[name] = array
        return given

    def check_stepper(self) -> None:
        """Raises ExpressionError when the Backward Stepper's records for this program would be over budget."""
        if self.stepper_over is not None:
            raise ExpressionError(msg.stepper_too_big(self.costs.stepper_elements, self.stepper_culprit),
                                  *self.stepper_over)

    def to_python(self) -> str:
        """A standalone Python script that rebuilds the program with the engine (see language/emit.py)."""

        return script(self)


def _call(ins: Call, args: list, text: str) -> Any:
    """Runs one instruction; a failure becomes an ExpressionError pointing at the operation."""
    try:
        return ins.fn(*args, **ins.kwargs)
    except (ValueError, TypeError, IndexError, ArithmeticError) as exc:
        raise _error(ins.at, text, msg.cannot_compute, exc) from exc
    except MemoryError:
        raise _error(ins.at, text, msg.out_of_memory) from None
    except Exception as exc:  # an engine bug must not crash the app; say so plainly
        raise _error(ins.at, text, msg.engine_bug, exc) from exc


def _error(at: tuple, text: str, message, *details) -> ExpressionError:
    line, col, end_col, node = at
    return ExpressionError(message(Source(text).quote(node), *details), line, col, end_col)
