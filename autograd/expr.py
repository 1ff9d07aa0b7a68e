"""The expression language's public entry, as API.md names it: a thin façade over the `language` package.

    from autograd.expr import evaluate, ExpressionError
    r = evaluate("a = -4.0\\nb = 2.0\\ng = ((a + b) ** 2 + (a * b + b ** 3).relu()).sum()")
    r.output, r.variables          # the last statement's Tensor; name -> Tensor in assignment order

The language lives outside the engine (it is a client of it, with its own policy: messages, limits,
the Python export); `import autograd` does not import it. For a program run many times (a gradient
check, sliders) compile it once with `language.compile_program` and call `Program.run`.
"""

from language import ExpressionError, Program, Result, check, compile_program, evaluate, to_python

__all__ = ["ExpressionError", "Result", "Program", "evaluate", "check", "to_python", "compile_program"]
