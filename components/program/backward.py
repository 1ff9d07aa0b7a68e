"""The Explorer's "Show the backward as a graph" (issue 32): the switch, "differentiate again", the graph of both
passes drawn by the graph view, and the second-order grads. Its data comes from explorer/program/backward_view.py."""

from __future__ import annotations

import numpy as np
import streamlit as st

from components.common import session
from components.common.link_warnings import say_ignored
from components.common.st_internals import get_script_run_ctx
from components.graph_view import graph_view
from components.program import panels
from explorer import links, numbers
from explorer.program import backward_view, keys
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
                   values=values, caption=data["cut"])
        st.caption(markdown_safe(data["sentence"]))
        if again:
            with session.failures_shown():
                # NOTE: a slider's drag reruns only the fragment, ~10 times a second: central differences (2 programs
                # per input number) wait for the drag to end, when the page runs whole
                second_order(session.sandboxed(backward_view.second_order, program, tuple(poked), again,
                                               not _in_fragment()))
    return True


def _in_fragment() -> bool:
    ctx = get_script_run_ctx(suppress_warning=True)
    return bool(ctx is not None and ctx.fragment_ids_this_run)


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
