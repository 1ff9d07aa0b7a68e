"""Take the optimiser race's README screenshots, light and dark, at 1280x800: docs/screenshots/race*.png.

Starts the app (the browser tests' server code), opens the race on Rosenbrock, plays it to a step and picks Adam's
arithmetic, then saves the page in each theme.

    .venv/bin/python scripts/race_screenshots.py [--out docs/screenshots] [--step 120]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from tests.browser import helpers  # noqa: E402
from tests.browser.server import browser_unavailable_reason, launch_chromium, start_streamlit  # noqa: E402

VIEWPORT = {"width": 1280, "height": 800}
RACE = '[data-testid="optimiser-race"]'


def show_race(page, url: str, step: int, chosen: str) -> None:
    """The race page at ``step`` with ``chosen``'s arithmetic, once its pictures are drawn."""
    helpers.open_page(page, f"{url}/optimiser_race")
    page.locator(f"{RACE} polyline[data-path-line]").first.wait_for(state="attached", timeout=60_000)
    page.locator(f'{RACE} [data-path="{chosen}"] button').dispatch_event("click")
    slider = page.locator(f"{RACE} input[type=range]")
    slider.evaluate("(s, k) => { s.value = k; s.dispatchEvent(new Event('input')); }", step)
    page.wait_for_function(f"document.querySelector('{RACE}').dataset.steps === '{step}'")
    page.evaluate("document.fonts.ready")
    page.wait_for_timeout(500)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "docs" / "screenshots")
    parser.add_argument("--step", type=int, default=120)
    args = parser.parse_args()
    reason = browser_unavailable_reason()
    if reason:
        print(reason, file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    server = start_streamlit("app.py")
    try:
        with tempfile.TemporaryDirectory() as profile, sync_playwright() as p:
            browser = launch_chromium(p, profile)
            for scheme, name in (("light", "race.png"), ("dark", "race-dark.png")):
                page = browser.new_page(viewport=VIEWPORT, color_scheme=scheme)
                helpers.install_run_tracker(page)
                show_race(page, server.url, args.step, "adam")
                page.screenshot(path=str(args.out / name))
                print(f"wrote {args.out / name}")
                page.close()
            browser.close()
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
