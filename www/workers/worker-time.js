// @ts-check
// Time in the training worker (worker.js): yielding between chunks of lots so that queued
// messages run, a short wait, and the bench's stopwatch of a lot's phases.

export const sleep = (/** @type {number} */ ms) =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

// Lets queued messages (pause, new settings) run between chunks of lots: a message to itself,
// which waits behind them. Not setTimeout(0): HTML clamps chained timeouts to 4 ms from the
// fifth on, and this worker chains one every 25 ms.
const ticks = new MessageChannel();
/** @type {(() => void)[]} */
const yielding = [];
ticks.port1.onmessage = () => yielding.shift()?.();
export const yieldToEvents = () =>
  new Promise((resolve) => {
    yielding.push(() => resolve(undefined));
    ticks.port2.postMessage(null);
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
