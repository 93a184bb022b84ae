// How many workers share the work: the "Workers" control, by default the cores the browser
// reports (capped). Training splits each lot between that many workers (worker.js,
// gradient-pool.js) and the audit trains that many of its runs at once (audit.js).
const $ = (id) => document.getElementById(id);

export const MAX_WORKERS = 8;

export const defaultWorkers = () => Math.max(1, Math.min(navigator.hardwareConcurrency || 2, MAX_WORKERS));

// The control's value when it is a whole number in range, else the default.
export function workerCount() {
  const field = $('workers');
  const asked = Number(field.value);
  return field.value !== '' && Number.isInteger(asked) && asked >= 1 && asked <= MAX_WORKERS ? asked : defaultWorkers();
}

// The audit's workers: the control's value when one is set; by default the cores but one (its
// runs are whole trainings, one per worker, and the page keeps a core to stay responsive).
function auditWorkerCount() {
  return $('workers').value === '' ? Math.max(1, defaultWorkers() - 1) : workerCount();
}

// The audit's workers for a data set whose audit worker needs about `bytes` of memory (Rust's
// audit_worker_bytes; NaN when the data set's size is not known yet): the count above, but no
// more than fit in half the device's memory — each holds its own copy of the data, and a tab
// that runs out of memory is lost. navigator.deviceMemory is in GB, rounded and capped at 8 by
// the browser; 4 where it does not say. {count, asked, reason} (reason: '' when all run).
export function auditWorkerPlan(bytes) {
  const asked = auditWorkerCount();
  const reported = Number(navigator.deviceMemory);
  const gb = reported > 0 ? reported : 4;
  if (!(bytes > 0)) return { count: asked, asked, reason: '' };
  const fit = Math.max(1, Math.floor((gb * 2 ** 30) / 2 / bytes));
  if (fit >= asked) return { count: asked, asked, reason: '' };
  const size = bytes >= 2 ** 30 ? `${(bytes / 2 ** 30).toFixed(1)} GB` : `${Math.round(bytes / 2 ** 20)} MB`;
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
}

// Wires the control: placeholder = the default; a change calls `onChange` (the run restarts).
export function setUpWorkers(onChange) {
  $('workers').placeholder = String(defaultWorkers());
  $('workers').max = String(MAX_WORKERS);
  $('workers').addEventListener('change', () => {
    const v = $('workers').value;
    const n = Number(v);
    if (v !== '' && !(Number.isInteger(n) && n >= 1 && n <= MAX_WORKERS)) {
      $('workers').setCustomValidity(`a whole number from 1 to ${MAX_WORKERS}`);
      $('workers').reportValidity();
      return;
    }
    $('workers').setCustomValidity('');
    onChange();
  });
}
