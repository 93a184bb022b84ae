// How many workers share the work: the "Workers" control, by default the cores a short timing
// shows this device runs at once (core-probe.js: the browser's own count can be more than the
// machine has), capped. Training splits each lot between that many workers (worker.js,
// gradient-pool.js) and the audit trains that many of its runs at once (audit.js), or fewer
// where their copies of the data set would not fit in memory (auditWorkerPlan).
import { settings } from '../lab/settings.js';
import { defaultReason, probeCores, probeKept, probed, reportedCores } from '../core/core-probe.js';

const $ = (id) => document.getElementById(id);

export const MAX_WORKERS = 8;

// The default before the cores are timed: the browser's count, but no more than two, which
// every device that reports two or more has had for a decade (WebKitGTK reported 4 on 2).
const UNTIMED_MAX = 2;

// The cores this device runs at once: the probe's count once it has one; before it, and where
// they could not be timed, the browser's count up to UNTIMED_MAX.
export function defaultWorkers() {
  return probed()?.measured ?? Math.min(reportedCores(MAX_WORKERS), UNTIMED_MAX);
}

const inRange = (n) => Number.isInteger(n) && n >= 1 && n <= MAX_WORKERS;

// The setting's value when it is a whole number in range, else the default.
export function workerCount() {
  const asked = settings.get('workers');
  return asked !== null && inRange(asked) ? asked : defaultWorkers();
}

// The audit's workers: the control's value when one is set; by default the cores but one (its
// runs are whole trainings, one per worker, and the page keeps a core to stay responsive).
function auditWorkerCount() {
  return settings.get('workers') === null ? Math.max(1, defaultWorkers() - 1) : workerCount();
}

// The audit's workers for a data set whose audit worker needs about `bytes` of memory (Rust's
// audit_worker_bytes; NaN while the data set's size is not known): the count above, but no
// more than fit in half the device's memory — each holds its own copy of the data, and a tab
// that runs out of memory is lost. navigator.deviceMemory is in GB, rounded and capped at 8 by
// the browser; 4 where it does not say. {count, asked, reason} (reason: '' when all run).
export function auditWorkerPlan(bytes) {
  const asked = auditWorkerCount();
  if (!(bytes > 0)) {
    return asked > 1
      ? {
          count: 1,
          asked,
          reason: 'the data set is still loading, and each worker needs its own copy of it',
        }
      : { count: 1, asked, reason: '' };
  }
  const reported = Number(navigator.deviceMemory);
  const half = ((reported > 0 ? reported : 4) * 1e9) / 2;
  const fit = Math.floor(half / bytes);
  const size = bytes >= 1e9 ? `${(bytes / 1e9).toFixed(2)} GB` : `${Math.round(bytes / 1e6)} MB`;
  if (fit < 1)
    return {
      count: 1,
      asked,
      reason:
        `one needs about ${size}, more than half of this device's memory: the audit may run ` +
        `out of memory`,
    };
  if (fit >= asked) return { count: asked, asked, reason: '' };
  return {
    count: fit,
    asked,
    reason:
      `each needs its own copy of this data set, about ${size}, and the audit keeps within ` +
      `half of this device's memory`,
  };
}

// How parts of each lot reach the helpers, after "Parts of each lot go to the helpers ":
// through shared memory, or by message and what the browser lacks for shared memory (`missing`,
// shared-channel.js's sharedMemoryMissing in the training worker).
export function channelText(channel, missing) {
  if (channel === 'shared memory') return 'through shared memory.';
  if (channel !== 'messages') return '';
  const why = new Map([
    [
      'isolation',
      'this page is not cross-origin isolated (the offline copy, once installed, usually ' +
        'isolates the next visit).',
    ],
    [
      'SharedArrayBuffer',
      'this browser does not let this page share memory with its workers (no ' +
        'SharedArrayBuffer), though the page is cross-origin isolated.',
    ],
    [
      'Atomics.waitAsync',
      'this browser cannot wait on shared memory without blocking (no Atomics.waitAsync).',
    ],
  ]);
  return `by message: ${why.get(missing) ?? 'this browser cannot share memory with them.'}`;
}

