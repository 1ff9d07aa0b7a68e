"""The Class page through AppTest, against the run store the suite uses (a real SQLite file): a teacher opens a
class and posts, learners join and hand in, the dashboard counts what they handed in; wrong codes and keys get a
message and the page stays usable."""

import re

from explorer.classes import keys, room
from server.run_store import runs
from tests.support.apptest import button, no_exception, open_page

PAGE = "pages/class.py"


def _html(at) -> str:
    return "\n".join(e.proto.body for e in at.get("html"))


def _open_class(name: str = "Week 3"):
    at = open_page(PAGE, learner="teacher-browser")
    at.text_input(key=keys.NAME).set_value(name)
    button(at, "Open the class").click().run()
    no_exception(at)
    code, key = at.query_params["code"], at.query_params["key"]
    assert room.CODE.match(code) and room.KEY.match(key)
    return at, code, key


def test_a_teacher_opens_a_class_and_sees_both_links_once():
    at, code, key = _open_class()
    texts = [c.value for c in at.code]
    assert any(t.endswith(f"/class?code={code}") for t in texts)
    assert any(t.endswith(f"/class?code={code}&key={key}") for t in texts)
    assert "The class is open" in at.success[0].value
    at.run()
    assert not at.success  # the welcome is said once; the links stay in the page


def test_learners_join_and_hand_in_and_the_dashboard_counts_them():
    at, code, key = _open_class()
    at.radio(key=keys.POST_KIND).set_value("practice")
    at.text_area(key=keys.POST_PROGRAM).set_value("b = tensor([1.0, 2.0])\nloss = (b * b).sum()")
    button(at, "Post").click().run()
    no_exception(at)
    names = ("Ann", "Bob", "Cy")
    for i, name in enumerate(names):
        learner = open_page(PAGE, {"code": code}, learner=f"browser-{i}")
        assert "Nothing posted" not in str(learner.info)
        learner.text_input(key=keys.JOIN_NAME).set_value(name)
        button(learner, "Join").click().run()
        no_exception(learner)
        assert f"You are **{name}**" in learner.caption[-1].value or any(name in c.value for c in learner.caption)
        assert learner.get("link_button")[0].proto.url.endswith(f"class={code}")
    info = room.find(runs(), code, who="t")
    room.hand_in(runs(), info, "browser-0", {"rows": {"loss": {"verdict": "exact"}, "b": {"verdict": "exact"}}})
    room.hand_in(runs(), info, "browser-1", {"rows": {"loss": {"verdict": "exact"},
                                                      "b": {"verdict": "wrong", "answer": "db = dloss * b"}}})
    at.run()
    board = _html(at)
    assert 'data-testid="class-dashboard" data-learners="3"' in board
    row = re.search(r'data-name="b" data-exact="(\d+)" data-close="\d+" data-wrong="(\d+)" data-pending="(\d+)"', board)
    assert row.groups() == ("1", "1", "1")
    assert "db = dloss * b" in board and "Bob" in board  # the shared wrong answer, and who is stuck on it


def test_wrong_codes_keys_and_names_get_a_message_and_the_page_stays():
    at, code, key = _open_class()
    stranger = open_page(PAGE, {"code": room.new_code()}, learner="stranger")
    assert "no class has this code" in stranger.error[0].value
    guess = open_page(PAGE, {"code": code, "key": room.new_key()}, learner="guesser")
    assert "not the teacher's key" in guess.error[0].value
    assert "class-dashboard" not in _html(guess)
    one = open_page(PAGE, {"code": code}, learner="x1")
    one.text_input(key=keys.JOIN_NAME).set_value("Dee")
    button(one, "Join").click().run()
    two = open_page(PAGE, {"code": code}, learner="x2")
    two.text_input(key=keys.JOIN_NAME).set_value("dee")
    button(two, "Join").click().run()
    assert "already called" in two.error[0].value
    assert two.text_input(key=keys.JOIN_NAME).value == "dee"  # kept, to change
    no_exception(two)


def test_the_practice_page_opened_from_a_class_hands_each_check_in():
    at, code, key = _open_class()
    program = "b = tensor([1.0, 2.0])\nloss = (b * b).sum()"
    at.radio(key=keys.POST_KIND).set_value("practice")
    at.text_area(key=keys.POST_PROGRAM).set_value(program)
    button(at, "Post").click().run()
    outsider = open_page("pages/practice.py", {"program": program, "class": code}, learner="not-joined")
    assert any("Join the class" in i.value for i in outsider.info)
    learner = open_page(PAGE, {"code": code}, learner="ann-browser")
    learner.text_input(key=keys.JOIN_NAME).set_value("Ann")
    button(learner, "Join").click().run()
    link = learner.get("link_button")[0].proto.url
    assert "/practice?" in link and f"class={code}" in link
    practice = open_page("pages/practice.py", {"program": program, "class": code,
                                               "answers": "dloss = ones(loss.shape)\ndt1 = dloss * ones(t1.shape)\n"
                                                          "db = dt1 * b"}, learner="ann-browser")
    no_exception(practice)
    assert any("Handed in to **Week 3** as Ann" in c.value for c in practice.caption)
    work = room.work_of(runs(), room.find(runs(), code, who="t"))["ann-browser"]
    assert work["rows"]["b"]["verdict"] == "wrong" and work["rows"]["b"]["answer"] == "db = dt1 * b"
    assert work["rows"]["t1"]["verdict"] == "exact" and work["solved"] == 2
    at.run()
    board = _html(at)
    assert 'data-name="b" data-exact="0" data-close="0" data-wrong="1" data-pending="0"' in board
    assert "Ann" in board


def test_a_learners_page_follows_the_teachers_posts():
    """A learner who joined before anything was posted is told it appears there (not to reload); the page keeps when
    the post it shows was posted, which its fragment compares with the class's post every few seconds (AppTest runs
    the fragment once per run: the browser test watches it fire); each new post is shown on the next run."""
    at, code, key = _open_class()
    learner = open_page(PAGE, {"code": code}, learner="early-bird")
    learner.text_input(key=keys.JOIN_NAME).set_value("Eve")
    button(learner, "Join").click().run()
    no_exception(learner)
    assert any("appears here as soon as" in i.value for i in learner.info)
    assert not any("reload" in i.value for i in learner.info)
    assert learner.session_state[keys.SEEN_POST] is None
    at.radio(key=keys.POST_KIND).set_value("program")
    at.text_input(key=keys.POST_TITLE).set_value("Look at this")
    at.text_area(key=keys.POST_PROGRAM).set_value("x = tensor([1.0])\ny = (x * x).sum()")
    button(at, "Post").click().run()
    learner.run()
    no_exception(learner)
    info = room.find(runs(), code, who="t")
    assert learner.session_state[keys.SEEN_POST] == room.posted(runs(), info).posted
    assert "Look at this" in "\n".join(m.value for m in learner.markdown)
    assert learner.get("link_button")[0].proto.url.endswith("/?program=x+%3D+tensor%28%5B1.0%5D%29%0Ay+%3D+%28x+%2A"
                                                            "+x%29.sum%28%29")
