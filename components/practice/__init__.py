"""The Practice page's parts as Streamlit: the exercise box, the answer lines with their buttons and hints, the
verdict table, the random re-checks and the export. Everything they show comes from explorer.practice, evaluated in
the sandbox (components/common/session.py) like every program."""

from __future__ import annotations

import functools
import secrets

import streamlit as st

from components.common import session
from components.graph_view import graph_view
from components.practice.editor import answers_editor
from explorer.practice import exercises, keys, page_data
from explorer.practice import link as practice_link
from explorer.practice.hints import SHOWN_MARK, STEPS
from explorer.words import markdown_safe
from language.answers import replace_line

ss = st.session_state
OWN = "(your own program)"
sandboxed = session.sandboxed


def _load_exercise() -> None:
    name = ss.get(keys.EXERCISE)
    if name in exercises.EXERCISES:
        ss[keys.PROGRAM] = ss[keys.PROGRAM_EDITOR] = exercises.EXERCISES[name].program
        _restart()


def _restart() -> None:
    ss.pop(keys.ANSWERS, None)
    ss.pop(keys.STARTED, None)
    ss.pop(keys.HINTS, None)
    ss.pop(keys.REDRAWS, None)


def _use_program() -> None:
    ss[keys.PROGRAM] = ss.get(keys.PROGRAM_EDITOR, "")
    _restart()


def exercise_picker(program: str) -> None:
    """The exercise box, the sentence of what it teaches, and the program (editable: a teacher's own exercise)."""
    current = exercises.named(program)
    names = [*exercises.EXERCISES, OWN]
    ss[keys.EXERCISE] = current or OWN
    st.selectbox("Exercise", names, key=keys.EXERCISE, on_change=_load_exercise,
                 format_func=lambda k: exercises.EXERCISES[k].title if k in exercises.EXERCISES else k)
    if current:
        st.caption(markdown_safe(exercises.EXERCISES[current].teaches))
    if ss.get(keys.PROGRAM_EDITOR) is None or ss.get(keys.EDITOR_FOR) != program:
        ss[keys.PROGRAM_EDITOR] = program
        ss[keys.EDITOR_FOR] = program
    with st.expander("The program", expanded=current is None):
        st.text_area("Program", key=keys.PROGRAM_EDITOR, height=220, label_visibility="collapsed")
        st.caption("A comment line `# ask: dW1, db1` names the tensors to ask for; the link of the page is "
                   "the exercise.")
        st.button("Practise this program", on_click=_use_program, icon=":material/edit_note:")


def started(program: str, answers: str | None) -> str:
    """The answers of this attempt: the link's or the session's, else the output's line given."""
    if answers is None or ss.get(keys.STARTED) != program:
        if answers is None:
            answers = sandboxed(page_data.starting_answers, program)
        ss[keys.ANSWERS] = answers
        ss[keys.STARTED] = program
        practice_link.write(ss, st.query_params, program, answers)
    return ss[keys.ANSWERS]


def _typed() -> None:
    """The browser's editor sent its text (as the learner typed)."""
    sent = (ss.get(keys.EDITOR) or {}).get("text")
    if isinstance(sent, str):
        ss[keys.ANSWERS] = sent
        ss[keys.TYPED] = True  # newer than the run's link: see explorer/practice/link.sync


def _set_answers(text: str) -> None:
    """The server writes the answers (a hint's, the whole backward): the editor takes them (its version grows)."""
    ss[keys.ANSWERS] = text
    ss[keys.EDITOR_VERSION] = ss.get(keys.EDITOR_VERSION, 0) + 1


def graph(page: dict) -> None:
    """The graph, each box's grad row its verdict; the first box judged wrong in backward order is selected."""
    first = page["first_bad_id"]
    if ss.get(keys.FIRST_BAD) != first:
        ss[keys.FIRST_BAD] = first
        ss[keys.SELECT_SEQ] = ss.get(keys.SELECT_SEQ, 0) + 1
    graph_view(page["drawing"], key=keys.GRAPH, values=page["marks"], selected=first,
               select_seq=ss.get(keys.SELECT_SEQ, 0),
               caption="Each box's grad row: ✓ right, ✗ wrong, · not yet; the first wrong one is selected.")


def _whole(program: str) -> None:
    whole = sandboxed(page_data.practice_whole, program)
    _set_answers("\n".join(line + SHOWN_MARK for line in whole.splitlines()))


def _redraw(program: str) -> None:
    answers = ss.get(keys.ANSWERS, "")
    ss[keys.REDRAWS] = (program, answers, sandboxed(page_data.practice_redraws, program, answers))


def _next_hint(program: str, name: str) -> None:
    hints = ss.setdefault(keys.HINTS, {})
    step = hints[name] = min(hints.get(name, 0) + 1, 3)
    if step == 3:
        line = sandboxed(page_data.practice_hint, program, name, 3)
        _set_answers(replace_line(ss.get(keys.ANSWERS, ""), "d" + name, line))


