// Keyboard shortcuts that press the page's own buttons: e.g. → for Next, ← for Prev.
//
// Streamlit calls the default export on mount and on every data update with
// data = {keys: {"ArrowRight": "Next", ...}} (KeyboardEvent.key -> a button's label). One keydown
// listener on the document clicks the enabled button in the main area whose label is that text,
// so a shortcut does exactly what the click does (and is greyed out when the button is).
// Presentation clickers send arrow keys or PageUp/PageDown, so a teacher can step from across
// the room. Keys typed into a text box, a select or a focused slider (which uses arrows itself),
// or pressed with Ctrl/Alt/Meta, or held down to repeat, are left alone.
// window.__hotkeys = {pressed} counts the clicks made, for tests.

const TYPING = 'input, textarea, select, [contenteditable="true"], [role="slider"], [role="combobox"]';

function buttonLabelled(label) {
  const pattern = new RegExp("(^|\\W)" + label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "$");
  const main = document.querySelector('[data-testid="stMain"]') || document;
  for (const button of main.querySelectorAll("button")) {
    if (pattern.test(button.innerText.trim())) return button;
  }
  return null;
}

function onKey(event) {
  const state = window.__hotkeys;
  const label = state && state.keys[event.key];
  if (!label || event.repeat || event.ctrlKey || event.altKey || event.metaKey) return;
  if (event.target instanceof Element && event.target.closest(TYPING)) return;
  const button = buttonLabelled(label);
  if (!button || button.disabled) return;
  event.preventDefault(); // no page scroll for the arrows and PageUp/PageDown
  state.pressed += 1;
  button.click();
}

export default function (component) {
  const { data, parentElement } = component;
  const keys = (data && data.keys) || {};
  const state = (window.__hotkeys = window.__hotkeys || { keys: {}, pressed: 0, owner: null });
  state.keys = keys;
  state.owner = parentElement;
  if (!state.listening) {
    document.addEventListener("keydown", onKey);
    state.listening = true;
  }
  return () => {
    // NOTE: Streamlit also calls this for an update that was superseded; only stop listening once
    // the page that asked for the keys has really gone (another page has no shortcuts).
    setTimeout(() => {
      if (state.owner === parentElement && !parentElement.isConnected) {
        document.removeEventListener("keydown", onKey);
        state.listening = false;
        state.keys = {};
      }
    }, 0);
  };
}
