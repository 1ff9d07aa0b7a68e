"""Serve a local directory of front-end files (a vendored library) from this Streamlit server.

No CDN and no network at run time: a v1 component declared on a directory makes Streamlit serve
its files at `<base>/component/<name>/<file>`. Components load their libraries from that URL.
"""

from __future__ import annotations

import json
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


# The inline part of a component whose code is served as files: a few hundred bytes that fetch the files
# once per page, add the style sheets to the page, join the scripts into one module (so they share one
# scope, as if written in one file) and call its default export from then on.
_LOADER = """
const FILES = %s, STYLES = %s, ID = %s;
let run = null, loading = null;
const text = (path) => fetch(new URL(path, window.location.href)).then((response) => {
  if (!response.ok) throw new Error(`could not load ${path} (${response.status})`);
  return response.text();
});
function load() {
  if (!loading) {
    loading = Promise.all([Promise.all(FILES.map(text)), Promise.all(STYLES.map(text))])
      .then(([scripts, styles]) => {
        if (styles.length && !document.getElementById(ID)) {
          const sheet = document.createElement("style");
          sheet.id = ID;
          sheet.textContent = styles.join("\\n");
          document.head.appendChild(sheet);
        }
        return import(URL.createObjectURL(new Blob([scripts.join("\\n")], { type: "text/javascript" })));
      })
      .then((module) => { run = module.default; });
    loading.catch(() => { loading = null; });
  }
  return loading;
}
export default function (component) {
  if (run) return run(component);
  load().then(() => run(component)).catch((error) => {
    console.error(error);
    component.parentElement.textContent = String(error);
  });
  return undefined;
}
"""


def module_loader(*files: tuple[str, str | Path, str], styles: tuple = ()) -> str:
    """Inline JS for an `st.components.v2` component whose code lives in files served by this server:
    ``files`` are (asset name, directory, file name), joined in this order into one ES module whose default
    export is the component's; ``styles`` are style sheets given the same way, added to the page once
    (for components declared with isolate_styles=False).

    NOTE: a v2 component's inline JS and CSS travel with every update of its element; a view updated
    several times a second (a slider's values) would otherwise resend its whole code each time.
    """
    urls = [served_url(name, directory, filename) for name, directory, filename in files]
    sheets = [served_url(name, directory, filename) for name, directory, filename in styles]
    sheet_id = "sheet-" + "-".join(Path(filename).stem for _, _, filename in styles)
    return _LOADER % (json.dumps(urls), json.dumps(sheets), json.dumps(sheet_id))
