"""No emoji in what the pages draw: without an emoji font (a plain Debian or a locked-down laptop) an emoji
is an empty box. Icons are Streamlit's Material icons (":material/…:"), which Streamlit ships as a font."""

import re

from tests.support.helpers import ROOT

SOURCES = [ROOT / "app.py", *(ROOT / d for d in ("pages", "components", "explorer"))]

# Outside the Basic Multilingual Plane (😀, 📐, 🔥, ...), the BMP's characters drawn as emoji by default
# (Unicode's Emoji_Presentation: ⌛ ⏱ ✅ ❌ ⭐ ...) and the selector that asks for the emoji form (U+FE0F).
EMOJI = re.compile(
    "[\U00010000-\U0010ffff\ufe0f\u231a\u231b\u23e9-\u23ec\u23f0\u23f3\u25fd\u25fe\u2614\u2615\u2648-\u2653"
    "\u267f\u2693\u26a1\u26aa\u26ab\u26bd\u26be\u26c4\u26c5\u26ce\u26d4\u26ea\u26f2\u26f3\u26f5\u26fa\u26fd"
    "\u2705\u270a\u270b\u2728\u274c\u274e\u2753-\u2755\u2757\u2795-\u2797\u27b0\u27bf\u2b1b\u2b1c\u2b50\u2b55]"
)


def files():
    for source in SOURCES:
        paths = [source] if source.is_file() else sorted(source.rglob("*"))
        for path in paths:
            if path.suffix in (".py", ".js", ".css", ".html") and "vendor" not in path.parts:
                yield path


def test_the_pages_draw_no_emoji():
    found = [
        f"{path.relative_to(ROOT)}:{n}: {m.group()!r} (U+{ord(m.group()):04X})"
        for path in files()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        for m in EMOJI.finditer(line)
    ]
    assert not found, "emoji render as empty boxes without an emoji font; use :material/…: icons\n" + "\n".join(found)


def test_the_scan_reads_the_pages():
    names = {path.relative_to(ROOT).as_posix() for path in files()}
    assert {"app.py", "pages/explorer.py", "components/frontend/graph_view/stepper.js"} <= names
    assert EMOJI.search("st.title('📐 Explorer')") and EMOJI.search("✅ done") and not EMOJI.search("⚠ ✓ → Σ ⊙")
