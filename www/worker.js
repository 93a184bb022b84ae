// Training worker: loads the wasm core, loads the chosen data set on demand, runs one run at a
// time in short chunks, and posts a report after every epoch (messages: protocol.js). A newer
// generation (a restarted run) stops the old one at the next chunk, so a cancelled run never
// keeps computing. With k > 1 workers it coordinates data-parallel training: k − 1 helpers
// (gradient-pool.js) sum parts of each lot; the noise and the step stay here.
import init, { LabData, RunSettings, Session, bench_session, panic_for_tests } from './pkg/dpsgd_lab.js';
import { dataKeyOf, loadBuiltin } from './data-loader.js';
import { initFromPage, sharedModule } from './wasm-in-worker.js';
import { GradientPool } from './gradient-pool.js';

const CHUNK_MS = 25; // target time of one advance() call between yields
const BOUNDARY_RES = 60; // grid of the decision-boundary view (2-D data only)
let data = null;
let dataKey = '';
let ownData = null; // a student's own data set, kept until replaced
let session = null;
let plane = null;
let generation = -1;
let running = false;
let loopToken = 0;
const pool = new GradientPool();
let parts = 1; // workers summing each lot of the current run (this one included)
let askedWorkers = 1; // …as the page asked for it
// The page's limit while its audit trains on the other cores (audit.js): {workers, reason}, or
// null. Training then uses what the audit leaves, so the two never share a core between them.
let cap = null;
let dataLoads = 0; // counts changes of `data`, so helpers know when their rows are stale
let rowsOfRuns = 0; // counts runs whose rows are their own (after DP-PCA)
// This run's helper parts: summed by a helper and taken, or summed here in its place (the
// helper failed, or Rust refused its answer). Posted with 'done'.
let partsSummed = { helpers: 0, here: 0 };
const MAX_WORKERS = 16;

let loaded = false;
const ready = initFromPage(init).then(
  () => {
    loaded = true;
    postMessage({ type: 'ready' });
  },
  (e) => postMessage({ type: 'init-error', message: `Loading the lab's WebAssembly failed: ${e.message || e}` }),
);

// Lets queued messages (pause, new settings) run between chunks of lots: a message to itself,
// which waits behind them. Not setTimeout(0): HTML clamps chained timeouts to 4 ms from the
// fifth on, and this worker chains one every 25 ms (4.1 ms each in Chromium: 14% of a run).
const ticks = new MessageChannel();
const yielding = [];
ticks.port1.onmessage = () => yielding.shift()?.();
const yieldToEvents = () => new Promise((resolve) => {
  yielding.push(resolve);
  ticks.port2.postMessage(null);
});

// The data set of `config`, loaded (fetched or generated) only when it changed.
async function loadData(config, gen) {
  if (config.dataset === 'own') {
    if (!ownData) throw new Error('load a file of your own first');
    if (data !== ownData) dataLoads += 1;
    data = ownData;
    dataKey = 'own';
    return;
  }
  const key = dataKeyOf(config);
  if (key === dataKey && data) return;
  let last = 0;
  const fresh = await loadBuiltin(config, (p) => {
    const now = performance.now();
    if (p.stage === 'download' && now - last < 100 && p.loaded < p.total) return; // 10 a second
    last = now;
    postMessage({ type: 'progress', generation: gen, ...p });
  });
  if (data && data !== ownData) data.free();
  data = fresh;
  dataKey = key;
  dataLoads += 1;
}

function postReport(gen, report) {
  const msg = { type: 'report', generation: gen, report };
  if (plane) msg.boundary = { res: BOUNDARY_RES, probs: session.boundary(plane.bounds, BOUNDARY_RES) };
  postMessage(msg);
}

function failed(gen, e) {
  running = false;
  if (crashed(e)) return;
  postMessage({ type: 'error', generation: gen, message: `Training failed: ${e.message || e}` });
}

