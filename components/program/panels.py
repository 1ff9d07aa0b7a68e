"""The Expression Explorer's parts as Streamlit: the program editor with its preset box, and the four tabs
docked beside the graph (the check, the node inspector, the export, forward vs reverse: cost_panel.py). The words
and numbers come from explorer/."""

from __future__ import annotations

import contextlib
import functools
import itertools

import numpy as np
import streamlit as st

from autograd.ops import PRIMITIVES
from components.common import session
from components.common.layout import dock_scrolls, graph_first_on_a_phone, pending_inspector
from components.common.link_warnings import link_warnings
from components.jacobian_view import jacobian_view
from components.poke import poke_panel
from explorer import numbers
from explorer.graph import names as graph_names
from explorer.program import check, keys, link, poke, presets, rules
from explorer.program import view_data as graph_data
from explorer.words import markdown_safe

ss = st.session_state
#: The dock beside the graph: the program (editor and sliders) first, then the four tabs that were under the graph.
PROGRAM_TAB = "Editor"  # NOTE: not "Program": the tab panel took the editor's label (get_by_label("Program"))
TABS = ("Gradients and check", "Inspect a node", "Export", "Forward vs reverse", "Curvature", "Memory")


def shared_program(params: tuple[str, ...]) -> str:
    """The program the program pages (and the race on its own program) show: the session's, or a link's
    (link.sync_program), with a warning when it is too long for an address the server accepts (said before the
    server refuses it), and one for each of the page's ``params`` the link repeats (the URL keeps the last)."""
    link_warnings(params)
    program = link.sync_program(st.session_state, st.query_params, presets.program(presets.DEFAULT))
    note = link.link_note(program)
    if note:
        st.warning(note, icon=":material/link_off:")
    return program


def poke_drawer(program: str, sliders: tuple, graph, *, key: str) -> None:
    """The sliders (components.poke.poke_panel) in a drawer over the page, as the Stepper has them: in the
    sidebar, its 300 px left the graph 482 px wide at 1280x800 (issue 29)."""
    if sliders:
        with st.popover("Poke the inputs", icon=":material/tune:"):
            poke_panel(program, sliders, graph, key=key)


def program_error(program: str, exc: Exception) -> None:
    """A program that did not run: the message with its line and column, and the line with a caret under it."""
    session.show_failure(exc, program)


def _load_default() -> None:
    ss[keys.PROGRAM] = ss[keys.EDITOR] = presets.program(presets.DEFAULT)


def nothing_drawn() -> None:
    """The graph's place when the program (a link's, on its first load) has an error and nothing ran before it:
    what to do, rather than two thirds of the page left empty."""
    st.info(NOTHING_DRAWN, icon=":material/info:")
    st.button(f"Load the example program ({presets.DEFAULT})", icon=":material/functions:", on_click=_load_default)


NOTHING_DRAWN = ("**Nothing to draw yet.** This program does not run: the message beside the editor says where. "
                 "Fix it there (Ctrl+Enter runs it), choose a preset, or start from the example; its graph, with every "
                 "node's data and grad, appears here.")


def _load_preset() -> None:
    name = ss.get(keys.PRESET)
    if name:
        ss[keys.PROGRAM] = ss[keys.EDITOR] = presets.program(name)


def _edited() -> None:
    ss[keys.PROGRAM] = ss[keys.EDITOR]


def editor(program: str) -> None:
    """The preset box and the program's text area (Ctrl+Enter runs it; the session's ``program`` follows)."""
    # NOTE: a fresh editor gets the program as its default value (so the browser shows it at once);
    # an existing one is updated through session state when the program changed elsewhere.
    default = {}
    if keys.EDITOR not in ss:
        default["value"] = program
    elif ss[keys.EDITOR] != program:
        ss[keys.EDITOR] = program
    # NOTE: the editor is code: a monospace font keeps columns (and the error caret) lined up, and a long line
    # stays one line (it scrolls sideways) rather than wrapping to read as two.
    # At 12 px and little padding a line of 60 characters fits the dock at 1280 px (issue 29: at 257 px wide
    # the editor cut `X = tensor([[0.5, -1.0], [1.5,` off at the right).
    st.html(f"<style>.st-key-{keys.EDITOR} textarea {{font-family: 'Source Code Pro', monospace; "
            "font-size: 0.75rem; line-height: 1.45; padding-left: 0.4rem; padding-right: 0.25rem; "
            "white-space: pre; overflow-wrap: normal; overflow-x: auto}}</style>")
    # NOTE: the box names the preset whose text the editor holds, however it got there (a link, the default,
    # the Stepper, typing it back); the placeholder only while the program is the user's own.
    ss[keys.PRESET] = presets.named(program)
    st.selectbox("Load a preset", presets.names(), index=None, placeholder="Choose an example program…",
                 key=keys.PRESET, on_change=_load_preset,
                 format_func=lambda name: f"{name} — {presets.description(name)}")
    st.text_area("Program", key=keys.EDITOR, on_change=_edited, height=300,
                 help="One `name = expression` per line; the last line is the output. Ctrl+Enter runs it.", **default)


