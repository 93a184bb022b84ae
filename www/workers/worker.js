// @ts-check
// Training worker: loads the wasm core, loads the chosen data set on demand, runs one run at a
// time in short chunks, and posts a report after every epoch (messages: protocol.js; start-up,
// pings and traps: worker-shell.js). A newer generation (a restarted run) stops the old one at
// the next chunk, so a cancelled run never keeps computing. With k > 1 workers it coordinates
// data-parallel training: k − 1 helpers (gradient-pool.js) sum parts of each lot; the noise and
// the step stay here.
import init, { RunSettings, Session, bench_session, panic_for_tests } from '../pkg/dpsgd_lab.js';
import { TrainingData } from './training-data.js';
import { checkToTraining } from '../core/protocol.js';
import { post, sharedModule, startWorker, trapped } from './worker-shell.js';
import { GradientPool } from './gradient-pool.js';
import { sleep, stopwatch, yieldToEvents } from './worker-time.js';

/** @typedef {import('../core/protocol.js').ToTraining} ToTraining */
/** @typedef {import('../core/protocol.js').FromTraining} FromTraining */

const CHUNK_MS = 25; // target time of one advance() call between yields
const BOUNDARY_RES = 60; // grid of the decision-boundary view (2-D data only)
const MAX_WORKERS = 16;
const REPLACED = Symbol('the run was replaced'); // a lot's answer when its session is gone

// Everything this worker holds: the data loaded, the run under way, and the page's limit.
const state = {
  data: new TrainingData(), // the current run's data set and a student's own (training-data.js)
  rowsOfRuns: 0, // counts runs whose rows are their own (after DP-PCA)
  /** @type {Session | null} */ session: null,
  /** @type {{bounds: Float32Array} | null} */ plane: null,
  generation: -1,
  running: false,
  loopToken: 0, // counts loops started: a loop runs while the newest is its own
  parts: 1, // workers summing each lot of the current run (this one included)
  askedWorkers: 1, // …as the page asked for it
  cores: 0, // the page's default count (cores.js; 0: not said): the helpers spin only where each has one
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
  // that); a new run waits only a few parts' time (gradient-pool.js settleMs), never for a hung helper.
  /** @type {{session: Session | null, done: Promise<unknown>}} */ lotInFlight: { session: null, done: Promise.resolve() },
};
const pool = new GradientPool();

/**
 * @param {FromTraining} m
 * @param {Transferable[]} [transfer]
 */
const send = (m, transfer) => post(m, transfer);
/** @param {any} e */
const said = (e) => String(e?.message || e);

function postReport(gen, report) {
  const { session, plane } = state;
  const boundary = plane ? { res: BOUNDARY_RES, probs: session.boundary(plane.bounds, BOUNDARY_RES) } : null;
  send(boundary ? { type: 'report', generation: gen, report, boundary } : { type: 'report', generation: gen, report });
}

function failed(gen, e) {
  state.running = false;
  if (trapped(e)) return;
  send({ type: 'error', generation: gen, message: `Training failed: ${said(e)}` });
}

