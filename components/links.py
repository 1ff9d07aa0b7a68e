"""A page's link at the edge, as Streamlit: a warning for each parameter the link repeats (explorer/links.py)."""

from __future__ import annotations

import streamlit as st

from explorer import links
from explorer.formatting import markdown_safe


def link_warnings(page: str) -> list[str]:
    """Warns of ``page``'s parameters given more than once in the link and keeps the last of each (as
    Streamlit reads it) in the URL, so the warning is said once."""
    query = {name: st.query_params.get_all(name) for name in st.query_params}
    problems = links.repeated(query, page)
    for name in links.PARAMS[page]:
        if len(query.get(name, ())) > 1:
            st.query_params[name] = query[name][-1]
    for problem in problems:
        st.warning(markdown_safe(f"Ignored part of the link: {problem}."), icon=":material/link_off:")
    return problems
