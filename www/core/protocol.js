// @ts-check
// Every message between the page and its workers, in one place: each as a JSDoc type (a union
// per direction, told apart by `type`), the fields its receiver checks before it acts on it, and
// the page's builders. A run-scoped message carries the generation of the run it belongs to; the
// page drops those of older runs. Errors are always delivered, and a message without its shape
// (message-checks.js: each type's fields and their kinds) is reported, not obeyed.
// scripts/typecheck checks the senders, the handlers and the shapes against the types
// (tsconfig.page.json, tsconfig.worker.json).
//
// Page → every worker, first: {type: 'wasm', module} — the WebAssembly.Module the page compiled
// (wasm-module.js) — or {type: 'wasm', error} when it could not; the worker instantiates the
// module (worker-shell.js) instead of downloading and compiling its own. Every worker answers
// {type: 'ping'} with {type: 'pong'} (the page's watchdog, kept-worker.js), and says
// {type: 'crashed', message} when a wasm trap ended it, {type: 'init-error', message} when its
// wasm could not load (again for each message sent to it after), and {type: 'refused', message,
// id} for a message of an unknown type or without its fields (`id`: the message's, if any).
/**
 * @typedef {{type: 'wasm', module: WebAssembly.Module} | {type: 'wasm', error: string}
 *   | {type: 'ping'}} ToShell
 */
/** @typedef {{type: 'pong'} | Crashed | InitError | Refused} FromShell */
/** @typedef {{type: 'crashed', message: string}} Crashed */
/** @typedef {{type: 'init-error', message: string}} InitError */
/** @typedef {{type: 'refused', message: string, id: number|null}} Refused */
//
// Page → training worker (worker.js); 'bench' and 'bench-products' come from
// scripts/bench-parallel.mjs, 'test-panic' (a real Rust panic) and 'test-hang-helper' (the first
// helper hangs in its next part) from the tests:
/**
 * workers: k asked; cores: how many this device runs at once (cores.js; the helpers spin only
 * where each has one).
 * @typedef {{type: 'start', generation: number, config: object, play: boolean, workers: number,
 *   cores?: number}} Start
 */
/**
 * @typedef {{type: 'pause', generation: number} | {type: 'resume', generation: number}} PauseResume
 */
/**
 * A column's range from the page's form: [name, min, max].
 * @typedef {[string, number, number]} StatedRange
 */
/**
 * The worker reads the files.
 * @typedef {{type: 'own-data', files: File[], label: string, bounds: string,
 *   ranges: StatedRange[], read_off: boolean, delta: number}} OwnData
 */
/**
 * At most that many workers (null: no limit), from the next lot: the cores an audit leaves
 * (audit.js).
 * @typedef {{type: 'cap', workers: number|null, reason: string}} Cap
 */
/**
 * @typedef {{type: 'bench', model: string, workers: number, ms: number, alone?: boolean,
 *   batch?: number}} Bench
 */
/**
 * The kernel's GFLOP/s on a benchmark case's products for a part of `n` examples.
 * @typedef {{type: 'bench-products', model: string, n: number, ms: number}} BenchProducts
 */
/**
 * @typedef {Start | PauseResume | OwnData | Cap | Bench | BenchProducts
 *   | {type: 'test-panic'} | {type: 'test-hang-helper'}} ToTraining
 */
//
// Training worker → page (besides the shell's):
/**
 * channel: how parts reach the helpers; missing: what shared memory lacks here ('' when nothing;
 * shared-channel.js).
 * @typedef {{asked: number, used: number, reason: string|null, channel: string|null,
 *   missing: string}} WorkersUsed
 */
/**
 * @typedef {{n_train: number, n_test: number, n_features: number, n_classes: number,
 *   private: boolean, releases: object[], majority_share?: number|null}} DataFacts
 */
/**
 * @typedef {{columns: {name: string, range: {lo: number, hi: number}|null}[], rows: number,
 *   rows_needed: number, estimated: boolean}} RangesNeeded — Rust's: every numeric column of a
 *   file refused for want of ranges
 */
