"""Expression Explorer: type a program of tensors, see its graph with every data and grad, check the grads."""

import functools

import streamlit as st

from components import session
from components.entry import through_app
from components.graph_view import graph_view, program_view
from components.jacobian_view import jacobian_view
from components.poke import full_run_wanted, poke_panel, synced
from explorer import explain, graph_data, poke, presets
from explorer.dot import to_svg
from explorer.formatting import heatmap_figure, markdown_safe
from explorer.jacobian_view import node_jacobian

through_app()

# A worker process each, limited and cancellable (components/session.py); graph first, then the check.
analyse = functools.partial(session.sandboxed, explain.analyse_program)
stepped = functools.partial(session.sandboxed, explain.step_program)
jacobian_of = functools.partial(session.sandboxed, node_jacobian)
svg_of = st.cache_data(max_entries=16, show_spinner=False)(to_svg)


st.title("Expression Explorer")
st.caption(
    "Write a small program of tensors and see its graph: every node's data and grad, "
    "each variable's grad checked by finite differences. Drag an input's slider and watch every number move; "
    "inspect a node for the Jacobian its VJP never builds. The URL keeps the program and the poked values."
)

program = explain.sync_program(st.session_state, st.query_params, presets.program(presets.DEFAULT))
if explain.link_note(program):  # too long for an address the server accepts: say so before it refuses
    st.warning(explain.link_note(program), icon=":material/link_off:")
st.query_params.pop("step", None)  # the Backward Stepper's position means nothing here
# NOTE: a fresh editor gets the program as its default value (so the browser shows it at once);
# an existing one is updated through session state when the program changed elsewhere.
editor_default = {}
if "explorer_editor" not in st.session_state:
    editor_default["value"] = program
elif st.session_state["explorer_editor"] != program:
    st.session_state["explorer_editor"] = program


def load_preset():
    name = st.session_state.get("explorer_preset")
    if name:
        st.session_state["program"] = presets.program(name)
        st.session_state["explorer_editor"] = presets.program(name)


def edited():
    st.session_state["program"] = st.session_state["explorer_editor"]


def clicked():
    """A box clicked in the graph: the node inspector shows it (the page runs whole for it)."""
    st.session_state["explorer_picked"] = st.session_state["explorer_graph"]["selected"]
    st.session_state["explorer_tab"] = "Inspect a node"
    st.session_state["explorer_whole_run"] = True


def view_changed():
    st.session_state["graph_view"] = st.session_state["explorer_graph"]["view"]
    st.session_state["explorer_whole_run"] = True  # the Export tab draws with it


# NOTE: the editor is code: a monospace font keeps columns (and the error caret) lined up.
st.html(
    "<style>.st-key-explorer_editor textarea {font-family: 'Source Code Pro', monospace; font-size: 0.85rem}</style>"
)

left, right = st.columns([1, 2], gap="medium")

# NOTE: the box names the preset whose text the editor holds, however it got there (a link, the default, the
# Stepper, typing it back); the placeholder only while the program is the user's own.
st.session_state["explorer_preset"] = presets.named(program)
with left:
    st.selectbox(
        "Load a preset",
        presets.names(),
        index=None,
        placeholder="Choose an example program…",
        key="explorer_preset",
        on_change=load_preset,
        format_func=lambda name: f"{name} — {presets.description(name)}",
    )
    st.text_area(
        "Program",
        key="explorer_editor",
        on_change=edited,
        height=300,
        help="One `name = expression` per line; the last line is the output. Ctrl+Enter runs it.",
        **editor_default,
    )

    # NOTE: the graph comes from the backward pass alone, so it is drawn before the gradient check runs.
    shown = program
    try:
        graph, steps = stepped(program)
        st.session_state["explorer_last_good"] = program
    except Exception as exc:  # noqa: BLE001 - ExpressionError or anything else: a message, never a traceback
        message, caret = explain.error_report(program, exc)
        st.error(markdown_safe(message), icon=":material/error:")
        if caret:
            st.code(caret, language=None)
        shown = st.session_state.get("explorer_last_good")
        if shown is None:
            st.stop()
        graph, steps = stepped(shown)