// One lot across `k` workers: the helpers sum parts 1 … k − 1 while this worker sums part 0
// (sized for the lot and the noise it also draws: `train::part::coordinator_extra_examples`);
// a part whose helper failed (or that has no helper: the bench's `alone`) is summed here.
// Returns the epoch's report or null, or undefined when the run was replaced meanwhile (its
// session is gone). `laps` (the bench's phase timings only) sums each phase's milliseconds.
async function parallelLot(s, k, laps = null) {
  const lap = laps ? stopwatch(laps) : null;
  s.drawLot();
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
  s.sumOwnPart(0, k);
  lap?.('own');
  s.drawNoise(); // while the helpers sum: the same draws as finishLot would make, in order
  lap?.('noise');
  pool.collect(); // parts that came through shared memory
  const answers = await Promise.all(jobs);
  if (session !== s) return undefined;
  lap?.('wait');
  for (let i = 1; i < k; i += 1) {
    const a = answers[i - 1] && receive(s, i, k, answers[i - 1]);
    if (!a) s.sumOwnPart(i, k);
    if (!laps) partsSummed[a ? 'helpers' : 'here'] += 1;
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
    pool.drop(i - 1, String(e.message || e));
    return null;
  }
}

// Adds the milliseconds since its last call (or its creation) to `laps[phase]`.
function stopwatch(laps) {
  let t = performance.now();
  return (phase) => {
    const now = performance.now();
    laps[phase] = (laps[phase] || 0) + now - t;
    t = now;
  };
}

// The lot whose parts are out with the helpers, if any: a loop started meanwhile (a pause and
// a play during one lot) waits for it, or the two loops' lots would mix (Rust refuses that).
let lotInFlight = Promise.resolve();

async function parallelLoop(gen, token) {
  await lotInFlight;
  const s = session;
  let lastYield = performance.now();
  while (running && token === loopToken && gen === generation && session === s && !s.is_finished()) {
    let report;
    try {
      const lot = parallelLot(s, parts);
      lotInFlight = lot.catch(() => undefined);
      report = await lot;
    } catch (e) {
      failed(gen, e);
      return;
    }
    if (report === undefined) return;
    if (report && gen === generation) postReport(gen, report);
    if (performance.now() - lastYield > CHUNK_MS) { // parts summed here alone never wait
      await yieldToEvents();
      lastYield = performance.now();
    }
  }
  if (token === loopToken && gen === generation && session === s && s.is_finished()) {
    running = false;
    postMessage({ type: 'done', generation: gen, parts: partsSummed });
  }
}

async function loop(gen) {
  const token = ++loopToken;
  await lotInFlight; // a lot still out with the helpers (the count changed mid-lot) ends first
  if (parts > 1) return parallelLoop(gen, token);
  let steps = 4;
  while (running && token === loopToken && gen === generation && session && !session.is_finished()) {
    const t0 = performance.now();
    let report;
    try {
      report = session.advance(steps);
    } catch (e) {
      failed(gen, e);
      return;
    }
    const dt = performance.now() - t0;
    // Adapt the chunk so each call takes about CHUNK_MS.
    steps = Math.max(1, Math.min(100000, Math.round(steps * (dt > 0 ? Math.min(2, CHUNK_MS / dt) : 2))));
    if (report) postReport(gen, report);
    await yieldToEvents();
  }
  if (token === loopToken && gen === generation && session && session.is_finished()) {
    running = false;
    postMessage({ type: 'done', generation: gen, parts: partsSummed });
  }
}

async function start(m) {
  running = false;
  loopToken += 1;
  if (session) session.free();
  session = null;
  plane = null;
  partsSummed = { helpers: 0, here: 0 };
  let settings;
  try {
    settings = RunSettings.check(m.config); // every field named and in range, before any data
  } catch (e) {
    postMessage({ type: 'error', generation: m.generation, message: `Settings: ${e.message || e}` });
    return;
  }
  try {
    await startChecked(m, settings);
  } finally {
    settings.free();
  }
}

