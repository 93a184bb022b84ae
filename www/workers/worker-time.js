// @ts-check
// Time in the training worker (worker.js): yielding between chunks of lots so that queued
// messages run, a short wait, and the bench's stopwatch of a lot's phases.

export const sleep = (/** @type {number} */ ms) =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

// Lets queued messages (pause, new settings) run between chunks of lots: a message to itself,
// which waits behind them, or a timeout of FALLBACK_MS, whichever comes first.
// - Not a timeout alone: HTML clamps chained timeouts to 4 ms from the fifth on, and this worker
//   chains one every 25 ms (4.1 ms a yield in Chromium, against 0.006 ms by message).
// - Not the message alone: WebKit carries a worker's MessageChannel through the page's main
//   thread, so while the page drew an epoch's charts each yield waited for it (17–22 ms; 0.86 s
//   of the default run's 2.2 s in WebKitGTK). The timeout bounds that.
// - Not a timeout of 0: a timer due at once may run before the messages already queued (node
//   runs timers first; suspected in one full run under load, where a lesson's step went
//   unanswered for 30 s), and the page's messages would then wait behind every chunk. Those run
//   while the timer is not yet due.
const FALLBACK_MS = 4;
const ticks = new MessageChannel();

// How long the training worker works between two yields: CHUNK_MS, or longer where the yields
// themselves are slow — WebKit's, held up to the 4 ms timeout while the page draws, took 0.17–
// 0.19 s of the default run's 1.7–1.9 s there (43 of them; Chromium's 31 took 0.01 s) — so
// that yielding costs about a tenth of the time at most; never more than MAX_CHUNK_MS, so that
// a pause or new settings still wait less than that.
const CHUNK_MS = 25;
const MAX_CHUNK_MS = 50;
const YIELD_SHARE = 0.1;
let yieldMs = 0; // the recent yields' duration, a running mean (weight 1/4 to the newest)
export const chunkMs = () =>
  Math.min(MAX_CHUNK_MS, Math.max(CHUNK_MS, (yieldMs * (1 - YIELD_SHARE)) / YIELD_SHARE));

/**
 * @typedef {{done: boolean, timer: ReturnType<typeof setTimeout> | undefined,
 *   resolve: (v: undefined) => void, t0: number}} Yield
 */
/** @type {Yield[]} */
const yielding = []; // one per message in flight, in order; a yield is done by either
/** @param {Yield | undefined} y */
function finish(y) {
  if (!y || y.done) return;
  y.done = true;
  clearTimeout(y.timer);
  yieldMs += (performance.now() - y.t0 - yieldMs) / 4;
  y.resolve(undefined);
}
ticks.port1.onmessage = () => finish(yielding.shift());
export const yieldToEvents = () =>
  new Promise((resolve) => {
    /** @type {Yield} */
    const y = { done: false, timer: undefined, resolve, t0: performance.now() };
    yielding.push(y);
    ticks.port2.postMessage(null);
    y.timer = setTimeout(() => finish(y), FALLBACK_MS);
  });

/**
 * Adds the milliseconds since its last call (or its creation) to `laps[phase]`.
 * @param {Record<string, number>} laps
 */
export function stopwatch(laps) {
  let t = performance.now();
  return (/** @type {string} */ phase) => {
    const now = performance.now();
    laps[phase] = (laps[phase] || 0) + now - t;
    t = now;
  };
}
