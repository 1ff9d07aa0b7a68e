"""The teacher's dashboard, from what the class's learners handed in: per tensor how many are right, wrong or
pending, the wrong answers most learners share, who is stuck where; for a challenge, the leaderboard and curves.

Pure functions of the records (explorer/classes/room.py reads them): a learner's answers are never shown here, only
counted and grouped, and who is stuck is said by name.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from explorer.classes.room import Learner

VERDICTS = ("exact", "close", "wrong", "shape", "error", "pending")
SOLVED = ("exact", "close")
ACTIVE_SECONDS = 60.0  # a learner seen this recently is active
COMMON_WRONG = 3  # wrong answers shown per tensor, most shared first
#: The dashboard reads the class this often: with a read (~15-30 ms) and the page's delivery, at most 2 s stale (at
#: 2.0 s the class benchmark measured 2.07 s at most with 200 learners, 2.36 s in Chromium with 30).
REFRESH_SECONDS = 1.5


@dataclass(frozen=True)
class WrongAnswer:
    text: str  # one learner's text of it, as typed (the teacher sees it only in this grouped form)
    learners: int


@dataclass(frozen=True)
class TensorRow:
    name: str
    counts: dict[str, int]  # verdict -> learners (every learner of the class: those who typed nothing are pending)
    stuck: tuple[str, ...]  # the names of the learners whose first unsolved line this is
    wrong: tuple[WrongAnswer, ...]
    hints: int  # hints asked on this line, over the class


@dataclass(frozen=True)
class LearnerRow:
    name: str
    active: bool
    solved: int
    total: int
    hints: int


@dataclass(frozen=True)
class RunRow:
    name: str
    test_accuracy: float | None
    parameters: int | None
    steps: int | None
    curve: tuple[float, ...]


@dataclass(frozen=True)
class Dashboard:
    learners: tuple[LearnerRow, ...]
    tensors: tuple[TensorRow, ...]
    leaderboard: tuple[RunRow, ...]

    @property
    def active(self) -> int:
        return sum(one.active for one in self.learners)


def normalised(text: str) -> str:
    """An answer's text with its spacing removed: `dW = X.T@dZ` and `dW = X.T @ dZ` are one answer."""
    return "".join(str(text).split())


def _rows(work: dict | None) -> dict[str, dict]:
    rows = (work or {}).get("rows") or {}
    return {str(name): row for name, row in rows.items() if isinstance(row, dict)}


def dashboard(people: list[Learner], work: dict[str, dict], runs: dict[str, dict], now: float,
              names: list[str] | None = None) -> Dashboard:
    """The dashboard of a class: ``people`` who joined, their practice ``work`` and challenge ``runs`` (by learner, as
    room.work_of gives them), at ``now``. ``names``: the exercise's tensors in backward order (else the order the
    learners' rows give)."""
    order = list(names or [])
    for one in people:
        for name in _rows(work.get(one.learner)):
            if name not in order:
                order.append(name)
    counts = {name: Counter() for name in order}
    stuck = {name: [] for name in order}
    wrong = {name: {} for name in order}
    hints = Counter()
    learner_rows = []
    for one in people:
        rows = _rows(work.get(one.learner))
        solved, first_open = 0, None
        for name in order:
            row = rows.get(name, {})
            verdict = row.get("verdict") if row.get("verdict") in VERDICTS else "pending"
            counts[name][verdict] += 1
            hints[name] += int(row.get("hints") or 0)
            if verdict in SOLVED:
                solved += 1
            elif first_open is None:
                first_open = name
            if verdict in ("wrong", "shape") and row.get("answer"):
                key = row.get("numbers") or normalised(row["answer"])  # the same numbers, or the same text
                seen = wrong[name].setdefault(key, [row["answer"], 0])
                seen[1] += 1
        if first_open is not None:
            stuck[first_open].append(one.name)
        learner_rows.append(LearnerRow(one.name, now - one.seen <= ACTIVE_SECONDS, solved, len(order),
                                       sum(int(r.get("hints") or 0) for r in rows.values())))
    tensors = tuple(
        TensorRow(name, {v: counts[name][v] for v in VERDICTS}, tuple(stuck[name]),
                  tuple(WrongAnswer(text, n) for text, n in sorted(wrong[name].values(), key=lambda tn: -tn[1])
                        [:COMMON_WRONG]),
                  hints[name])
        for name in order
    )
    return Dashboard(tuple(learner_rows), tensors, leaderboard(people, runs))


def _number(value, kind):
    try:
        return None if value is None else kind(value)
    except (TypeError, ValueError):
        return None


def leaderboard(people: list[Learner], runs: dict[str, dict]) -> tuple[RunRow, ...]:
    """The challenge's runs, best first: highest test accuracy, then fewest parameters, then fewest steps."""
    rows = []
    for one in people:
        run = runs.get(one.learner)
        if not run:
            continue
        curve = tuple(float(x) for x in (run.get("curve") or [])[:2000] if isinstance(x, int | float))
        rows.append(RunRow(one.name, _number(run.get("test_accuracy"), float), _number(run.get("parameters"), int),
                           _number(run.get("steps"), int), curve))
    big = float("inf")
    return tuple(sorted(rows, key=lambda r: (-(r.test_accuracy if r.test_accuracy is not None else -big),
                                             r.parameters if r.parameters is not None else big,
                                             r.steps if r.steps is not None else big, r.name)))
