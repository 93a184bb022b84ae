// Accounting worker: the privacy computations too slow for the main thread's 50 ms budget —
// calibrating σ (PLD takes seconds), the "σ needed versus T" panel (hundreds of ε evaluations),
// the PLD accountant's ε curve and every run on a student's file composed — on a wasm instance
// of their own, so they never wait behind training. Every request names its fields (protocol.js): the run's settings and the
// data's public facts, from which Rust derives the mechanism. Requests coalesce: of several
// waiting requests of one type only the newest runs, and the page drops older answers.
import init, { calibrate, file_ledger, pld_preview, sigma_needed } from './pkg/dpsgd_lab.js';
import { initFromPage } from './wasm-in-worker.js';

const TASKS = new Map([
  ['calibrate', (m) => calibrate(m.config, m.facts, String(m.accountant), Number(m.target))],
  ['sigma-needed', (m) => sigma_needed(m.config, m.facts, Number(m.target))],
  ['pld-curve', (m) => pld_preview(m.config, m.facts)],
  ['file-ledger', (m) => file_ledger(m.preparations, m.runs)],
]);
const pending = new Map(); // type -> newest request not yet run
let scheduled = false;
const ready = initFromPage(init);
ready.catch(() => {}); // a failed load is answered request by request, below

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
      postMessage({ id: m.id, type, result: TASKS.get(type)(m) });
    } catch (e) {
      if (e instanceof WebAssembly.RuntimeError) {
        // A trap leaves the instance unusable: the page starts a new worker.
        postMessage({ type: 'crashed', message: e.message || String(e) });
        close();
        return;
      }
      postMessage({ id: m.id, type, error: e.message || String(e) });
    }
    // Let newer requests arrive (and replace older ones) before the next computation.
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

onmessage = (ev) => {
  const m = ev.data;
  if (m && m.type === 'wasm') return; // taken by initFromPage
  if (m && m.type === 'ping') {
    postMessage({ type: 'pong' }); // the page's watchdog (kept-worker.js)
    return;
  }
  if (!m || typeof m !== 'object' || !TASKS.has(m.type)) {
    postMessage({ id: m && m.id, type: m && m.type, error: `unknown request '${String(m && m.type).slice(0, 30)}'` });
    return;
  }
  pending.set(m.type, m);
  if (!scheduled) {
    scheduled = true;
    setTimeout(drain, 0);
  }
};
