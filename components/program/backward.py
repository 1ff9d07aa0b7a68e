"""The Explorer's "Show the backward as a graph" (issue 32): the switch, "differentiate again", the graph of both
passes drawn by the graph view, and the second-order grads. Its data comes from explorer/program/backward_view.py."""

from __future__ import annotations

import functools

import numpy as np
import streamlit as st

from components.common import session
from components.common.link_warnings import say_ignored
from components.common.st_internals import in_fragment_rerun
from components.graph_view import graph_view
from components.program import panels
from explorer import links, numbers
from explorer.graph import dot as dotmod
from explorer.graph.svg import to_svg
from explorer.program import backward_view, backward_walk, keys, link
from explorer.words import clip_text, markdown_safe

ss = st.session_state
NONE = ""
FD_LATER = "when the drag ends"


def _read_link() -> bool:
    """A link's ``backward`` and ``again`` (ones this session did not write) win over the session's; True if it did."""
    given = tuple(st.query_params.get(name) for name in backward_view.PARAMS)
    if not links.link_wins(ss, "backward", given):
        return False
    settings, problems = backward_view.settings_of(
        {name: value for name, value in zip(backward_view.PARAMS, given) if value is not None})
    ss[keys.BACKWARD], ss[keys.BACKWARD_AGAIN] = settings.backward, settings.again
    say_ignored(problems)
    return True


def _write_link() -> None:
    settings = backward_view.BackwardSettings(bool(ss.get(keys.BACKWARD)), ss.get(keys.BACKWARD_AGAIN) or NONE)
    query = backward_view.query_of(settings)
    for name in backward_view.PARAMS:
        if name in query:
            st.query_params[name] = query[name]
        else:
            st.query_params.pop(name, None)
    links.wrote(ss, "backward", tuple(query.get(name) for name in backward_view.PARAMS))


def _whole_run() -> None:
    ss[keys.WHOLE_RUN] = True


def switch(graph) -> None:
    """The switch, under the mode switch, and with it on "differentiate again" over the program's leaves (of
    ``graph``, the traced forward). Reverse mode only: forward mode draws tangents, not a backward."""
    linked = _read_link()
    forward = ss.get(keys.AD_MODE) == "forward"
    leaves = [n.name for n in graph.nodes if n.kind in ("input", "param") and n.name]
    st.toggle("Show the backward as a graph", key=keys.BACKWARD, disabled=forward, on_change=_whole_run,
              help="Draw what backward() computes as a graph of its own: the forward pass, and in red the nodes "
                   "the backward pass made from the same primitives (G ⊙ B, Gᵀ @, sum-to-shape, …), each leaf's "
                   "grad an output. " + ("Reverse mode only." if forward else ""))
    if ss.get(keys.BACKWARD) and not forward:
        choices = [NONE] + leaves + ([backward_view.ALL] if len(leaves) > 1 else [])
        if ss.get(keys.BACKWARD_AGAIN) not in choices:
            if linked:
                say_ignored([f"`again={clip_text(str(ss.get(keys.BACKWARD_AGAIN)))}` is not a leaf with a grad in "
                             f"this program ({', '.join(choices[1:]) or 'it has none'}): differentiated nothing again"])
            ss[keys.BACKWARD_AGAIN] = NONE
        st.selectbox("Differentiate again", choices, key=keys.BACKWARD_AGAIN, on_change=_whole_run,
                     format_func=_again_label,
                     help="Take one input's grad, summed (Σ grad · u with u all ones), as a new output and run its "
                          "backward through both layers: its grads are second derivatives (H·u).")
    _write_link()


def _again_label(choice: str) -> str:
    if choice == NONE:
        return "no: the first backward"
    if choice == backward_view.ALL:
        return "Σ of every leaf's grad · ones"
    return f"Σ grad {choice} · ones"


def shown() -> bool:
    return bool(ss.get(keys.BACKWARD)) and ss.get(keys.AD_MODE) != "forward"