def checks(analysis, sliders, poked) -> None:
    """The gradient check: its verdicts, its table and how it was made."""
    for kind, message in check.check_verdicts(analysis.checks):
        getattr(st, kind)(markdown_safe(message))
    if analysis.check_note:
        st.info(markdown_safe(analysis.check_note), icon=":material/timer:")
    # NOTE: a static table, not st.dataframe: this tab is open on the first load, and the data grid's
    # JavaScript competed with Graphviz's, delaying the graph by ~0.8 s (first load 4.1-4.5 s -> 3.4-3.7 s).
    st.table(check.check_table(list(analysis.checks)))
    at = f" Checked at the poked values ({poke.described(poked, sliders)}); Reset returns to the program's."
    st.caption(check.CHECK_CAPTION + (at if poked else ""))


def verdict(analysis, into) -> None:
    """The check's verdicts alone, in the container ``into`` under the editor: the first thing a newcomer asks is
    whether the grads are right (the tab "Gradients and check" has the table)."""
    with into.container(key=keys.RESULTS_VERDICT):  # dimmed with the graph while the editor's program is stale
        for kind, message in check.check_verdicts(analysis.checks):
            getattr(st, kind)(markdown_safe(message))
        if analysis.check_note:  # what the check's time budget left out
            st.info(markdown_safe(analysis.check_note), icon=":material/timer:")


def clicked() -> None:
    """A box clicked in the Explorer's graph: the node inspector, docked beside it, shows it (the page runs whole
    for it)."""
    ss[keys.PICKED] = ss[keys.GRAPH]["selected"]
    ss[keys.TAB] = TABS[1]  # "Inspect a node"
    ss[keys.WHOLE_RUN] = True


def options_changed() -> None:
    """The graph's options changed: kept for the next run, which runs whole (the Export tab draws with them)."""
    ss[keys.GRAPH_OPTIONS] = ss[keys.GRAPH]["options"]
    ss[keys.WHOLE_RUN] = True


def _pick_node() -> None:
    """The select box, for keyboard users: the graph's selection follows it."""
    ss[keys.PICKED] = ss[keys.NODE]
    ss[keys.SELECT_SEQ] = ss.get(keys.SELECT_SEQ, 0) + 1


def inspector(graph, steps, picked, jacobian, inspect, element=None, forward=None) -> None:
    """One node: its VJP rule (with its numbers), data, grad, heatmaps and Jacobian. ``inspect(node id, dark)``
    is its inspector.Inspection (bounded tables and heatmaps), ``jacobian(node id)`` its Jacobian view; for
    big operands, any element of an input's grad worked out (``element(node id, slot, index)``: rules.element_of).
    In forward mode (``forward``: forward_mode.ForwardRun) its JVP rule, with its numbers, and tangent too."""
    # NOTE: the pick is kept outside the widget's own state, which Streamlit drops while the tab is closed. It is
    # written only when it differs: a write sets the widget in the browser, and would undo a choice made there
    # while this run was under way (as it lost the cost lab's key presses).
    if ss.get(keys.NODE) != (want := graph.output if picked is None else picked):
        ss[keys.NODE] = want
    st.caption("Click a box in the graph, or choose it here.")
    node_id = st.selectbox("Node", [node.id for node in graph.nodes], key=keys.NODE, on_change=_pick_node,
                           format_func=lambda i: graph_names.node_choice(graph.nodes[i]))
    with st.container(key=keys.inspecting(node_id)):  # web/pending.js waits for it after a click
        _inspected(graph, steps, graph.nodes[node_id], jacobian, inspect, element, forward)


def _inspected(graph, steps, node, jacobian, inspect, element, forward) -> None:
    node_id = node.id
    if node.formula:
        st.markdown(f"**VJP of `{node.op}`** (G is the upstream grad)")
        st.code(node.formula, language=None, wrap_lines=True)
        plugged = rules.plugged_of(steps, node_id)
        if plugged:
            st.markdown("**With its numbers** (G is this node's grad)")
            st.code(plugged, language=None, wrap_lines=True)
        if plugged.startswith(rules.ELEMENT_NOTE_START) and element is not None:
            _another_element(graph, node, element)
    else:
        st.markdown(f"**{node.kind}**: a leaf, no op; its grad is the sum of what its users sent back.")
    if forward is not None and node.requires_grad:
        _forward_rule(forward, node)
    inspection = inspect(node_id, st.context.theme.type == "dark")
    d_col, g_col = st.columns(2)
    for column, title, shown in ((d_col, "data", inspection.data), (g_col, "grad", inspection.grad)):
        with column:
            st.markdown(f"**{title}**")
            if shown is None:
                st.caption("— (this tensor does not require grad)")
                continue
            st.caption(shown.summary + (f" {shown.note}" if shown.note else ""))
            st.dataframe(shown.table, width="stretch")
    st.plotly_chart(inspection.figure, width="stretch")
    if node.op and node.requires_grad:
        jacobian_view(jacobian(node_id), key=keys.JACOBIAN)


