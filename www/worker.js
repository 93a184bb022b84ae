// Training worker: loads the wasm core, loads the chosen data set on demand, runs one run at a
// time in short chunks, and posts a report after every epoch (messages: protocol.js). A newer
// generation (a restarted run) stops the old one at the next chunk, so a cancelled run never
// keeps computing.
import init, { LabData, Session, check_run_config, panic_for_tests } from './pkg/dpsgd_lab.js';
import { dataKeyOf, loadBuiltin } from './data-loader.js';
import { initFromPage } from './wasm-in-worker.js';

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

let loaded = false;
const ready = initFromPage(init).then(
  () => {
    loaded = true;
    postMessage({ type: 'ready' });
  },
  (e) => postMessage({ type: 'init-error', message: `Loading the lab's WebAssembly failed: ${e.message || e}` }),
);

const yieldToEvents = () => new Promise((resolve) => setTimeout(resolve, 0));

// The data set of `config`, loaded (fetched or generated) only when it changed.
async function loadData(config) {
  if (config.dataset === 'own') {
    if (!ownData) throw new Error('load a file of your own first');
    data = ownData;
    dataKey = 'own';
    return;
  }
  const key = dataKeyOf(config);
  if (key === dataKey && data) return;
  const fresh = await loadBuiltin(config);
  if (data && data !== ownData) data.free();
  data = fresh;
  dataKey = key;
}

async function loop(gen) {
  const token = ++loopToken;
  let steps = 4;
  while (running && token === loopToken && gen === generation && session && !session.is_finished()) {
    const t0 = performance.now();
    let report;
    try {
      report = session.advance(steps);
    } catch (e) {
      running = false;
      if (crashed(e)) return;
      postMessage({ type: 'error', generation: gen, message: `Training failed: ${e.message || e}` });
      return;
    }
    const dt = performance.now() - t0;
    // Adapt the chunk so each call takes about CHUNK_MS.
    steps = Math.max(1, Math.min(100000, Math.round(steps * (dt > 0 ? Math.min(2, CHUNK_MS / dt) : 2))));
    if (report) {
      const msg = { type: 'report', generation: gen, report };
      if (plane) msg.boundary = { res: BOUNDARY_RES, probs: session.boundary(plane.bounds, BOUNDARY_RES) };
      postMessage(msg);
    }
    await yieldToEvents();
  }
  if (token === loopToken && gen === generation && session && session.is_finished()) {
    running = false;
    postMessage({ type: 'done', generation: gen });
  }
}

async function start(m) {
  running = false;
  loopToken += 1;
  if (session) session.free();
  session = null;
  plane = null;
  let config;
  try {
    config = check_run_config(m.config); // every field named and in range, before any data
  } catch (e) {
    postMessage({ type: 'error', generation: m.generation, message: `Settings: ${e.message || e}` });
    return;
  }
  try {
    await loadData(config);
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
  try {
    session = new Session(data, config);
    plane = session.plane();
  } catch (e) {
    if (crashed(e)) return;
    postMessage({ type: 'error', generation: m.generation, message: e.message || String(e) });
    return;
  }
  postMessage({ type: 'started', generation: m.generation, mechanism: session.mechanism(), plane });
  running = m.play !== false;
  if (running) loop(m.generation);
}

async function loadOwnData(m) {
  // Read and parse a student's file(s) here, off the main thread; on any error the current
  // data and run stay as they were.
  try {
    if (!m.files.every((f) => f instanceof Blob)) throw new Error('expected files');
    const limit = LabData.maxFileBytes();
    const big = m.files.find((f) => f.size > limit);
    if (big) throw new Error(`${big.name} is larger than ${limit / 1048576} MB, the most the lab reads`);
    const bytes = await Promise.all(m.files.map(async (f) => new Uint8Array(await f.arrayBuffer())));
    const fresh = bytes.length === 2
      ? LabData.fromIdx(bytes[0], bytes[1])
      : LabData.fromCsv(bytes[0], String(m.label), String(m.bounds || ''));
    if (ownData && ownData !== data) ownData.free();
    ownData = fresh;
    if (dataKey === 'own') dataKey = ''; // reload on the next start
    postMessage({ type: 'own-data-loaded', facts: fresh.facts() });
  } catch (e) {
    if (crashed(e)) return;
    postMessage({ type: 'own-data-rejected', message: e.message || String(e) });
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
  } else if (m.type === 'own-data' && Array.isArray(m.files) && m.files.length >= 1) {
    await loadOwnData(m);
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
  queue = queue.then(() => handle(m));
};
