"""The pages' compact header: a title and one line of purpose, so a lecture's graph fits a 1280x800 screen."""

from __future__ import annotations

import json

import streamlit as st

from components.common.assets import code_url
from explorer import keys as page_keys

# NOTE: Streamlit's default header takes ~260 px at 1280x800 (6rem of padding, a 2.75rem title, a three-line
# caption): the Explorer's graph ran 244 px below the window. The page starts just under Streamlit's own
# toolbar (3.75rem, transparent on the left), the title is smaller, the purpose is one line, and the rest
# of what the page does is behind the title's (?) (tests/browser/test_layout_browser.py measures the pages).
_CSS = (
    "<style>"
    '[data-testid="stMainBlockContainer"] { padding-top: 3.25rem; padding-bottom: 3rem; }'
    # NOTE: on a phone the header stays opaque: transparent, its sidebar button (») floated over the content
    '@media (min-width: 640px) { [data-testid="stHeader"] { background: transparent; } }'
    f".st-key-{page_keys.PAGE_HEADER} h1 {{ font-size: 1.65rem; padding: 0; line-height: 1.25; }}"
    f".st-key-{page_keys.PAGE_HEADER} {{ gap: 0.2rem; }}"
    f".st-key-{page_keys.PAGE_HEADER} .stHeading [data-testid='stMarkdownContainer'] {{ margin-bottom: 0; }}"
    f".st-key-{page_keys.PAGE_HEADER} [data-testid='stCaptionContainer'] {{ line-height: 1.35; }}"
    # NOTE: Chromium lets a click on empty space focus the page's scrolling main element; its focus frame is
    # no help to anyone (every control has its own)
    '[data-testid="stMain"]:focus { outline: none; }'
    # a formula wider than a phone scrolls sideways instead of being cut off at the right
    ".katex-display { overflow-x: auto; overflow-y: hidden; padding: 2px 0; }"
    "</style>"
)


# NOTE: a lesson's page (the Explorer, the Stepper) uses the whole width of a 1280 px projector: Streamlit's
# wide layout keeps 5rem each side, which with the sidebar left the graph's pane 482 px wide (issue 29).
_PRESENTER_CSS = (
    "<style>"
    '[data-testid="stMainBlockContainer"] { padding-left: 1rem; padding-right: 1rem; }'
    "</style>"
)


# Presenting: the page's type a quarter larger (Streamlit sizes in rem) and the graph's boxes opening at 14 px
# (graph_view.js reads --gv-min-text-px), for the back of a lecture room.
_PRESENTING_CSS = "<style>html { font-size: 20px; } :root { --gv-min-text-px: 14; }</style>"


def header(title: str, purpose: str, more: str, *, presenter: bool = False, settings_aside: bool = False) -> None:
    """The page's title, ``purpose`` in one line under it, and ``more`` (how to use the page) in the title's
    help (?). ``presenter``: a lesson's page, which uses the window's whole width and has a "Presenter" toggle
    (on from a link's ``?present=1``) that enlarges its type. ``settings_aside``: the page's settings are in the
    sidebar, which a phone hides: it says so there (settings_in_the_sidebar)."""
    if presenter and st.query_params.get("present") == "1" and page_keys.PRESENT not in st.session_state:
        st.session_state[page_keys.PRESENT] = True
    st.html(_CSS + (_PRESENTER_CSS if presenter else "")
            + (_PRESENTING_CSS if presenter and st.session_state.get(page_keys.PRESENT) else ""))
    with st.container(key=page_keys.PAGE_HEADER):
        if presenter:
            left, right = st.columns([3, 1], vertical_alignment="center")
            with right:
                st.toggle("Presenter", key=page_keys.PRESENT, help="Larger type, for a projector (?present=1).")
            with left:
                st.title(title, help=more, anchor=False)
        else:
            st.title(title, help=more, anchor=False)
        st.caption(purpose)
        if settings_aside:
            settings_in_the_sidebar()


def settings_in_the_sidebar() -> None:
    """On a phone only (under 640 px, where Streamlit hides the sidebar), a line saying where the page's settings
    are: the race's and the depth lab's were only in the hidden sidebar, with nothing saying so."""
    st.html(
        "<div class='phone-settings' data-testid='phone-settings'>⚙ The settings are in the sidebar: "
        "<b>»</b> at the top left opens it.</div>"
        "<style>.phone-settings { font-size: 0.85rem; opacity: 0.8; margin: -0.25rem 0 0.25rem; }"
        "@media (min-width: 640px) { .phone-settings { display: none; } }</style>"
    )


def graph_first_on_a_phone(body: str) -> None:
    """On a window too narrow for columns (Streamlit stacks them under 640 px), the second column of the
    container keyed ``body`` (the Explorer's graph) comes before the first (its dock: the editor, the sliders,
    the tabs), so a phone opens on the graph rather than ~1,300 px above it."""
    # NOTE: the body's own columns only, not those inside its tabs (the cost tab's program and lab swapped)
    block = f".st-key-{body} [data-testid='stHorizontalBlock']"
    st.html(
        "<style>@media (max-width: 639.98px) {"
        f"{block}:not({block} [data-testid='stHorizontalBlock'])"
        " { flex-direction: column-reverse; flex-wrap: nowrap; }"
        "}</style>"
    )


def dock_scrolls(dock: str) -> None:
    """Beside the graph (a window wide enough for columns), the open tab of the tabs keyed ``dock`` scrolls
    inside itself, as high as the window below its top: the inspector's Jacobian under its heatmaps does not
    scroll the graph away. Its tab labels wrap onto a second row rather than scroll sideways (seven tabs do not
    fit a 1280 px window's dock: "Memory" was out of sight behind a scroll arrow)."""
    st.html(
        "<style>@media (min-width: 640px) {"
        f".st-key-{dock} [role='tabpanel'] {{ max-height: calc(100vh - 15rem); overflow-y: auto;"
        " overflow-x: hidden; padding-right: 0.4rem; }"
        "}"
        f".st-key-{dock} [role='tablist'] {{ flex-wrap: wrap; overflow: visible; }}"
        f".st-key-{dock} [data-testid^='stTabsScroll'] {{ display: none; }}"
        "</style>"
    )


def pending_inspector(dock: str, prefix: str) -> None:
    """After a click on a box of the graph, the container keyed ``dock`` says which node it is inspecting and
    shows nothing else until the element keyed ``prefix`` + that node's id is in it (web/pending.js): within a
    frame of the click, not when the page's run answers; and its stale elements (the last run's, e.g. the
    previous node's Jacobian) are never shown under the new selection."""
    module = json.dumps(code_url("web/pending.js"))
    st.html(
        f"<style>[class*='st-key-{prefix}'] [data-stale='true'] {{ visibility: hidden; }}</style>"
        f"<script>import({module}).then((m) => m.default({json.dumps(dock)}, {json.dumps(prefix)}))"
        ".catch((error) => console.error(error));</script>",
        unsafe_allow_javascript=True,
    )