with left:
    knobs, poked = synced(shown)

stale = shown != program  # the editor's program has an error: everything drawn below is the last that ran
picked = st.session_state.get("explorer_picked")  # a node clicked or chosen, if this graph has it
picked = picked if picked in range(len(graph.nodes)) else None
with right:
    note = st.empty()
    if stale:
        note.caption(explain.STALE_NOTE)


@st.fragment
def live(shown, graph, steps, knobs, picked):
    """The sliders and the graph (of ``shown``'s own numbers, laid out once): a slider's move reruns only this,
    and the graph retexts in place."""
    if full_run_wanted() or st.session_state.pop("explorer_whole_run", False):
        st.rerun()  # the values settled, or a click or a toggle: the tabs below follow
    now = st.session_state.get("poked", ())
    poked_graph, _ = stepped(shown, now) if now else (graph, steps)
    with left:
        poke_panel(shown, knobs, poked_graph, key="explorer_poke")
    with right, st.container(key="explorer_results_graph"):
        graph_view(
            program_view(shown, graph, steps),
            key="explorer_graph",
            view=st.session_state.get("graph_view", {}),
            selected=picked,
            select_seq=st.session_state.get("explorer_select_seq", 0),
            values=graph_data.value_texts(poked_graph) if now else None,
            on_select=clicked,
            on_view=view_changed,
        )


live(shown, graph, steps, knobs, picked)
with right:  # under the graph; the same for any poked numbers, so not rerun with them
    caption = f"{explain.counted(len(graph.nodes), 'tensor')}, {explain.counted(len(graph.edges), 'edge')}."
    if len(graph.nodes) > graph_data.MAX_DRAWN:
        caption += (
            f" Too many to read at once: chains of elementwise ops are collapsed and at most {graph_data.MAX_DRAWN}"
            " boxes nearest the output are drawn (the downloads hold the same picture)."
        )
    st.caption(caption)
view = st.session_state.get("graph_view", {})
graph, steps = stepped(shown, poked) if poked else (graph, steps)  # the numbers the tabs below show

try:
    analysis = analyse(shown, poked)
except Exception as exc:  # noqa: BLE001 - the graph is drawn; the check's failure is a message, never a traceback
    note.error(markdown_safe(explain.error_report(shown, exc)[0]), icon=":material/error:")
    st.stop()
if analysis.note and not stale:
    note.info(analysis.note, icon=":material/info:")


def show_checks():
    rows = analysis.checks
    checked = [r for r in rows if r.ok is not None]
    if checked and all(r.ok for r in checked):
        inputs = "The input matches" if len(checked) == 1 else f"All {len(checked)} inputs match"
        st.success(f"{inputs} central differences (float64, eps = 1e-6).")
    not_finite = ", ".join(r.name for r in checked if not r.ok and not r.finite)
    kinked = ", ".join(r.name for r in checked if not r.ok and r.finite)
    if not_finite:
        st.warning(markdown_safe(
            f"Not a finite number (nan or inf) for: {not_finite}. The program divides by zero, takes log or "
            "sqrt of a value ≤ 0, or overflows somewhere; there is no slope to compare there."
        ))
    if kinked:
        st.warning(markdown_safe(
            f"The numerical check disagrees for: {kinked}. Where an input sits on a kink (relu of exactly 0, "
            "abs of 0, a tie in max) the two one-sided slopes differ: backward() takes relu'(0) = 0, "
            "central differences average the two sides."
        ))
    if analysis.check_note:
        st.info(markdown_safe(analysis.check_note), icon=":material/timer:")
    # NOTE: a static table, not st.dataframe: this tab is open on the first load, and the data grid's
    # JavaScript competed with Graphviz's, delaying the graph by ~0.8 s (first load 4.1-4.5 s -> 3.4-3.7 s).
    st.table(explain.check_table(list(rows)))
    st.caption(
        "grad: what backward() gave (seeded with ones). numerical grad: (f(x + ε) − f(x − ε)) / 2ε per element "
        "of each input, ε = 1e-6; pass when |error| ≤ 1e-5 + 1e-4·|numerical|. Variables that are not inputs "
        "show their grad only."
        + (f" Checked at the poked values ({poke.described(poked, knobs)}); Reset returns to the program's." if poked
           else "")
    )


