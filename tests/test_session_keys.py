"""Each page's session keys are declared once, in its room's keys.py (explorer/keys.py for the few every page
shares): no other module spells a key as a string, no key is declared twice, and no declared key is left unused."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KEYS = sorted(ROOT.glob("explorer/**/keys.py"))
#: What a session's state is called where it is used: the pages' and components' ``ss`` and ``st.session_state``,
#: and ``session`` in the explorer functions that keep it in step with a link (in components/, ``session`` is
#: components/common/session.py).
STATE = {"ss"}
EXPLORER_STATE = {"ss", "session"}
ACCESS = ("get", "pop", "setdefault", "update", "__setitem__")


def _modules():
    yield ROOT / "app.py"
    for top in ("pages", "components", "explorer"):
        for path in sorted((ROOT / top).rglob("*.py")):
            if path.name != "keys.py" and "frontend" not in path.parts:
                yield path


def _is_state_named(node, names) -> bool:
    return (isinstance(node, ast.Name) and node.id in names) or (
        isinstance(node, ast.Attribute) and node.attr == "session_state")


def _spelled(node) -> bool:
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str))


def _spelled_keys(tree, names=STATE):
    """(line, what) for each place a session key is spelled rather than taken from a keys module."""

    def _is_state(node):
        return _is_state_named(node, names)

    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and _is_state(node.value) and _spelled(node.slice):
            yield node.lineno, f"[{ast.unparse(node.slice)}]"
        elif isinstance(node, ast.Attribute) and _is_state(node.value) and not node.attr.startswith("__") \
                and node.attr not in (*ACCESS, "session_state", "keys", "items", "values", "to_dict", "clear"):
            yield node.lineno, f".{node.attr}"
        elif isinstance(node, ast.Compare) and isinstance(node.ops[0], ast.In | ast.NotIn) \
                and _is_state(node.comparators[0]) and _spelled(node.left):
            yield node.lineno, f"{ast.unparse(node.left)} in"
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and _is_state(func.value) and func.attr in ACCESS:
                if node.args and _spelled(node.args[0]):
                    yield node.lineno, f".{func.attr}({ast.unparse(node.args[0])})"
                if func.attr == "update" and (node.keywords or node.args and isinstance(node.args[0], ast.Dict)
                                              and any(_spelled(k) for k in node.args[0].keys)):
                    yield node.lineno, ast.unparse(node)
            for kw in node.keywords:
                if kw.arg == "key" and _spelled(kw.value):
                    yield node.lineno, f"key={ast.unparse(kw.value)}"


def _declared():
    """{key: [where]} for each key a keys module declares as a constant."""
    found = {}
    for path in KEYS:
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
                for target in node.targets:
                    found.setdefault(node.value.value, []).append(f"{path.relative_to(ROOT)}: {target.id}")
    return found


def test_no_module_spells_a_session_key():
    bad = [f"{path.relative_to(ROOT)}:{line}: {what}" for path in _modules()
           for line, what in _spelled_keys(ast.parse(path.read_text(encoding="utf-8")),
                                           EXPLORER_STATE if path.parts[len(ROOT.parts)] == "explorer" else STATE)]
    assert not bad, "take these from the room's keys.py:\n" + "\n".join(bad)


def test_the_check_sees_every_way_a_key_is_spelled():
    code = ('ss["a"]; ss.get("b"); ss.pop(f"c{x}"); "d" in ss; ss.e; ss.update(f=1); st.session_state["g"]\n'
            'st.text_area("x", key="h"); session.setdefault("i", 0); ss[keys.OK]; ss.get(keys.ok(x)); ss.update()')
    assert len(list(_spelled_keys(ast.parse(code), EXPLORER_STATE))) == 9
    assert len(list(_spelled_keys(ast.parse(code)))) == 8  # in components/, ``session`` is a module


def test_each_key_is_declared_once():
    twice = {key: where for key, where in _declared().items() if len(where) > 1}
    assert not twice, twice


def test_each_declared_key_is_used():
    used = " ".join(path.read_text(encoding="utf-8") for path in _modules())
    for path in KEYS:
        room = path.parent.name if path.parent.name != "explorer" else ""
        names = [t.id for n in ast.parse(path.read_text(encoding="utf-8")).body if isinstance(n, ast.Assign)
                 for t in (n.targets[0].elts if isinstance(n.targets[0], ast.Tuple) else n.targets)]
        names += [n.name for n in ast.parse(path.read_text(encoding="utf-8")).body if isinstance(n, ast.FunctionDef)]
        unused = [name for name in names if f".{name}" not in used and f"import {name}" not in used
                  and f"{name} as" not in used]
        assert not unused, f"{path.relative_to(ROOT)} declares keys nothing uses ({room or 'shared'}): {unused}"
