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
// than that. It runs when the page is quiet, once a run has ended (cores.js), and stops, keeping
// nothing, when the page gets busy between rounds: run while the page loaded (its modules, three
// workers, two wasm compilations, the offline copy's install), it read a speed-up of 0.5–1.4 on
// two idle cores in 7 first visits of 8, so the tab's whole session trained on one worker, and
// it held the first run back by 0.3–0.5 s. About 0.2 s, once per tab session.

import { ofThisBuild } from './build.js';

const KEY = 'dpsgd-lab-cores';
// the page's own build (build.js)
const WORKER_URL = ofThisBuild(new URL('../workers/core-probe-worker.js', import.meta.url));
const WINDOW_MS = 15; // each loop runs this long
const ROUNDS = 5; // rounds of one loop alone, then all together
const GIVE_UP_MS = 4000; // a probe that takes longer is dropped (the reported count is used)

/**
 * @typedef {{reported: number, measured: number | null, speedup: number | null, why: string}} Probe
 */

/**
 * The cores loops run at once got, from one loop's rate alone and each loop's rate when all ran
 * in the same window: their summed rate, in loops alone.
 * @param {number} aloneRate
 * @param {number[]} togetherRates
 */
export function speedupOf(aloneRate, togetherRates) {
  if (!(aloneRate > 0) || togetherRates.length === 0 || !togetherRates.every((r) => r >= 0))
    return NaN;
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
 * @param {Probe | null} probe null: not timed yet
 * @param {number} count the default worker count
 * @param {number} [reported] the browser's count (when not timed yet)
 */
export function defaultReason(probe, count, reported = probe?.reported ?? count) {
  const cores = (n) => `${n} ${n === 1 ? 'core' : 'cores'}`;
  if (probe === null)
    return (
      `By default ${count} until a run has ended: then a short timing shows how many this ` +
      `device runs at full speed at once (this browser reports ${cores(reported)}).`
    );
  if (probe.measured === null)
    return (
      `By default ${count}: this browser reports ${cores(probe.reported)}, which could not be ` +
      `timed (${probe.why}).`
    );
  const timed =
    `a short timing ran ${probe.measured} at full speed at once ` +
    `(speed-up ${probe.speedup?.toFixed(1)} ×)`;
  if (probe.measured < probe.reported)
    return `By default ${count}: this browser reports ${cores(probe.reported)}, but ${timed}.`;
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
    w.onmessage = (ev) => resolve(ev.data?.type === 'rate' ? Number(ev.data.rate) : NaN);
    w.onerror = (e) => {
      e.preventDefault();
      reject(new Error(e.message || 'a probe worker failed to start'));
    };
    w.postMessage({ type: 'probe', ms }); // protocol.js: ToProbe
  });
}

/** Thrown between rounds when the page is no longer quiet. */
class Busy extends Error {}

/**
 * Measures the loop alone and on `tried` workers at once; throws Busy when `quiet()` turns
 * false before a round.
 * @param {number} tried
 * @param {() => boolean} quiet
 * @returns {Promise<number>} the speed-up
 */
async function time(tried, quiet) {
  const workers = Array.from({ length: tried }, () => new Worker(WORKER_URL));
  const stillQuiet = () => {
    if (!quiet()) throw new Busy();
  };
  try {
    await Promise.all(workers.map((w) => loop(w, 5))); // started, and the loop compiled
    let alone = 0;
    const rounds = [];
    for (let r = 0; r < ROUNDS; r++) {
      stillQuiet();
      alone = Math.max(alone, await loop(workers[r % tried], WINDOW_MS));
      stillQuiet();
      rounds.push(await Promise.all(workers.map((w) => loop(w, WINDOW_MS))));
    }
    return median(rounds.map((rates) => speedupOf(alone, rates)));
  } finally {
    for (const w of workers) w.terminate();
  }
}

/** @type {Promise<Probe | null> | null} */
let probing = null;
/** @type {Probe | null} */
let result = null;

/**
 * The browser's count of cores, capped at `max`.
 * @param {number} max
 */
export const reportedCores = (max) =>
  Math.max(1, Math.min(Number(navigator.hardwareConcurrency) || 2, max));

/**
 * The result timed earlier in this tab session (sessionStorage), taken as this page's; null
 * when there is none.
 * @param {number} max
 * @returns {Probe | null}
 */
export function probeKept(max) {
  if (result) return result;
  try {
    const kept = JSON.parse(sessionStorage.getItem(KEY) || 'null');
    if (kept && kept.reported === reportedCores(max) && Number.isInteger(kept.measured))
      result = kept;
  } catch {
    /* storage refused or junk: not kept */
  }
  return result;
}

/**
 * The probe's result: the one kept in this tab session, else timed now, while `quiet()` holds
 * (checked before each round); `reported` is the browser's count, capped at `max`. Null when
 * the page got busy first: nothing is kept, and a later call times again.
 * @param {number} max
 * @param {() => boolean} [quiet]
 * @returns {Promise<Probe | null>}
 */
export function probeCores(max, quiet = () => true) {
  const kept = probeKept(max);
  if (kept) return Promise.resolve(kept);
  if (probing) return probing;
  const reported = reportedCores(max);
  probing = (async () => {
    /** @type {Probe} */
    let probe;
    if (reported === 1) probe = { reported, measured: 1, speedup: 1, why: '' };
    else {
      try {
        const timeout = new Promise((_, reject) =>
          setTimeout(() => reject(new Error('it took too long')), GIVE_UP_MS),
        );
        const speedup = await Promise.race([time(reported, quiet), timeout]);
        const measured = workersShown(speedup, reported);
        probe =
          measured === null
            ? { reported, measured, speedup: null, why: 'the timings made no sense' }
            : { reported, measured, speedup, why: '' };
      } catch (e) {
        if (e instanceof Busy) return null;
        probe = {
          reported,
          measured: null,
          speedup: null,
          why: String(e?.message || e).slice(0, 120),
        };
      }
    }
    try {
      if (probe.measured !== null) sessionStorage.setItem(KEY, JSON.stringify(probe));
    } catch {
      /* not kept */
    }
    return probe;
  })().then((p) => {
    probing = null;
    if (p) result = p;
    return p;
  });
  return probing;
}

/** The probe's result once it has one, else null. */
export const probed = () => result;
