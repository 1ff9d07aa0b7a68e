"""The depth lab's session keys, declared once: see explorer/keys.py."""

from __future__ import annotations

CONFIG = "lab_config"  # the last settings (the widgets' values, kept when Streamlit forgets them)
CUT = "lab_cut"  # (batch, how it was cut): the last run cut the batch to fit the limit
SPREAD_CHART = "lab_spread_chart"
GRADIENT_CHART = "lab_gradient_chart"
HISTOGRAMS = "lab_histograms"
LAYER_CHART = "lab_layer_chart"


def setting(name: str) -> str:
    """The widget of the setting ``name`` (explorer/depth_lab/lab.py's rows), and of the layer to look at."""
    return f"lab_{name}"
