"""Poke the numbers: a slider per input and the pictures of what a gradient means, as an `st.components.v2`
component (poke.js, poke.css) that reports slider values continuously while they move.

Streamlit's own st.slider reports only on release; this one sends values as they come, one at a time
(the next when the answer to the last has arrived), so the page — inside an `st.fragment` with the
graph view — reruns only that fragment per move and answers with the new values and grads
(`graph_view(values=...)`) and the new point and tangent. A final value follows 400 ms after the
last move; the page then runs whole (the URL, the gradient check, the inspector follow).

Session state (shared by the Explorer and the Stepper, which show the same program): ``poked`` (an
explorer.program.poke.Poked, kept in step with the URL by explorer.program.poke.sync), ``poke_active`` (the input the
pictures are drawn against), ``poke_previous`` (the one before: the contour plot's other axis),
``poke_answered`` (the last report's sequence number), ``poke_version`` (grows when the server sets
the values itself: Reset, a new program, a link; the browser then moves its sliders).
"""

from __future__ import annotations

import functools

import streamlit as st

from components.common import session
from components.common.assets import module_loader
from components.common.link_warnings import say_ignored
from explorer.program import keys, poke
from server.sandbox import SandboxError

_component = st.components.v2.component(
    "components.poke",
    # served: the view is updated several times a second
    js=module_loader("poke/poke.js", styles=("poke/poke.css",)),
    isolate_styles=False,
)
ss = st.session_state
_FULL_RUN = "_poke_full_run"

# The evaluations of the user's program this view makes (plain functions of explorer.program.poke), each in a worker
# process, limited, cancellable and cached (components/common/session.py): the pictures' curve and grid. (The sliders
# come with the page run's evaluation, explorer/program/page_data.py.)
_curve = functools.partial(session.sandboxed, poke.curve)
_surface = functools.partial(session.sandboxed, poke.surface)


def _moved(key: str, sliders: tuple) -> None:
    """The browser's report {values, active, seq, final}: the new poked values and the pictures' input."""
    report = (ss.get(key) or {}).get("poke") or {}
    values = report.get("values") or {}
    ss[keys.POKED] = poke.normal(values, sliders)
    names = [k.name for k in sliders]
    active = report.get("active")
    if active in names and active != ss.get(keys.POKE_ACTIVE):
        ss[keys.POKE_PREVIOUS] = ss.get(keys.POKE_ACTIVE)
        ss[keys.POKE_ACTIVE] = active
    ss[keys.POKE_ANSWERED] = int(report.get("seq") or 0)
    if report.get("final"):
        ss[_FULL_RUN] = True


def _reset() -> None:
    ss[keys.POKED] = ()
    ss[keys.POKE_VERSION] = ss.get(keys.POKE_VERSION, 0) + 1
    ss[_FULL_RUN] = True


def synced(text: str, sliders: tuple) -> tuple[tuple, tuple]:
    """(sliders, poked) of a program for a whole page run: the session's poked values and the URL's ``?poke=``
    kept in step (explorer.program.poke.sync); what a link's values get wrong is said here, in a warning. ``sliders``:
    the program's (explorer.program.page_data's run of it has them)."""

    poked, problems = poke.sync(ss, st.query_params, text, sliders)
    say_ignored(problems, "the link's poked values")
    return sliders, poked


def full_run_wanted() -> bool:
    """True once after the values settled or were reset: the page should run whole (st.rerun()), so that
    what does not follow the drag (the URL, the gradient check, the inspector) follows now."""
    return bool(ss.pop(_FULL_RUN, False))


def poke_panel(text: str, sliders: tuple, graph, *, key: str) -> None:
    """The ``sliders`` (poke.sliders(text)) at the session's poked values and the pictures for ``graph``
    (the program run with them, grads filled in).

    The pictures evaluate the program again and again (a curve, a grid): they are made once the view shows
    this program and asks for them (trigger ``pictures``; ``pictures_wanted`` in the data until then), so a
    page run evaluates the program once (explorer/program/page_data.py) and the sliders and graph are not kept waiting.
    """
    if not sliders:
        return
    names = [k.name for k in sliders]
    if ss.get(keys.POKE_ACTIVE) not in names:
        ss[keys.POKE_ACTIVE] = names[0]
    poked = ss.get(keys.POKED, ())
    wanted = ss.get(keys.pictures_for(key)) != text
    data = poke.pictures(text, sliders, poked, graph, ss[keys.POKE_ACTIVE], ss.get(keys.POKE_PREVIOUS),
                         curve=_not_yet if wanted else _curve, surface=_not_yet if wanted else _surface,
                         unfinished=(SandboxError,))
    data |= {"answered": ss.get(keys.POKE_ANSWERED, 0), "version": ss.get(keys.POKE_VERSION, 0),
             "pictures_wanted": wanted}
    _component(key=key, data=data, on_poke_change=lambda: _moved(key, sliders), on_reset_change=_reset,
               on_pictures_change=lambda: ss.__setitem__(keys.pictures_for(key), text))


def _not_yet(*_) -> None:
    """A picture the view has not asked for yet."""
    return None
