// @ts-check
// The training worker's data-parallel lot (worker.js's loop and bench): how many workers sum
// a run's lots, the helpers set up for it, one lot across them, and what is said when a helper
// is given up on. The noise and the step stay in the training worker.
import { sharedModule } from './worker-shell.js';
import { stopwatch } from './worker-time.js';
import { pool, said, send, state } from './training-state.js';

/** @typedef {import('../pkg/dpsgd_lab.js').Session} Session */

export const MAX_WORKERS = 16;
export const REPLACED = Symbol('the run was replaced'); // a lot's answer when its session is gone

// One lot across `k` workers: the helpers sum parts 1 … k − 1 while this worker sums part 0
// (sized for the lot and the noise it also draws: `train::part::coordinator_extra_examples`);
// a part whose helper failed (or that has no helper: the bench's `alone`) is summed here.
// Returns the epoch's report or null, or REPLACED when the run was replaced meanwhile (its
// session is gone). `laps` (the bench's phase timings only) sums each phase's milliseconds.
export async function parallelLot(s, k, laps = null) {
  const lap = laps ? stopwatch(laps) : null;
  s.drawLot();
  /**
   * @type {Promise<{grad: Float32Array, norms: Float32Array, counts: Uint32Array, ms: number} |
   *   null>[]}
   */
  const jobs = [];
  if (k > 1) {
    const bounds = s.clipBounds();
    for (let i = 1; i < k && i <= pool.size; i += 1) {
      const params = pool.buffer(i - 1, s.nParams()); // each helper's own, transferred
      s.paramsInto(params);
      jobs.push(pool.sum(i - 1, params, s.lotPart(i, k), bounds).catch(() => null));
    }
  }
  lap?.('send');
  const t0 = performance.now();
  s.sumOwnPart(0, k);
  const ownMs = performance.now() - t0;
  lap?.('own');
  s.drawNoise(); // while the helpers sum: the same draws as finishLot would make, in order
  lap?.('noise');
  pool.collect(ownMs); // parts that came through shared memory; the others watched
  const answers = await Promise.all(jobs);
  if (state.session !== s) return REPLACED;
  lap?.('wait');
  for (let i = 1; i < k; i += 1) {
    const a = answers[i - 1] && receive(s, i, k, answers[i - 1]);
    if (!a) s.sumOwnPart(i, k);
    if (!laps) state.partsSummed[a ? 'helpers' : 'here'] += 1;
    if (a && laps) laps.helpers = (laps.helpers || 0) + a.ms;
  }
  lap?.('others');
  const report = s.finishLot(k);
  lap?.('step');
  return report;
}

// Helper i's answer `a` for part i of k, if Rust takes it as that part of the open lot
// (Session.receivePart); else null, and that helper is not used again (the part is summed here).
function receive(s, i, k, a) {
  try {
    s.receivePart(i, k, a.grad, a.norms, a.counts);
    return a;
  } catch (e) {
    pool.drop(i - 1, said(e));
    return null;
  }
}

// Says which helpers were given up on since the last lot (they hung or failed; their parts were
// summed here) and, when the run had counted on them, plans it again with the workers left,
// from its next lot. The next run starts helpers afresh.
export function helpersLost(gen) {
  const lost = pool.takeLost();
  if (!lost.length) return;
  const before = state.parts;
  const inPlan = lost.filter((l) => l.inPlan).length;
  if (inPlan) {
    state.lost = {
      helpers: state.lost.helpers + inPlan,
      reason: lost.some((l) => l.hung) ? 'a helper stopped answering' : 'a helper failed',
    };
    send({ type: 'workers', generation: gen, workers: planWorkers(state.askedWorkers) });
  }
  const left = state.parts === 1 ? 'in the training worker alone' : `with ${state.parts} workers`;
  for (const { index, why } of lost) {
    send({
      type: 'helper-lost',
      generation: gen,
      message:
        `Helper worker ${index + 2} of ${before} ${why}: the lab stopped it, and this run goes ` +
        `on ${left} (the same run, only slower).`,
    });
  }
}

// How many workers sum this run's lots (`asked` by the page; fewer when the lots are small or
// the rows large, for the reason Rust gives), and the helpers set up for it.
export function planWorkers(asked) {
  const { session } = state;
  state.askedWorkers = Number.isInteger(asked) && asked >= 1 && asked <= MAX_WORKERS ? asked : 1;
  const capped = state.cap ? Math.min(state.askedWorkers, state.cap.workers) : state.askedWorkers;
  const want = Math.max(1, capped - state.lost.helpers);
  const plan = session.parallelPlan(want);
  state.parts = plan.workers;
  usePool(state.parts - 1);
  if (state.parts > 1) {
    state.rowsOfRuns += 1;
    const key = session.trainsOn(state.data.data)
      ? `data ${state.data.loads}`
      : `run ${state.rowsOfRuns}`;
    pool.setUp(key, session.partSpec(), () => ({ x: session.trainX(), y: session.trainY() }));
  }
  const limited = want < state.askedWorkers && state.parts === want; // a limit set the count
  state.capped = limited && want === capped && !!state.cap; // the page's cap, not a lost helper
  const limit = want < capped ? state.lost.reason : state.cap?.reason;
  const reason = limited ? limit : plan.reason;
  return {
    asked: state.askedWorkers,
    used: state.parts,
    reason,
    channel: state.parts > 1 ? pool.channel : null,
    missing: pool.missing,
  };
}

// `helpers` helpers for the session's lots, and the split of each lot that suits how they get
// their parts (Rust's cost model of the channel).
export function usePool(helpers) {
  pool.resize(helpers, sharedModule(), state.cores);
  state.session.setPartChannel(pool.sharedMemory);
}
