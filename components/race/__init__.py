"""The optimiser race as Streamlit: the settings (surface, plane, start point, optimisers, steps, kept in the
URL by explorer.race.setup.sync) and the race view, an `st.components.v2` component (static/race.js) that draws
the paths, losses and arithmetic with Plotly in the browser from numbers computed once per race.

Session state: ``race_setup`` (an explorer.race.setup.Setup), ``race_version`` (grows when the setup is set from
outside the widgets: a link, a new surface; the widgets are then made anew from it).
"""

from __future__ import annotations

import functools
import hashlib
import html
from dataclasses import replace
from pathlib import Path

import plotly
import streamlit as st

from components.common import session
from components.common.assets import module_loader, served_url
from components.common.link_warnings import say_ignored
from explorer.program import keys as program_keys
from explorer.race import course as race
from explorer.race import curvature as race_curvature
from explorer.race import keys
from explorer.race import setup as race_setup
from explorer.words import markdown_safe

_PLOTLY = Path(plotly.__file__).parent / "package_data"  # the plotly wheel's own plotly.min.js: no CDN

_component = st.components.v2.component(
    "components.race",
    # served as files (components.common.assets.module_loader); Plotly is a classic script that sets window.Plotly
    js=module_loader("race/static/race.js", scripts=((served_url("plotly_js", _PLOTLY, "plotly.min.js"), "Plotly"),)),
    isolate_styles=False,  # in the page's own DOM: Plotly and the view add their style sheets to the page
)
ss = st.session_state

# A worker process each (components/common/session.py): the race and its contour grid run the learner's program.
run_race = functools.partial(session.sandboxed, race.run_race)
grid = functools.partial(session.sandboxed, race.grid)
program_plane = functools.partial(session.sandboxed, race.program_plane)
curvature_at = functools.partial(session.sandboxed, race_curvature.race_curvature)


def curvature(the_race: race.Race) -> dict | None:
    """The Hessian at the race's start and each optimiser's verdict (None, said, if the sandbox failed)."""
    with session.failures_shown(the_race.text):
        return curvature_at(the_race)
    return None


def curvature_note(said: dict | None) -> None:
    """Under the race: the Hessian at the start (its eigenvalues and eigen-directions) and each optimiser's
    learning rate against 2/λmax, the rate above which its steps overshoot along the sharpest direction."""
    if said is None:
        return
    if not said["ok"]:
        st.caption(said["sentence"])
        return
    rows = "".join(f'<li data-verdict="{r["verdict"]}">{html.escape(r["title"])}: '
                   f'{html.escape(r["sentence"])}</li>' for r in said["runners"])
    st.html(f'<div data-testid="race-hessian" data-lambda-max="{said["lambda_max"]!r}" style="font-size: 0.9rem">'
            f'<p style="margin: 0">{html.escape(said["sentence"])}</p>'
            f'<ul style="margin: 0.2rem 0">{rows}</ul></div>')


def view_data(the_race: race.Race, result: dict, picture: dict, curvature: dict | None = None) -> dict:
    """What the browser draws: the grid, the start point and each path with an id for its [data-path] hook, and
    the Hessian's eigen-directions at the start (`curvature`: explorer.race.curvature.race_curvature's)."""
    seen: dict[str, int] = {}
    paths = []
    for path in result["paths"]:
        seen[path["kind"]] = seen.get(path["kind"], 0) + 1
        count = seen[path["kind"]]
        paths.append(path | {"id": path["kind"] if count == 1 else f"{path['kind']}-{count}"})
    key = hashlib.sha1(repr(the_race).encode()).hexdigest()[:16]
    data = {"key": key, "grid": picture, "start": list(the_race.start), "paths": paths}
    if curvature and curvature.get("ok"):
        data["axes"] = [{"dir": d, "lambda": v} for d, v in zip(curvature["directions"], curvature["eigenvalues"])]
    return data


# NOTE: the view draws once its code and Plotly (3 MB) are loaded: the page showed only its title for ~3 s after
# its run (issue 29). This placeholder comes with the run itself and goes as the contour is drawn (race.js).
_WAITING = (
    "<div class='race-waiting' data-testid='race-waiting' style='min-height: 22rem; display: flex; "
    "align-items: center; justify-content: center; border-radius: 0.5rem; opacity: 0.7; "
    "background: var(--st-secondary-background-color, rgba(128, 128, 128, 0.12));'>"
    "Drawing the surface and the optimisers' paths…</div>"
    "<style>.race-waiting[hidden] { display: none !important; }</style>"
)


