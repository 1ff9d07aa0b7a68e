"""The Practice page's link: ``/practice?program=<text>&answers=<the answer lines as text>``, both URL-encoded plain
text, kept in step with the session by explorer/links.py's rule (a link wins unless this session wrote it)."""

from __future__ import annotations

from collections.abc import MutableMapping

from explorer import links
from explorer.practice import keys
from explorer.program.link import LINK_LIMIT, link_length

PARAMS = ("program", "answers", "class")  # class: the class it was opened from (the Class page)


def sync(session: MutableMapping, query: MutableMapping, default_program: str) -> tuple[str, str | None]:
    """(program, answers) for this run: a link's where it gives them, else the session's; written back to the URL
    (while they fit in an address). Answers are None when neither the link nor the session has any."""
    given = query.get("program")
    if links.link_wins(session, "practice_program", given):
        session[keys.PROGRAM] = given
        session.pop(keys.ANSWERS, None)  # a new program's link: its own answers, or the output's line
        session.pop(keys.STARTED, None)
    if not isinstance(session.get(keys.PROGRAM), str):
        session[keys.PROGRAM] = default_program
    given_answers = query.get("answers")
    # NOTE: a run's link is the URL as the browser had it when it asked for the run, and the browser applies the URL
    # a run writes only when that run's message reaches it: a run asked meanwhile (the editor's resend every 3 s, the
    # next text typed) brings the URL of before, an answer this session wrote and since replaced, which link_wins
    # takes for a link. It undid the learner's newest text (and the editor took the old one back, its version grown:
    # the class benchmark's right answer that never showed, the store keeping the wrong one). The editor's text sent
    # on this very run is the learner's newest: the link does not undo it.
    typed = session.pop(keys.TYPED, False)
    if links.link_wins(session, "practice_answers", given_answers) and not typed:
        session[keys.ANSWERS] = given_answers
        session[keys.STARTED] = session[keys.PROGRAM]
    program, answers = session[keys.PROGRAM], session.get(keys.ANSWERS)
    write(session, query, program, answers)
    return program, answers


def write(session: MutableMapping, query: MutableMapping, program: str, answers: str | None) -> None:
    """The URL follows the session's attempt (when the two fit in an address)."""
    if link_length(program) + link_length(answers or "") > LINK_LIMIT:
        return
    if query.get("program") != program:
        query["program"] = program
    links.wrote(session, "practice_program", program)
    if answers is not None:
        if query.get("answers") != answers:
            query["answers"] = answers
        links.wrote(session, "practice_answers", answers)
