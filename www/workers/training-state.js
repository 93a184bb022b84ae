// @ts-check
// The training worker's state (worker.js): the data loaded, the run under way, the page's limit
// and the helpers' pool, in one object its parts share (worker.js, parallel-lot.js).
import { TrainingData } from './training-data.js';
import { post } from './worker-shell.js';
import { GradientPool } from './gradient-pool.js';

/** @typedef {import('../pkg/dpsgd_lab.js').Session} Session */
/** @typedef {import('../core/protocol.js').FromTraining} FromTraining */

// Everything this worker holds: the data loaded, the run under way, and the page's limit.
export const state = {
  data: new TrainingData(), // the current run's data set and a student's own (training-data.js)
  rowsOfRuns: 0, // counts runs whose rows are their own (after DP-PCA)
  /** @type {Session | null} */ session: null,
  /** @type {{bounds: Float32Array} | null} */ plane: null,
  generation: -1,
  running: false,
  loopToken: 0, // counts loops started: a loop runs while the newest is its own
  parts: 1, // workers summing each lot of the current run (this one included)
  askedWorkers: 1, // …as the page asked for it
  // the page's default count (cores.js; 0: not said): the helpers spin only where each has one
  cores: 0,
  // The page's limit while its audit trains on the other cores (audit.js), or null. Training
  // then uses what the audit leaves, so the two never share a core between them.
  /** @type {{workers: number, reason: string} | null} */ cap: null,
  capped: false, // whether the cap set the current run's count
  // This run's helper parts: summed by a helper and taken, or summed here in its place (the
  // helper failed, or Rust refused its answer). Posted with 'done'.
  partsSummed: { helpers: 0, here: 0 },
  lost: { helpers: 0, reason: '' }, // this run's helpers given up on (hung or failed), and why
  // The lot out with the helpers, if any, and its session: a loop of that session started
  // meanwhile (a pause and a play) waits for it, or the two loops' lots would mix (Rust refuses
  // that); a new run waits only a few parts' time (gradient-pool.js settleMs), never for a hung
  // helper.
  /** @type {{session: Session | null, done: Promise<unknown>}} */ lotInFlight: {
    session: null,
    done: Promise.resolve(),
  },
};
export const pool = new GradientPool();

/**
 * @param {FromTraining} m
 * @param {Transferable[]} [transfer]
 */
export const send = (m, transfer) => post(m, transfer);
/** @param {any} e */
export const said = (e) => String(e?.message || e);