def race_view(data: dict, *, key: str) -> None:
    """The race view (a placeholder in its place until it is drawn); a click or drag on its contour moves the
    setup's start point."""
    st.html(_WAITING)
    _component(key=key, data=data, on_start_change=lambda: _started(key))


def _started(key: str) -> None:
    start = (ss.get(key) or {}).get("start") or {}
    try:
        point = (float(start["x"]), float(start["y"]))
    except (KeyError, TypeError, ValueError):
        return
    _set(start=point)
    ss[keys.VERSION] = ss.get(keys.VERSION, 0) + 1  # the number inputs show the new point


# ----------------------------------------------------------------------------- the settings


def _set(**changes) -> None:
    ss[keys.SETUP] = replace(ss[keys.SETUP], **changes)


def _key(name: str) -> str:
    return keys.widget(name, ss.get(keys.VERSION, 0))


def _surface_changed() -> None:
    name = ss[_key("surface")]
    steps = ss[keys.SETUP].steps
    if name == race.OWN:
        _set(surface=race.OWN, x="", y="")  # own_setup picks the plane and the start from the program
    else:
        ss[keys.SETUP] = race_setup.preset_setup(name, steps)
    ss[keys.VERSION] = ss.get(keys.VERSION, 0) + 1


def _runner_changed(i: int, field: str) -> None:
    runners = list(ss[keys.SETUP].runners)
    value = ss[_key(f"{field}_{i}")]
    runners[i] = race.runner(value) if field == "kind" else replace(runners[i], **{field: float(value)})
    if field == "kind" and ss[keys.SETUP].surface in race.SURFACES:
        runners[i] = race.SURFACES[ss[keys.SETUP].surface].runner(value)
    _set(runners=tuple(runners))
    if field == "kind":
        ss[keys.VERSION] = ss.get(keys.VERSION, 0) + 1


def _add_runner() -> None:
    setup = ss[keys.SETUP]
    used = [r.kind for r in setup.runners]
    kind = next((k for k in race.KINDS if k not in used), "adam")
    surface = race.SURFACES.get(setup.surface)
    _set(runners=setup.runners + ((surface.runner(kind) if surface else race.runner(kind)),))
    ss[keys.VERSION] = ss.get(keys.VERSION, 0) + 1


def _remove_runner(i: int) -> None:
    runners = list(ss[keys.SETUP].runners)
    del runners[i]
    _set(runners=tuple(runners))
    ss[keys.VERSION] = ss.get(keys.VERSION, 0) + 1


_STEP_OF = {"lr": 0.001, "momentum": 0.05, "beta1": 0.01, "beta2": 0.001, "eps": 1e-8, "weight_decay": 0.01}


def surface_box(setup: race_setup.Setup) -> None:
    """The choice of surface: a preset, or the learner's own program."""
    names = [*race.SURFACES, race.OWN]
    st.selectbox("Surface", names, index=names.index(setup.surface), key=_key("surface"), on_change=_surface_changed,
                 format_func=lambda n: race.SURFACES[n].title if n in race.SURFACES else "Your own program",
                 help=race.SURFACES[setup.surface].about if setup.surface in race.SURFACES
                 else "The Expression Explorer's program: the race minimises its output (summed) over two inputs "
                      "of one number each.")


