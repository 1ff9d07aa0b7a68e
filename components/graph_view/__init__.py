"""The graph view: a program's DAG laid out once in the browser, then zoomed, clicked and stepped there.

An `st.components.v2` component (ES modules graph_view.js, drawing.js, stepper.js, controls.js; graph_view.css;
in components/frontend/graph_view/). Graphviz runs in the browser, in a worker: the WebAssembly build of npm's
`@viz-js/viz` 3.25.0 (`vendor/viz-global.js`, one file with Graphviz and Expat inside; licences beside it;
3.26 and later fail to compile in Debian's Chromium 156), served by this Streamlit server through
`components.common.assets.served_url`. No network, no npm step.

The data (explorer.program.view_data.view_data) carries the DOT text, laid out once per program and per
choice of parts and direction (cached in the page), plus what the view changes in place: each box's
tooltip, and in the stepper every step's states, grads, panel and node Jacobian (drawn by
components/frontend/jacobian_view/jacobian.js, which stepper.js imports). Steps, zoom, pan, hover, selection
and the data/grad/shape toggles never wait for the server; the server hears of the step, the
selection and the toggles afterwards, as the component's state (`step`, `selected`, `options`).

Values the server sends that the browser also changes — the step, the selection, the toggles — are
applied when the view mounts or when the program changes, and otherwise only when the server asks
(`select_seq` grows), so an answer to the browser's own report never moves it back.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from components import jacobian_view
from components.common.assets import CODE_DIR, module_loader, served_url
from components.common.st_internals import in_fragment_rerun
from explorer.graph.dot import LAYOUTS, LEGEND, PARTS, STATE_LEGEND, TEXT_COLOURS
from explorer.program import view_data as graph_data

_VENDOR = CODE_DIR / "graph_view" / "vendor"
_ASSET_NAME = "viz_js"
#: Play speeds the stepper offers, in steps per second.
SPEEDS = (1, 2, 4, 8, 12, 20)
#: The graph view's display options (the parts drawn, the direction, the play speed) unless a page says otherwise.
DEFAULT_OPTIONS = {"show": list(PARTS), "rankdir": "TB", "speed": 2}
#: The parts of the data that are the program's own drawing (the same for any numbers of its inputs).
LAYOUT_PARTS = ("dot", "boxes", "legend")
_SENT = "_graph_view_layout_sent"  # session state: component key -> (program key, layout asks) last sent


def _tone_css() -> str:
    """Each legend entry's colours, taken from Streamlit's theme (the same in the chips and the boxes)."""
    rules = []
    for entry in LEGEND + STATE_LEGEND:
        if entry.tone == "plain":
            fill, border = "var(--st-background-color)", "var(--gv-muted)"
        else:
            fill, border = f"var(--st-{entry.tone}-background-color)", f"var(--st-{entry.tone}-color)"
        rules.append(f".gv .kind-{entry.key}, .gv .state-{entry.key} {{ --fill: {fill}; --border: {border}; }}")
    # Text colours written into the DOT (light theme) -> the active theme's.
    themed = {"text": "var(--st-text-color)", "meta": "var(--gv-muted)", "data": "var(--st-blue-text-color)",
              "grad": "var(--st-red-text-color)", "broadcast": "var(--st-orange-text-color)"}
    for role, colour in TEXT_COLOURS.items():
        rules.append(f'.gv svg.gv-graph [fill="{colour}"] {{ fill: {themed[role]}; }}')
        rules.append(f'.gv svg.gv-graph [stroke="{colour}"] {{ stroke: {themed[role]}; }}')
    return "\n".join(rules)


_component = st.components.v2.component(
    "components.graph_view",
    # served as files (the values of poked inputs update the view several times a second, and the inline
    # code would travel with each update): graph_view.js imports drawing.js, stepper.js and the Jacobian view
    js=module_loader("graph_view/graph_view.js", styles=("graph_view/graph_view.css", jacobian_view.STYLE)),
    css=_tone_css(),
    isolate_styles=False,
)


def viz_url() -> str:
    """URL (absolute path on this server) of the vendored Graphviz; registers the asset directory."""
    return served_url(_ASSET_NAME, _VENDOR, "viz-global.js")


@st.cache_data(max_entries=32, show_spinner=False)
def program_view(program: str, _graph, _steps, stepper: bool = False, poked: tuple = (), direction: str | None = None,
                 _forward=None) -> dict:
    """explorer.program.view_data.view_data for a program's graph and steps (run with its inputs' ``poked`` values),
    cached by the program's text and the poked values (the graph and the steps follow from them; they are
    not hashed). In forward mode, ``direction`` is v's URL form and ``_forward`` the forward run along it."""
    return graph_data.view_data(_graph, _steps, stepper=stepper, forward=_forward if direction is not None else None)


