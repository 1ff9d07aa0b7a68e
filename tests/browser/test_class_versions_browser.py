"""A learner's hand-ins in a real headless Chromium carry the browser's time of the text (issue 31): the store orders
them by the learner's one clock, never a server's. The browser's clock is set 20 years ahead here, so a version read
from the server's clock could not pass."""

from __future__ import annotations

import pytest

from explorer.classes import room
from server.run_store import runs

from .helpers import click_button, hand_in_practice, install_run_tracker, open_page, settled

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PROGRAM = "b = tensor([1.0, 2.0])\nloss = (b * b).sum()"
RIGHT = "dloss = ones(loss.shape)\ndt1 = dloss * ones(t1.shape)\ndb = 2 * dt1 * b"
WRONG = "dloss = ones(loss.shape)\ndt1 = dloss * ones(t1.shape)\ndb = dt1 * b"
AHEAD_MS = 20 * 365 * 86_400_000  # the learner's clock, 20 years ahead of the servers'
YEAR_2040_US = 2_208_988_800 * 1_000_000  # 2040-01-01 in µs: a version past it came from the browser's clock




def test_a_hand_in_is_versioned_by_the_browsers_clock_and_the_store_keeps_the_newest(browser, app_url, artifacts):
    store = runs()
    made = room.open_class(store, "Versions")
    info = room.find(store, made.code, who="t")
    room.post(store, info, room.Post("practice", "The square", program=PROGRAM))
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.add_init_script(f"{{ const real = Date.now; Date.now = () => real() + {AHEAD_MS}; }}")
    install_run_tracker(context)
    try:
        page = context.new_page()
        open_page(page, f"{app_url}/class?code={made.code}", 60_000)
        page.get_by_label("Your name, as the teacher will see it (a pseudonym is fine)").fill("Ann")
        click_button(page, "Join")
        link = page.get_by_role("link", name="Open the exercise")
        link.wait_for()
        open_page(page, link.get_attribute("href"), 60_000)
        hand_in_practice(page, WRONG)
        wrong = settled(lambda: next(iter(room.work_of(store, info).values()), None),
                        lambda w: w and w["rows"]["b"]["verdict"] == "wrong", timeout=60)
        hand_in_practice(page, RIGHT)
        right = settled(lambda: next(iter(room.work_of(store, info).values()), None),
                        lambda w: w and w["rows"]["b"]["verdict"] in ("exact", "close"), timeout=60)
        assert wrong["v"] > YEAR_2040_US and right["v"] > wrong["v"], (wrong["v"], right["v"])
    finally:
        context.close()
