"""Predict on the Stepper, in a real browser: Next holds at a step until its prediction is checked (or skipped); a
right and a wrong prediction get their verdicts from Practice's rule; the step plays after; the score counts them;
the URL keeps Predict on."""

from __future__ import annotations

from urllib.parse import parse_qs, quote, urlsplit

import pytest

from explorer.program import presets

from .helpers import GRAPH, PANEL, view_state, wait_for_idle, wait_for_view

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PROGRAM = presets.program("broadcasting bias")  # loss = mean(y), y = t2 ** 2, t2 = X + bias: three steps
PREDICT = '[data-testid="predict"]'


def open_predicting(page, app_url):
    page.goto(f"{app_url}/stepper?program={quote(PROGRAM)}&predict=on", wait_until="domcontentloaded")
    wait_for_view(page, steps=3, predict="on")
    wait_for_idle(page)


def held(page, k: int):
    """The question for step k is up, and the view still shows step k − 1."""
    page.wait_for_selector(f'{PANEL} {PREDICT}[data-step="{k}"][data-verdict="pending"]')
    assert view_state(page)["step"] == str(k - 1), "the view holds before the step"
    assert view_state(page)["holding"] == str(k)


def predict(page, *texts):
    inputs = page.locator(f"{PANEL} {PREDICT} input.gv-predict-input")
    assert inputs.count() == len(texts)
    for i, text in enumerate(texts):
        inputs.nth(i).fill(text)
    inputs.nth(len(texts) - 1).press("Enter")


def verdict_of(page, k: int, verdict: str):
    wait_for_view(page, step=k)
    box = page.locator(f'{PANEL} {PREDICT}[data-step="{k}"]')
    assert box.get_attribute("data-verdict") == verdict, box.inner_text()
    return box


def test_predict_holds_the_step_until_it_is_checked_and_says_right_and_wrong(page, app_url, artifacts):
    open_predicting(page, app_url)
    assert page.get_by_role("switch", name="Predict").is_checked() or page.get_by_label("Predict").is_checked()
    page.keyboard.press("ArrowRight")
    held(page, 1)
    page.keyboard.press("ArrowRight")  # → again: still held (the question keeps its place)
    held(page, 1)
    page.screenshot(path=str(artifacts / "predict-held.png"))
    predict(page, "ones(y.shape) / 12")  # right: mean's VJP over 12 elements
    box = verdict_of(page, 1, "exact")
    assert box.locator('[data-testid="predict-row"][data-parent="y"]').get_attribute("data-verdict") == "exact"
    score = page.locator(f'{PANEL} [data-testid="predict-score"]')
    assert (score.get_attribute("data-right"), score.get_attribute("data-of")) == ("1", "1")

    page.locator(f"{GRAPH} button.gv-next").click()  # the Next button holds too
    held(page, 2)
    predict(page, "G +")  # cannot be read: the hold stays, with the language's words
    page.wait_for_selector(f'{PANEL} {PREDICT}[data-step="2"][data-verdict="error"]')
    assert view_state(page)["step"] == "1"
    assert "t2" in page.locator(f"{PANEL} {PREDICT} .gv-predict-note").inner_text()
    predict(page, "t2 * G")  # wrong: the 2 of d(t2²) forgotten
    box = verdict_of(page, 2, "wrong")
    assert "max difference" in box.inner_text()
    score = page.locator(f'{PANEL} [data-testid="predict-score"]')
    assert (score.get_attribute("data-right"), score.get_attribute("data-of")) == ("1", "2")
    assert "Step 2 of 3" in page.locator(PANEL).inner_text(), "the step played after its verdict"

    page.keyboard.press("ArrowRight")
    held(page, 3)
    predict(page, "G", "G")  # the bias was broadcast: what it receives is summed over the batch axis
    box = verdict_of(page, 3, "shape")
    rows = box.locator('[data-testid="predict-row"]')
    assert [rows.nth(i).get_attribute("data-verdict") for i in range(rows.count())] == ["exact", "shape"]
    assert "over the batch axis" in box.inner_text()
    page.screenshot(path=str(artifacts / "predict-verdict.png"))
    query = parse_qs(urlsplit(page.url).query)
    assert query.get("predict") == ["on"], page.url

    # back and forward again: a checked step plays at once
    page.keyboard.press("ArrowLeft")
    wait_for_view(page, step=2)
    page.keyboard.press("ArrowRight")
    verdict_of(page, 3, "shape")


def test_skip_plays_the_step_and_predict_off_never_holds(page, app_url):
    open_predicting(page, app_url)
    page.keyboard.press("ArrowRight")
    held(page, 1)
    page.locator(f"{PANEL} {PREDICT} button.gv-predict-skip").click()
    wait_for_view(page, step=1, holding="")
    page.locator(".st-key-predict_on label").first.click()  # the switch off
    wait_for_view(page, predict="off")
    page.evaluate("() => document.activeElement.blur()")  # the switch has the focus: its keys are its own
    page.keyboard.press("ArrowRight")
    wait_for_view(page, step=2)
    assert page.locator(f"{PANEL} {PREDICT}").count() == 0
    assert "predict" not in parse_qs(urlsplit(page.url).query)