def _noop() -> None:
    return None


def graph_view(
    data: dict,
    *,
    key: str,
    options: dict | None = None,
    start: int = 0,
    selected: int | None = None,
    select_seq: int = 0,
    values: dict | None = None,
    caption: str = "",
    layout_seconds: float | None = None,
    on_step: Callable[[], None] | None = None,
    on_select: Callable[[], None] | None = None,
    on_options: Callable[[], None] | None = None,
    on_jacobian: Callable[[], None] | None = None,
    predict: dict | None = None,
    on_predict: Callable[[], None] | None = None,
):
    """Show the graph view for ``data`` (explorer.program.view_data.view_data, see program_view) under ``key``.

    ``options`` is {show: parts drawn, rankdir, speed}; ``start`` the stepper's position when the view
    mounts or the program changes; ``selected`` the selected node's id, applied when the view mounts
    or ``select_seq`` grows; ``values`` (explorer.program.view_data.value_texts of a graph with the same
    shapes) retexts the boxes' data and grad in place, over the layout already drawn; so do new ``steps``
    of the same program (``data["steps"]["version"]`` changed): the stepper keeps its position.
    ``caption`` is a line shown above the graph (e.g. which step the values are from). ``layout_seconds`` is how
    long Graphviz may take over one layout (in a worker, the page responsive meanwhile; 60 s by default): past
    it the view stops it and says so. Other code in the
    page may push values and a caption too: a window event "graph-view:values" with detail
    {key: data["key"], values, caption} (see graph_view.js). The callbacks run when the browser reports a
    new step, selection or options, or asks for the Jacobian of a step's node that was not sent
    (``{"later": True}`` in the steps' ``jacobians``); ``st.session_state[key]`` then holds {step,
    selected, options, jacobian}. ``predict`` (the Stepper's Predict: {on, asks, verdicts, score}, see
    components/frontend/graph_view/predict.js) holds Next until a step's prediction is checked; ``on_predict`` runs
    when the browser sends one (state ``predict``: {step, texts, seq}). Returns the component's state.
    """
    payload = {
        **_without_layout_sent(data, key),
        "viz_url": viz_url(),
        "options": {**DEFAULT_OPTIONS, **(options or {})},
        "layouts": LAYOUTS,
        "speeds": list(SPEEDS),
        "start": int(start),
        "selected": selected,
        "select_seq": int(select_seq),
        "values": values,
        "caption": caption,
        "layout_seconds": layout_seconds,
        "selectable": on_select is not None,
        "predict": predict,  # a click selects a box only where someone hears of it
    }
    return _component(
        key=key,
        data=payload,
        on_step_change=on_step or _noop,
        on_selected_change=on_select or _noop,
        on_options_change=on_options or _noop,
        on_jacobian_change=on_jacobian or _noop,
        on_predict_change=on_predict or _noop,
        on_layout_wanted_change=_noop,
    )


def _without_layout_sent(data: dict, key: str) -> dict:
    """``data``, without its drawing (the DOT, the boxes' tooltips, the legend) when a fragment reruns with
    the program whose drawing this view already has: a dragged slider reruns the fragment around the view
    ~10 times a second with new numbers only, and the drawing was ~23 KB of each 33 KB update (micrograd).

    A full run always sends it. Within a fragment's reruns the view stays mounted, so it has what the last
    run sent; should it not (``layout_kept`` for another program), it asks (state ``layout_wanted`` grows)
    and the next run sends the drawing again.
    """
    in_fragment = in_fragment_rerun()
    asked = (st.session_state.get(key) or {}).get("layout_wanted", 0)
    sent = st.session_state.setdefault(_SENT, {})
    if in_fragment and sent.get(key) == (data.get("key"), asked):
        return {k: v for k, v in data.items() if k not in LAYOUT_PARTS} | {"layout_kept": True}
    sent[key] = (data.get("key"), asked)
    return data
