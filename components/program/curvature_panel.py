"""The Explorer's "Curvature" tab as Streamlit: H·v along a chosen v three ways with their costs, and for a few input
numbers the whole Hessian with its eigenvalues. The work runs in the sandbox (explorer/program/curvature.py); the
words, table and heatmap come from explorer/program/curvature_report.py."""

from __future__ import annotations

import streamlit as st

from components.common import session
from explorer.program import curvature, curvature_report, keys
from explorer.words import markdown_safe

ss = st.session_state
KEPT_START = {"direction": curvature.RANDOM, "element": 0}


def _kept(name: str, key: str) -> None:
    ss[keys.CURVATURE_KEPT] = {**ss.get(keys.CURVATURE_KEPT, KEPT_START), name: ss[key]}


def _widget(key: str, value) -> None:
    """The widget's value from the kept one (Streamlit drops a widget's own state while the tab is closed); written
    only when it differs, so a choice made in the browser during a run is not undone."""
    if ss.get(key) != value:
        ss[key] = value


def curvature_tab(program: str, poked: tuple) -> None:
    """The tab: v's choice, H·v three ways (the table with the hooks), their agreement, the kinks, the Hessian."""
    st.markdown(curvature_report.WHAT)
    controls = st.container()
    kept = ss.setdefault(keys.CURVATURE_KEPT, dict(KEPT_START))
    with session.failures_shown(program):
        c = session.sandboxed(curvature.curvature, program, tuple(poked), kept["direction"], int(kept["element"]))
        if c.note:
            st.info(markdown_safe(c.note), icon=":material/info:")
            return
        _controls(controls, c)
        st.caption(curvature_report.direction_text(c))
        st.html(curvature_report.curvature_html(c))
        st.caption(curvature_report.hvp_text(c))
        agreed = curvature_report.agree(c)
        (st.success if agreed else st.warning)(curvature_report.agreement_text(c),
                                               icon=":material/check:" if agreed else ":material/warning:")
        if c.kinks:
            st.warning(curvature_report.kinks_text(c), icon=":material/show_chart:")
        _hessian(c)
        st.caption(curvature_report.HOW_COUNTED)


def _controls(into, c) -> None:
    with into:
        d_col, e_col = st.columns([3, 2])
        _widget(keys.CURVATURE_DIRECTION, c.direction)
        d_col.selectbox("Direction v", curvature.DIRECTIONS, key=keys.CURVATURE_DIRECTION,
                        format_func=lambda d: curvature_report.DIRECTION_CHOICES[d], on_change=_kept,
                        args=("direction", keys.CURVATURE_DIRECTION))
        if c.direction == curvature.BASIS:
            _widget(keys.CURVATURE_ELEMENT, c.element)
            names = c.element_names
            e_col.selectbox("Input number", range(c.n), key=keys.CURVATURE_ELEMENT, format_func=lambda i: names[i],
                            on_change=_kept, args=("element", keys.CURVATURE_ELEMENT))


def _hessian(c) -> None:
    if c.hessian is None:
        st.info(markdown_safe(c.hessian_note), icon=":material/grid_off:")
        return
    st.plotly_chart(curvature_report.hessian_figure(c, st.context.theme.type == "dark"), width="stretch",
                    key=keys.CURVATURE_HESSIAN)
    st.caption(curvature_report.symmetry_text(c))
    if curvature_report.heatmap_hint(c):  # a heatmap too big for numbers in its cells: where they are
        st.caption(curvature_report.heatmap_hint(c))
    if c.eigenvalues is None:
        st.info(markdown_safe(c.hessian_note), icon=":material/warning:")
    else:
        st.markdown(curvature_report.eigen_text(c))
