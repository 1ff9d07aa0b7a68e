"""One page load's server time and evaluations, per preset, on the Expression Explorer and the Backward Stepper.

Run: python benchmarks/page_load.py [--repeat 3] [--app PATH] [--pages explorer,stepper]

Each load is a fresh session under Streamlit's AppTest (no browser) opening a link to the preset, with a
comment line added that no earlier load had, so the sandbox's cache holds nothing for it: the program is
evaluated in the sandbox's worker processes as on a server. It prints, per page and preset, the median of
``--repeat`` loads:
- load: the wall time of the page's script run, from the request to its last element (the server's part
  of a page load; the browser's own drawing is not in it),
- pictures: the run that answers the poke view's request for its pictures (explorer/program/page_data.py: a page
  run evaluates the program once; the pictures sweep it again, when asked) — absent where the app makes
  them in the load itself (before issue 20),
- the evaluations the load started in the sandbox (the functions' names).
``--app`` measures another checkout (e.g. an older commit's `git archive`), for a before/after. Figures
depend on the machine's load: record them with the command that made them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--app", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--pages", default="explorer,stepper")
    args = parser.parse_args()
    root = Path(args.app).resolve()
    sys.path.insert(0, str(root))
    os.chdir(root)
    from streamlit.testing.v1 import AppTest

    from components.common import session
    from explorer.program import presets
    from tests.support.apptest import sent, trigger  # the browser's messages, as the AppTest tests send them

    def load(program: str, page: str):
        at = AppTest.from_file(str(root / "app.py"), default_timeout=300)
        at.query_params["program"] = program
        if page == "stepper":
            at.switch_page("pages/stepper.py")
        started = time.perf_counter()
        at.run()
        return at, time.perf_counter() - started

    def pictures(at) -> float | None:
        """The poke view's request for its pictures, answered; None if the load sent them already."""
        if not sent(at, "components.poke").get("pictures_wanted"):
            return None
        started = time.perf_counter()
        trigger(at, "components.poke", "pictures")
        return time.perf_counter() - started

    sandbox = session.sandbox()
    log = getattr(sandbox, "started", None)
    load(presets.program(presets.DEFAULT) + "# warm-up\n", "explorer")  # imports, the sandbox's workers
    print(f"{root}  (median of {args.repeat} loads, seconds)")
    serial = 0
    for page in args.pages.split(","):
        for name in presets.names():
            loads, pics, calls = [], [], []
            for _ in range(args.repeat):
                serial += 1
                before = len(log) if log is not None else 0
                at, seconds = load(f"{presets.program(name)}# load {serial}\n", page)
                if at.exception:
                    raise SystemExit(f"{page} {name}: {at.exception[0].message}")
                loads.append(seconds)
                calls = [fn for _, fn, _ in list(log)[before:]] if log is not None else None
                pic = pictures(at)
                if pic is not None:
                    pics.append(pic)
            pic_text = f"pictures {statistics.median(pics):6.3f}" if pics else "pictures   (in the load)"
            said = f"evaluations {len(calls)}: {', '.join(calls)}" if calls is not None else "evaluations not logged"
            print(f"{page:8s} {name:22s} load {statistics.median(loads):6.3f}  {pic_text}  {said}")
    sandbox.close()


if __name__ == "__main__":
    main()
