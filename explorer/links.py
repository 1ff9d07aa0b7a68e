"""A page's link checked at the edge, before any work: the parameters a page reads each given once, the
Stepper's step a whole number of its range and the Playground's run id of the form the server makes; and the one
rule for a link against the session's own state (``link_wins``). Each room declares the parameters its pages read
(explorer/program/link.py's PAGE_PARAMS, the Playground's, the race's and the depth lab's LINK_PARAMS), and reads
the values itself: poke.from_link for ``poke``, the settings codec (explorer/settings.py) for settings, the
language for ``program``."""

from __future__ import annotations

import re
from collections.abc import Mapping

from explorer import keys
from explorer.numbers import whole_from_link
from explorer.words import clip_text


def link_wins(session: Mapping, name: str, given) -> bool:
    """Whether the URL's ``given`` value for ``name`` is a link to follow, over the session's own state: a value is
    given (not None, empty, or all None) and it is not what this session last wrote there (``wrote``). So a shared
    link reproduces its page, and the session's own echo of its state never undoes what the user just chose."""
    nothing = given is None or given == {} or (isinstance(given, tuple) and all(g is None for g in given))
    return not nothing and given != session.get(keys.in_url(name))


def wrote(session, name: str, value) -> None:
    """Notes that this session wrote ``value`` for ``name`` to the URL (``link_wins`` then leaves it be)."""
    session[keys.in_url(name)] = value


def ignored(problem: str, what: str = "the link") -> str:
    """What a page says of a part of its link it could not use, and why; the rest of the link is kept."""
    return f"Ignored part of {what}: {problem}."


#: At most this many warnings for one link (enough for every setting of the Playground, each named), the rest
#: counted in one more.
MAX_SAID = 20


def said_once(problems: list[str], most: int = MAX_SAID) -> list[str]:
    """The problems a page says of its link: each once (one given many times says how many), at most ``most``, then
    how many more (a link of 1,000 bad parts is MAX_SAID warnings, not a thousand)."""
    counts: dict[str, int] = {}
    for problem in problems:
        counts[problem] = counts.get(problem, 0) + 1
    said = [problem if n == 1 else f"{problem} ({n:,} times)" for problem, n in counts.items()]
    if len(said) > most:
        rest = sum(list(counts.values())[most - 1:])
        said[most - 1:] = [f"{rest:,} more parts could not be used either"]
    return said


def repeated(query: Mapping[str, list[str]], params: tuple[str, ...]) -> list[str]:
    """A problem for each of a page's ``params`` the link gives more than once (Streamlit reads the last)."""
    problems = []
    for name in params:
        values = query.get(name) or []
        if len(values) > 1:
            problems.append(f"`{name}` is given {len(values)} times; a link gives each once, so the last counts")
    return problems


def step_from_link(text: str | None, n: int) -> tuple[int, str | None]:
    """A link's ``step`` for a backward pass of ``n`` steps: (the step to open at, what was wrong or None).
    Allowed: a whole number from 0 to n. Out of range it is clamped; anything else opens at step 0."""
    if text is None:
        return 0, None
    allowed = f"a whole number from 0 to {n:,}"
    try:
        step = whole_from_link(text)  # ASCII digits only: no 1e308, nan, 2.5 or ٣
    except ValueError:
        return 0, f"`step={clip_text(text)}` is not {allowed}: opened at step 0"
    if 0 <= step <= n:
        return step, None
    near = min(max(step, 0), n)
    return near, f"`step={clip_text(text)}` is not {allowed}: opened at step {near}"


#: What a run id in a link may be: the store's ids are 12 URL-safe characters (server.run_store.new_run_id);
#: any store keeps ids of this form, so nothing else in a link ever reaches one as a key.
RUN_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def run_problem(text: str | None) -> str | None:
    """What is wrong with a link's ``run`` id (None if it has the form of one this server makes)."""
    if text is None or RUN_ID.fullmatch(text):
        return None
    return (f"`run={clip_text(text)}` is not a run id this server makes (1 to 64 of A-Z, a-z, 0-9, - and _): "
            "a new run starts from the link's settings")
