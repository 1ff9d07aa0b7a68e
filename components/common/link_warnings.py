"""A page's link at the edge, as Streamlit: a warning for each parameter the link repeats, and for a run id
that is not one the server makes (explorer/links.py); and the one way a page says what of its link it ignored."""

from __future__ import annotations

import streamlit as st

from explorer import links
from explorer.words import markdown_safe


def link_warnings(params: tuple[str, ...]) -> list[str]:
    """Warns of the page's ``params`` given more than once in the link and keeps the last of each (as
    Streamlit reads it) in the URL, so the warning is said once; where the page reads a ``run`` (the
    Playground), drops a run id of the wrong form from the URL with a warning before the run store is asked."""
    query = {name: st.query_params.get_all(name) for name in st.query_params}
    problems = links.repeated(query, params)
    for name in params:
        if len(query.get(name, ())) > 1:
            st.query_params[name] = query[name][-1]
    if "run" in params:
        problem = links.run_problem(st.query_params.get("run"))
        if problem:
            problems.append(problem)
            del st.query_params["run"]  # NOTE: before the Playground looks it up in the run store
    say_ignored(problems)
    return problems


def say_ignored(problems, what: str = "the link") -> None:
    """A warning for each part of a link the page could not use (explorer.links.ignored words it)."""
    for problem in links.said_once(list(problems)):
        st.warning(markdown_safe(links.ignored(problem, what)), icon=":material/link_off:")
