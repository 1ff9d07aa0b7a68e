"""What the Class page shows, without Streamlit: the links of a class, a challenge's run figures from a Playground,
and the dashboard as HTML with the hooks tests read."""

from __future__ import annotations

import html
from urllib.parse import urlencode

from explorer import numbers
from explorer.classes.dashboard import Dashboard
from language.answers import lines_of

PARAMS = ("code", "key")  # what the page reads from its link

# NOTE: the dashboard's table is the page's own HTML (st.html), so it follows the theme through currentColor and
# translucent greys rather than fixed colours; the share bar shows right / wrong / pending at a glance.
_CSS = """<style>
.class-board table { border-collapse: collapse; width: 100%; font-size: 0.95rem; }
.class-board th, .class-board td { text-align: left; padding: 0.3rem 0.6rem;
  border-bottom: 1px solid rgba(128, 128, 128, 0.25); vertical-align: top; }
.class-board th { font-weight: 600; opacity: 0.8; }
.class-board .share { display: flex; width: 8rem; height: 0.7rem; border-radius: 0.2rem; overflow: hidden;
  background: rgba(128, 128, 128, 0.2); margin-top: 0.35rem; }
.class-board .share .right { background: #2e9d5b; } .class-board .share .wrong { background: #d3454f; }
.class-board ul.class-learners { columns: 3 14rem; padding-left: 1.1rem; }
.class-board li[data-active="0"] { opacity: 0.55; }
</style>"""


def class_link(base: str, code: str, key: str | None = None) -> str:
    """The learners' link (``?code=``) or, with ``key``, the teacher's."""
    query = {"code": code} | ({"key": key} if key else {})
    return f"{base.rstrip('/')}/class?{urlencode(query)}"


def post_link(base: str, post, code: str) -> str:
    """Where a learner goes for what the teacher posted: the Practice page with the exercise (and the class's code:
    it hands each check in), the Playground with the challenge's settings (its run is handed in from the class's
    page), or the Explorer with the program."""
    if post.kind == "practice":
        return f"{base.rstrip('/')}/practice?{urlencode({'program': post.program, 'class': code})}"
    if post.kind == "challenge":
        return f"{base.rstrip('/')}/playground?{urlencode(post.settings)}"
    return f"{base.rstrip('/')}/?{urlencode({'program': post.program})}"


def practice_work(page: dict, answers_text: str, hints: dict[str, int]) -> dict:
    """What a learner hands in from the Practice page's check (explorer.practice.page_data.practice_page): per
    tensor its verdict, max difference, the answer as typed (for the teacher's grouping of wrong answers) and the
    hints used."""
    rows = {}
    for row in page.get("rows", []):
        name = row["name"]
        rows[name] = {"verdict": row["verdict"], "maxdiff": row.get("maxdiff") or None,
                      "answer": "\n".join(lines_of(answers_text or "", "d" + name))[:2000],
                      "hints": int(hints.get(name, 0)), "shown": bool(row.get("shown"))}
    return {"rows": rows, "solved": page.get("solved", 0), "total": page.get("total", 0)}


def run_figures(state) -> dict:
    """A Playground run's state (explorer/playground/training.TrainState) as a challenge counts it: test accuracy,
    parameters, steps and the test loss curve."""
    history = state.history
    accuracy = history.test_acc[-1] if history.test_acc else None
    curve = [float(x) for x in history.test_loss if x is not None][-500:]
    return {
        "test_accuracy": None if accuracy is None else float(accuracy),
        "parameters": int(sum(p.data.size for p in state.model.parameters())),
        "steps": int(state.step),
        "curve": curve,
        "dataset": state.config.dataset,
    }


