"""The Explorer's "Forward vs reverse" tab as Streamlit: what the program's full Jacobian costs each way, and the
lab beside it (y = tanh(W @ x) with sliders for n and m, and the crossover plot). The work runs in the sandbox;
the words, table and plot come from explorer/program/cost_report.py."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import streamlit as st

from components.common import session
from explorer.program import cost_report, keys, mode_cost
from explorer.words import markdown_safe

ss = st.session_state
#: The lab's sliders reach this far (J is then at most 256 × 256, built both ways in ~20 ms).
LAB_MAX = 256
LAB_START = {"n": 16, "m": 64}
LAB_CODE = "y = tanh(W @ x)   # W: m × n, fixed"


def cost_tab(program: str, poked: tuple, results: Callable = contextlib.nullcontext) -> None:
    """The program's cost each way (left, in ``results()``: the page dims it while the editor's program has an
    error) and the lab (right, never dimmed: its program is its own)."""
    mine, lab = st.columns(2, gap="large")
    with mine, results():
        program_panel(program, poked)
    with lab:
        lab_panel()


def program_panel(program: str, poked: tuple) -> None:
    """Its full Jacobian built both ways (or counted only, when too big): the verdict, the table, the check."""
    st.markdown("**This program**: forward mode pushes one JVP through it per input number, reverse mode pulls "
                "one VJP back per output number.")
    with session.failures_shown(program):
        cost = session.sandboxed(mode_cost.program_cost, program, tuple(poked))
        _verdict(cost)
        st.caption(markdown_safe(cost_report.shape_text(cost)))
        st.html(cost_report.cost_html(cost, "ad-cost", "What this program's Jacobian costs each way"))
        if cost.built:
            st.caption(markdown_safe(cost_report.difference_text(cost)))
        else:
            st.info(markdown_safe(cost.note), icon=":material/straighten:")
        st.caption(cost_report.HOW_COUNTED)


ICONS = {"forward": ":material/arrow_forward:", "reverse": ":material/arrow_back:", "tie": ":material/balance:"}


def _verdict(cost: mode_cost.JacobianCost) -> None:
    st.success(markdown_safe(cost.verdict), icon=ICONS[cost.winner])


def _kept(name: str) -> None:
    ss[keys.COST_LAB] = {**ss.get(keys.COST_LAB, LAB_START), name: ss[keys.cost_size(name)]}


@st.fragment
@session.message_only
def lab_panel() -> None:
    """The lab: n and m by sliders (a move reruns only this), its cost each way, and the counted crossover."""
    st.markdown("**Lab**: a program you can see, with n and m yours to choose.")
    st.code(LAB_CODE, language="python", wrap_lines=True)
    # NOTE: kept outside the sliders' own state, which Streamlit drops while the tab is closed, and given back
    # only then: written on every run, the value went back to the browser and undid arrow keys pressed during the
    # run (4 quick presses moved n by 3 in 2 of 6 tries in Chromium; by 4 in 12 of 12 without the write).
    kept = ss.setdefault(keys.COST_LAB, dict(LAB_START))
    n_col, m_col = st.columns(2)
    for column, name, words in ((n_col, "n", "inputs (the length of x)"), (m_col, "m", "outputs (the length of y)")):
        if keys.cost_size(name) not in ss:
            ss[keys.cost_size(name)] = kept[name]
        column.slider(f"{name}: {words}", 1, LAB_MAX, key=keys.cost_size(name), on_change=_kept, args=(name,))
    n, m = kept["n"], kept["m"]
    with session.failures_shown():
        cost = session.sandboxed(mode_cost.lab_cost, n, m)
        curve = session.sandboxed(mode_cost.lab_counts, tuple(range(1, LAB_MAX + 1)), m)
        st.plotly_chart(cost_report.crossover_figure(curve, n), width="stretch", key=keys.COST_LAB_CHART)
        _verdict(cost)
        title = f"What the lab's Jacobian costs each way at n = {n}, m = {m}"
        st.html(cost_report.cost_html(cost, "ad-cost-lab", title))
