"""Serve a local directory of front-end files (a vendored library) from this Streamlit server.

No CDN and no network at run time: a v1 component declared on a directory makes Streamlit serve
its files at `<base>/component/<name>/<file>`. Components load their libraries from that URL.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st
import streamlit.components.v1 as components_v1


def served_url(name: str, directory: str | Path, filename: str) -> str:
    """Absolute path on this server of `directory/filename`, served under the asset name `name`.

    Declaring is cheap and idempotent, so callers may call this on every run.
    """
    declared = components_v1.declare_component(name, path=str(directory))
    base = st.get_option("server.baseUrlPath").strip("/")
    prefix = f"/{base}" if base else ""
    return f"{prefix}/component/{declared.name}/{filename}"
