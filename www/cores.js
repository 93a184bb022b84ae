// How many workers share the work: the "Workers" control, by default the cores the browser
// reports (capped). Training splits each lot between that many workers (worker.js,
// gradient-pool.js) and the audit trains that many of its runs at once (audit.js), or fewer
// where their copies of the data set would not fit in memory (auditWorkerPlan).
import { settings } from './settings.js';

const $ = (id) => document.getElementById(id);

export const MAX_WORKERS = 8;

export const defaultWorkers = () => Math.max(1, Math.min(navigator.hardwareConcurrency || 2, MAX_WORKERS));

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
    return asked > 1 ? { count: 1, asked, reason: 'the data set is still loading, and each worker needs its own copy of it' } : { count: 1, asked, reason: '' };
  }
  const reported = Number(navigator.deviceMemory);
  const half = ((reported > 0 ? reported : 4) * 1e9) / 2;
  const fit = Math.floor(half / bytes);
  const size = bytes >= 1e9 ? `${(bytes / 1e9).toFixed(2)} GB` : `${Math.round(bytes / 1e6)} MB`;
  if (fit < 1) return { count: 1, asked, reason: `one needs about ${size}, more than half of this device's memory: the audit may run out of memory` };
  if (fit >= asked) return { count: asked, asked, reason: '' };
  return { count: fit, asked, reason: `each needs its own copy of this data set, about ${size}, and the audit keeps within half of this device's memory` };
}

// Says how many workers the run uses ({asked, used, reason} from the training worker).
export function showWorkersUsed(w) {
  const out = $('workers-used');
  if (!w || typeof w !== 'object') {
    out.textContent = '';
    return;
  }
  const used = Number(w.used) || 1;
  out.textContent = used === Number(w.asked) ? `(${used} in use)` : `(${used} in use: ${String(w.reason || '').slice(0, 120)})`;
  // How parts of each lot reach the helpers (gradient-pool.js), for whoever asks.
  const how = {
    'shared memory': 'through shared memory.',
    // Not isolated (sw.js adds the headers to what it serves: later visits), or isolated in a
    // browser without Atomics.waitAsync (shared-channel.js).
    messages: globalThis.crossOriginIsolated
      ? 'by message: this browser cannot wait on shared memory without blocking (no Atomics.waitAsync).'
      : 'by message: this page is not cross-origin isolated (the offline copy, once installed, usually isolates the next visit).',
  };
  out.title = Object.hasOwn(how, w.channel) ? `Parts of each lot go to the helpers ${how[w.channel]}` : '';
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
  out.title = `${out.dataset.channel || ''} This run: the helpers summed ${count(helpers)} parts`
    + (here ? `; the training worker summed ${count(here)} in their place (a helper failed, or its answer was refused).` : '.');
}

// Sets up the control: its placeholder is the default, its far end MAX_WORKERS.
export function setUpWorkers() {
  $('workers').placeholder = String(defaultWorkers());
  $('workers').max = String(MAX_WORKERS);
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