// The rest of a start, with its settings parsed and checked once (the Session takes them).
async function startChecked(m, settings) {
  const config = settings.toJs();
  try {
    await loadData(config, m.generation);
  } catch (e) {
    postMessage({ type: 'error', generation: m.generation, message: `Data: ${e.message || e}` });
    return;
  }
  if (m.generation !== generation) return; // superseded while loading
  const facts = data.facts();
  postMessage({ type: 'data', generation: m.generation, facts });
  if (config.lot_size > facts.n_train) {
    postMessage({ type: 'resize', generation: m.generation, n_train: facts.n_train });
    return;
  }
  if (config.pca !== null && config.pca !== undefined) postMessage({ type: 'progress', generation: m.generation, stage: 'pca' });
  try {
    session = new Session(data, settings);
    plane = session.plane();
  } catch (e) {
    if (crashed(e)) return;
    postMessage({ type: 'error', generation: m.generation, message: e.message || String(e) });
    return;
  }
  const workers = planWorkers(m.workers);
  postMessage({ type: 'started', generation: m.generation, coverage: session.coverage(), plane, workers });
  running = m.play !== false;
  if (running) loop(m.generation);
}

// How many workers sum this run's lots (`asked` by the page; fewer when the lots are small or
// the rows large, for the reason Rust gives), and the helpers set up for it.
function planWorkers(asked) {
  askedWorkers = Number.isInteger(asked) && asked >= 1 && asked <= MAX_WORKERS ? asked : 1;
  const want = cap ? Math.min(askedWorkers, cap.workers) : askedWorkers;
  const plan = session.parallelPlan(want);
  parts = plan.workers;
  usePool(parts - 1);
  if (parts > 1) {
    rowsOfRuns += 1;
    const key = session.trainsOn(data) ? `data ${dataLoads}` : `run ${rowsOfRuns}`;
    pool.setUp(key, session.partSpec(), () => ({ x: session.trainX(), y: session.trainY() }));
  }
  const reason = want < askedWorkers && parts === want ? cap.reason : plan.reason;
  return { asked: askedWorkers, used: parts, reason, channel: parts > 1 ? pool.channel : null };
}

// `helpers` helpers for the session's lots, and the split of each lot that suits how they get
// their parts (Rust's cost model of the channel).
function usePool(helpers) {
  pool.resize(helpers, sharedModule());
  session.setPartChannel(pool.sharedMemory);
}

// The page's limit changed ({workers, reason}; no workers: none): the run under way is planned
// again, and goes on from its next lot with the new count.
function setCap(m) {
  cap = Number.isInteger(m.workers) && m.workers >= 1 ? { workers: m.workers, reason: String(m.reason || '').slice(0, 160) } : null;
  if (!session || session.is_finished()) return;
  const before = parts;
  const workers = planWorkers(askedWorkers);
  postMessage({ type: 'workers', generation, workers });
  if (running && parts !== before) loop(generation);
}

// `make bench` only (scripts/bench-parallel.mjs): examples/s of a benchmark case through the
// lot loop above with `m.workers` workers, for about `m.ms` milliseconds; with `m.alone`, the
// same k parts all summed here, one after another (no helpers); and the milliseconds per lot
// of each phase of parallelLot (`helpers`: the helpers' own summing, from their messages).
async function bench(m) {
  running = false;
  loopToken += 1;
  if (session) session.free();
  session = bench_session(m.model);
  parts = Math.max(1, Math.min(MAX_WORKERS, Number(m.workers) || 1));
  usePool(m.alone ? 0 : parts - 1);
  if (pool.size) pool.setUp(`bench ${m.model}`, session.partSpec(), () => ({ x: session.trainX(), y: session.trainY() }));
  // Warm up for a second: the rows reach the helpers and the engine optimises the hot code.
  const warm = performance.now();
  while (performance.now() - warm < 1000) await parallelLot(session, parts);
  const [t0, seen, laps] = [performance.now(), session.examplesSeen(), {}];
  let lots = 0;
  while (lots < 5 || performance.now() - t0 < m.ms) {
    await parallelLot(session, parts, laps);
    lots += 1;
  }
  const secs = (performance.now() - t0) / 1000;
  const phases = Object.fromEntries(Object.entries(laps).map(([phase, ms]) => [phase, +(ms / lots).toFixed(3)]));
  postMessage({ type: 'bench', model: m.model, workers: parts, helpers: pool.size, channel: pool.channel, examples_per_sec: (session.examplesSeen() - seen) / secs, phases });
}