/**
 * @typedef {{type: 'ready'}
 *   | {type: 'progress', generation: number, stage: 'download' | 'decode' | 'pca',
 *       loaded?: number, total?: number}
 *   | {type: 'data', generation: number, facts: DataFacts}
 *   | {type: 'resize', generation: number, n_train: number}
 *   | {type: 'started', generation: number, coverage: {covered: string[], outside: string[]},
 *       plane: object|null, workers: WorkersUsed}
 *   | {type: 'workers', generation: number, workers: WorkersUsed}
 *   | {type: 'helper-lost', generation: number, message: string}
 *   | {type: 'report', generation: number, report: object,
 *       boundary?: {res: number, probs: Float32Array}}
 *   | {type: 'done', generation: number, parts: {helpers: number, here: number}}
 *   | {type: 'error', generation: number, message: string}
 *   | {type: 'own-data-loaded', facts: DataFacts, file: string}
 *   | {type: 'own-data-rejected', message: string, file: string|null, spent: object[],
 *       ranges: RangesNeeded|null}
 *   | {type: 'bench', model: string, workers: number, helpers: number, channel: string,
 *       examples_per_sec: number, phases: object, ceiling: object|null}
 *   | {type: 'bench-products', model: string, gflops: number}
 *   | InitError} FromTraining
 */
// progress: loading a data set (total 0: unknown), then DP-PCA; resize: the lot is larger than
// the data set; workers: the run's count changed (a cap, or a helper lost); helper-lost: a
// helper was given up on (it hung or failed), in a sentence for the message box; done.parts:
// the helpers' parts summed by a helper and here in its place; own-data: `ranges` and
// `read_off` from the page's form of ranges, `delta` the δ a refusal's spent ε is given at;
// own-data-*: `file` a key of the contents (the file ledger), `spent` the releases a refused
// file's preparation made anyway, `ranges` the form's columns when ranges are what it lacks;
// bench, bench-products: `make bench` only.
//
// Training worker → its data-parallel helpers (gradient-worker.js, driven by gradient-pool.js):
// first 'wasm', as above; then 'rows' (kept across runs on the same rows), 'configure' per run,
// and per lot 'sum', answered by 'part' with `grad` in the Float32Array `params` came in
// (transferred both ways, reused lot after lot), `counts` [examples, clipped, unclipped, digest of
// the rows summed] (Rust refuses a part whose counts are not the expected part's) and `ms` the
// helper's time summing it (for the bench), or by 'part-error' (the helper is then dropped; also
// when a message to it could not be read, or a part is not answered in 20 times a part's time,
// 2 s at least: gradient-pool.js; a 'crashed' drops it too); 'test-hang' (the tests) makes its
// next part never end. In a cross-origin-isolated page the lots go through shared memory instead
// (shared-channel.js): the setup messages carry a number, `setup`, and one more of them,
// 'channel', hands the helper its SharedArrayBuffers; a 'part-error' then has no id.
/**
 * @typedef {{type: 'rows', x: Float32Array, y: Uint32Array, setup?: number}
 *   | {type: 'configure', spec: object, setup?: number}
 *   | {type: 'channel', channel: object, setup?: number}
 *   | {type: 'sum', id: number, params: Float32Array, part: Uint32Array, bounds: Float64Array}
 *   | {type: 'test-hang'}} ToHelper
 */
/**
 * @typedef {{type: 'part', id: number, grad: Float32Array, norms: Float32Array,
 *     counts: Uint32Array, ms: number}
 *   | {type: 'part-error', id?: number, message: string}} FromHelper
 */
//
// Page ↔ audit workers (audit-worker.js, one per core, capped; audit.js drives them through
// audit-workers.js): 'audit-plan' → 'audit-planned' {totals: {threat: runs}}; 'audit-run' → the
// same type {threat, run}; 'audit-summarize' → 'audit-result' {threat, result}; 'audit-error'.
/**
 * @typedef {{threat: string, runs: number, canaries: number, seed: number,
 *   alice?: {index: number | null}}} AuditSpec
 */
