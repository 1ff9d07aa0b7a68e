"""The teacher's dashboard from the learners' records: counts per tensor, the wrong answers shared, who is stuck
where, and the challenge's leaderboard."""

from explorer.classes.dashboard import dashboard, normalised
from explorer.classes.room import Learner


def _people(*names, seen=100.0):
    return [Learner(name.lower(), name, joined=float(i), seen=seen) for i, name in enumerate(names)]


def _row(verdict, answer="", hints=0, numbers=None):
    row = {"verdict": verdict, "answer": answer, "hints": hints}
    return row | ({"numbers": numbers} if numbers else {})


def test_every_learner_is_counted_on_every_tensor_and_silence_is_pending():
    people = _people("Ann", "Bob", "Cy")
    work = {
        "ann": {"rows": {"dloss": _row("exact"), "db": _row("exact"), "dW": _row("close")}},
        "bob": {"rows": {"dloss": _row("exact"), "db": _row("wrong", "db = dlogits", hints=2)}},
    }
    board = dashboard(people, work, {}, now=110.0, names=["dloss", "db", "dW"])
    counts = {row.name: row.counts for row in board.tensors}
    assert counts["dloss"] == {"exact": 2, "close": 0, "wrong": 0, "shape": 0, "error": 0, "pending": 1}
    assert counts["db"]["exact"] == 1 and counts["db"]["wrong"] == 1 and counts["db"]["pending"] == 1
    assert counts["dW"]["close"] == 1 and counts["dW"]["pending"] == 2
    assert [(r.name, r.solved, r.total, r.hints) for r in board.learners] == [
        ("Ann", 3, 3, 0), ("Bob", 1, 3, 2), ("Cy", 0, 3, 0)]
    stuck = {row.name: row.stuck for row in board.tensors}
    assert stuck == {"dloss": ("Cy",), "db": ("Bob",), "dW": ()}
    assert {row.name: row.hints for row in board.tensors}["db"] == 2


def test_wrong_answers_are_grouped_by_text_without_spaces_or_by_their_numbers():
    people = _people("A", "B", "C", "D")
    work = {
        "a": {"rows": {"db": _row("wrong", "db = dlogits")}},
        "b": {"rows": {"db": _row("wrong", "db=dlogits")}},
        "c": {"rows": {"db": _row("wrong", "db = dlogits * 1", numbers="n1")}},
        "d": {"rows": {"db": _row("shape", "db = dlogits + 0", numbers="n1")}},
    }
    (row,) = dashboard(people, work, {}, now=0.0).tensors
    assert [(w.text, w.learners) for w in row.wrong] == [("db = dlogits", 2), ("db = dlogits * 1", 2)]
    assert normalised(" d W = X.T @ dZ ") == "dW=X.T@dZ"


def test_active_is_seen_in_the_last_minute():
    people = [Learner("a", "A", 0.0, seen=100.0), Learner("b", "B", 0.0, seen=30.0)]
    board = dashboard(people, {}, {}, now=120.0)
    assert [r.active for r in board.learners] == [True, False] and board.active == 1


def test_the_leaderboard_ranks_accuracy_then_fewest_parameters_then_steps():
    people = _people("A", "B", "C", "D")
    runs = {
        "a": {"test_accuracy": 0.95, "parameters": 300, "steps": 900, "curve": [0.7, 0.3]},
        "b": {"test_accuracy": 0.95, "parameters": 120, "steps": 2000, "curve": [0.7, 0.4]},
        "c": {"test_accuracy": 0.97, "parameters": 900, "steps": 100},
        "d": {"test_accuracy": "nan?", "parameters": None},
    }
    board = dashboard(people, {}, runs, now=0.0)
    assert [r.name for r in board.leaderboard] == ["C", "B", "A", "D"]
    assert board.leaderboard[1].curve == (0.7, 0.4) and board.leaderboard[3].test_accuracy is None
