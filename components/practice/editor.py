"""The answer lines' editor: a text area in the browser that sends its text as the learner types (300 ms after the
last key), so every verdict follows the typing; Ctrl+Enter sends at once. An `st.components.v2` component with
its DOM kept: the server's text replaces the browser's only when ``version`` grows (a hint's answer, the whole
backward, a link), never as the answer to the browser's own report.

A text sent is the learner's until the server shows it back: a message lost on a connection that was going down (a
pulled cable, a restarted balancer) is sent again every 3 s until the server's text is it. When the server is
another session than the one the editor last heard from (the page reconnected to another process), the browser's
text is newer than the link the new session read: it is kept, and sent to that session.

Each text sent goes with the browser's time of sending it (``at``, ms, sent just before the text): a class orders a
learner's hand-ins by it (explorer/classes/room.next_version), the one clock whichever process they reach.

Hooks: the text area ``[data-testid="practice-editor"]`` with ``data-sent`` (texts sent) and ``data-version``."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

_JS = """
const WAIT_MS = 300;
const RETRY_MS = 3000;
export default function (component) {
  const { data, parentElement, setStateValue } = component;
  const spec = typeof data === "string" ? JSON.parse(data) : data;
  let area = parentElement.querySelector("textarea");
  if (!area) {
    const label = document.createElement("label");
    label.className = "pe-label";
    label.textContent = spec.label;
    area = document.createElement("textarea");
    area.dataset.testid = "practice-editor";
    area.dataset.sent = "0";
    area.spellcheck = false;
    area.setAttribute("aria-label", spec.label);
    label.htmlFor = area.id = "practice-editor-" + Math.random().toString(36).slice(2);
    parentElement.append(label, area);
    let timer = null;
    const send = () => {
      clearTimeout(timer);
      timer = null;
      area.dataset.sent = String(Number(area.dataset.sent) + 1);
      area.__pending = area.value;
      area.__stamp(Date.now());  // the browser's time of this text, first: a class keeps the newest hand-in
      area.__send(area.value);
    };
    area.__sendNow = send;
    area.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(send, WAIT_MS); });
    area.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); send(); }
    });
    let tries = 0;
    setInterval(() => {  // a text the server has not shown back yet is asked for again
      if (area.isConnected && area.__pending !== undefined && timer === null) area.__retry(++tries);
    }, RETRY_MS);
  }
  area.__stamp = (ms) => setStateValue("at", ms);
  area.__send = (text) => setStateValue("text", text);
  area.__retry = (n) => setStateValue("tries", n);
  const another = area.dataset.session !== undefined && area.dataset.session !== spec.session;
  area.dataset.session = spec.session;
  if (another) {  // a new session read the link; the browser's text is the learner's newest
    area.dataset.version = String(spec.version);
    if (area.value !== spec.text) area.__sendNow();
  } else if (area.dataset.version !== String(spec.version)) {
    area.value = spec.text;
    area.dataset.version = String(spec.version);
    area.__pending = undefined;
  }
  if (area.__pending === spec.text) area.__pending = undefined;
  area.rows = Math.max(6, Math.min(24, spec.text.split("\\n").length + 2));
}
"""

_CSS = """
.pe-label { display: block; font-size: 0.875rem; margin-bottom: 0.35rem; color: var(--st-text-color); }
textarea[data-testid="practice-editor"] {
  width: 100%; box-sizing: border-box; resize: vertical; padding: 0.6rem 0.75rem;
  font-family: "Source Code Pro", monospace; font-size: 0.85rem; line-height: 1.45;
  color: var(--st-text-color); background: var(--st-secondary-background-color);
  border: 1px solid transparent; border-radius: 0.5rem; outline: none;
}
textarea[data-testid="practice-editor"]:focus { border-color: var(--st-primary-color); }
"""

_component = st.components.v2.component("components.practice_editor", js=_JS, css=_CSS, isolate_styles=False)


def answers_editor(text: str, version: int, *, key: str, label: str, on_text: Callable[[], None],
                   session: str = "") -> None:
    """The editor holding ``text`` (applied when ``version`` changes); ``on_text`` runs when the browser sends a
    new text (or asks again for one not shown back), which is then ``st.session_state[key]["text"]``. ``session``:
    one value per server session (the editor keeps the browser's text when it changes). A new ``at`` (the time of a
    send, just before its text) runs ``on_text`` too: its run is the browser's report, newer than the run's link."""
    _component(key=key, data={"text": text, "version": int(version), "label": label, "session": session},
               on_text_change=on_text, on_tries_change=on_text, on_at_change=on_text)
