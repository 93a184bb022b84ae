// @ts-check
// One audit's runs on its audit workers: the scheduler the "Audit this run" panel (audit.js)
// and Alice (alice.js) share (#54 §1). Each worker is given the plan; at the first worker's
// 'audit-planned' the job lists every run, each threat's in turn (worst case first), and hands
// them out one at a time, a worker's next as it reports its last. Once every run is in, each
// threat's runs go to a worker to be combined (in parallel, by Rust), and the job ends when
// every threat has its result. A worker's failure ends the job; a cancelled or ended job's late
// messages do nothing. The panels keep their own words, progress bars and charts.
import { TO_AUDIT } from '../core/protocol.js';
import { AuditWorker } from './audit-workers.js';

/**
 * What the job tells its panel. `failed(why, worker)`: a run, or (`worker` true) an audit worker
 * itself, failed with the reason `why` (or a message the page does not understand: why is
 * null); the job has stopped its workers.
 * @typedef {{
 *   progress: (done: number, total: number) => void,
 *   combining: () => void,
 *   finished: (results: Map<string, object>, seconds: number) => void,
 *   failed: (why: string | null, worker: boolean) => void,
 * }} JobEvents
 */

export class AuditJob {
  /**
   * @param {number} count the audit workers to start
   * @param {object} config the run's settings
   * @param {Parameters<typeof TO_AUDIT.plan>[1]} specs the plan's specs (protocol.js), a threat
   *   each
   * @param {JobEvents} on
   */
  constructor(count, config, specs, on) {
    this.threats = specs.map((s) => s.threat);
    this.on = on;
    /** @type {AuditWorker[]} */
    this.workers = [];
    /** @type {{threat: string, index: number}[]} */
    this.tasks = [];
    this.runs = new Map(this.threats.map((t) => [t, /** @type {object[]} */ ([])]));
    this.results = new Map();
    this.total = 0;
    this.done = 0;
    this.t0 = performance.now();
    this.seconds = 0;
    this.ended = false;
    /** @type {import('./audit-workers.js').AuditEvents} */
    const events = {
      current: (w) => !this.ended && this.workers.includes(w),
      garbled: () => this.fail(null, false),
      failed: (w, why) => this.fail(why, false),
      broke: (w, why) => this.fail(why, true),
      planned: (w, totals) => {
        if (!this.total) {
          for (const threat of this.threats) {
            const n = Number(totals[threat]) || 0;
            this.total += n;
            for (let index = 0; index < n; index += 1) this.tasks.push({ threat, index });
          }
          this.tasks.reverse(); // pop() hands them out in order: worst case first
          on.progress(0, this.total);
        }
        this.dispatch(w);
      },
      ran: (w, threat, run) => {
        this.runs.get(threat)?.push(run);
        this.done += 1;
        on.progress(this.done, this.total);
        if (this.done < this.total) {
          this.dispatch(w);
          return;
        }
        this.seconds = (performance.now() - this.t0) / 1000;
        on.combining();
        this.threats.forEach((t, i) =>
          this.workers[i % this.workers.length].post(TO_AUDIT.summarize(t, this.runs.get(t) ?? [])),
        );
      },
      result: (w, threat, result) => {
        this.results.set(threat, result);
        if (this.results.size < this.threats.length) return;
        this.cancel();
        on.finished(this.results, this.seconds);
      },
    };
    for (let i = 0; i < count; i += 1) {
      const w = new AuditWorker(events);
      this.workers.push(w);
      w.post(TO_AUDIT.plan(config, specs));
    }
  }

  // Worker `w`'s next run, or nothing when every run is handed out.
  /** @param {AuditWorker} w */
  dispatch(w) {
    const task = this.tasks.pop();
    if (task) w.post(TO_AUDIT.run(task.threat, task.index));
  }

  /** @param {string | null} why @param {boolean} worker */
  fail(why, worker) {
    this.cancel();
    this.on.failed(why, worker);
  }

  /** Stops every worker at once; the job's later messages do nothing. */
  cancel() {
    this.ended = true;
    for (const w of this.workers) w.terminate();
  }
}
