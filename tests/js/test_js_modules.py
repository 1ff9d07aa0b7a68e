"""The components' browser code as ES modules: every import resolves to a file of the served tree, no file
reaches another through shared scope, and the shared toolbox (components/frontend/web/) is not copied into a
component."""

import re

import pytest

from components.common.assets import CODE_DIR

MODULES = sorted(p for p in CODE_DIR.rglob("*.js") if "vendor" not in p.parts)
IMPORT = re.compile(r"""^\s*import\s+(?:[\w*{}\s,]+\s+from\s+)?["']([^"']+)["']""", re.M)


def test_the_tree_holds_every_component():
    names = {p.relative_to(CODE_DIR).as_posix() for p in MODULES}
    assert {"web/dom.js", "web/theme.js", "graph_view/graph_view.js", "jacobian_view/mount.js", "poke/poke.js",
            "live_view/static/live_view.js", "race/static/race.js"} <= names


@pytest.mark.parametrize("module", MODULES, ids=lambda p: p.relative_to(CODE_DIR).as_posix())
def test_imports_resolve_inside_the_served_tree(module):
    text = module.read_text(encoding="utf-8")
    for target in IMPORT.findall(text):
        assert target.startswith("."), f"{module.name}: {target!r} is not a relative URL"
        path = (module.parent / target).resolve()
        assert path.is_file(), f"{module.name} imports {target}, which is not there"
        assert CODE_DIR.resolve() in path.parents, f"{module.name} imports {target}, outside the served tree"


@pytest.mark.parametrize("module", MODULES, ids=lambda p: p.relative_to(CODE_DIR).as_posix())
def test_no_toolbox_twin_outside_web(module):
    if module.parent.name == "web":
        return
    text = module.read_text(encoding="utf-8")
    for twin in (r"function el\(", r"createElementNS\(", r"function escapeHtml\(", r"function parseColour\(",
                 r"function isDark", r"0\.299 \*", r"0\.2126 \*",
                 # numbers and ticks: frontend/web/format.js (formatNumber, formatShort, formatPercent, ticks)
                 r"toPrecision\(", r"toExponential\(", r"toLocaleString\(", r"function \w*[nN]umber\(",
                 r"function \w*[pP]ercent\(", r"function (?!log)\w*[tT]icks\(", r"function nice\(", r"function num\("):
        assert not re.search(twin, text), f"{module.name} has its own {twin} (use components/frontend/web/)"


def test_live_panels_are_one_file_each():
    view = (CODE_DIR / "live_view" / "static" / "live_view.js").read_text(encoding="utf-8")
    names = re.search(r"const PANELS = \(await Promise\.all\(\[([^\]]*)\]", view).group(1)
    listed = {n.strip().strip('"') for n in names.split(",")}
    files = {p.stem for p in (CODE_DIR / "live_view" / "static" / "panels").glob("*.js")}
    assert listed == files
