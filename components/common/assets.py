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


#: The directory of every component's browser code, served as one tree: an ES module imports another by its
#: relative URL, which is its relative path in this repository (e.g. "../web/dom.js" from graph_view/), so the
#: same imports work in the browser, in Node's tests and in the linter. It holds browser code only: whatever
#: lies in it is served by URL (the components' Python, beside it, is not).
CODE_DIR = Path(__file__).parent.parent / "frontend"
_CODE_ASSET = "code"

# The inline part of a component whose code is served as files: a few hundred bytes (it travels with every update)
# that load, once per page, its classic scripts (a vendored library that sets a global) and style sheets (added to
# the page) if it has any, then its entry module by URL (which imports the rest), and call the module's default
# export from then on. URLs are absolute paths: this module's own URL is a blob.
_LOADER = """let run = null, loading = null;
const url = (path) => new URL(path, window.location.href).href;
function load() {
  if (!loading) {
    loading = %s.then(() => import(url(%s))).then((module) => { run = module.default; });
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
}
"""
# Classic scripts, in order, each skipped when the global it sets is there already.
_SCRIPTS = """%s.reduce((done, [src, name]) => done.then(() => window[name] || new Promise((resolve, reject) => {
  const node = Object.assign(document.createElement("script"), { src: url(src), onload: resolve });
  node.onerror = () => reject(new Error("could not load " + node.src));
  document.head.appendChild(node);
})), Promise.resolve())"""
# Style sheets, joined into one <style> element added to the page once.
_STYLES = """Promise.all(%s.map((path) => fetch(url(path)).then((response) => {
  if (!response.ok) throw new Error(`could not load ${path} (${response.status})`);
  return response.text();
}))).then((styles) => {
  if (document.getElementById(%s)) return;
  const node = Object.assign(document.createElement("style"), { id: %s, textContent: styles.join("\\n") });
  document.head.appendChild(node);
})"""


def code_url(path: str) -> str:
    """URL (absolute path on this server) of `path`, a file of the components' browser code (relative to
    CODE_DIR, e.g. "web/dom.js")."""
    return served_url(_CODE_ASSET, CODE_DIR, path)


def module_loader(entry: str, *, styles: tuple[str, ...] = (), scripts: tuple[tuple[str, str], ...] = ()) -> str:
    """Inline JS for an `st.components.v2` component whose code lives in files served by this server: ``entry``
    is its ES module (a path relative to CODE_DIR, e.g. "poke/poke.js") whose default export is the component's;
    it imports the rest by relative URL. ``styles`` are style sheets (paths relative to CODE_DIR), added to the
    page once (for components declared with isolate_styles=False); ``scripts`` are classic scripts loaded
    first, in order, as (URL, the global each sets: skipped when it is set already).

    NOTE: a v2 component's inline JS and CSS travel with every update of its element; a view updated
    several times a second (a slider's values) would otherwise resend its whole code each time.
    """
    steps = []
    if scripts:
        steps.append(_SCRIPTS % json.dumps([list(s) for s in scripts]))
    if styles:
        sheet_id = json.dumps("sheet-" + "-".join(Path(path).stem for path in styles))
        steps.append(_STYLES % (json.dumps([code_url(path) for path in styles]), sheet_id, sheet_id))
    prepare = f"Promise.all([{', '.join(steps)}])" if steps else "Promise.resolve()"
    return _LOADER % (prepare, json.dumps(code_url(entry)))
