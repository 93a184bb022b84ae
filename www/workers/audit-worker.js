// @ts-check
// Audit worker: one of several (one per core, capped; fewer when memory is short: cores.js)
// that share an audit's runs. It plans the audit of each threat model for the run's settings,
// does the runs the page hands it one at a time, and — on one of them — combines every run's
// scores into the report. The page cancels an audit by terminating its workers. Messages:
// protocol.js; start-up, pings and traps: worker-shell.js (a trap — a Rust panic, a bug, or an
// allocation the browser refused — says only "unreachable": audit-workers.js gives the page a
// sentence for it).
import init, { AuditSession } from '../pkg/dpsgd_lab.js';
import { loadBuiltin } from '../core/data-loader.js';
import { checkToAudit } from '../core/message-checks.js';
import { post, startWorker } from './worker-shell.js';

/** @typedef {import('../core/protocol.js').ToAudit} ToAudit */
/** @typedef {import('../core/protocol.js').FromAudit} FromAudit */

/** @param {FromAudit} m */
const send = (m) => post(m);

/** @type {Map<string, AuditSession>} */
const sessions = new Map(); // threat → AuditSession

/** @param {string} threat */
function sessionOf(threat) {
  const session = sessions.get(threat);
  if (!session) throw new Error(`no audit is planned for '${threat.slice(0, 30)}'`);
  return session;
}

startWorker({
  init,
  check: checkToAudit,
  handlers: {
    'audit-plan': async (m) => {
      const data = await loadBuiltin(m.config);
      for (const s of sessions.values()) s.free();
      sessions.clear();
      /** @type {Object<string, number>} */
      const totals = {};
      for (const spec of m.specs) {
        const session = new AuditSession(data, m.config, spec);
        sessions.set(spec.threat, session);
        totals[spec.threat] = session.totalRuns();
      }
      data.free();
      send({ type: 'audit-planned', totals });
    },
    'audit-run': (m) =>
      send({ type: 'audit-run', threat: m.threat, run: sessionOf(m.threat).run(m.index) }),
    'audit-summarize': (m) =>
      send({
        type: 'audit-result',
        threat: m.threat,
        result: sessionOf(m.threat).summarize(m.runs),
      }),
  },
  // The page then stops the audit and terminates every worker.
  failed: (e) =>
    send({ type: 'audit-error', message: String(/** @type {any} */ (e)?.message || e) }),
});
