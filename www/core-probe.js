// @ts-check
// How many workers this device really runs at full speed at once. navigator.hardwareConcurrency
// is what the browser says, not what the machine gives: WebKitGTK said 4 on a 2-core machine
// (Safari reports fixed figures, so that the number cannot tell devices apart). So, once per tab
// session (sessionStorage), the page runs a busy loop (core-probe-worker.js) for a short window
// in one worker alone and then in as many workers as the browser reports, all at once: their
// summed rate over one loop's rate alone is how many cores they were given. Five rounds, each
// one loop alone then all together: other work (the browser's own while the page loads, other
// programs) comes and goes in bursts and only ever slows a loop, so a loop's rate alone is its
// best over the rounds, and the speed-up is the median round's summed rate over it. (A round's
// own alone rate, measured in a busy moment, made four loops on two cores read 4.5 in WebKit
// while the page loaded.) Each worker times itself: the page's clock would count the messages
// and the page's own work (it made two loops look like 0.8 of one in Firefox). The default
// worker count (cores.js) and the helpers' decision to spin (gradient-pool.js) take no more
// than that. It runs before the page
// compiles its wasm (wasm-module.js waits for it): a browser compiling on every core in the
// background would slow the loops. It costs about 0.2 s at the first load of a tab, nothing
// after.

const KEY = 'dpsgd-lab-cores';
const WORKER_URL = new URL('./core-probe-worker.js', import.meta.url);
const WINDOW_MS = 15; // each loop runs this long
const ROUNDS = 5; // rounds of one loop alone, then all together
const GIVE_UP_MS = 4000; // a probe that takes longer is dropped (the reported count is used)

/** @typedef {{reported: number, measured: number | null, speedup: number | null, why: string}} Probe */

/**
 * The cores loops run at once got, from one loop's rate alone and each loop's rate when all ran
 * in the same window: their summed rate, in loops alone.
 * @param {number} aloneRate
 * @param {number[]} togetherRates
 */
export function speedupOf(aloneRate, togetherRates) {
  if (!(aloneRate > 0) || togetherRates.length === 0 || !togetherRates.every((r) => r >= 0)) return NaN;
  return togetherRates.reduce((sum, r) => sum + r, 0) / aloneRate;
}

/**
 * The median of `figures` (NaN for none).
 * @param {number[]} figures
 */
export function median(figures) {
  const sorted = figures.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * The workers that a measured speed-up shows the machine can run: its whole cores, and one more
 * for a fraction from 0.6 up, at least 1 and at most the `tried` loops. (Loops that started a
 * little apart ran alone at the window's edges, so the figure errs high: 2.2 on two cores, and
 * WebKit's four loops read 2.5 on two once in make test, which rounding to the nearest made 3; a
 * loaded machine makes it err low: 1.6 on two.)
 * @param {number} speedup
 * @param {number} tried
 */
export function workersShown(speedup, tried) {
  if (!Number.isFinite(speedup)) return null;
  return Math.max(1, Math.min(tried, Math.floor(speedup + 0.4)));
}

/**
 * The default's reason, for the Workers tooltip.
 * @param {Probe} probe
 * @param {number} count the default worker count
 */
export function defaultReason(probe, count) {
  const cores = (n) => `${n} ${n === 1 ? 'core' : 'cores'}`;
  if (probe.measured === null) return `By default ${count}: the ${cores(probe.reported)} this browser reports (they could not be timed: ${probe.why}).`;
  const timed = `a short timing ran ${probe.measured} at full speed at once (speed-up ${probe.speedup?.toFixed(1)} ×)`;
  if (probe.measured < probe.reported) return `By default ${count}: this browser reports ${cores(probe.reported)}, but ${timed}.`;
  return `By default ${count}: this browser reports ${cores(probe.reported)}, and ${timed}.`;
}

/**
 * Worker `w`'s rate (steps per ms) over a window of `ms`, by its own clock.
 * @param {Worker} w
 * @param {number} ms
 * @returns {Promise<number>}
 */
function loop(w, ms) {
  return new Promise((resolve, reject) => {
    w.onmessage = (ev) => resolve(Number(ev.data?.rate));
    w.onerror = (e) => {
      e.preventDefault();
      reject(new Error(e.message || 'a probe worker failed to start'));
    };
    w.postMessage({ ms });
  });
}

/**
 * Measures the loop alone and on `tried` workers at once.
 * @param {number} tried
 * @returns {Promise<number>} the speed-up
 */
async function time(tried) {
  const workers = Array.from({ length: tried }, () => new Worker(WORKER_URL));
  try {
    await Promise.all(workers.map((w) => loop(w, 5))); // started, and the loop compiled
    let alone = 0;
    const rounds = [];
    for (let r = 0; r < ROUNDS; r++) {
      alone = Math.max(alone, await loop(workers[r % tried], WINDOW_MS));
      rounds.push(await Promise.all(workers.map((w) => loop(w, WINDOW_MS))));
    }
    return median(rounds.map((rates) => speedupOf(alone, rates)));
  } finally {
    for (const w of workers) w.terminate();
  }
}

/** @type {Promise<Probe> | null} */
let probing = null;
/** @type {Probe | null} */
let result = null;

/**
 * The probe's result (measured once per tab session); `reported` is the browser's count,
 * capped at `max`.
 * @param {number} max
 * @returns {Promise<Probe>}
 */
export function probeCores(max) {
  if (probing) return probing;
  const reported = Math.max(1, Math.min(Number(navigator.hardwareConcurrency) || 2, max));
  probing = (async () => {
    try {
      const kept = JSON.parse(sessionStorage.getItem(KEY) || 'null');
      if (kept && kept.reported === reported && Number.isInteger(kept.measured)) return kept;
    } catch { /* storage refused or junk: measure */ }
    /** @type {Probe} */
    let probe;
    if (reported === 1) probe = { reported, measured: 1, speedup: 1, why: '' };
    else {
      try {
        const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('it took too long')), GIVE_UP_MS));
        const speedup = await Promise.race([time(reported), timeout]);
        const measured = workersShown(speedup, reported);
        probe = measured === null ? { reported, measured, speedup: null, why: 'the timings made no sense' } : { reported, measured, speedup, why: '' };
      } catch (e) {
        probe = { reported, measured: null, speedup: null, why: String(e?.message || e).slice(0, 120) };
      }
    }
    try { if (probe.measured !== null) sessionStorage.setItem(KEY, JSON.stringify(probe)); } catch { /* not kept */ }
    return probe;
  })().then((p) => (result = p));
  return probing;
}

/** The probe's result once it has one, else null. */
export const probed = () => result;
