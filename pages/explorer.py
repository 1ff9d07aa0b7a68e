"""Expression Explorer: type a program of tensors, see its graph with every data and grad, check the grads."""

import functools

import streamlit as st

from components.common import session
from components.common.entry import through_app
from components.common.layout import header
from components.graph_view import graph_view, program_view
from components.poke import full_run_wanted, poke_panel, synced
from components.program import backward, cost_panel, curvature_panel, intervene, memory, modes, panels, saturation
from explorer.graph import names
from explorer.graph.svg import to_svg
from explorer.program import forward_mode, inspector, jacobian_view, keys, link, page_data, rules, view_data

through_app()
ss = st.session_state

# Each in a worker process, limited and cancellable (common/session.py): a node's Jacobian, element, inspector, SVG.
jacobian_of, element_of, inspected, svg_of = (functools.partial(session.sandboxed, fn) for fn in (
    jacobian_view.node_jacobian, rules.element_of, inspector.inspect_node, to_svg))  # to_svg: Graphviz's dot, limited


header(
    "Expression Explorer",
    "Write a small program of tensors and see its graph: every node's data and grad, checked by finite differences.",
    "Drag an input's slider and watch every number move; click a box to inspect its node, with the Jacobian its "
    "VJP never builds. The URL keeps the program and the poked values.",
    presenter=True,
)

program = panels.shared_program(link.PAGE_PARAMS["explorer"])
st.query_params.pop("step", None)  # the Backward Stepper's position means nothing here
direction = modes.wanted()  # None: reverse mode; forward mode's v otherwise
run_of = functools.partial(modes.sandboxed, page_data.explorer_run, direction)
stepped = functools.partial(modes.sandboxed, page_data.drag_run, direction)


@st.fragment
@session.message_only
def live(shown, sliders, picked, left, right):
    """The sliders and the graph (of ``shown``'s own numbers, laid out once): a slider's move reruns only this,
    and the graph retexts in place."""
    if full_run_wanted() or ss.pop(keys.WHOLE_RUN, False):
        st.rerun()  # the values settled, or a click or a toggle: the tabs below follow
    with session.failures_shown(into=right):  # a busy sandbox: its words, here and in the sliders' column
        page_run = run_of(shown)  # from the sandbox's cache: the fragment keeps only text between runs
        graph, now = page_run.graph, ss.get(keys.POKED, ())
        if not now:
            poked = page_run
        elif now == ss.get(keys.SETTLED):  # the page run's own evaluation, at its values
            poked = run_of(shown, now)
        else:  # a drag's values: the graph alone (and the forward pass), one evaluation per move
            poked = stepped(shown, now)
        with left, session.failures_shown():
            poke_panel(shown, sliders, poked.graph, key=keys.POKE)
        if not backward.drawn(shown, now, right):  # NOTE: not `a or b`: Streamlit's magic writes such a value
            _graph(shown, graph, page_run, picked, right, poked if now else None)


def _graph(shown, graph, page_run, picked, right, poked) -> None:
    drawn, marked = intervene.on_graph(shown, graph, page_run, poked)  # the interventions' run, if any applied
    with right, st.container(key=keys.RESULTS_GRAPH):
        if page_run.forward is not None:  # where the two modes meet, over the tangents drawn
            modes.meeting((poked or page_run).forward)
        graph_view(marked(program_view(shown, graph, page_run.steps, direction=direction, _forward=page_run.forward)),
                   key=keys.GRAPH, options=ss.get(keys.GRAPH_OPTIONS, {}), selected=picked,
                   select_seq=ss.get(keys.SELECT_SEQ, 0), on_select=panels.clicked, on_options=panels.options_changed,
                   values=view_data.value_texts(drawn) if drawn is not None else None)


@session.message_only
def page() -> None:
    """The page below the title. NOTE: a function, so that the program's graph, steps and check are its
    locals: a page's namespace outlives its run (its callbacks and fragment refer to it), and a closed tab's
    session holding them kept +336 MB per 8M-number program until Streamlit let the session go."""
    docked, right = panels.dock()
    left = docked[0]  # the program's tab: the editor, then the check's verdict and the sliders
    with left:
        panels.editor(program)
        verdict = st.empty()
        shown = program
        try:
            page_run = run_of(program)  # graph, steps, sliders and check in one evaluation (page_data.py)
            ss[keys.LAST_GOOD] = program
        except Exception as exc:  # noqa: BLE001 - ExpressionError or anything else: a message, never a traceback
            panels.program_error(program, exc)
            shown = ss.get(keys.LAST_GOOD)
            if shown is None:
                with right:
                    panels.nothing_drawn()
                st.stop()
            with session.failures_shown(stop=True):
                page_run = run_of(shown)
        with session.failures_shown(stop=True):
            sliders, poked = synced(shown, page_run.sliders)
        graph = page_run.graph

    stale = shown != program  # the editor's program has an error: everything drawn below is the last that ran
    picked = ss.get(keys.PICKED)  # a node clicked or chosen, if this graph has it
    picked = picked if picked in range(len(graph.nodes)) else None
    with left:  # under the editor: the graph's column is the graph's
        modes.switch("explorer", forward_mode.input_shapes(graph))
        backward.switch(graph)  # "Show the backward as a graph" (issue 32)
        note = st.empty()
        if stale:
            note.caption(link.STALE_NOTE)

    failure = None
    ss[keys.SETTLED] = None  # the poked values this run evaluated (live's graph takes them from it)
    try:
        page_run = run_of(shown, poked) if poked else page_run  # the numbers the graph and the tabs below show
        ss[keys.SETTLED] = poked
    except Exception as exc:  # noqa: BLE001 - the program's graph is drawn; this is a message, never a traceback
        failure = exc
    live(shown, sliders, picked, left, right)
    with left:  # under the sliders: for a program with a softmax, its logits' scale (issue 35)
        saturation.saturation_panel(shown, poked, graph)
    with right:  # under the graph; the same for any poked numbers, so not rerun with them
        st.caption(names.graph_caption(graph, view_data.MAX_DRAWN) + link.practise_this(shown))
    if failure is not None:
        session.show_failure(failure, into=note)  # the graph is drawn; the rest says why it stopped
        st.stop()
    graph, steps, analysis = page_run.graph, page_run.steps, page_run.analysis
    if analysis.note and not stale:
        note.info(analysis.note, icon=":material/info:")

    panels.verdict(analysis, into=verdict)
    backward.tabs(panels.tabs, shown, poked)(  # the backward's boxes: its inspector and export (issue 32)
        docked[1:], lambda: panels.checks(analysis, sliders, poked),
        lambda: (panels.inspector(graph, steps, picked, lambda node: jacobian_of(shown, poked, node),
                                  lambda node, dark: inspected(shown, poked, node, dark),
                                  lambda node, slot, index: element_of(shown, poked, node, slot, index),
                                  page_run.forward), intervene.intervention_panel(shown, graph)),  # then, below
        lambda: panels.export(graph, steps, ss.get(keys.GRAPH_OPTIONS, {}), analysis, poked, svg_of, page_run.forward),
        functools.partial(cost_panel.cost_tab, shown, poked),
        functools.partial(curvature_panel.curvature_tab, shown, poked),
        functools.partial(memory.memory_tab, shown, poked, graph, page_run, direction), stale=stale)


page()
