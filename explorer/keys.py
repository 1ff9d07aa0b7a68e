"""The session keys every page shares, declared once (each room declares its own pages' in its ``keys.py``).

Streamlit keeps a session's state, and every widget's value, under string keys; a key spelled in two places is a
rule in two places, so the pages and components take theirs from here and the rooms' keys modules
(tests/test_layering.py checks that no other module spells one).
"""

from __future__ import annotations

#: Which learner this session is (components/common/learner.py), for the run store's shares and ownership.
LEARNER = "learner_key"
#: The container of a page's title and caption (components/common/layout.py styles it by this key).
PAGE_HEADER = "page_header"
#: The lesson pages' "Presenter" toggle: larger type for a projector (``?present=1`` in a link turns it on).
PRESENT = "present"


def in_url(name: str) -> str:
    """What this session last wrote to the URL for ``name`` (explorer/links.py's rule: a link wins unless the
    session wrote it)."""
    return f"_{name}_in_url"


def kept(key: str) -> str:
    """A copy of widget ``key``'s value that outlives the widget (Streamlit forgets a widget's value on the runs
    that do not draw it; settings_form.restore puts it back)."""
    return f"_kept_{key}"