def _guarded(fn, program: str, *args) -> None:
    """A button's work: a failure is kept to be said on this run, never a traceback."""
    try:
        fn(program, *args)
    except Exception as exc:  # noqa: BLE001 - words, not a traceback
        ss[keys.FAILED] = exc


def answers_panel(program: str, answers: str, page: dict) -> None:
    """The answer lines, Check, the whole backward, the hints."""
    if ss.get(keys.ANSWERS_SHOWN) != (program, answers) and (ss.get(keys.EDITOR) or {}).get("text") != answers:
        ss[keys.EDITOR_VERSION] = ss.get(keys.EDITOR_VERSION, 0) + 1  # a link's or another exercise's answers
    ss[keys.ANSWERS_SHOWN] = (program, answers)
    answers_editor(answers, ss.get(keys.EDITOR_VERSION, 0), key=keys.EDITOR, on_text=_typed,
                   label="Answer lines: d<name> = …, one per tensor, checked as you type",
                   session=ss.setdefault(keys.EDITOR_SESSION, secrets.token_hex(6)))
    failed = ss.pop(keys.FAILED, None)
    if failed is not None:
        session.show_failure(failed, program)
    left, right = st.columns(2)
    left.button("Check", type="primary", icon=":material/check:", on_click=_typed, use_container_width=True)
    right.button("Check on 20 random draws", icon=":material/casino:", use_container_width=True,
                 on_click=_guarded, args=(_redraw, program))
    st.button("Show the whole backward as a program", icon=":material/visibility:", use_container_width=True,
              help="Writes every answer at once, from each op's VJP written as a line of the language "
                   "(each is then shown, not solved).", on_click=_guarded, args=(_whole, program))
    hints_panel(program, page)


def hints_panel(program: str, page: dict) -> None:
    if not page["asked"]:
        return
    asked = page["asked"]
    first = page["first_bad"] or next((r["name"] for r in page["rows"] if r["verdict"] == "pending"), asked[0])
    if ss.get(keys.HINT_FOR) not in asked:
        ss[keys.HINT_FOR] = first
    hints = ss.setdefault(keys.HINTS, {})
    a, b = st.columns(2, vertical_alignment="bottom")
    name = a.selectbox("Hint for", asked, key=keys.HINT_FOR, format_func=lambda n: f"d{n}")
    step = hints.get(name, 0)
    b.button(f"Hint {min(step + 1, 3)}/3: {STEPS[min(step, 2)]}", disabled=step >= 3, use_container_width=True,
             on_click=_guarded, args=(_next_hint, program, name))
    for k in range(1, min(step, 2) + 1):
        with session.failures_shown(program):
            st.code(sandboxed(page_data.practice_hint, program, name, k), language=None, wrap_lines=True)
    if step >= 3:
        st.caption(f"d{name}'s answer was written into the lines above, marked `# shown`.")


def verdicts(page: dict) -> None:
    st.html(page_data.table_html(page))
    for problem in page["problems"]:
        st.warning(markdown_safe(problem), icon=":material/warning:")


def redraws(program: str, answers: str) -> None:
    kept = ss.get(keys.REDRAWS)
    if not kept or kept[0] != program:
        return
    _, checked, result = kept
    stale = " (for the answers as they were then)" if checked != answers else ""
    if result["skipped"]:
        st.info(f"No draws ran: {result['skipped']}.", icon=":material/casino:")
        return
    if not result["broken"]:
        st.success(f"All {len(result['held'])} right answers held on {result['draws']} random draws{stale}.",
                   icon=":material/casino:")
        return
    first = result["broken"][0]
    if first["sizes"]:
        drawn = "That draw's sizes: " + ", ".join(f"{k} = {v}" for k, v in first["sizes"].items())
    else:
        drawn = "The inputs of that draw: " + "; ".join(f"{k} = {v}" for k, v in first["inputs"].items())
    st.error(markdown_safe(
        f"On draw {first['draw']} of {result['draws']}, d{first['name']} was {first['verdict']}: {first['message']}"
        f"{stale}. {drawn}. An answer that holds only for the page's numbers (a "
        "hard-coded value, a broadcast sum hidden by a size-1 axis, a missing .T) breaks on some draw."),
        icon=":material/casino:")
    others = [f"d{b['name']} (draw {b['draw']})" for b in result["broken"][1:]]
    if others:
        st.caption("Also broke: " + ", ".join(others))


def export(program: str, answers: str) -> None:
    with session.failures_shown(program):
        text = functools.partial(sandboxed, page_data.practice_script, program, answers)()
        st.download_button("Download the attempt as Python", text, file_name="practice_attempt.py",
                           mime="text/x-python", icon=":material/download:")
