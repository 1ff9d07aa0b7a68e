// Bring an element of the page to the top of the window and keep it there while the page settles (an ES module).
//
// One smooth scrollIntoView is not enough: whatever scrolls the page after it cancels it. Streamlit's tabs scroll
// their selected tab into view ("nearest", smooth) when the selection changes, and when that came a few ms after
// ours the page stopped with the tab bar at the bottom of the window (CI met it: the component code of the tab's
// content arrived late). So the page is watched each frame until the element has stayed in place, and scrolled
// again whenever it is off and nothing is scrolling; a wheel, touch, key or press of the user's stops the watch.

/** How close (px) counts as there. */
export const NEAR_PX = 2;
/** How long the element must stay there, nothing scrolling, before the watch ends (ms). */
export const SETTLE_MS = 500;
/** How long a scroll of ours gets to start before it is asked again (ms). */
export const START_MS = 150;
/** When the watch ends whatever happened (ms); also how long it waits for the element to appear. */
export const GIVE_UP_MS = 6000;

/**
 * What to do this frame: "scroll", "wait" or "done". `offset` is how far (px) the element's top is below where it
 * should be (negative: above), `quietMs` how long the page has not scrolled, `sinceAskedMs` how long ago we last
 * asked it to, `atTop` and `atBottom` whether it can scroll no further up or down.
 */
export function nextMove({ offset, quietMs, sinceAskedMs, atTop, atBottom }) {
  if (Math.abs(offset) <= NEAR_PX) return quietMs >= SETTLE_MS ? "done" : "wait";
  if (quietMs < START_MS || sinceAskedMs < START_MS) return "wait"; // a scroll is under way, or about to start
  if ((offset > 0 && atBottom) || (offset < 0 && atTop)) return "wait"; // the page is too short yet: it may grow
  return "scroll";
}

const USER_MOVES = ["wheel", "touchstart", "keydown", "pointerdown"];

/**
 * Scroll the page until the first element matching `selector` has its top `margin` below the window's top (under
 * Streamlit's toolbar), smoothly unless the user prefers reduced motion, and keep it there as described above.
 */
export default function bringIntoView(selector, { margin = "3.5rem", win = window } = {}) {
  const doc = win.document;
  const behavior = win.matchMedia("(prefers-reduced-motion: reduce)").matches ? "auto" : "smooth";
  const start = win.performance.now();
  let stopped = false, askedAt = -Infinity, lastTop = null, quietSince = -Infinity, styled = null, wanted = 0;
  const stop = () => {
    stopped = true;
    for (const type of USER_MOVES) win.removeEventListener(type, stop, true);
  };
  for (const type of USER_MOVES) win.addEventListener(type, stop, { capture: true, passive: true });

  const frame = () => {
    if (stopped) return;
    const now = win.performance.now();
    if (now - start > GIVE_UP_MS) return stop();
    const target = doc.querySelector(selector);
    if (!target) return win.requestAnimationFrame(frame);
    if (target !== styled) { // once per element (a rerun may replace it): the margin, and what it is in px
      target.style.scrollMarginTop = margin;
      wanted = Math.max(0, parseFloat(win.getComputedStyle(target).scrollMarginTop) || 0);
      styled = target;
    }
    const scroller = doc.querySelector('[data-testid="stMain"]') || doc.scrollingElement;
    if (lastTop !== null && scroller.scrollTop !== lastTop) quietSince = now;
    lastTop = scroller.scrollTop;
    const move = nextMove({
      offset: target.getBoundingClientRect().top - scroller.getBoundingClientRect().top - wanted,
      quietMs: now - quietSince,
      sinceAskedMs: now - askedAt,
      atTop: scroller.scrollTop <= 0,
      atBottom: scroller.scrollTop >= scroller.scrollHeight - scroller.clientHeight - 1,
    });
    if (move === "done") return stop();
    if (move === "scroll") {
      askedAt = now;
      target.scrollIntoView({ block: "start", behavior });
    }
    win.requestAnimationFrame(frame);
  };
  frame();
}