// One lot across `k` workers: the helpers sum parts 1 … k − 1 while this worker sums part 0
// (sized for the lot and the noise it also draws: `train::part::coordinator_extra_examples`);
// a part whose helper failed (or that has no helper: the bench's `alone`) is summed here.
// Returns the epoch's report or null, or REPLACED when the run was replaced meanwhile (its
// session is gone). `laps` (the bench's phase timings only) sums each phase's milliseconds.
async function parallelLot(s, k, laps = null) {
  const lap = laps ? stopwatch(laps) : null;
  s.drawLot();
  /** @type {Promise<{grad: Float32Array, norms: Float32Array, counts: Uint32Array, ms: number} | null>[]} */
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
function helpersLost(gen) {
  const lost = pool.takeLost();
  if (!lost.length) return;
  const before = state.parts;
  const inPlan = lost.filter((l) => l.inPlan).length;
  if (inPlan) {
    state.lost = { helpers: state.lost.helpers + inPlan, reason: lost.some((l) => l.hung) ? 'a helper stopped answering' : 'a helper failed' };
    send({ type: 'workers', generation: gen, workers: planWorkers(state.askedWorkers) });
  }
  const left = state.parts === 1 ? 'in the training worker alone' : `with ${state.parts} workers`;
  for (const { index, why } of lost) {
    send({ type: 'helper-lost', generation: gen, message: `Helper worker ${index + 2} of ${before} ${why}: the lab stopped it, and this run goes on ${left} (the same run, only slower).` });
  }
}

// The run loop, one for any k. Alone (k = 1) it advances the session by chunks of lots sized so
// each call takes about CHUNK_MS, and yields after each; with helpers (k > 1) it trains one lot
// at a time (parallelLot) and yields once CHUNK_MS have passed (parts summed here alone never
// wait). The count may change between lots (a cap): the loop goes on with the new one.
async function loop(gen) {
  const token = ++state.loopToken;
  const s = state.session;
  const inFlight = state.lotInFlight; // this run's lot ends first; an earlier run's, pool.settleMs at most
  await (inFlight.session === s ? inFlight.done : Promise.race([inFlight.done, sleep(pool.settleMs)]));
  const current = () => token === state.loopToken && gen === state.generation && s !== null && state.session === s;
  let steps = 4;
  let lastYield = performance.now();
  while (state.running && current() && !s.is_finished()) {
    const alone = state.parts === 1;
    let report;
    try {
      if (alone) {
        const t0 = performance.now();
        report = s.advance(steps);
        const dt = performance.now() - t0;
        steps = Math.max(1, Math.min(100000, Math.round(steps * (dt > 0 ? Math.min(2, CHUNK_MS / dt) : 2))));
      } else {
        const lot = parallelLot(s, state.parts);
        state.lotInFlight = { session: s, done: lot.catch(() => undefined) };
        report = await lot;
      }
    } catch (e) {
      failed(gen, e);
      return;
    }
    if (report === REPLACED) return;
    if (!alone) helpersLost(gen);
    if (report && gen === state.generation) postReport(gen, report);
    if (alone || performance.now() - lastYield > CHUNK_MS) {
      await yieldToEvents();
      lastYield = performance.now();
    }
  }
  if (current() && s.is_finished()) {
    state.running = false;
    send({ type: 'done', generation: gen, parts: state.partsSummed });
  }
}

/** @param {Extract<ToTraining, {type: 'start'}>} m */
async function start(m) {
  state.running = false;
  state.loopToken += 1;
  if (state.session) state.session.free();
  state.session = null;
  state.plane = null;
  state.partsSummed = { helpers: 0, here: 0 };
  state.lost = { helpers: 0, reason: '' };
  state.cores = Number.isInteger(m.cores) && m.cores >= 1 ? m.cores : 0;
  let settings;
  try {
    settings = RunSettings.check(m.config); // every field named and in range, before any data
  } catch (e) {
    send({ type: 'error', generation: m.generation, message: `Settings: ${said(e)}` });
    return;
  }
  try {
    await startChecked(m, settings);
  } finally {
    settings.free();
  }
}

/**
 * The rest of a start, with its settings parsed and checked once (the Session takes them).
 * @param {Extract<ToTraining, {type: 'start'}>} m
 * @param {RunSettings} settings
 */
async function startChecked(m, settings) {
  const config = settings.toJs();
  try {
    await state.data.load(config, (p) => send({ type: 'progress', generation: m.generation, ...p }));
  } catch (e) {
    send({ type: 'error', generation: m.generation, message: `Data: ${said(e)}` });
    return;
  }
  if (m.generation !== state.generation) return; // superseded while loading
  const facts = state.data.data.facts();
  send({ type: 'data', generation: m.generation, facts });
  if (config.lot_size > facts.n_train) {
    send({ type: 'resize', generation: m.generation, n_train: facts.n_train });
    return;
  }
  if (config.pca !== null && config.pca !== undefined) send({ type: 'progress', generation: m.generation, stage: 'pca' });
  try {
    state.session = new Session(state.data.data, settings);
    state.plane = state.session.plane();
  } catch (e) {
    if (trapped(e)) return;
    send({ type: 'error', generation: m.generation, message: said(e) });
    return;
  }
  const workers = planWorkers(m.workers);
  send({ type: 'started', generation: m.generation, coverage: state.session.coverage(), plane: state.plane, workers });
  state.running = m.play !== false;
  if (state.running) loop(m.generation);
}

// How many workers sum this run's lots (`asked` by the page; fewer when the lots are small or
// the rows large, for the reason Rust gives), and the helpers set up for it.
function planWorkers(asked) {
  const { session } = state;
  state.askedWorkers = Number.isInteger(asked) && asked >= 1 && asked <= MAX_WORKERS ? asked : 1;
  const capped = state.cap ? Math.min(state.askedWorkers, state.cap.workers) : state.askedWorkers;
  const want = Math.max(1, capped - state.lost.helpers);
  const plan = session.parallelPlan(want);
  state.parts = plan.workers;
  usePool(state.parts - 1);
  if (state.parts > 1) {
    state.rowsOfRuns += 1;
    const key = session.trainsOn(state.data.data) ? `data ${state.data.loads}` : `run ${state.rowsOfRuns}`;
    pool.setUp(key, session.partSpec(), () => ({ x: session.trainX(), y: session.trainY() }));
  }
  const limited = want < state.askedWorkers && state.parts === want; // a limit set the count
  state.capped = limited && want === capped && !!state.cap; // the page's cap, not a lost helper
  const limit = want < capped ? state.lost.reason : state.cap?.reason;
  const reason = limited ? limit : plan.reason;
  return { asked: state.askedWorkers, used: state.parts, reason, channel: state.parts > 1 ? pool.channel : null, missing: pool.missing };
}

// `helpers` helpers for the session's lots, and the split of each lot that suits how they get
// their parts (Rust's cost model of the channel).
function usePool(helpers) {
  pool.resize(helpers, sharedModule(), state.cores);
  state.session.setPartChannel(pool.sharedMemory);
}

// The page's limit changed ({workers, reason}; no workers: none): the run under way is planned
// again, and goes on from its next lot with the new count; a finished run's count had its reason.
/** @param {Extract<ToTraining, {type: 'cap'}>} m */
function setCap(m) {
  state.cap = Number.isInteger(m.workers) && m.workers >= 1 ? { workers: m.workers, reason: String(m.reason || '').slice(0, 160) } : null;
  if (state.session?.is_finished() && state.capped && !state.cap) {
    send({ type: 'workers', generation: state.generation, workers: { asked: state.askedWorkers, used: state.parts, reason: 'an audit had the other cores while this run trained', channel: null, missing: pool.missing } });
  }
  if (!state.session || state.session.is_finished()) return;
  const before = state.parts;
  const workers = planWorkers(state.askedWorkers);
  send({ type: 'workers', generation: state.generation, workers });
  if (state.running && state.parts !== before) loop(state.generation);
}

// `make bench` only (scripts/bench-parallel.mjs): examples/s of a benchmark case through the
// lot loop above with `m.workers` workers, for about `m.ms` milliseconds; with `m.alone`, the
// same k parts all summed here, one after another (no helpers); and the milliseconds per lot
// of each phase of parallelLot (`helpers`: the helpers' own summing, from their messages).
/** @param {Extract<ToTraining, {type: 'bench'}>} m */
async function bench(m) {
  state.running = false;
  state.loopToken += 1;
  if (state.session) state.session.free();
  const session = bench_session(m.model);
  state.session = session;
  state.parts = Math.max(1, Math.min(MAX_WORKERS, Number(m.workers) || 1));
  const k = state.parts;
  usePool(m.alone ? 0 : k - 1);
  if (pool.size) pool.setUp(`bench ${m.model}`, session.partSpec(), () => ({ x: session.trainX(), y: session.trainY() }));
  // Warm up for a second: the rows reach the helpers and the engine optimises the hot code.
  const warm = performance.now();
  while (performance.now() - warm < 1000) await parallelLot(session, k);
  const [t0, seen, laps] = [performance.now(), session.examplesSeen(), {}];
  let lots = 0;
  while (lots < 5 || performance.now() - t0 < m.ms) {
    await parallelLot(session, k, laps);
    lots += 1;
  }
  const secs = (performance.now() - t0) / 1000;
  const phases = Object.fromEntries(Object.entries(laps).map(([phase, ms]) => [phase, +(ms / lots).toFixed(3)]));
  send({ type: 'bench', model: m.model, workers: k, helpers: pool.size, channel: pool.channel, examples_per_sec: (session.examplesSeen() - seen) / secs, phases });
}

// Messages are handled one after another (`serial`): a start waits until the one before it has
// loaded its data (two loads at once would free each other's data set), and a start superseded
// while it waited is skipped (a start's generation is taken as it arrives, so the old run stops
// at once). A message whose handling threw is reported, and the queue goes on.
startWorker({
  init,
  check: checkToTraining,
  serial: true,
  ready: () => send({ type: 'ready' }),
  arrive: (m) => {
    if (m.type === 'start') state.generation = m.generation;
  },
  failed: (e) => send({ type: 'error', generation: state.generation, message: `The training worker failed: ${said(e)}` }),
  handlers: {
    start: async (m) => {
      if (m.generation !== state.generation) return;
      try {
        await start(m);
      } catch (e) {
        if (!trapped(e)) send({ type: 'error', generation: m.generation, message: `The run could not start: ${said(e)}` });
      }
    },
    pause: (m) => {
      if (m.generation !== state.generation) return;
      state.running = false;
      state.loopToken += 1;
    },
    resume: (m) => {
      if (!state.session || state.running || m.generation !== state.generation) return;
      state.running = true;
      loop(state.generation);
    },
    cap: setCap,
    'own-data': async (m) => {
      const answer = await state.data.readOwn(m);
      if (answer) send(answer);
    },
    bench,
    // The tests' (obeyed only in a worker a test asked for: worker-shell.js): a stand-in for
    // a bug (a real Rust panic, a real trap), and a helper that hangs.
    'test-panic': () => panic_for_tests(),
    'test-hang-helper': () => pool.hangForTests(),
  },
});
