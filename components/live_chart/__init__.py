"""A Plotly chart that redraws in place (Plotly.react on one div) for live training pictures.

`st.plotly_chart` remounts the chart for every new figure, which blanks it for a moment
(TESTING.md, "Live animation"). This `st.components.v2` component keeps one div and calls
`Plotly.react` on it. plotly.js is served by this Streamlit server from the plotly wheel's own
`package_data/plotly.min.js` (no CDN), through `components.assets.served_url`.
"""

from __future__ import annotations

from pathlib import Path

import plotly
import streamlit as st

from components.assets import served_url

_HERE = Path(__file__).parent
_PLOTLY_DIR = Path(plotly.__file__).parent / "package_data"
_ASSET_NAME = "plotly_js"

CAPTION_PX = 24  # the caption line above the chart; the component is this much taller than the chart

_component = st.components.v2.component(
    "components.live_chart",
    js=(_HERE / "live_chart.js").read_text(encoding="utf-8"),
    css=(
        "div.live-chart { width: 100%; } div.live-caption { font-size: 0.95rem; font-weight: 600;"
        f" height: {CAPTION_PX}px; line-height: {CAPTION_PX}px; overflow: hidden; white-space: nowrap;"
        " text-overflow: ellipsis; }"
    ),
    isolate_styles=False,
)


def plotly_url() -> str:
    """URL (absolute path on this server) of plotly.min.js; registers the asset directory."""
    return served_url(_ASSET_NAME, _PLOTLY_DIR, "plotly.min.js")


def live_chart(figure: str, *, key: str, height: int = 400) -> None:
    """Show `figure` (a figure's JSON), redrawing the chart mounted under `key` in place if it exists."""
    # NOTE: the chart is `height` px under its caption line; a component only `height` px high cut the
    # chart's bottom (x tick labels, axis title) off wherever the plot filled its whole height.
    _component(
        key=key,
        data={"figure": figure, "plotly_url": plotly_url(), "height": height, "name": key},
        height=height + CAPTION_PX,
    )