def settings(setup: race_setup.Setup, planes: list[str] | None) -> None:
    """The widgets that set up the race (after the surface's): each changes ``race_setup`` (and so the URL) when it
    changes. ``planes``: the inputs the learner's program offers for the plane (None for a preset)."""
    if planes is not None and len(planes) >= 2:
        left, right = st.columns(2)
        left.selectbox("Across (x)", planes, index=planes.index(setup.x) if setup.x in planes else 0,
                       key=_key("x"), on_change=lambda: _set(x=ss[_key("x")]))
        right.selectbox("Up (y)", planes, index=planes.index(setup.y) if setup.y in planes else 1,
                        key=_key("y"), on_change=lambda: _set(y=ss[_key("y")]))
    left, right, steps = st.columns(3)
    left.number_input(f"Start {setup.x}", value=float(setup.start[0]), format="%g", step=0.1, key=_key("sx"),
                      on_change=lambda: _set(start=(ss[_key("sx")], ss[keys.SETUP].start[1])))
    right.number_input(f"Start {setup.y}", value=float(setup.start[1]), format="%g", step=0.1, key=_key("sy"),
                       on_change=lambda: _set(start=(ss[keys.SETUP].start[0], ss[_key("sy")])))
    steps.number_input("Steps", 1, race.MAX_STEPS, setup.steps, step=50, key=_key("steps"),
                       on_change=lambda: _set(steps=int(ss[_key("steps")])))
    for i, r in enumerate(setup.runners):
        _runner_row(i, r, removable=len(setup.runners) > 1)
    st.button("Add an optimiser", icon=":material/add:", on_click=_add_runner, key=_key("add"),
              disabled=len(setup.runners) >= race.MAX_RUNNERS)


def _runner_row(i: int, r: race.Runner, removable: bool) -> None:
    kind, lr, more = st.columns([2, 1.1, 0.55], vertical_alignment="bottom", gap="small")
    kinds = list(race.KINDS)
    shown = "visible" if i == 0 else "collapsed"
    kind.selectbox("Optimiser", kinds, index=kinds.index(r.kind), key=_key(f"kind_{i}"),
                   format_func=lambda k: race.KINDS[k].title, on_change=_runner_changed, args=(i, "kind"),
                   label_visibility=shown)
    lr.number_input("lr", min_value=0.0, value=float(r.lr), step=_STEP_OF["lr"], format="%g",
                    key=_key(f"lr_{i}"), on_change=_runner_changed, args=(i, "lr"), label_visibility=shown,
                    help="The learning rate" if i == 0 else None)
    with more.popover("", icon=":material/tune:", help=f"{race.KINDS[r.kind].title}'s other settings"):
        for name in race.KINDS[r.kind].settings:
            if name != "lr":
                st.number_input(race.SETTINGS[name][0], min_value=0.0, value=float(getattr(r, name)),
                                step=_STEP_OF[name], format="%g", key=_key(f"{name}_{i}"),
                                on_change=_runner_changed, args=(i, name))
        st.button("Remove from the race", icon=":material/close:", key=_key(f"remove_{i}"),
                  on_click=_remove_runner, args=(i,), disabled=not removable)


def own_setup(setup: race_setup.Setup, text: str) -> list[str]:
    """The plane's inputs of the learner's program ``text`` (raises ExpressionError if it does not run); a setup
    whose plane the program lacks gets the program's first two inputs, started at their values."""
    info = program_plane(text)
    planes = info["planes"]
    if len(planes) >= 2 and not (setup.x in planes and setup.y in planes and setup.x != setup.y):
        x, y = planes[0], planes[1]
        if setup.x or setup.y:  # a link's plane (a new program starts on its first two inputs without a word)
            st.warning(markdown_safe(f"This program has no plane `{setup.x},{setup.y}` (its inputs of one number: "
                                     f"{', '.join(planes)}): the race runs on {x}, {y}."), icon=":material/info:")
        _set(x=x, y=y, start=(info["values"][x], info["values"][y]))
        ss[keys.VERSION] = ss.get(keys.VERSION, 0) + 1
        race_setup.sync(ss, st.query_params)  # the URL says the new plane and start
    return planes


def program_editor(text: str) -> None:
    """The learner's program (the one the Expression Explorer shows: editing it here edits it there)."""
    if ss.get(keys.EDITOR) != text:
        ss[keys.EDITOR] = text
    st.html(f"<style>.st-key-{keys.EDITOR} textarea {{font-family: 'Source Code Pro', monospace; "
            "font-size: 0.85rem}</style>")
    st.text_area("Program", key=keys.EDITOR, height=150, on_change=_program_edited,
                 help="The race minimises the output (summed) over two inputs that hold one number each. "
                      "Ctrl+Enter runs it.")


def _program_edited() -> None:
    ss[program_keys.PROGRAM] = ss[keys.EDITOR]


def problems_said(problems: list[str]) -> None:
    say_ignored(problems)
