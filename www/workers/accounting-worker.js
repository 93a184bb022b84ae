// @ts-check
// Accounting worker: the privacy computations too slow for the main thread's 50 ms budget —
// calibrating σ (PLD takes seconds), the "σ needed versus T" panel (hundreds of ε evaluations),
// the PLD accountant's ε curve and every run on a student's file composed — on a wasm instance
// of their own, so they never wait behind training. Every request names its fields
// (protocol.js): the run's settings and the data's public facts, from which Rust derives the
// mechanism (and the run as an Opacus script). Requests coalesce: of several waiting requests of
// one type only the newest runs, and the page drops older answers. Start-up, pings and traps:
// worker-shell.js.
import init, {
  calibrate,
  file_ledger,
  opacus_export,
  opacus_export_needs_data,
  opacus_refusal,
  pld_preview,
  sigma_needed,
} from '../pkg/dpsgd_lab.js';
import { loadBuiltin } from '../core/data-loader.js';
import { checkToAccounting } from '../core/message-checks.js';
import { post, startWorker, trapped } from './worker-shell.js';

/** @typedef {import('../core/protocol.js').ToAccounting} ToAccounting */
/** @typedef {import('../core/protocol.js').FromAccounting} FromAccounting */

/**
 * @param {FromAccounting} m
 * @param {Transferable[]} [transfer]
 */
const send = (m, transfer = []) => post(m, transfer);

/** @type {Map<string, {m: ToAccounting, task: () => unknown}>} */
const pending = new Map(); // type -> newest request not yet run, and its computation
let scheduled = false;
/** @param {any} e */
const said = (e) => String(e?.message || e);

async function drain() {
  scheduled = false;
  for (const [type, { m, task }] of pending) {
    pending.delete(type);
    try {
      send({ id: m.id, type: m.type, result: task() });
    } catch (e) {
      if (trapped(e)) return; // the page starts a new worker
      send({ id: m.id, type: m.type, error: said(e) });
    }
    // Let newer requests arrive (and replace older ones) before the next computation.
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

/**
 * @param {ToAccounting} m
 * @param {() => unknown} task
 */
function queue(m, task) {
  pending.set(m.type, { m, task });
  if (!scheduled) {
    scheduled = true;
    setTimeout(drain, 0);
  }
}

// "Export as Opacus script": the data set loaded first (as for training) only when its prepared
// features go beside the script; the file's bytes handed over, not copied.
/** @param {Extract<ToAccounting, {type: 'opacus-export'}>} m */
async function exportOpacus(m) {
  try {
    const config = /** @type {any} */ (m.config);
    const why = opacus_refusal(config);
    if (why) throw new Error(why);
    const data = opacus_export_needs_data(String(config.dataset))
      ? await loadBuiltin(config)
      : undefined;
    const file = opacus_export(config, m.facts ?? null, data, String(m.accountant));
    const bytes = file.bytes;
    send({ id: m.id, type: m.type, result: { name: file.name, bytes } }, [bytes.buffer]);
  } catch (e) {
    if (!trapped(e)) send({ id: m.id, type: m.type, error: said(e) });
  }
}

startWorker({
  init,
  check: checkToAccounting,
  handlers: {
    calibrate: (m) =>
      queue(m, () => calibrate(m.config, m.facts, String(m.accountant), Number(m.target))),
    'sigma-needed': (m) => queue(m, () => sigma_needed(m.config, m.facts, Number(m.target))),
    'pld-curve': (m) => queue(m, () => pld_preview(m.config, m.facts)),
    'file-ledger': (m) => queue(m, () => file_ledger(m.preparations, m.runs)),
    'opacus-export': (m) => exportOpacus(m),
  },
  failed: (e, m) => send({ id: m.id, type: m.type, error: said(e) }),
});
