// components/frontend/web/into_view.js on a fake window with its own clock and frames: run with `node --test tests/js/`.
import assert from "node:assert/strict";
import { test } from "node:test";

import bringIntoView, { GIVE_UP_MS, nextMove, SETTLE_MS, START_MS } from "../../components/frontend/web/into_view.js";

const still = { quietMs: 10_000, sinceAskedMs: 10_000, atTop: false, atBottom: false };

test("nextMove scrolls when the element is off and nothing scrolls", () => {
  assert.equal(nextMove({ ...still, offset: 600 }), "scroll");
  assert.equal(nextMove({ ...still, offset: -600 }), "scroll");
});

test("nextMove waits while a scroll is under way or was just asked for", () => {
  assert.equal(nextMove({ ...still, offset: 600, quietMs: 0 }), "wait");
  assert.equal(nextMove({ ...still, offset: 600, sinceAskedMs: START_MS - 1 }), "wait");
});

test("nextMove waits while the page is too short to get there (it may grow)", () => {
  assert.equal(nextMove({ ...still, offset: 70, atBottom: true }), "wait");
  assert.equal(nextMove({ ...still, offset: -70, atTop: true }), "wait");
  assert.equal(nextMove({ ...still, offset: -70, atBottom: true }), "scroll");
});

test("nextMove is done once the element has stayed there", () => {
  assert.equal(nextMove({ ...still, offset: 1, quietMs: SETTLE_MS - 1 }), "wait");
  assert.equal(nextMove({ ...still, offset: -1, quietMs: SETTLE_MS }), "done");
});

/** A page 3,000 px tall in an 800 px window whose element sits at `at` px; scrolls jump (no animation). */
function fakePage(at) {
  let now = 0;
  const frames = [], listeners = {}, asked = [];
  const scroller = { scrollTop: 0, scrollHeight: 3000, clientHeight: 800, getBoundingClientRect: () => ({ top: 0 }) };
  const target = {
    style: {},
    getBoundingClientRect: () => ({ top: at - scroller.scrollTop }),
    scrollIntoView(options) {
      asked.push(options);
      scroller.scrollTop = Math.min(at - 56, scroller.scrollHeight - scroller.clientHeight);
    },
  };
  const win = {
    document: { querySelector: (selector) => ({ ".st-key-x": target, '[data-testid="stMain"]': scroller })[selector] },
    performance: { now: () => now },
    matchMedia: () => ({ matches: false }),
    getComputedStyle: () => ({ scrollMarginTop: "56px" }),
    requestAnimationFrame: (f) => frames.push(f),
    addEventListener: (type, f) => { listeners[type] = f; },
    removeEventListener: (type) => { delete listeners[type]; },
  };
  const run = (ms) => { // the frames of `ms` milliseconds, 16 ms apart
    for (const end = now + ms; now < end && frames.length; ) {
      now += 16;
      frames.shift()();
    }
  };
  return { win, scroller, asked, listeners, run, watching: () => frames.length > 0 };
}

test("it scrolls at once, and stops watching once the element stayed in place", () => {
  const page = fakePage(1500);
  bringIntoView(".st-key-x", { win: page.win });
  assert.deepEqual(page.asked, [{ block: "start", behavior: "smooth" }]);
  page.run(SETTLE_MS + 100);
  assert.equal(page.watching(), false);
  assert.deepEqual(Object.keys(page.listeners), []);
});

test("a later scroll by someone else is undone once it is over", () => {
  const page = fakePage(1500);
  bringIntoView(".st-key-x", { win: page.win });
  page.run(50);
  page.scroller.scrollTop = 700; // Streamlit's tabs bring their selected tab into view
  page.run(START_MS + 50);
  assert.equal(page.asked.length, 2);
  assert.equal(page.scroller.scrollTop, 1500 - 56);
});

test("a wheel of the user's ends the watch: the page is theirs", () => {
  const page = fakePage(1500);
  bringIntoView(".st-key-x", { win: page.win });
  page.listeners.wheel();
  page.scroller.scrollTop = 200;
  page.run(1000);
  assert.equal(page.asked.length, 1);
  assert.equal(page.scroller.scrollTop, 200);
});

test("it waits for the element to appear, and gives up after GIVE_UP_MS", () => {
  const page = fakePage(1500);
  bringIntoView(".st-key-missing", { win: page.win });
  page.run(GIVE_UP_MS + 100);
  assert.equal(page.watching(), false);
  assert.deepEqual(page.asked, []);
});