async function loadOwnData(m) {
  // Read and parse a student's file(s) here, off the main thread; on any error the current
  // data and run stay as they were (a refusal's `spent`: what preparing it released anyway).
  let file = null;
  try {
    if (!m.files.every((f) => f instanceof Blob)) throw new Error('expected files');
    const limit = LabData.maxFileBytes();
    const big = m.files.find((f) => f.size > limit);
    if (big) throw new Error(`${big.name} is larger than ${limit / 1048576} MB, the most the lab reads`);
    const bytes = await Promise.all(m.files.map(async (f) => new Uint8Array(await f.arrayBuffer())));
    file = LabData.contentKey(bytes[0], bytes[1] ?? new Uint8Array());
    const fresh = bytes.length === 2
      ? LabData.fromIdx(bytes[0], bytes[1])
      : LabData.fromCsv(bytes[0], String(m.label), String(m.bounds || ''));
    if (ownData && ownData !== data) ownData.free();
    ownData = fresh;
    if (dataKey === 'own') dataKey = ''; // reload on the next start
    dataLoads += 1;
    postMessage({ type: 'own-data-loaded', facts: fresh.facts(), file });
  } catch (e) {
    if (crashed(e)) return;
    const spent = file && Array.isArray(e?.spent) ? e.spent : [];
    postMessage({ type: 'own-data-rejected', message: e.message || String(e), file, spent });
  }
}

// A wasm trap (a Rust panic) leaves the instance unusable: say so and end, and the page
// starts a new worker with the last settings (kept-worker.js).
function crashed(e) {
  if (!(e instanceof WebAssembly.RuntimeError)) return false;
  postMessage({ type: 'crashed', message: e.message || String(e) });
  close();
  return true;
}

// Messages are handled one after another: a start waits until the one before it has loaded
// its data (two loads at once would free each other's data set), and a start superseded while
// it waited is skipped. Pings are answered at once (kept-worker.js).
let queue = Promise.resolve();

async function handle(m) {
  await ready;
  if (!loaded) return; // 'init-error' has been posted
  if (m.type === 'start' && m.config && typeof m.config === 'object') {
    if (m.generation !== generation) return;
    try {
      await start(m);
    } catch (e) {
      if (!crashed(e)) postMessage({ type: 'error', generation: m.generation, message: `The run could not start: ${e.message || e}` });
    }
  } else if (m.type === 'cap') {
    setCap(m);
  } else if (m.type === 'own-data' && Array.isArray(m.files) && m.files.length >= 1) {
    await loadOwnData(m);
  } else if (m.type === 'bench' && typeof m.model === 'string') {
    await bench(m);
  } else if (m.type === 'test-panic') {
    try {
      panic_for_tests(); // the tests' stand-in for a bug: a real Rust panic, a real trap
    } catch (e) {
      crashed(e);
    }
  } else if (m.type === 'pause' && m.generation === generation) {
    running = false;
    loopToken += 1;
  } else if (m.type === 'resume' && session && !running && m.generation === generation) {
    running = true;
    loop(generation);
  }
}

onmessage = (ev) => {
  const m = ev.data;
  if (!m || typeof m !== 'object') return;
  if (m.type === 'ping') {
    postMessage({ type: 'pong' });
    return;
  }
  if (m.type === 'start' && Number.isInteger(m.generation)) generation = m.generation; // drop the old run at once
  // A message whose handling threw is reported, and the queue goes on (a rejected queue would
  // drop every later message: pause, start, the page's limit).
  queue = queue.then(() => handle(m)).catch((e) => {
    if (!crashed(e)) postMessage({ type: 'error', generation, message: `The training worker failed: ${e.message || e}` });
  });
};
