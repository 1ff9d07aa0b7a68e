"""Take the Memory tab's README screenshots: docs/screenshots/memory.png (1280x800, light) and memory-dark.png
(a 390 px phone, dark), micrograd's example scrubbed to a step of its backward pass.

    .venv/bin/python scripts/memory_screenshots.py [--out docs/screenshots] [--step 35]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from urllib.parse import quote

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from explorer.program import presets  # noqa: E402
from tests.browser import helpers  # noqa: E402
from tests.browser.server import app_in_chromium, browser_unavailable_reason  # noqa: E402

MEMORY = '[data-testid="tape-memory"]'
SHOTS = (("light", {"width": 1280, "height": 800}, "memory.png"), ("dark", {"width": 390, "height": 844},
                                                                    "memory-dark.png"))


def show_memory(page, url: str, step: int) -> None:
    """The Explorer on micrograd's example, its Memory tab open and scrubbed to ``step``."""
    helpers.open_page(page, f"{url}/?program={quote(presets.program('micrograd'))}")
    helpers.wait_for_view(page, timeout=60_000)
    helpers.wait_for_idle(page)
    tab = page.get_by_role("tab", name="Memory")
    tab.scroll_into_view_if_needed()
    helpers.wait_for_rerun(page, tab.click)
    page.locator(f"{MEMORY} path.tm-line").first.wait_for(timeout=60_000)
    page.mouse.move(0, 0)
    page.locator(f"{MEMORY} input.tm-slider").evaluate(
        "(el, v) => { el.value = String(v); el.dispatchEvent(new Event('input')); }", step)
    page.wait_for_function(f"document.querySelector('{MEMORY}').dataset.step === '{step}'")
    page.evaluate("document.fonts.ready")
    page.wait_for_timeout(500)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "docs" / "screenshots")
    parser.add_argument("--step", type=int, default=35)
    args = parser.parse_args()
    reason = browser_unavailable_reason()
    if reason:
        print(reason, file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    with app_in_chromium(REPO_ROOT / "app.py") as (server, browser):
        for scheme, viewport, name in SHOTS:
            page = browser.new_page(viewport=viewport, color_scheme=scheme)
            helpers.install_run_tracker(page)
            show_memory(page, server.url, args.step)
            if viewport["width"] < 600:  # a phone: the graph comes first; the timeline is below it
                page.locator(MEMORY).scroll_into_view_if_needed()
            page.screenshot(path=str(args.out / name))
            print(f"wrote {args.out / name}")
            page.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
