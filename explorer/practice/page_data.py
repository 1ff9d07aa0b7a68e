"""What the Practice page shows, as plain data (each function runs in the sandbox, once per program and answers):
the graph view's drawing with a verdict in each box's grad row (the grads themselves are never sent: they are the
answers), the table's rows and summary, the hints, the random re-checks and the exported script."""

from __future__ import annotations

import html
import math

import numpy as np

from explorer import numbers
from explorer.graph import dot as dotmod
from explorer.graph import names as graph_names
from explorer.practice import draws, hints
from explorer.practice.check import Report, check
from explorer.practice.export import script
from explorer.practice.setup import prepare
from explorer.practice.written import output_line, whole_backward
from explorer.program import view_data

#: The box's grad row says the verdict: the same width for every word, so the drawing is laid out once.
MARKS = {"exact": "✓ exact", "close": "✓ close", "wrong": "✗ wrong", "shape": "✗ shape", "error": "✗ error",
         "pending": "· pending"}
PLACEHOLDER = "· pending"


def starting_answers(text: str) -> str:
    """The answers a page starts with: the output's line given, every other line empty."""
    setup = prepare(text)
    return output_line(setup.output, setup.graph.nodes[setup.graph.output].shape)


def drawing(setup) -> dict:
    """The graph view's data for the practice graph: each box's grad row holds its verdict (retexted in place)."""
    graph = setup.graph
    plan = dotmod.plan(graph, max_nodes=view_data.MAX_DRAWN)
    grad_lines = {n.id: [PLACEHOLDER] for n in graph.nodes if n.requires_grad}
    dot = dotmod.to_dot(graph, max_nodes=view_data.MAX_DRAWN, grad_lines=grad_lines)
    boxes = {}
    for b in plan.boxes:
        node = graph.nodes[b]
        boxes[str(b)] = {"title": graph_names.node_heading(node), "kind": node.kind, "op": node.op,
                         "shape": numbers.shape_dtype_text(node.shape, node.dtype), "data": numbers.compact(node.data),
                         "grad": ""}
    return {"key": view_data._key(dot), "dot": dot, "boxes": boxes, "legend": [], "output": graph.output,
            "mode": "reverse"}


def marks(setup, report: Report) -> dict:
    """The graph view's ``values``: each asked box's grad row set to its verdict's mark."""
    by_name = {r.name: r.verdict for r in report.rows}
    plan = dotmod.plan(setup.graph, max_nodes=view_data.MAX_DRAWN)
    out = {}
    for b in plan.boxes:
        node = setup.graph.nodes[b]
        if b in plan.chains or not node.requires_grad:
            continue
        verdict = by_name.get(setup.names[b], "")
        out[str(b)] = {"d": numbers.value_lines(node.data, plan.compact), "g": [MARKS.get(verdict, "·")]}
    return out


def _heatmap(row) -> str:
    """A small grid of a wrong answer's elements: red where it is off, grey where it is right."""
    wrong = row.wrong
    if wrong is None or wrong.ndim > 2 or wrong.size > 400:
        return ""
    grid = wrong.reshape(1, -1) if wrong.ndim < 2 else wrong
    cells = "".join(
        "<tr>" + "".join(f'<td class="pr-{"off" if w else "ok"}"></td>' for w in line) + "</tr>" for line in grid)
    return f'<table class="pr-heat" aria-label="wrong elements in red">{cells}</table>'


def row_dict(setup, row) -> dict:
    return {
        "name": row.name,
        "verdict": row.verdict,
        "mark": MARKS[row.verdict],
        "message": row.message,
        "maxdiff": "" if row.maxdiff is None or math.isnan(row.maxdiff) else f"{row.maxdiff:.3g}",
        "line": row.line,
        "col": row.col,
        "depends_on": list(row.depends_on),
        "shown": row.shown,
        "heatmap": _heatmap(row) if row.verdict == "wrong" else "",
        "shape": numbers.shape_text(tuple(setup.graph.nodes[setup.by_name(row.name).id].shape)),
    }