/**
 * @typedef {{type: 'audit-plan', config: object, specs: AuditSpec[]}
 *   | {type: 'audit-run', threat: string, index: number}
 *   | {type: 'audit-summarize', threat: string, runs: object[]}} ToAudit
 */
/**
 * @typedef {{type: 'audit-planned', totals: Object<string, number>}
 *   | {type: 'audit-run', threat: string, run: object}
 *   | {type: 'audit-result', threat: string, result: object}
 *   | {type: 'audit-error', message: string}
 *   | Crashed | InitError | Refused} FromAudit
 */
//
// Page ↔ the cores' timing workers (core-probe-worker.js, started by core-probe.js): {type:
// 'probe', ms} → {type: 'rate', rate, x} (loop steps per ms; x the loop's value, so that it is
// computed). No shell: they load no wasm, so that only the loop is timed.
/** @typedef {{type: 'probe', ms: number}} ToProbe */
/** @typedef {{type: 'rate', rate: number, x: number}} FromProbe */
//
// Page ↔ accounting worker (accounting-worker.js): a request {id, type, …} is answered by
// {id, type, result} or {id, type, error}; of several waiting requests of a type only the newest
// runs. 'file-ledger' composes every run on a student's file (file-ledger.js); 'opacus-export'
// writes the run as an Opacus script (export-opacus.js): result {name, bytes}.
/**
 * @typedef {{type: 'calibrate', id: number, config: object, facts: DataFacts, accountant: string,
 *     target: number}
 *   | {type: 'sigma-needed', id: number, config: object, facts: DataFacts, target: number}
 *   | {type: 'pld-curve', id: number, config: object, facts: DataFacts}
 *   | {type: 'file-ledger', id: number, preparations: object[], runs: object[]}
 *   | {type: 'opacus-export', id: number, config: object, accountant: string,
 *       facts?: DataFacts | null}} ToAccounting
 */
/**
 * @typedef {{type: ToAccounting['type'], id: number, result: any}
 *   | {type: ToAccounting['type'], id: number, error: string}} FromAccounting
 */

// The page's messages to the training worker and to the audit workers.
export const TO_WORKER = Object.freeze({
  /** @returns {ToTraining} */
  start: (
    /** @type {number} */ generation,
    /** @type {object} */ config,
    /** @type {boolean} */ play,
    /** @type {number} */ workers,
    /** @type {number} */ cores,
  ) => ({ type: 'start', generation, config, play, workers, cores }),
  /** @returns {ToTraining} */
  pause: (/** @type {number} */ generation) => ({ type: 'pause', generation }),
  /** @returns {ToTraining} */
  resume: (/** @type {number} */ generation) => ({ type: 'resume', generation }),
  /** @returns {ToTraining} */
  ownData: (
    /** @type {File[]} */ files,
    /** @type {string} */ label,
    /** @type {string} */ bounds,
    /** @type {StatedRange[]} */ ranges,
    /** @type {boolean} */ readOff,
    /** @type {number} */ delta,
  ) => ({
    type: 'own-data',
    files,
    label,
    bounds,
    ranges,
    read_off: readOff,
    delta,
  }),
  /** @returns {ToTraining} */
  cap: (/** @type {number|null} */ workers, /** @type {string} */ reason) => ({
    type: 'cap',
    workers,
    reason,
  }),
});

export const TO_AUDIT = Object.freeze({
  /** @returns {ToAudit} */
  plan: (/** @type {object} */ config, /** @type {AuditSpec[]} */ specs) => ({
    type: 'audit-plan',
    config,
    specs,
  }),
  /** @returns {ToAudit} */
  run: (/** @type {string} */ threat, /** @type {number} */ index) => ({
    type: 'audit-run',
    threat,
    index,
  }),
  /** @returns {ToAudit} */
  summarize: (/** @type {string} */ threat, /** @type {object[]} */ runs) => ({
    type: 'audit-summarize',
    threat,
    runs,
  }),
});
