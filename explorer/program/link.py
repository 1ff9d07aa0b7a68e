"""The program the Explorer and the Stepper share, kept in step with ``?program=``, and what to say when it is too long
for a link."""

from __future__ import annotations

import urllib.parse
from collections.abc import MutableMapping

from explorer import links
from explorer.program import keys
from language.messages import MAX_CHARS

#: The longest program a link carries, once URL-encoded. The server refuses a request whose address is
#: much over ~120 KB (measured: 120 KB answered, 128 KB reset), so a program whose link would come near
#: that stays out of the address bar, and the page says so, rather than leave a link that cannot open.
LINK_LIMIT = 64 * 1024
#: The parameters each program page reads from its link.
PAGE_PARAMS: dict[str, tuple[str, ...]] = {
    "explorer": ("program", "poke", "mode", "v", "backward", "again", "intervene"),
    "stepper": ("program", "poke", "step", "mode", "v", "predict", "again"),
}


STALE_NOTE = (
    ":material/history: **From the last program that ran.** The program in the editor has an error; "
    "the graph and the results below are dimmed until it runs."
)


def link_length(text: str) -> int:
    """The characters ``?program=`` takes for ``text`` in an address (as Streamlit encodes it)."""
    return len(urllib.parse.quote_plus(text))


def sync_program(session: MutableMapping, query: MutableMapping, default: str) -> str:
    """Keeps ``session['program']`` and the URL's ``?program=`` in step; returns the program.

    A link (a query param this session did not write) wins over the session's program, so a
    shared URL reproduces its program; otherwise the session's program is written to the URL,
    unless its link would be longer than ``LINK_LIMIT`` (then the URL keeps the last program
    that fitted: see ``link_note``).
    """
    from_url = query.get("program")
    if links.link_wins(session, "program", from_url):
        session[keys.PROGRAM] = from_url
    if not isinstance(session.get(keys.PROGRAM), str):
        session[keys.PROGRAM] = default
    text = session[keys.PROGRAM]
    if query.get("program") != text and link_length(text) <= LINK_LIMIT:
        query["program"] = text
    if query.get("program") == text:
        links.wrote(session, "program", text)
    return text


def link_note(text: str) -> str:
    """What to tell a user whose program is too long for a link ('' when it fits)."""
    size = link_length(text)
    if size <= LINK_LIMIT:
        return ""
    return (
        f"This program is too long for a link: {size / 1024:,.0f} KB once encoded in an address, and a link "
        f"holds at most {LINK_LIMIT // 1024} KB (programs are at most {MAX_CHARS:,} characters, ~20 KB). The "
        "address bar keeps the last program that fitted; download this one with Export → As Python."
    )


def practise_this(text: str) -> str:
    """The Explorer's link to the Practice page on this program (`` · [Practise this program](practice?program=…)``),
    or '' when the program is too long for a link."""
    if link_length(text) > LINK_LIMIT:
        return ""
    return f" · [Practise this program](practice?program={urllib.parse.quote(text, safe='')})"