def practice_page(text: str, answers: str) -> dict:
    """Everything one page run shows: the drawing, the verdicts (rows, summary, graph marks), the asked names."""
    setup = prepare(text)
    report = check(setup, answers)
    first = report.first_bad()
    return {
        "drawing": drawing(setup),
        "marks": marks(setup, report),
        "rows": [row_dict(setup, r) for r in report.rows],
        "solved": report.solved,
        "good": report.good,
        "total": report.total,
        "shown": sum(1 for r in report.rows if r.shown),
        "first_bad": first.name if first else "",
        "problems": list(setup.problems) + list(report.problems),
        "asked": list(setup.asked),
        "output": setup.output,
        "nodes": len(setup.graph.nodes),
    }


def practice_hint(text: str, name: str, step: int) -> str:
    return hints.hint(prepare(text), name, step)


def practice_whole(text: str) -> str:
    return whole_backward(prepare(text))


def practice_redraws(text: str, answers: str) -> dict:
    result = draws.redraw(prepare(text), answers)
    broken = [{"draw": b.draw, "name": b.name, "verdict": b.verdict, "message": b.message,
               "inputs": {k: numbers.compact(np.asarray(v)) for k, v in b.inputs.items()}} for b in result.broken]
    return {"draws": result.draws, "held": list(result.held), "broken": broken, "skipped": result.skipped}


def practice_script(text: str, answers: str) -> str:
    return script(prepare(text), answers)


def table_html(page: dict) -> str:
    """The verdict table with its test hooks: data-testid practice, practice-row (data-name, data-verdict,
    data-maxdiff) and practice-summary (data-solved, data-total)."""
    rows = []
    for r in page["rows"]:
        where = f" (line {r['line']}, col {r['col']})" if r["verdict"] == "error" and r["line"] else ""
        shown = ' <span class="pr-shown">shown</span>' if r["shown"] else ""
        depends = (f' <span class="pr-dep">computed from {", ".join("d" + d for d in r["depends_on"])}</span>'
                   if r["depends_on"] and r["verdict"] not in ("exact", "close") else "")
        message = html.escape(r["message"] + where)
        rows.append(
            f'<tr data-testid="practice-row" data-name="{html.escape(r["name"])}" data-verdict="{r["verdict"]}" '
            f'data-maxdiff="{r["maxdiff"]}" class="pr-{r["verdict"]}">'
            f'<td class="pr-mark">{html.escape(r["mark"])}</td><td><code>d{html.escape(r["name"])}</code>'
            f'<span class="pr-dims"> {html.escape(r["shape"])}</span>{shown}</td>'
            f'<td>{message}{depends}{r["heatmap"]}</td></tr>')
    summary = (f'<p data-testid="practice-summary" data-solved="{page["solved"]}" data-total="{page["total"]}" '
               f'data-shown="{page["shown"]}">Solved without hints: <b>{page["solved"]}</b> of {page["total"]}'
               + (f" · shown by a hint: {page['shown']}" if page["shown"] else "")
               + (f" · first to look at: <code>d{html.escape(page['first_bad'])}</code>" if page["first_bad"] else "")
               + "</p>")
    return (f"<style>{_CSS}</style>{summary}<table data-testid=\"practice\" class=\"pr-table\">"
            "<tr><th></th><th>answer</th><th>verdict</th></tr>" + "".join(rows) + "</table>")


_CSS = """
.pr-table { border-collapse: collapse; width: 100%; font-size: 0.9rem; }
.pr-table td, .pr-table th { padding: 0.2rem 0.4rem; border-bottom: 1px solid rgba(128,128,128,0.25);
  vertical-align: top; text-align: left; }
.pr-mark { white-space: nowrap; }
.pr-exact .pr-mark, .pr-close .pr-mark { color: var(--st-green-text-color, #1a7f37); }
.pr-wrong .pr-mark, .pr-shape .pr-mark, .pr-error .pr-mark { color: var(--st-red-text-color, #c62828); }
.pr-pending .pr-mark { color: rgba(128,128,128,0.9); }
.pr-dims { color: rgba(128,128,128,0.9); font-size: 0.8rem; }
.pr-shown { font-size: 0.75rem; padding: 0 0.3rem; border-radius: 0.3rem; background: rgba(255,170,0,0.25); }
.pr-dep { display: block; font-size: 0.8rem; color: rgba(128,128,128,1); }
.pr-heat { border-collapse: separate; border-spacing: 1px; margin-top: 0.2rem; }
.pr-heat td { width: 8px; height: 8px; padding: 0; border: none; }
.pr-heat td.pr-off { background: #e53935; }
.pr-heat td.pr-ok { background: rgba(128,128,128,0.3); }
"""