def _forward_rule(run, node) -> None:
    """Forward mode's part of the inspector: the node's JVP rule, with its numbers, and its tangent along v."""
    step = next((step for step in run.steps if step.node == node.id), None)
    if step is not None:
        st.markdown(f"**JVP of `{node.op}`** (forward mode: dA is A's tangent)")
        st.code(step.formula, language=None, wrap_lines=True)
        if step.plugged:
            st.markdown("**With its numbers**")
            st.code(step.plugged, language=None, wrap_lines=True)
    tangent = run.tangents.get(node.id)
    where = "its share of v" if step is None else "J·v at this node"
    st.markdown(f"**tangent** ({where}; {markdown_safe(run.described)})")
    st.code(numbers.array_text(tangent) if tangent is not None else "0 (no tangent reaches it)", language=None,
            wrap_lines=True)


#: Elements of one input offered by "Work out another element" (the first ones, in order).
ELEMENTS_OFFERED = 4096


def _another_element(graph, node, element) -> None:
    """A choice of any element of the grad each input receives, and its arithmetic written out."""

    names = rules.rule_slots(PRIMITIVES[node.op], len(node.parents))
    choices = [(slot, index) for slot, p in enumerate(node.parents) if graph.nodes[p].requires_grad
               for index in itertools.islice(np.ndindex(*graph.nodes[p].shape), ELEMENTS_OFFERED)]
    pick = st.selectbox("Work out another element", choices, index=None, key=keys.element(node.id),
                        placeholder="Choose an element of an input's grad…",
                        format_func=lambda c: f"d{names[c[0]]}[{', '.join(map(str, c[1]))}]")
    if pick is not None:
        st.code(element(node.id, *pick), language=None, wrap_lines=True)


def export(graph, steps, options, analysis, poked, svg_of, forward=None) -> None:
    """The graph as DOT and SVG (``svg_of(dot)``, None without Graphviz), in forward mode (``forward``) with its
    tangents, and the program as Python."""
    st.caption("Take the graph or the program elsewhere (drawn with the parts and direction chosen above).")
    dot = graph_data.download_dot(graph, steps, options, forward)
    e1, e2, e3 = st.columns(3)
    download = ":material/download:"
    e1.download_button("DOT (Graphviz)", dot, file_name="autograd-graph.dot", mime="text/vnd.graphviz", icon=download)
    with session.failures_shown(into=e2):  # past its limits, Graphviz's drawing is a message in its column
        svg = svg_of(dot)
        if svg is None:
            e2.caption("SVG export needs Graphviz's `dot` program (apt-get install graphviz).")
        else:
            e2.download_button("SVG picture", svg, file_name="autograd-graph.svg", mime="image/svg+xml",
                               icon=download)
    e3.download_button("As Python", analysis.python, file_name="program.py", mime="text/x-python", icon=download)
    if poked:
        st.caption("The script has the program's own values; the poked ones are in this page's link.")
    with st.expander("The program as Python"):
        st.code(analysis.python, language="python")


def dock() -> tuple[list, object]:
    """(the tabs, the graph's column): the page's two columns, and in the first the tabs beside the graph (a
    presenter's 1280x800 shows them and the graph at once, a click on a box opens the inspector there without
    scrolling): the program's, then TABS. The program's tab is always drawn (its editor and sliders keep their
    state when another tab is open); the others run only when open. On a phone the graph comes first."""
    graph_first_on_a_phone(keys.BODY)
    dock_scrolls(keys.DOCK)
    with st.container(key=keys.BODY):
        left, right = st.columns([0.37, 0.63], gap="small")  # at 1280 px: 60 columns of program, a 776 px graph
    with left, st.container(key=keys.DOCK):
        return st.tabs((PROGRAM_TAB, *TABS), key=keys.TAB, on_change="rerun"), right


def tabs(docked, show_checks, show_node, show_export, show_cost, show_curvature, show_memory, stale: bool) -> None:
    """The tabs (``docked``: dock()'s after the program's); only the open one runs. ``stale``: what they
    show is the last program that ran (the editor's has an error), which a note says and which is dimmed with
    the graph (keys explorer_results_*)."""
    # NOTE: only the open tab runs (on_change="rerun"): the node inspector's Plotly heatmap, the export's
    # SVG and the highlighted code are not built, sent or loaded by the browser until someone asks for them.
    # Each tab draws in `results` (dimmed while stale), but the cost tab's lab runs a program of the learner's own,
    # not the editor's: show_cost is given `results` for its other half.
    results = functools.partial(st.container, key=keys.RESULTS_TAB)
    shows = ((show_checks, results), (show_node, results), (show_export, results),
             (lambda: show_cost(results), contextlib.nullcontext), (show_curvature, results), (show_memory, results))
    for tab, (show, within) in zip(docked, shows):
        if tab.open and show is not None:
            with tab:
                if stale:
                    st.caption(link.STALE_NOTE)
                with within(), session.failures_shown():
                    show()
    pending_inspector(keys.DOCK, keys.INSPECTING)  # a click on a box: "Inspecting node N…" until it is shown
    if stale:  # NOTE: dimmed by their keys, so nothing is remounted: the graph is not laid out again
        st.html(f"<style>[class*='st-key-{keys.RESULTS}'] {{opacity: 0.45}}</style>")