def drawn(program: str, poked: tuple, right) -> bool:
    """With the switch on, the backward's graph in the graph's place (``right``), its sentence under it and, after
    differentiating again, the second-order grads; True if it drew (the page's graph is then not drawn)."""
    if not shown():
        return False
    again = ss.get(keys.BACKWARD_AGAIN) or NONE
    data = values = None
    with right, session.failures_shown():  # a busy sandbox, a limit: its words where the graph goes
        data, values = session.sandboxed(backward_view.poked_view, program, tuple(poked), again)
    if data is None:
        return True
    if "none" in data:  # nothing requires grad: said, and the forward graph drawn as without the switch
        right.info(markdown_safe(data["none"]), icon=":material/info:")
        return False
    with right, st.container(key=keys.RESULTS_GRAPH):
        graph_view(data, key=keys.GRAPH, options=ss.get(keys.GRAPH_OPTIONS, {}), on_options=panels.options_changed,
                   values=values, caption=data["cut"], selected=picked_box(program, again),
                   select_seq=ss.get(keys.SELECT_SEQ, 0), on_select=_clicked)
        st.caption(markdown_safe(data["sentence"]))
        if again:
            step_link(program, again)
            with session.failures_shown():
                # NOTE: a slider's drag reruns only the fragment, ~10 times a second: central differences (2 programs
                # per input number) wait for the drag to end, when the page runs whole
                second_order(session.sandboxed(backward_view.second_order, program, tuple(poked), again,
                                               not in_fragment_rerun()))
    return True


def second_order(result) -> None:
    """The second-order grads, each beside autograd.grad(create_graph=True) twice and central differences."""
    with st.container(key=keys.BACKWARD_SECOND):
        st.markdown(f"**Differentiated again: the grads of {markdown_safe(result.output)}** (second derivatives)")
        rows = []
        small = sum(np.size(v) for _, v, _, _ in result.rows) <= backward_view.FD_MOST
        unchecked = FD_LATER if small else "too many inputs"
        for name, value, twice, fd in result.rows:
            rows.append({"leaf": name, "grad of the grad": numbers.compact(value),
                         "autograd.grad twice": numbers.compact(twice),
                         "central differences": numbers.compact(fd) if fd is not None else unchecked})
        st.dataframe(rows, hide_index=True, width="stretch")
        scale = max((float(np.max(np.abs(v), initial=0.0)) for _, v, _, _ in result.rows), default=0.0)
        said = f"Largest difference from autograd.grad twice: {numbers.compact(np.array(result.worst_twice))}"
        if result.worst_fd is not None:
            fd, top = numbers.compact(np.array(result.worst_fd)), numbers.compact(np.array(scale))
            said += f"; from central differences of the first-order grads: {fd} (of values up to {top})"
        st.caption(said + ".")


# ----------------------------------------------------------------------------- to the Stepper, the inspector, export


def step_link(program: str, again: str) -> None:
    """"Step through this backward": the Stepper on the backward of Σ grad ``again`` (its link carries the program,
    the poked values and the choice, so a reload or a shared link walks the same; a program too long for a link
    travels in the session)."""
    query = {"again": again}
    if link.link_length(program) <= link.LINK_LIMIT:
        query["program"] = program
    if st.query_params.get("poke"):
        query["poke"] = st.query_params["poke"]
    st.page_link("pages/stepper.py", label="Step through this backward", icon=":material/step_over:",
                 query_params=query,
                 help="Open the Backward Stepper on it: the seed, each node's VJP and the summed fan-out, step by "
                      "step through both layers, as it walks any backward.")


def picked_box(program: str, again: str) -> int | None:
    """The box of the backward graph clicked or chosen, if it was of this drawing (the program and the grad
    differentiated again: another choice draws other boxes under the same ids)."""
    ss[keys.BACKWARD_DRAWING] = (program, again)
    picked = ss.get(keys.BACKWARD_PICKED)
    return picked[2] if isinstance(picked, tuple) and picked[:2] == (program, again) else None


def _clicked() -> None:
    """A box of the backward graph clicked: the inspector, docked beside it, shows it (the page runs whole)."""
    ss[keys.BACKWARD_PICKED] = (*ss[keys.BACKWARD_DRAWING], ss[keys.GRAPH]["selected"])
    ss[keys.TAB] = panels.TABS[1]  # "Inspect a node"
    ss[keys.WHOLE_RUN] = True


def _picked() -> None:
    ss[keys.BACKWARD_PICKED] = (*ss[keys.BACKWARD_DRAWING], ss[keys.BACKWARD_NODE])
    ss[keys.SELECT_SEQ] = ss.get(keys.SELECT_SEQ, 0) + 1


