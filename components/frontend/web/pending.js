// A click on a box of the Explorer's graph: until the dock beside it shows that node, it says so and shows no other
// node (an ES module). The click reruns the page on the server, and that run's inspector arrived 0.6-7 s later with
// the previous node's Jacobian on screen meanwhile (issue 29); this answers within a frame of the click.

/** How long a pending selection waits for its inspector before the dock is shown again as it is (ms). */
export const GIVE_UP_MS = 60000;

/** The CSS that hides the dock keyed `dock` until the element keyed `prefix + node` is in it, and says why. */
export function pendingCss(dock, prefix, node) {
  const want = `.st-key-${prefix}${node}`;
  const waiting = `.st-key-${dock}:not(:has(${want}))`;
  return `${waiting} [role="tabpanel"] { visibility: hidden; }`
    + `${waiting} { position: relative; }`
    + `${waiting}::after { content: "Inspecting node ${node}…"; position: absolute; top: 3.5rem; left: 0;`
    + " font-size: 0.9rem; opacity: 0.7; }";
}

/** Watches clicks on the graph's boxes (once per page, whatever calls it) for the dock keyed `dock`. */
export default function watch(dock, prefix) {
  if (window.autogradPending) return;
  window.autogradPending = true;
  const style = document.head.appendChild(document.createElement("style"));
  style.dataset.testid = "inspector-pending";
  let timer = null;
  document.addEventListener("click", (event) => {
    const box = event.target instanceof Element && event.target.closest('[data-testid="graph-view"] g.node[data-node]');
    if (!box || !/^\d+$/.test(box.dataset.node)) return;
    const node = box.dataset.node;
    style.textContent = pendingCss(dock, prefix, node);
    clearInterval(timer);
    const started = performance.now();
    timer = setInterval(() => {
      if (document.querySelector(`.st-key-${prefix}${node}`) || performance.now() - started > GIVE_UP_MS) {
        style.textContent = "";
        clearInterval(timer);
      }
    }, 50);
  }, true);
}