// Says how many workers the run uses ({asked, used, reason, channel, missing} from the training
// worker), and in the tooltip how parts reach the helpers and, when the count is the default,
// where it comes from.
export function showWorkersUsed(w) {
  const out = $('workers-used');
  if (!w || typeof w !== 'object') {
    out.textContent = '';
    return;
  }
  const used = Number(w.used) || 1;
  out.textContent =
    used === Number(w.asked)
      ? `(${used} in use)`
      : `(${used} in use: ${String(w.reason || '').slice(0, 120)})`;
  const how = channelText(w.channel, w.missing);
  // the count's reason
  const byDefault = settings.get('workers') === null ? $('workers').title : '';
  out.title = [how && `Parts of each lot go to the helpers ${how}`, byDefault]
    .filter(Boolean)
    .join(' ');
  out.dataset.channel = out.title;
}

// The finished run's helper parts, from the worker's 'done': how many the helpers summed and
// how many the training worker summed in their place (a helper failed, or Rust refused its
// answer as not the part it was sent), added to the tooltip.
export function showPartsSummed(p) {
  const out = $('workers-used');
  const n = (v) => (Number.isInteger(v) && v >= 0 ? v : 0);
  const [helpers, here] = [n(p?.helpers), n(p?.here)];
  if (helpers + here === 0) return;
  const count = (v) => v.toLocaleString('en-US');
  out.title =
    `${out.dataset.channel || ''} This run: the helpers summed ${count(helpers)} parts` +
    (here
      ? `; the training worker summed ${count(here)} in their place (a helper failed, or its ` +
        `answer was refused).`
      : '.');
}

// The control's placeholder (the default) and its tooltip (why), from the probe so far.
function showDefault() {
  const count = defaultWorkers();
  $('workers').placeholder = String(count);
  $('workers').title = defaultReason(probed(), count, reportedCores(MAX_WORKERS));
  document.body.dataset.cores = String(count);
}

// Sets up the control: its far end MAX_WORKERS, and the default so far (the timing kept from
// earlier in this tab session, else the untimed one). The first run does not wait for a timing.
export function setUpWorkers() {
  $('workers').max = String(MAX_WORKERS);
  probeKept(MAX_WORKERS);
  showDefault();
}

let waiting = false; // a timing is waiting for quiet cores

// A run has ended: once `settled` has (the offline copy stored: update.js; no more than
// SETTLE_MS waited for), the cores are timed when the page is quiet (whenQuiet), once per tab
// session. The next run takes the new default.
const SETTLE_MS = 10_000;
/**
 * @param {() => boolean} quiet
 * @param {Promise<void>} settled
 */
export function timeCoresWhenQuiet(quiet, settled) {
  if (probed() !== null || waiting) return;
  waiting = true;
  const idle =
    /** @type {any} */ (self).requestIdleCallback ||
    ((/** @type {() => void} */ f) => setTimeout(f, 200));
  Promise.race([settled, new Promise((r) => setTimeout(r, SETTLE_MS))])
    .then(() => whenQuiet(quiet, () => probeCores(MAX_WORKERS, quiet), { idle }))
    .then(() => {
      waiting = false;
      showDefault();
    });
}

/**
 * Runs `time` once the page has been idle for a moment (`idle`, after `pause` ms) and `quiet()`
 * holds, looked at every `poll` ms for as long as it takes (docs/performance.md, "The first
 * visit", says why it never gives up); a timing the page interrupts (`time` answers null: a run
 * started, an accounting request) waits for quiet again. Resolves with `time`'s first answer
 * that is not null.
 * @template T
 * @param {() => boolean} quiet
 * @param {() => Promise<T | null>} time
 * @param {{idle?: (f: () => void) => void, poll?: number, pause?: number}} [options]
 * @returns {Promise<T>}
 */
export function whenQuiet(
  quiet,
  time,
  { idle = (f) => setTimeout(f, 0), poll = 500, pause = 300 } = {},
) {
  return new Promise((resolve) => {
    const attempt = () =>
      idle(() => {
        if (!quiet()) {
          setTimeout(attempt, poll);
          return;
        }
        time().then((answer) => {
          if (answer === null) setTimeout(attempt, poll);
          else resolve(answer);
        });
      });
    setTimeout(attempt, pause);
  });
}

// Whether the workers setting a person just gave can be used (blank: the default); if not, the
// control says why.
export function checkWorkers() {
  const v = settings.get('workers');
  const ok = v === null || inRange(v);
  $('workers').setCustomValidity(ok ? '' : `a whole number from 1 to ${MAX_WORKERS}`);
  if (!ok) $('workers').reportValidity();
  return ok;
}
