// Accounting worker: the privacy computations too slow for the main thread's 50 ms budget —
// calibrating σ (PLD takes seconds), the "σ needed versus T" panel (hundreds of ε
// evaluations) and the PLD accountant's ε curve (up to seconds; the page gives it a worker of its own) — run here, on a wasm instance of their own, so they never wait behind training
// either. Requests coalesce: of several waiting requests of one type only the newest runs, and
// the page drops answers older than its latest request.
import init, { calibrate_sigma, pld_epsilon_curve, sigma_needed_curve } from './pkg/dpsgd_lab.js';

const TASKS = { calibrate: calibrate_sigma, 'sigma-curve': sigma_needed_curve, 'pld-curve': pld_epsilon_curve };
const pending = new Map(); // type -> newest request not yet run
let scheduled = false;
const ready = init();

async function drain() {
  scheduled = false;
  try {
    await ready;
  } catch (e) {
    for (const m of pending.values()) postMessage({ id: m.id, type: m.type, error: `Loading the lab failed: ${e.message || e}` });
    pending.clear();
    return;
  }
  for (const [type, m] of pending) {
    pending.delete(type);
    try {
      postMessage({ id: m.id, type, result: TASKS[type](...m.args) });
    } catch (e) {
      postMessage({ id: m.id, type, error: e.message || String(e) });
    }
    // Let newer requests arrive (and replace older ones) before the next computation.
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

onmessage = (ev) => {
  const m = ev.data;
  if (!TASKS[m.type]) {
    postMessage({ id: m.id, type: m.type, error: `unknown request '${m.type}'` });
    return;
  }
  pending.set(m.type, m);
  if (!scheduled) {
    scheduled = true;
    setTimeout(drain, 0);
  }
};
