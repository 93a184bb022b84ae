// @ts-check
// Training worker: loads the wasm core, loads the chosen data set on demand, runs one run at a
// time in short chunks, and posts a report after every epoch (messages: protocol.js; start-up,
// pings and traps: worker-shell.js). A newer generation (a restarted run) stops the old one at
// the next chunk, so a cancelled run never keeps computing. With k > 1 workers it coordinates
// data-parallel training: k − 1 helpers (gradient-pool.js) sum parts of each lot; the noise and
// the step stay here.
import init, { RunSettings, Session, bench_session, panic_for_tests } from '../pkg/dpsgd_lab.js';
import { checkToTraining } from '../core/message-checks.js';
import { startWorker, trapped } from './worker-shell.js';
import { chunkMs, sleep, yieldToEvents } from './worker-time.js';
import { pool, said, send, state } from './training-state.js';
import {
  MAX_WORKERS,
  REPLACED,
  helpersLost,
  parallelLot,
  planWorkers,
  usePool,
} from './parallel-lot.js';

/** @typedef {import('../core/protocol.js').ToTraining} ToTraining */

const BOUNDARY_RES = 60; // grid of the decision-boundary view (2-D data only)

function postReport(gen, report) {
  const { session, plane } = state;
  const boundary = plane
    ? { res: BOUNDARY_RES, probs: session.boundary(plane.bounds, BOUNDARY_RES) }
    : null;
  send(
    boundary
      ? { type: 'report', generation: gen, report, boundary }
      : { type: 'report', generation: gen, report },
  );
}

function failed(gen, e) {
  state.running = false;
  if (trapped(e)) return;
  send({ type: 'error', generation: gen, message: `Training failed: ${said(e)}` });
}

// The run loop, one for any k. Alone (k = 1) it advances the session by chunks of lots sized so
// each call takes about chunkMs() (25 ms, more where yields are slow; sized on chunks without an
// epoch's end), and yields after each;
// with helpers (k > 1) it trains one lot at a time (parallelLot) and yields once that long has
// passed (parts summed here alone never wait). The count may change between lots (a cap): the
// loop goes on with the new one.
async function loop(gen) {
  const token = ++state.loopToken;
  const s = state.session;
  // this run's lot ends first; an earlier run's, pool.settleMs at most
  const inFlight = state.lotInFlight;
  await (inFlight.session === s
    ? inFlight.done
    : Promise.race([inFlight.done, sleep(pool.settleMs)]));
  const current = () =>
    token === state.loopToken && gen === state.generation && s !== null && state.session === s;
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
        // A chunk that ended an epoch also composed ε and evaluated the model (the first
        // epoch's composition 0.1-0.5 s), and stopped at the epoch's end: its time says nothing
        // of a lot's, and shrinking on it cost WebKit several 4 ms yields to grow back.
        if (!report)
          steps = Math.max(
            1,
            Math.min(100000, Math.round(steps * (dt > 0 ? Math.min(2, chunkMs() / dt) : 2))),
          );
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
    if (alone || performance.now() - lastYield > chunkMs()) {
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
    await state.data.load(config, (p) =>
      send({ type: 'progress', generation: m.generation, ...p }),
    );
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
  if (config.pca !== null && config.pca !== undefined)
    send({ type: 'progress', generation: m.generation, stage: 'pca' });
  try {
    state.session = new Session(state.data.data, settings);
    state.plane = state.session.plane();
  } catch (e) {
    if (trapped(e)) return;
    send({ type: 'error', generation: m.generation, message: said(e) });
    return;
  }
  const workers = planWorkers(m.workers);
  send({
    type: 'started',
    generation: m.generation,
    coverage: state.session.coverage(),
    plane: state.plane,
    workers,
  });
  state.running = m.play !== false;
  if (state.running) loop(m.generation);
}

// The page's limit changed ({workers, reason}; no workers: none): the run under way is planned
// again, and goes on from its next lot with the new count; a finished run's count had its reason.
/** @param {Extract<ToTraining, {type: 'cap'}>} m */
function setCap(m) {
  state.cap =
    Number.isInteger(m.workers) && m.workers >= 1
      ? { workers: m.workers, reason: String(m.reason || '').slice(0, 160) }
      : null;
  if (state.session?.is_finished() && state.capped && !state.cap) {
    send({
      type: 'workers',
      generation: state.generation,
      workers: {
        asked: state.askedWorkers,
        used: state.parts,
        reason: 'an audit had the other cores while this run trained',
        channel: null,
        missing: pool.missing,
      },
    });
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
// of each phase of parallelLot (`helpers`: the helpers' own summing, from their messages);
// and the ceiling of the training worker's part (not with `m.alone`).
/** @param {Extract<ToTraining, {type: 'bench'}>} m */
async function bench(m) {
  state.running = false;
  state.loopToken += 1;
  if (state.session) state.session.free();
  const session = bench_session(m.model, m.batch);
  state.session = session;
  state.parts = Math.max(1, Math.min(MAX_WORKERS, Number(m.workers) || 1));
  const k = state.parts;
  usePool(m.alone ? 0 : k - 1);
  if (pool.size)
    pool.setUp(`bench ${m.model}`, session.partSpec(), () => ({
      x: session.trainX(),
      y: session.trainY(),
    }));
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
  const rate = (session.examplesSeen() - seen) / secs;
  const phases = Object.fromEntries(
    Object.entries(laps).map(([phase, ms]) => [phase, +(ms / lots).toFixed(3)]),
  );
  // Then, the helpers idle, the same part's ceiling here (Rust's `bench::ceiling`): last, as
  // it draws lots without stepping.
  const ceiling = m.alone ? null : JSON.parse(session.benchCeiling(m.model, k, m.ms / 2));
  send({
    type: 'bench',
    model: m.model,
    workers: k,
    helpers: pool.size,
    channel: pool.channel,
    examples_per_sec: rate,
    phases,
    ceiling,
  });
}

// `make bench` only (scripts/bench-parallel.mjs): the kernel's GFLOP/s on a benchmark case's
// products for a part of `m.n` examples, for about `m.ms` milliseconds (Rust's
// `bench::ceiling::products_gflops`), in a session of its own: the bench asks one worker, then
// two at once.
/** @param {Extract<ToTraining, {type: 'bench-products'}>} m */
function benchProducts(m) {
  const session = bench_session(m.model, undefined);
  try {
    send({ type: 'bench-products', model: m.model, gflops: session.benchProducts(m.n, m.ms) });
  } finally {
    session.free();
  }
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
  failed: (e) =>
    send({
      type: 'error',
      generation: state.generation,
      message: `The training worker failed: ${said(e)}`,
    }),
  handlers: {
    start: async (m) => {
      if (m.generation !== state.generation) return;
      try {
        await start(m);
      } catch (e) {
        if (!trapped(e))
          send({
            type: 'error',
            generation: m.generation,
            message: `The run could not start: ${said(e)}`,
          });
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
    'bench-products': benchProducts,
    // The tests' (obeyed only in a worker a test asked for: worker-shell.js): a stand-in for
    // a bug (a real Rust panic, a real trap), and a helper that hangs.
    'test-panic': () => panic_for_tests(),
    'test-hang-helper': () => pool.hangForTests(),
  },
});