def pick_node():
    """The select box, for keyboard users: the graph's selection follows it."""
    st.session_state["explorer_picked"] = st.session_state["explorer_node"]
    st.session_state["explorer_select_seq"] = st.session_state.get("explorer_select_seq", 0) + 1


def show_node():
    # NOTE: the pick is kept outside the widget's own state, which Streamlit drops while the tab is closed.
    st.session_state["explorer_node"] = graph.output if picked is None else picked
    st.caption("Click a box in the graph, or choose it here.")
    node_id = st.selectbox(
        "Node",
        [node.id for node in graph.nodes],
        key="explorer_node",
        on_change=pick_node,
        format_func=lambda i: explain.node_choice(graph.nodes[i]),
    )
    node = graph.nodes[node_id]
    if node.formula:
        st.markdown(f"**VJP of `{node.op}`** (G is the upstream grad)")
        st.code(node.formula, language=None, wrap_lines=True)
        if explain.plugged_of(steps, node_id):
            st.markdown("**With its numbers** (G is this node's grad)")
            st.code(explain.plugged_of(steps, node_id), language=None, wrap_lines=True)
    else:
        st.markdown(f"**{node.kind}**: a leaf, no op; its grad is the sum of what its users sent back.")
    d_col, g_col = st.columns(2)
    with d_col:
        st.markdown("**data**")
        st.dataframe(explain.as_table(node.data), width="stretch")
    with g_col:
        st.markdown("**grad**")
        if node.grad is None:
            st.caption("— (this tensor does not require grad)")
        else:
            st.dataframe(explain.as_table(node.grad), width="stretch")
    dark = st.context.theme.type == "dark"
    st.plotly_chart(heatmap_figure(node.data, node.grad, explain.node_label(node), dark=dark), width="stretch")
    if node.op and node.requires_grad:
        jacobian_view(jacobian_of(shown, poked, node_id), key="explorer_jacobian")


def show_export():
    st.caption("Take the graph or the program elsewhere (drawn with the parts and direction chosen above).")
    dot = graph_data.download_dot(graph, steps, view)
    e1, e2, e3 = st.columns(3)
    download = ":material/download:"
    e1.download_button("DOT (Graphviz)", dot, file_name="autograd-graph.dot", mime="text/vnd.graphviz", icon=download)
    svg = svg_of(dot)
    if svg is None:
        e2.caption("SVG export needs Graphviz's `dot` program (apt-get install graphviz).")
    else:
        e2.download_button("SVG picture", svg, file_name="autograd-graph.svg", mime="image/svg+xml", icon=download)
    e3.download_button(
        "As Python", analysis.python, file_name="program.py", mime="text/x-python", icon=download
    )
    if poked:
        st.caption("The script has the program's own values; the poked ones are in this page's link.")
    with st.expander("The program as Python"):
        st.code(analysis.python, language="python")


# NOTE: only the open tab runs (on_change="rerun"): the node inspector's Plotly heatmap, the export's
# SVG and the highlighted code are not built, sent or loaded by the browser until someone asks for them.
tabs = st.tabs(["Gradients and check", "Inspect a node", "Export"], key="explorer_tab", on_change="rerun")
for tab, show in zip(tabs, (show_checks, show_node, show_export)):
    if tab.open:
        with tab:
            if stale:
                st.caption(explain.STALE_NOTE)
            with st.container(key="explorer_results_tab"):
                show()
if stale:  # NOTE: dimmed by their keys, so nothing is remounted: the graph is not laid out again
    st.html("<style>[class*='st-key-explorer_results'] {opacity: 0.45}</style>")
