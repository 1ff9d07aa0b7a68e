"""The expression language typed into the app: a small, safe subset of Python over the engine's Tensors.

    from language import compile_program
    program = compile_program("W = randn(3, 4)\\nx = ones(4)\\ny = (W @ x).relu().sum()", seed=0)
    program.costs            # Costs(forward_elements, backward_elements, stepper_elements, matmul_work, nodes)
    program.inputs           # {'W': (3, 4), 'x': (4,)}: the leaves a run may give new values
    result = program.run()   # Result: .output, .variables (name -> Tensor), .inputs (name -> leaf), .text
    result = program.run(inputs={"x": np.zeros(4)})   # no parsing, no checking: just the instructions
    program.to_python()      # the same computation as a standalone script
    program.check_stepper()  # raises ExpressionError if the Backward Stepper's records would be too big

Layers, one module each: `source` reads the text (limits, `ast.parse`, positions); `check` walks the
tree once, refuses anything outside the language and predicts every shape, size and cost without
running (a static inference over the tree), producing a `Program` of instructions (`program`); `emit`
writes the Python export; `library` lists what the language offers (checked against the engine's op
registry); `messages` holds every limit and every message a student reads.

Compile once, run many times: a Program is immutable and holds no Tensors, so one Program can be
shared (cached) and run by several sessions at once; each run makes its own Tensors. Inputs that set a
shape, an index or an axis (`n = 3; x = randn(n)`) are listed in `program.fixed` and cannot take new
values.

Safety: the text is only ever parsed (`ast.parse`), never compiled or run as Python; everything is
looked up in explicit tables (no getattr on the user's strings); every size is charged before any
array is made, so no accepted program can make the process allocate more than the limits in
`messages` allow (well under 1 GB).

`autograd.expr` is the public entry API.md names (evaluate, ExpressionError, to_python): a thin
façade over this package.
"""

from language.check import Checker
from language.program import EVALUATIONS, Costs, Program, Result
from language.source import ExpressionError, Source, parse

__all__ = ["compile_program", "Program", "Result", "Costs", "ExpressionError", "evaluate", "check", "to_python"]


def compile_program(text: str, seed: int = 0) -> Program:
    """Parses and checks a program, predicting its shapes and costs; raises ExpressionError if it is not valid."""
    EVALUATIONS["compiles"] += 1
    source = Source(text)
    tree = parse(source)
    return Checker(source, tree, seed).compile()


def check(text: str) -> None:
    """Raises ExpressionError if `text` is not a valid program (shapes and limits included); computes nothing."""
    compile_program(text)


def evaluate(text: str, seed: int = 0, inputs: dict | None = None) -> Result:
    """Compiles and runs a program; constructors draw from np.random.default_rng(seed), so the same text
    gives the same numbers. `inputs` (name -> array) replaces those inputs' values (see Program.run)."""
    return compile_program(text, seed).run(inputs)


def to_python(text: str, seed: int = 0) -> str:
    """A standalone script that rebuilds the program with the engine, runs backward and prints the grads.

    The program is run first, so an error only running finds (labels out of range) surfaces here too.
    """
    program = compile_program(text, seed)
    program.run()
    return program.to_python()
