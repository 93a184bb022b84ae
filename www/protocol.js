// Every message between the page and its workers, in one place. A run-scoped message carries
// the generation of the run it belongs to; the page drops those of older runs. Errors are
// always delivered, and a message that does not have the shape below is reported, not obeyed.
//
// Page → training worker (worker.js):
/** @typedef {{type: 'start', generation: number, config: object, play: boolean, workers: number}} Start — workers: k asked (cores.js) */
/** @typedef {{type: 'pause' | 'resume', generation: number}} PauseResume */
/** @typedef {{type: 'own-data', files: File[], label: string, bounds: string}} OwnData — the worker reads the files */
/** @typedef {{type: 'cap', workers: number|null, reason: string}} Cap — at most that many workers (null: no limit), from the next lot: the cores an audit leaves (audit.js) */
//
// Training worker → page:
/** @typedef {{type: 'ready'}} Ready — the wasm core is loaded */
/** @typedef {{type: 'init-error', message: string}} InitError — it could not be */
/** @typedef {{type: 'progress', generation: number, stage: 'download' | 'decode' | 'pca', loaded?: number, total?: number}} Progress — loading a data set (total 0: unknown), then DP-PCA */
/** @typedef {{type: 'data', generation: number, facts: DataFacts}} Data — the run's data set */
/** @typedef {{type: 'resize', generation: number, n_train: number}} Resize — lot > N */
/** @typedef {{type: 'started', generation: number, coverage: {covered: string[], outside: string[]}, plane: object|null, workers: {asked: number, used: number, reason: string|null}}} Started */
/** @typedef {{type: 'workers', generation: number, workers: {asked: number, used: number, reason: string|null}}} Workers — the run's count changed (a cap) */
/** @typedef {{type: 'report', generation: number, report: object, boundary?: Float32Array}} Report */
/** @typedef {{type: 'done', generation: number}} Done */
/** @typedef {{type: 'error', generation: number, message: string}} RunError */
/** @typedef {{type: 'own-data-loaded', facts: DataFacts, file: string} | {type: 'own-data-rejected', message: string, file: string|null, spent: object[]}} OwnDataAnswer — spent: the releases a refused file's preparation made anyway (its ledger counts them) */
/**
 * @typedef {{n_train: number, n_test: number, n_features: number, n_classes: number,
 *   private: boolean, releases: object[]}} DataFacts
 */
//
// Page → every worker, first: {type: 'wasm', module} — the WebAssembly.Module the page compiled
// (wasm-module.js) — or {type: 'wasm', error} when it could not; the worker instantiates the
// module (wasm-in-worker.js) instead of downloading and compiling its own.
//
// Page ↔ training and accounting workers, the watchdog (kept-worker.js): {type: 'ping'} asks,
// {type: 'pong'} answers; {type: 'crashed', message} says a wasm trap ended the worker.
// {type: 'test-panic'} (the tests only) makes the training worker's Rust panic.
//
// Training worker ↔ its data-parallel helpers (gradient-worker.js, driven by gradient-pool.js):
// first {type: 'wasm', module}, as above; then {type: 'rows', x: Float32Array, y: Uint32Array}
// (kept across runs on the same rows), {type: 'configure', spec} per run, and per lot
// {type: 'sum', id, params, part, bounds}, answered by {type: 'part', id, grad, norms, counts, ms}
// with `grad` in the Float32Array `params` came in (transferred both ways, reused lot after lot),
// `counts` [examples, clipped, unclipped, digest of the rows summed] (Rust refuses a part whose
// counts are not the expected part's) and `ms` the helper's time summing it (for the bench), or
// {type: 'part-error', id, message} (the helper is then dropped; also when a message to it could
// not be read, or a part is not answered within a minute). In a cross-origin-isolated page the
// lots go through shared memory instead (shared-channel.js): the setup messages carry a number,
// `setup`, and one more of them, {type: 'channel', channel, setup}, hands the helper its
// SharedArrayBuffers; a 'part-error' then has no id.
//
// Page ↔ audit workers (audit-worker.js, one per core, capped; audit.js drives them):
/** @typedef {{type: 'audit-plan', config: object, specs: {threat: string, runs: number, canaries: number, seed: number}[]}} AuditPlan */
/** @typedef {{type: 'audit-run', threat: string, index: number}} AuditRun — one run, answered by 'audit-run' {threat, run} */
/** @typedef {{type: 'audit-summarize', threat: string, runs: object[]}} AuditSummarize — answered by 'audit-result' {threat, result} */
// Audit worker → page: 'audit-planned' {totals: {threat: runs}}, 'audit-error' {message}.
//
// Page ↔ accounting worker (accounting-worker.js): {id, type, config, facts, target?} asks;
// {id, type, result} or {id, type, error} answers. Types: 'calibrate' (target, accountant),
// 'sigma-needed' (target), 'pld-curve'; and 'file-ledger' {id, type, preparations, runs}
// (file-ledger.js: every run on a student's file, composed).

export const TO_WORKER = Object.freeze({
  start: (generation, config, play, workers) => ({ type: 'start', generation, config, play, workers }),
  pause: (generation) => ({ type: 'pause', generation }),
  resume: (generation) => ({ type: 'resume', generation }),
  ownData: (files, label, bounds) => ({ type: 'own-data', files, label, bounds }),
  cap: (workers, reason) => ({ type: 'cap', workers, reason }),
});

// The fields each training-worker message must have, by type.
const SHAPES = new Map([
  ['ready', []],
  ['init-error', ['message']],
  ['progress', ['generation', 'stage']],
  ['data', ['generation', 'facts']],
  ['resize', ['generation', 'n_train']],
  ['started', ['generation', 'coverage']],
  ['workers', ['generation', 'workers']],
  ['report', ['generation', 'report']],
  ['done', ['generation']],
  ['error', ['generation', 'message']],
  ['own-data-loaded', ['facts', 'file']],
  ['own-data-rejected', ['message', 'spent']],
]);

// The fields each audit-worker message must have, by type.
const AUDIT_SHAPES = new Map([
  ['audit-planned', ['totals']],
  ['audit-run', ['threat', 'run']],
  ['audit-result', ['threat', 'result']],
  ['audit-error', ['message']],
]);

// An audit worker's message if it has a known type and its fields, else null.
export function checkFromAuditWorker(m) {
  return hasShape(m, AUDIT_SHAPES);
}

function hasShape(m, shapes) {
  if (!m || typeof m !== 'object' || typeof m.type !== 'string') return null;
  const fields = shapes.get(m.type);
  if (!fields) return null;
  return fields.every((f) => Object.prototype.hasOwnProperty.call(m, f)) ? m : null;
}

// The message if it has a known type and the fields that type needs, else null.
export function checkFromWorker(m) {
  return hasShape(m, SHAPES);
}
