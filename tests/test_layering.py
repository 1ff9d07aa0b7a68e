"""Checks the project's import arrows: which layer may import which, no circles, and NOTE on every deferred import."""

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("autograd", "language", "explorer", "server", "components")
SKIP = {"frontend", ".venv", "node_modules", "__pycache__"}
STDLIB = set(sys.stdlib_module_names)
# autograd/tensor.py imports autograd.ops at the bottom of the module (after Tensor is defined), and every
# autograd.ops submodule imports autograd.tensor: a real circle, kept on purpose because Tensor's operator
# methods call into ops while ops builds on Tensor. Only this one closing edge is exempt.
ALLOWED = {("autograd.tensor", "autograd.ops")}


def _modname(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _files():
    for layer in LAYERS:
        for path in sorted((ROOT / layer).rglob("*.py")):
            if not SKIP & set(path.relative_to(ROOT).parts):
                try:
                    yield path, path.read_text(encoding="utf-8")
                except FileNotFoundError:  # moved while we walked
                    continue


def _exists(mod):
    base = ROOT.joinpath(*mod.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _imports(path, source):
    """(line, target module, in a function, at module level) for each import in one file."""
    mod, found = _modname(path), []
    package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]

    def visit(node, in_func, top):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, a.name, in_func, top) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1]) if node.level else ""
            base = ".".join(p for p in (base, node.module) if p)
            for a in node.names:
                sub = f"{base}.{a.name}"
                found.append((node.lineno, sub if _exists(sub) else base, in_func, top))
        in_func = in_func or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            top = False
        for child in ast.iter_child_nodes(node):
            visit(child, in_func, top and not in_func)

    visit(ast.parse(source, str(path)), False, True)
    return found


def _arrows(layers, allowed=None, banned=()):
    bad = {}
    for path, source in _files():
        if path.relative_to(ROOT).parts[0] in layers:
            for line, target, _, _ in _imports(path, source):
                top = target.split(".")[0]
                if (allowed is not None and top not in allowed and top not in STDLIB) or top in banned:
                    bad[f"{path.relative_to(ROOT)}:{line}: import {target}"] = None
    return list(bad)


# autograd/expr.py is the language's public entry (API.md: `from autograd.expr import evaluate`), a façade that
# `import autograd` never loads: the one arrow from the engine up to language/.
FACADE = "autograd/expr.py:"


def test_autograd_imports_only_stdlib_numpy_and_itself():
    bad = [b for b in _arrows({"autograd"}, allowed={"numpy", "autograd"})
           if not (b.startswith(FACADE) and b.split("import ")[1].split(".")[0] == "language")]
    assert not bad, "\n".join(bad)


def test_language_imports_only_stdlib_numpy_autograd_and_itself():
    bad = _arrows({"language"}, allowed={"numpy", "autograd", "language"})
    assert not bad, "\n".join(bad)


def test_explorer_never_imports_the_ui():
    bad = _arrows({"explorer"}, banned={"streamlit", "components", "pages", "app"})
    assert not bad, "\n".join(bad)


def test_only_the_ui_imports_streamlit():
    bad = _arrows({"autograd", "language", "explorer", "server"}, banned={"streamlit"})
    assert not bad, "\n".join(bad)


def test_no_module_level_import_circles():
    graph, where = {}, {}
    for path, source in _files():
        mod = _modname(path)
        graph.setdefault(mod, set())
        for line, target, _, top in _imports(path, source):
            if top and target != mod and (mod, target) not in ALLOWED:
                graph[mod].add(target)
                where.setdefault((mod, target), f"{path.relative_to(ROOT)}:{line}")
    cycles, done = [], set()

    def dfs(node, stack):
        if node in stack:
            loop = stack[stack.index(node) :] + [node]
            cycles.append(" -> ".join(f"{a} ({where[a, b]})" for a, b in zip(loop, loop[1:])) + f" -> {node}")
            return
        if node in done or node not in graph:
            return
        for nxt in sorted(graph[node]):
            dfs(nxt, stack + [node])
        done.add(node)

    for mod in sorted(graph):
        dfs(mod, [])
    assert not cycles, "\n".join(cycles)


def test_every_import_inside_a_function_says_why():
    bad = []
    for path, source in _files():
        lines, found = source.splitlines(), _imports(path, source)
        nodes = [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Import | ast.ImportFrom)]
        spans = {n.lineno: n.end_lineno for n in nodes}
        import_lines = {i for start, end in spans.items() for i in range(start, end + 1)}
        for line, target, in_func, _ in found:
            above, ok = line - 1, any("NOTE" in lines[i - 1] for i in range(line, spans[line] + 1))
            while not ok and above >= 1 and (lines[above - 1].lstrip().startswith("#") or above in import_lines):
                ok = lines[above - 1].lstrip().startswith("#") and "NOTE" in lines[above - 1]
                above -= 1
            if in_func and not ok:
                bad.append(f"{path.relative_to(ROOT)}:{line}: import {target}")
    assert not bad, "\n".join(sorted(set(bad), key=lambda s: (s.split(":")[0], int(s.split(":")[1]))))


def test_no_test_module_imports_another():
    """What tests share lives in tests/support/ (and tests/browser/'s helpers): a test module, or a conftest, is
    never imported by another module, so each test file can be read, moved or deleted on its own."""
    bad = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        if SKIP & set(path.relative_to(ROOT).parts):
            continue
        for line, target, _, _ in _imports(path, path.read_text(encoding="utf-8")):
            last = target.rpartition(".")[2]
            if target.startswith("tests.") and (last.startswith("test_") or last == "conftest"):
                bad.append(f"{path.relative_to(ROOT)}:{line}: import {target}")
    assert not bad, "\n".join(bad)
