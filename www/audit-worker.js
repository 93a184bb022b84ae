// Audit worker: one of several (one per core, capped; fewer when memory is short: cores.js)
// that share an audit's runs. It plans the
// audit of each threat model for the run's settings, does the runs the page hands it one at a
// time, and — on one of them — combines every run's scores into the report. The page cancels
// an audit by terminating its workers. Messages: protocol.js.
import init, { AuditSession } from './pkg/dpsgd_lab.js';
import { loadBuiltin } from './data-loader.js';
import { initFromPage } from './wasm-in-worker.js';

const sessions = new Map(); // threat → AuditSession
const ready = initFromPage(init);

// A wasm trap — a Rust panic (a bug: settings are checked and refused with a reason) or an
// allocation the browser refused (out of memory) — says only "unreachable": the page gets a
// sentence instead. It then stops the audit and terminates this worker, whose instance a trap
// leaves unusable.
const fail = (e) => postMessage({
  type: 'audit-error',
  message: e instanceof WebAssembly.RuntimeError
    ? 'a run stopped: the browser ran out of memory for it, or the lab has a bug (not your settings; the browser console may say which)'
    : e.message || String(e),
});

async function plan(m) {
  const data = await loadBuiltin(m.config);
  for (const s of sessions.values()) s.free();
  sessions.clear();
  const totals = {};
  for (const spec of m.specs) {
    const session = new AuditSession(data, m.config, spec);
    sessions.set(spec.threat, session);
    totals[spec.threat] = session.totalRuns();
  }
  data.free();
  postMessage({ type: 'audit-planned', totals });
}

onmessage = async (ev) => {
  const m = ev.data;
  if (!m || typeof m !== 'object' || typeof m.type !== 'string') return;
  try {
    await ready;
    if (m.type === 'audit-plan' && m.config && Array.isArray(m.specs)) {
      await plan(m);
    } else if (m.type === 'audit-run' && sessions.has(m.threat) && Number.isInteger(m.index)) {
      postMessage({ type: 'audit-run', threat: m.threat, run: sessions.get(m.threat).run(m.index) });
    } else if (m.type === 'audit-summarize' && sessions.has(m.threat) && Array.isArray(m.runs)) {
      postMessage({ type: 'audit-result', threat: m.threat, result: sessions.get(m.threat).summarize(m.runs) });
    }
  } catch (e) {
    fail(e);
  }
};
