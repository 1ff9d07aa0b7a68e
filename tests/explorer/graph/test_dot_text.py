"""Names drawn as typed (issue 27 item 5): a tensor's name with backslashes, quotes, Graphviz's own escapes (\\N is
the node's name, \\G the graph's, \\n a line break), a trailing backslash, a newline, HTML-like text or any unicode
is drawn character for character in its box's title, its cells' tooltips, its tags and its uses row, by both
Graphvizes the app runs: Debian's ``dot`` (the SVG export) and the browser's (the vendored WebAssembly build, run
here in Node)."""

import json
import os
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest

from autograd import Tensor
from autograd.graph import trace
from explorer.graph import dot as dotmod
from explorer.graph.svg import to_svg
from tests.support.dot_lines import TAG_LINE, node_lines
from tests.support.helpers import ROOT, node_or_skip

NAMES = {
    "backslash": "a\\b",
    "trailing backslash": "x\\",
    "two backslashes": "a\\\\b",
    "node's name": "\\N",
    "graph's name": "grad of \\G",
    "edge escapes": "\\E\\T\\H\\L",
    "line-break escapes": "a\\nb\\lc\\r",
    "quotes": 'say "hi"',
    "escaped quote": 'a\\"b',
    "entities": "&amp; &lt; &#65;",
    "html-like": "<b>bold</b>",
    "angle brackets": "<x>",
    "unicode": "θ₁ → Σ 😀",
    "newline": "line1\nline2",
    "a DOT keyword": "node",
    "a numeral": "-4.2",
}

SVG_TEXT = "{http://www.w3.org/2000/svg}text"
XLINK_TITLE = "{http://www.w3.org/1999/xlink}title"


def drawing(name: str) -> str:
    """DOT for ``name`` as an input that feeds a mul and, three ranks below it, an add; with no budget for long
    edges its uses are tags, so the name is drawn as a box's title, its tooltips, two tags and a uses row."""
    x = Tensor([1.0, 2.0], requires_grad=True, name=name)
    y = ((x * 2.0).tanh() + x).sum()
    y.backward()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dotmod, "LONG_EDGE_BUDGET", 0)
        return dotmod.to_dot(trace(y))


def drawn(svg: str) -> dict:
    """What an SVG of ``drawing`` shows of the name: the title's lines, the tooltips, each tag's lines, the uses row."""
    root = ET.fromstring(svg)
    groups = {g.get("id"): g for g in root.iter("{http://www.w3.org/2000/svg}g")}
    box = groups["n0"]
    texts = list(box.iter(SVG_TEXT))
    return {
        "title": "\n".join(t.text for t in texts if t.get("font-weight") == "bold"),
        "tooltips": [a.get(XLINK_TITLE) for a in box.iter("{http://www.w3.org/2000/svg}a")],
        "tags": ["\n".join(t.text for t in g.iter(SVG_TEXT)) for key, g in groups.items() if key.startswith("t0-")],
        "uses": "\n".join(t.text for t in texts if t.get("font-size") == "10.00"),
    }


def assert_drawn_as_typed(svg: str, name: str, tooltips_drawn: bool) -> None:
    assert svg.startswith("<?xml"), svg
    shown = drawn(svg)
    assert shown["title"] == name, shown
    assert shown["tags"] == [name, name], shown
    assert shown["uses"] == f"feeds 2 boxes: each has a tag {name}", shown
    # Graphviz 2.43 draws a cell's tooltip only with a link; 14 (the browser's) always does
    if tooltips_drawn or shown["tooltips"]:
        assert sorted(shown["tooltips"]) == [f"{name}.data", f"{name}.grad"], shown


@pytest.mark.skipif(shutil.which("dot") is None and not os.environ.get("CI"), reason="Graphviz 'dot' is not installed")
@pytest.mark.parametrize("name", NAMES.values(), ids=NAMES.keys())
def test_the_svg_export_draws_a_name_as_typed(name):
    assert_drawn_as_typed(to_svg(drawing(name)), name, tooltips_drawn=False)


#: Renders each DOT of a JSON list (stdin) with the vendored Graphviz, prints the JSON list of SVGs (or of what
#: Graphviz said, for a DOT it could not read).
RENDER_IN_NODE = """
const Viz = require(process.argv[2]);
let input = "";
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => Viz.instance().then((viz) => {
  const render = (dot) => {
    try { return viz.renderString(dot, { format: "svg" }); } catch (error) { return `Graphviz: ${error.message}`; }
  };
  process.stdout.write(JSON.stringify(JSON.parse(input).map(render)));
}));
"""


@pytest.fixture(scope="module")
def browser_svgs(tmp_path_factory):
    """Each name's drawing as the browser's Graphviz draws it (viz-global.js, loaded as CommonJS from a copy: the
    checkout's package.json makes .js an ES module)."""
    node = node_or_skip("the browser's Graphviz on hostile names")
    folder = tmp_path_factory.mktemp("viz")
    shutil.copy(ROOT / "components/frontend/graph_view/vendor/viz-global.js", folder / "viz-global.cjs")
    (folder / "render.cjs").write_text(RENDER_IN_NODE)
    done = subprocess.run([node, str(folder / "render.cjs"), str(folder / "viz-global.cjs")],
                          input=json.dumps([drawing(name) for name in NAMES.values()]), capture_output=True,
                          text=True, timeout=120, check=True)
    return dict(zip(NAMES.values(), json.loads(done.stdout)))


@pytest.mark.parametrize("name", NAMES.values(), ids=NAMES.keys())
def test_the_browser_draws_a_name_as_typed(browser_svgs, name):
    assert_drawn_as_typed(browser_svgs[name], name, tooltips_drawn=True)


def test_tag_labels_stay_quoted_whatever_the_name():
    """graphviz.quoting.quote leaves an ID bare (x, -4.2); the graph view and tests/support/dot_lines.py read
    label="…", and the old DOT had the quotes: a tag's label is always quoted, a keyword too."""
    for name, label in (("x", '"x"'), ("-4.2", '"-4.2"'), ("node", '"node"'), ("a b", '"a b"'),
                        ('say "hi"', '"say \\"hi\\""'), ("x\\", '"x\\\\"'), ("a&b", '"a&amp;b"')):
        dot = drawing(name)
        assert f"t2_0 [label={label}, " in dot, (name, dot)
        if '"' not in name:
            assert [tag[1] for tag in TAG_LINE.findall(dot)] == [label[1:-1]] * 2
        assert len(node_lines(dot)) == 6
