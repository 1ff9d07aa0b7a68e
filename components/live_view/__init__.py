"""The Training Playground's live view: one `st.components.v2` component that draws every panel.

The server sends numbers (explorer/playground.py `Playground.view_data`: a frame's weights,
metrics and layer health; the network's layout and the points on full page runs), and the
browser draws the boundary, the network with a picture in each neuron, the curves and the
gradient health from them, in place, in the active theme's colours. See live_view.js.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import streamlit as st

from components.assets import served_url

_STATIC = Path(__file__).parent / "static"  # served as is: only the browser's files live there
MATH_JS = (_STATIC / "live_math.js").read_text(encoding="utf-8")  # the pure functions; tests load them alone

# NOTE: a v2 component's inline JS travels with every update of the element (it is part of the
# element's message), and the view's code is ~60 KB: sent 5 times a second it was 90 % of the
# bytes. So the inline part is a loader of a few hundred bytes; the code itself is served as two
# static files, fetched once per page: live_math.js (a classic script: its functions become
# globals, as the browser tests load it) and then the live_view.js module.
_LOADER = """
const BASE = new URL(%s, window.location.href).href;  // absolute: this module's own URL is a blob
let view = null, loading = null;
function load() {
  if (!loading) loading = new Promise((resolve, reject) => {
    if (window.lmForward) return resolve();
    const script = document.createElement("script");
    script.src = BASE + "live_math.js";
    script.onload = resolve;
    script.onerror = () => { loading = null; reject(new Error("could not load " + script.src)); };
    document.head.appendChild(script);
  }).then(() => import(BASE + "live_view.js")).then((module) => (view = module.default));
  return loading;
}
export default function (component) {
  if (view) return view(component);
  load().then(() => view(component)).catch((error) => {
    console.error(error);
    component.parentElement.textContent = String(error);
  });
  return undefined;
}
"""

_component = st.components.v2.component(
    "components.live_view",
    js=_LOADER % json.dumps(served_url("live_view_static", _STATIC, "")),
)


def live_view(data: dict, *, key: str, on_need: Callable[[], None]) -> None:
    """Show `data` in the live view mounted under `key`, updating it in place if it is there.
    `on_need` runs when the browser asks for the run's layout (it missed the message with it)."""
    _component(key=key, data=data, on_need_change=on_need)
