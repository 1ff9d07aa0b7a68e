"""The Playground's live view paints at display rate from batches of frames (issue 36), in a real headless
Chromium: every painted picture is a real training step's weights, in step order (its data-sum against the
same run trained here), Pause lands on the step on screen (the model is at that step: Step goes on from it),
and a fast speed trains several steps per picture. Rates are measured by benchmarks/live_view.py, not here."""

from __future__ import annotations

import pytest

from explorer.playground.settings import TrainConfig
from tests.support.live_frames import Run

from .helpers import live_step, open_page

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LV = '[data-testid="live-view"]'

# Every paint of the live view (a new data-frame): the step it shows and the checksum of its weights.
AT_CLICK_JS = ("(lv) => { window.__atClick = null; document.addEventListener('click', () => {"
               " if (window.__atClick === null) window.__atClick = Number(lv.dataset.step); }, true); }")
PAINTS_JS = """(lv) => {
  const s = window.__paints = [];
  new MutationObserver(() => s.push([Number(lv.dataset.step), lv.dataset.sum, Number(lv.dataset.every)]))
    .observe(lv, {attributes: true, attributeFilter: ['data-frame']});
}"""


def _distinct(paints: list) -> list:
    """The paints with a repaint of the step just painted left out (the paused frame, drawn again)."""
    return [p for i, p in enumerate(paints) if i == 0 or p[0] != paints[i - 1][0]]


def _open(page, app_url, query: str = ""):
    open_page(page, f"{app_url}/playground{query}")
    page.locator(f'{LV}[data-frame]:not([data-frame="0"])').wait_for(timeout=60_000)


def _play_until(page, paints: int) -> None:
    page.get_by_role("button", name="Play", exact=True).click()
    page.get_by_role("button", name="Pause", exact=True).wait_for()
    page.wait_for_function(f"() => window.__paints.length >= {paints}", timeout=90_000)


def _pause(page) -> None:
    page.get_by_role("button", name="Pause", exact=True).click()
    page.get_by_role("button", name="Play", exact=True).wait_for()
    page.locator(f'{LV}[data-playing="0"]').wait_for()


def test_painted_frames_are_real_steps_in_order_and_pause_lands_on_the_one_on_screen(page, app_url):
    _open(page, app_url)
    page.locator(LV).evaluate(PAINTS_JS)
    _play_until(page, 40)
    page.locator(LV).evaluate(AT_CLICK_JS)
    _pause(page)
    page.wait_for_function("(lv) => lv.dataset.holding !== '1'", arg=page.locator(LV).element_handle())
    paints = _distinct(page.evaluate("() => window.__paints"))
    run = Run()
    steps = [step for step, _, _ in paints]
    assert steps == sorted(set(steps)), f"painted out of order or twice: {steps[:60]}"
    assert steps[-1] - steps[0] + 1 >= len(steps) and all(every == 1 for _, _, every in paints)
    wrong = [(step, got) for step, got, _ in paints if got != run.sum_at(step)]
    assert wrong == [], f"pictures whose weights are not the run's at their step: {wrong[:5]}"
    # Paused on the step on screen: the model is there (the server took it back from the frames ahead of it),
    # so Step trains the step after it, with the weights a run that never went further has.
    lv = page.locator(LV)
    on_screen = live_step(page)
    assert on_screen == page.evaluate("() => window.__atClick")
    assert lv.get_attribute("data-sum") == run.sum_at(on_screen)
    page.get_by_role("button", name="Step", exact=True).click()
    page.wait_for_function(f"(lv) => lv.dataset.step === '{on_screen + 1}'", arg=lv.element_handle(),
                           timeout=30_000)
    assert lv.get_attribute("data-sum") == run.sum_at(on_screen + 1)
    assert page.locator('[data-stat="step"]').get_attribute("data-value") == f"{on_screen + 1:,}"


def test_a_fast_speed_trains_several_steps_per_picture_and_shows_both_rates(page, app_url):
    _open(page, app_url, "?speed=1000")
    page.locator(LV).evaluate(PAINTS_JS)
    _play_until(page, 60)
    tiles = {name: page.locator(f'[data-stat="{name}"]').get_attribute("data-value") for name in ("rate", "pictures")}
    _pause(page)
    paints = _distinct(page.evaluate("() => window.__paints"))[1:]  # the first: step 0, painted again at Play
    every = {e for _, _, e in paints}
    assert every == {17}, every
    steps = [step for step, _, _ in paints]
    assert all(b > a for a, b in zip(steps, steps[1:])) and all(s % 17 == 0 for s in steps), steps[:40]
    run = Run(TrainConfig(speed=1000))
    assert [got for step, got, _ in paints[-5:]] == [run.sum_at(step) for step, _, _ in paints[-5:]]
    assert tiles["rate"] not in (None, "—") and tiles["pictures"] not in (None, "—"), tiles
    # Paused, the picture is still a real step's and the model is at it.
    on_screen = live_step(page)
    assert page.locator(LV).get_attribute("data-sum") == run.sum_at(on_screen)


def test_pause_holds_the_picture_of_the_click(page, app_url):
    """No step is painted after Pause is pressed (the view stops at the click, and then shows the step the run
    went back to: the same one)."""
    _open(page, app_url, "?speed=50")
    page.locator(LV).evaluate(PAINTS_JS)
    _play_until(page, 30)
    page.locator(LV).evaluate(AT_CLICK_JS)
    _pause(page)
    page.wait_for_function("(lv) => lv.dataset.holding !== '1'", arg=page.locator(LV).element_handle())
    at_click = page.evaluate("() => window.__atClick")
    assert live_step(page) == at_click, "the step on screen when Pause was pressed is the one it stays on"


def test_while_playing_the_only_reruns_are_the_live_fragments_ticks(page, app_url):
    """The server's cost of a playing page is its ticks: every rerun the page asks for while playing is the live
    fragment's timed one (no other timer: the store's words, for one, follow from the ticks), and each brings frames."""
    import base64

    from streamlit.proto.BackMsg_pb2 import BackMsg

    _open(page, app_url)
    page.locator(LV).evaluate(PAINTS_JS)
    _play_until(page, 10)
    sent = []
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.on("Network.webSocketFrameSent", lambda e: sent.append(base64.b64decode(e["response"]["payloadData"])))
    page.wait_for_function("() => window.__paints.length >= 135", timeout=90_000)  # 5 s of steps at 25 steps/s
    reruns = []
    for raw in list(sent):
        msg = BackMsg()
        msg.ParseFromString(raw)
        if msg.WhichOneof("type") == "rerun_script":
            reruns.append((msg.rerun_script.fragment_id, msg.rerun_script.is_auto_rerun))
    _pause(page)
    assert len(reruns) >= 3, reruns
    assert len({fragment for fragment, _ in reruns}) == 1, reruns
    assert all(fragment and auto for fragment, auto in reruns), reruns
