"""The Jacobian view on its own (the Explorer's node inspector): an `st.components.v2` component drawing
explorer.program.jacobian_view.view_data with jacobian.js, in the active theme's colours. The Backward Stepper
shows the same drawing in its panel (components/graph_view puts jacobian.js and jacobian.css in its own
module), so there is one drawing of a Jacobian.
"""

from __future__ import annotations

import streamlit as st

from components.common.assets import module_loader

#: The view's style sheet, relative to assets.CODE_DIR (the graph view adds it too, for the stepper's panel)
STYLE = "jacobian_view/jacobian.css"


_component = st.components.v2.component(
    "components.jacobian_view", js=module_loader("jacobian_view/mount.js", styles=(STYLE,)),
    isolate_styles=False,
)


def jacobian_view(data: dict, *, key: str) -> None:
    """Show one op node's Jacobian view (explorer.program.jacobian_view.view_data) under ``key``."""
    _component(key=key, data=data)