def tabs(show_tabs, program: str, poked: tuple):
    """``show_tabs`` (panels.tabs) with, while the backward is shown as a graph, its boxes' inspector in "Inspect a
    node" and its DOT and SVG in "Export" (the forward graph's and the program's downloads under them)."""
    if not shown():
        return show_tabs

    def with_backward(docked, show_checks, show_node, show_export, *rest, **options):
        return show_tabs(docked, show_checks, functools.partial(inspector, program, tuple(poked), show_node),
                         functools.partial(export, program, tuple(poked), show_export), *rest, **options)
    return with_backward


def inspector(program: str, poked: tuple, otherwise) -> None:
    """One box of the backward graph: its layer, op, VJP formula, inputs, value and, differentiated again, its grad
    from that second backward. A program with no backward: ``otherwise`` (the forward graph's inspector)."""
    again = ss.get(keys.BACKWARD_AGAIN) or NONE
    try:
        box = session.sandboxed(backward_walk.inspect_box, program, poked, again, picked_box(program, again))
    except backward_view.NoBackward:
        otherwise()
        return
    ids = [i for i, _ in box["choices"]]
    lines = dict(box["choices"])
    if ss.get(keys.BACKWARD_NODE) != box["box"]:
        ss[keys.BACKWARD_NODE] = box["box"]
    st.caption("Click a box of the backward graph, or choose it here.")
    st.selectbox("Node", ids, key=keys.BACKWARD_NODE, on_change=_picked, format_func=lambda i: lines.get(i, str(i)))
    with st.container(key=keys.inspecting(box["box"])):  # web/pending.js waits for it after a click
        st.markdown(f"**{markdown_safe(box['heading'])}**: {markdown_safe(box['layer'])} made it "
                    f"(data-order {box['order']}), {markdown_safe(box['shape'])}")
        if box["op"]:
            st.markdown(f"**VJP of `{box['op']}`** (G is the upstream grad)")
            st.code(box["formula"], language=None, wrap_lines=True)
            st.markdown("**Inputs**")
            st.code("\n".join(box["inputs"]), language=None)
        else:
            st.markdown(f"**{box['kind']}**: a leaf of this graph, no op.")
        value, grad = st.columns(2) if again else (st.container(), None)
        value.markdown("**value**")
        value.code(box["value"], language=None, wrap_lines=True)
        if again:
            grad.markdown("**grad** (second backward)", help=f"Its grad in the backward of "
                          f"{box['output'] or 'Σ grad ' + again}: what the Stepper's walk of it ends in.")
            grad.code(box["grad"] if box["grad"] is not None else box["grad_note"], language=None, wrap_lines=True)


def export(program: str, poked: tuple, otherwise) -> None:
    """The backward as a graph, as DOT and SVG (every box, with the parts and direction chosen above); then
    ``otherwise`` (the forward graph's and the program's downloads), in an expander."""
    again = ss.get(keys.BACKWARD_AGAIN) or NONE
    try:
        options = ss.get(keys.GRAPH_OPTIONS) or {}
        dot = session.sandboxed(backward_walk.download_dot, program, poked, again,
                                tuple(options.get("show", dotmod.PARTS)), str(options.get("rankdir", "TB")))
    except backward_view.NoBackward:
        otherwise()
        return
    st.caption("The backward as a graph, as shown (every box, drawn with the parts and direction chosen above).")
    e1, e2 = st.columns(2)
    download = ":material/download:"
    e1.download_button("DOT (Graphviz)", dot, file_name="autograd-backward-graph.dot", mime="text/vnd.graphviz",
                       icon=download, key=keys.BACKWARD_DOT)
    with session.failures_shown(into=e2):  # past its limits, Graphviz's drawing is a message in its column
        svg = session.sandboxed(to_svg, dot)
        if svg is None:
            e2.caption("SVG export needs Graphviz's `dot` program (apt-get install graphviz).")
        else:
            e2.download_button("SVG picture", svg, file_name="autograd-backward-graph.svg", mime="image/svg+xml",
                               icon=download, key=keys.BACKWARD_SVG)
    with st.expander("The forward graph and the program"):
        otherwise()
