// @ts-check
// How many workers this device really runs at full speed at once. navigator.hardwareConcurrency
// is what the browser says, not what the machine gives: WebKitGTK said 4 on a 2-core machine
// (Safari reports fixed figures, so that the number cannot tell devices apart). So, once per tab
// session (sessionStorage), the page times a fixed busy loop (core-probe-worker.js) in one worker
// alone and then in as many workers as the browser reports, all at once: the loops' work over
// the time they took together, in loops alone, is how many cores they were given. Each is timed
// three times and the best kept (other work on the machine only ever slows a loop down). The
// default worker count (cores.js) and the helpers' decision to spin (gradient-pool.js) take no
// more than that. It runs before the page compiles its wasm (wasm-module.js waits for it): a
// browser compiling in the background on every core made two loops look like 0.7 of one in
// Firefox. It costs 0.1–0.3 s at the first load of a tab, nothing after.

const KEY = 'dpsgd-lab-cores';
const WORKER_URL = new URL('./core-probe-worker.js', import.meta.url);
const TARGET_MS = 15; // one loop alone takes about this long
const ROUNDS = 3; // times each is timed (the best is kept)
const GIVE_UP_MS = 4000; // a probe that takes longer is dropped (the reported count is used)

/** @typedef {{reported: number, measured: number | null, speedup: number | null, why: string}} Probe */

/**
 * The cores `tried` loops run at once got, from one loop's time alone and the time all of them
 * took together (from the first start to the last end): their work over that time, in loops
 * alone. A loop that started late only lengthens the time: the figure errs low, never high.
 * @param {number} aloneMs
 * @param {number} togetherMs
 * @param {number} tried
 */
export function speedupOf(aloneMs, togetherMs, tried) {
  if (!(aloneMs > 0) || !(togetherMs > 0) || !(tried >= 1)) return NaN;
  return (tried * aloneMs) / togetherMs;
}

/**
 * The workers that a measured speed-up shows the machine can run: the speed-up rounded to the
 * nearest (it errs low, never high: the best of the rounds, the loops' time from the first start
 * to the last end), at least 1 and at most the `tried` loops.
 * @param {number} speedup
 * @param {number} tried
 */
export function workersShown(speedup, tried) {
  if (!Number.isFinite(speedup)) return null;
  return Math.max(1, Math.min(tried, Math.round(speedup)));
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
 * Starts `n` probe workers; resolves to them once each has run a short loop (its code is then
 * compiled: the timings that follow are of the loop, not of the compiler).
 * @param {number} n
 * @returns {Promise<Worker[]>}
 */
async function startWorkers(n) {
  const workers = Array.from({ length: n }, () => new Worker(WORKER_URL));
  await Promise.all(workers.map((w) => loop(w, 200_000)));
  return workers;
}

/**
 * Worker `w`'s time for `spins` steps of its loop, in ms.
 * @param {Worker} w
 * @param {number} spins
 * @returns {Promise<number>}
 */
function loop(w, spins) {
  return new Promise((resolve, reject) => {
    w.onmessage = (ev) => resolve(Number(ev.data?.ms));
    w.onerror = (e) => {
      e.preventDefault();
      reject(new Error(e.message || 'a probe worker failed to start'));
    };
    w.postMessage({ spins });
  });
}

/**
 * Times the loop alone and on `tried` workers at once.
 * @param {number} tried
 * @returns {Promise<number>} the speed-up
 */
async function time(tried) {
  const workers = await startWorkers(tried);
  try {
    // Steps for TARGET_MS alone, from a first guess; then the best of ROUNDS of each.
    const guess = 2_000_000;
    const spins = Math.round(guess * Math.min(20, Math.max(0.05, TARGET_MS / Math.max(await loop(workers[0], guess), 0.01))));
    let alone = Infinity;
    let together = Infinity;
    for (let r = 0; r < ROUNDS; r++) {
      alone = Math.min(alone, await loop(workers[0], spins));
      const t0 = performance.now();
      await Promise.all(workers.map((w) => loop(w, spins)));
      together = Math.min(together, performance.now() - t0);
    }
    return speedupOf(alone, together, workers.length);
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
