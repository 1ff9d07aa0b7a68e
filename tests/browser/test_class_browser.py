"""A lesson end to end in a real headless Chromium: a teacher and three learners, each in a browser context of their
own (their own cookies: their own learner keys). The teacher opens a class and posts a practice exercise; the
learners join with names, open it from the class's page and type answers (right, wrong, nothing); the teacher's
dashboard counts them as they were handed in, per tensor. Then a Playground challenge: the page of a learner still on
the class's page shows it without a reload; a learner trains and hands in a run, and the leaderboard lists it. A
learner who opens the teacher's dashboard without the key is refused."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from .helpers import click_button, hand_in_practice, install_run_tracker, open_page, settled, wait_for_idle

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PROGRAM = "b = tensor([1.0, 2.0])\nloss = (b * b).sum()"
RIGHT = "dloss = ones(loss.shape)\ndt1 = dloss * ones(t1.shape)\ndb = 2 * dt1 * b"
WRONG = "dloss = ones(loss.shape)\ndt1 = dloss * ones(t1.shape)\ndb = dt1 * b"


def _context(browser, contexts):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    install_run_tracker(context)
    contexts.append(context)
    return context.new_page()


def _tensors(page) -> dict:
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('[data-testid="class-tensor"]')]
        .map((r) => [r.dataset.name, {exact: +r.dataset.exact, close: +r.dataset.close, wrong: +r.dataset.wrong,
                                      pending: +r.dataset.pending}]))""")


def _learners(page) -> int:
    found = page.locator('[data-testid="class-dashboard"]')
    return int(found.get_attribute("data-learners")) if found.count() else -1




def test_a_teacher_and_three_learners_run_a_practice_exercise_and_a_challenge(browser, app_url, artifacts):
    contexts = []
    try:
        teacher = _context(browser, contexts)
        open_page(teacher, f"{app_url}/class", 60_000)
        teacher.get_by_label("The class's name").fill("Week 3")
        click_button(teacher, "Open the class")
        query = settled(lambda: parse_qs(urlsplit(teacher.url).query), lambda q: "key" in q, timeout=30)
        code, key = query["code"][0], query["key"][0]
        teacher.get_by_role("textbox", name="Program").fill(PROGRAM)
        teacher.get_by_role("textbox", name="Program").press("Control+Enter")
        wait_for_idle(teacher, 60_000)
        click_button(teacher, "Post")

        answers = {"Ann": RIGHT, "Bob": WRONG, "Cy": None}
        for name, typed in answers.items():
            page = _context(browser, contexts)
            open_page(page, f"{app_url}/class?code={code}", 60_000)
            page.get_by_label("Your name, as the teacher will see it (a pseudonym is fine)").fill(name)
            click_button(page, "Join")
            link = page.get_by_role("link", name="Open the exercise")
            link.wait_for()
            if typed is None:
                continue
            open_page(page, link.get_attribute("href"), 60_000)
            hand_in_practice(page, typed)
            page.get_by_text("Handed in to").first.wait_for(timeout=60_000)

        counts = settled(lambda: _tensors(teacher), lambda t: t.get("b", {}).get("pending") == 1, timeout=30)
        assert _learners(teacher) == 3
        assert counts["b"] == {"exact": 1, "close": 0, "wrong": 1, "pending": 1}, counts
        assert counts["t1"]["exact"] + counts["t1"]["close"] == 2, counts
        assert "db = dt1 * b" in teacher.locator('[data-testid="class-dashboard"]').inner_text()
        teacher.screenshot(path=str(artifacts / "class-dashboard.png"), full_page=True)

        # A learner at the teacher's page without the key: refused, no dashboard.
        nosy = contexts[1].pages[0]
        open_page(nosy, f"{app_url}/class?code={code}&key={key[:-1]}x", 60_000)
        nosy.get_by_text("not the teacher's key").wait_for()
        assert _learners(nosy) == -1

        # The challenge: posted, trained in the Playground, handed in from the class's page, on the leaderboard.
        teacher.get_by_text("Post to the class").click()
        teacher.get_by_text("a Playground challenge").click()
        wait_for_idle(teacher, 60_000)
        click_button(teacher, "Post")
        # A post made after a learner joined appears on their page without a reload: Cy's page is still the class's.
        cy = contexts[3].pages[0]
        cy.get_by_role("link", name="Open the challenge in the Playground").wait_for(timeout=30_000)
        assert cy.get_by_role("link", name="Open the exercise").count() == 0
        ann = contexts[1].pages[0]
        open_page(ann, f"{app_url}/class?code={code}", 60_000)
        challenge = ann.get_by_role("link", name="Open the challenge in the Playground")
        challenge.wait_for()
        open_page(ann, challenge.get_attribute("href"), 60_000)
        for _ in range(3):
            click_button(ann, "Step")
        open_page(ann, f"{app_url}/class?code={code}", 60_000)
        click_button(ann, "Hand in my run")
        ann.get_by_text("Handed in.").wait_for()
        runs = settled(lambda: teacher.locator('[data-testid="class-run"]').evaluate_all(
            "(rows) => rows.map((r) => [r.dataset.learner, r.dataset.accuracy])"), lambda r: len(r) == 1, timeout=30)
        assert runs[0][0] == "Ann" and 0 <= float(runs[0][1]) <= 1, runs
        teacher.screenshot(path=str(artifacts / "class-leaderboard.png"), full_page=True)
    finally:
        for context in contexts:
            context.close()
