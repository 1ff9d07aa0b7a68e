"""An attempt as a standalone Python script: the program rebuilt with the engine (language/emit.py), backward(), the
answers as Python, and Karpathy's ``cmp`` table (exact, approximate, maxdiff) per tensor, as the page checked it."""

from __future__ import annotations

import ast

from autograd.graph import order
from language.answers import compile_answers


def script(setup, answers_text: str) -> str:
    """The script's text. Lines the page judged an error are left out, as comments that say so."""
    program = setup.program
    base = program.to_python()
    out_name = program.script["output"]
    renamed = program.script["names"]
    plain = order(setup.tensors[setup.graph.output])  # the script's own order: no data tensors placed first
    index = {id(t): i for i, t in enumerate(plain)}
    fetch = []
    for node in setup.graph.nodes:
        name = setup.names[node.id]
        if name not in renamed and id(setup.tensors[node.id]) in index:
            fetch.append(f"{name} = _nodes[{index[id(setup.tensors[node.id])]}]")
    protected = frozenset(setup.scope) - {"d" + n for n in setup.grads}
    answers = compile_answers(answers_text, setup.scope, protected)
    body = []
    for line in answers.lines:
        if line.error is not None:
            body.append(f"# (not checked: {line.error.message}) " + " ".join(line.text.split()))
    statements = [_python(line.text) for line in answers.lines if line.error is None]
    lines = [
        base.rstrip(),
        "",
        "# ---- the answers, as the Practice page checked them ----",
        "import numpy as np  # noqa: E402",
        "from autograd import no_grad  # noqa: E402",
        "from autograd.graph import order  # noqa: E402",
        "",
        f"_nodes = order({out_name})",
        *fetch,
        "with no_grad():",
        *(f"    {s}" for s in statements or ["pass"]),
        *body,
        "",
        "",
        "def cmp(label, answer, t):",
        "    grad = t.grad",
        "    answer = np.asarray(answer.data if hasattr(answer, 'data') else answer)",
        "    if answer.shape != grad.shape:",
        "        print(f'{label:16s} | shape {answer.shape}, needs {grad.shape}')",
        "        return",
        "    exact = bool(np.array_equal(answer, grad))",
        "    scale = max(float(np.abs(grad).max(initial=0)), 1e-300)",
        "    close = bool(np.allclose(answer, grad, rtol=1e-10, atol=1e-10 * scale))",
        "    maxdiff = float(np.abs(answer - grad).max(initial=0))",
        "    print(f'{label:16s} | exact: {str(exact):5s} | approximate: {str(close):5s} | maxdiff: {maxdiff:.3g}')",
        "",
        "",
    ]
    assigned = {line.target for line in answers.lines if line.error is None}
    for name in setup.asked:
        if "d" + name in assigned:
            lines.append(f"cmp({'d' + name!r}, d{name}, {renamed.get(name, name)})")
    return "\n".join(lines) + "\n"


def _python(text: str) -> str:
    """An answer line as Python: the language's own spelling is Python's, but its functions are the engine's
    (``softmax(x)`` is ``F.softmax(x)``; constructors are NumPy's)."""
    tree = ast.parse(text)
    return ast.unparse(_Engine().visit(tree))


_CONSTRUCTORS = {"ones": "np.ones", "zeros": "np.zeros", "eye": "np.eye", "arange": "np.arange"}


class _Engine(ast.NodeTransformer):
    def visit_Name(self, node: ast.Name):
        if node.id == "pi":
            return ast.copy_location(ast.parse("np.pi", mode="eval").body, node)
        return node

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name):
            name = node.func.id
            if name in _CONSTRUCTORS:
                node.func = ast.parse(_CONSTRUCTORS[name], mode="eval").body
                node = ast.Call(func=ast.Name("Tensor", ast.Load()), args=[node], keywords=[])
            elif name == "tensor":
                node.func = ast.Name("Tensor", ast.Load())
            else:
                node.func = ast.Attribute(value=ast.Name("F", ast.Load()), attr=name, ctx=ast.Load())
        return node
