// @ts-check
// The page's side of an audit worker (audit-worker.js): starting it, the page's messages to it
// (protocol.js's TO_AUDIT), and what each of its messages means for the audit under way
// (audit.js), checked as it arrives. A trap in the worker (worker-shell.js's 'crashed') says only
// "unreachable": the page gets the sentence below instead.
import { checkFromAuditWorker } from '../core/message-checks.js';
import { sendWasm } from '../core/wasm-module.js';
import { ModuleWorker } from '../core/module-worker.js';

/** @typedef {import('../core/protocol.js').FromAudit} FromAudit */
/** @typedef {import('../core/protocol.js').ToAudit} ToAudit */
/**
 * What an audit worker's messages do: `current(w)` whether `w` works for the audit under way
 * (a cancelled audit's late messages do nothing); `failed(w, why)` stops the audit with `why`;
 * `garbled(w)` stops it for a message the page does not understand; `broke(w, why)` for the
 * worker's error event.
 * @typedef {{
 *   current: (w: AuditWorker) => boolean,
 *   planned: (w: AuditWorker, totals: Object<string, number>) => void,
 *   ran: (w: AuditWorker, threat: string, run: object) => void,
 *   result: (w: AuditWorker, threat: string, result: object) => void,
 *   failed: (w: AuditWorker, why: string) => void,
 *   garbled: (w: AuditWorker) => void,
 *   broke: (w: AuditWorker, why: string) => void,
 * }} AuditEvents
 */

// A trap: a Rust panic (a bug: settings are checked and refused with a reason) or an allocation
// the browser refused (out of memory).
const TRAPPED =
  'a run stopped: the browser ran out of memory for it, or the lab has a bug (not your ' +
  'settings; the browser console may say which)';

export class AuditWorker {
  /** @param {AuditEvents} on */
  constructor(on) {
    /** @type {{[K in FromAudit['type']]: (m: Extract<FromAudit, {type: K}>) => void}} */
    const handlers = {
      'audit-planned': (m) => on.planned(this, m.totals),
      'audit-run': (m) => on.ran(this, m.threat, m.run),
      'audit-result': (m) => on.result(this, m.threat, m.result),
      'audit-error': (m) => on.failed(this, m.message),
      crashed: () => on.failed(this, TRAPPED),
      'init-error': (m) => on.failed(this, m.message),
      refused: (m) => on.failed(this, `a worker refused the page's message (${m.message})`),
    };
    /** @type {Map<string, (m: FromAudit) => void>} */
    const table = new Map(Object.entries(handlers));
    // Started in turn, and again if its scripts fail to load once (module-worker.js).
    this.worker = new ModuleWorker(new URL('../workers/audit-worker.js', import.meta.url), {
      onmessage: (ev) => {
        if (!on.current(this)) return;
        const m = checkFromAuditWorker(ev.data);
        if (m) table.get(m.type)?.(m);
        else on.garbled(this);
      },
      onerror: (e, why) => on.broke(this, why),
    });
    sendWasm(this.worker);
  }

  /** @param {ToAudit} message */
  post(message) {
    this.worker.postMessage(message);
  }

  terminate() {
    this.worker.terminate();
  }
}