def dashboard_html(board: Dashboard) -> str:
    """The per-tensor table: each tensor's counts, the wrong answers most share and who is stuck there."""
    rows = []
    for row in board.tensors:
        c = row.counts
        wrong = "; ".join(f"<code>{html.escape(w.text)}</code> ×{w.learners}" for w in row.wrong)
        stuck = ", ".join(html.escape(name) for name in row.stuck)
        rows.append(
            f'<tr data-testid="class-tensor" data-name="{html.escape(row.name)}" data-exact="{c["exact"]}" '
            f'data-close="{c["close"]}" data-wrong="{c["wrong"] + c["shape"] + c["error"]}" '
            f'data-pending="{c["pending"]}"><td><code>d{html.escape(row.name)}</code></td>'
            f'<td>{_share(c)}</td><td>{c["exact"] + c["close"]}</td><td>{c["wrong"] + c["shape"] + c["error"]}</td>'
            f'<td>{c["pending"]}</td><td>{row.hints}</td><td>{wrong}</td><td>{stuck}</td></tr>'
        )
    people = "".join(
        f'<li data-active="{int(one.active)}">{html.escape(one.name)} · {one.solved}/{one.total}'
        f'{" · " + str(one.hints) + " hints" if one.hints else ""}{"" if one.active else " · away"}</li>'
        for one in board.learners)
    table = ("<table><thead><tr><th>tensor</th><th></th><th>right</th><th>wrong</th><th>pending</th><th>hints</th>"
             "<th>most shared wrong answers</th><th>stuck here</th></tr></thead><tbody>" + "".join(rows)
             + "</tbody></table>") if rows else "<p>No practice answers yet.</p>"
    return (f'{_CSS}<div class="class-board" data-testid="class-dashboard" data-learners="{len(board.learners)}" '
            f'data-active="{board.active}"><p>{len(board.learners)} joined, {board.active} active</p>'
            f'<ul class="class-learners">{people}</ul>{table}</div>')


def _share(counts: dict) -> str:
    total = sum(counts.values()) or 1
    right, wrong = counts["exact"] + counts["close"], counts["wrong"] + counts["shape"] + counts["error"]
    return (f'<div class="share" title="{right} right, {wrong} wrong, {counts["pending"]} pending">'
            f'<span class="right" style="width:{100 * right / total:.1f}%"></span>'
            f'<span class="wrong" style="width:{100 * wrong / total:.1f}%"></span></div>')


def leaderboard_html(board: Dashboard) -> str:
    """The challenge's runs, best first (test accuracy, then fewest parameters, then fewest steps)."""
    if not board.leaderboard:
        return ""
    rows = "".join(
        f'<tr data-testid="class-run" data-learner="{html.escape(r.name)}" '
        f'data-accuracy="{"" if r.test_accuracy is None else r.test_accuracy}">'
        f"<td>{i}</td><td>{html.escape(r.name)}</td>"
        f'<td>{"–" if r.test_accuracy is None else numbers.fmt_percent(r.test_accuracy)}</td>'
        f'<td>{"–" if r.parameters is None else r.parameters}</td><td>{"–" if r.steps is None else r.steps}</td></tr>'
        for i, r in enumerate(board.leaderboard, 1))
    return ('<div class="class-board" data-testid="class-leaderboard"><p><strong>Leaderboard</strong></p>'
            "<table><thead><tr><th>#</th><th>learner</th><th>test accuracy</th><th>parameters</th><th>steps</th>"
            "</tr></thead><tbody>"
            f"{rows}</tbody></table></div>")


def curves_figure(board: Dashboard, dark: bool = False, only: str | None = None) -> dict:
    """The class's test-loss curves on one plot (or one learner's, for the big screen), as a Plotly figure dict."""
    lines = [{"type": "scatter", "mode": "lines", "name": r.name, "y": list(r.curve)}
             for r in board.leaderboard if r.curve and (only is None or r.name == only)]
    return {"data": lines, "layout": {"height": 320 if only is None else 520, "margin": {"l": 40, "r": 10, "t": 30,
            "b": 30}, "yaxis": {"title": "test loss", "type": "log"}, "xaxis": {"title": "snapshot"},
            "template": "plotly_dark" if dark else "plotly_white", "title": only or "the class's test loss"}}
