// Training worker: loads the wasm core, loads the chosen data set on demand, runs one run at a
// time in short chunks, and posts a report after every epoch. A newer generation (a restarted
// run) stops the old one at the next chunk, so a cancelled run never keeps computing.
import init, { LabData, Session } from './pkg/dpsgd_lab.js';

const CHUNK_MS = 25; // target time of one advance() call between yields
const BOUNDARY_RES = 60; // grid of the decision-boundary view (2-D data only)
let data = null;
let dataKey = '';
let ownData = null; // a student's own data set, kept until replaced
let session = null;
let generation = -1;
let running = false;
let loopToken = 0;

const ready = init().then(
  () => postMessage({ type: 'ready' }),
  (e) => postMessage({ type: 'error', generation: -1, message: `Loading the lab failed: ${e.message || e}` }),
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
  const files = LabData.filesOf(config.dataset);
  const key = files.length ? config.dataset : `${config.dataset}/${config.seed}/${config.data_noise}`;
  if (key === dataKey && data) return;
  const bytes = await Promise.all(files.map(async (file) => {
    const res = await fetch(`data/${file}`);
    if (!res.ok) throw new Error(`cannot load data/${file} (HTTP ${res.status})`);
    return new Uint8Array(await res.arrayBuffer());
  }));
  const fresh = LabData.builtin(config.dataset, bytes, config.seed, config.data_noise);
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
      postMessage({ type: 'error', generation: gen, message: `Training failed: ${e.message || e}` });
      return;
    }
    const dt = performance.now() - t0;
    // Adapt the chunk so each call takes about CHUNK_MS.
    steps = Math.max(1, Math.min(100000, Math.round(steps * (dt > 0 ? Math.min(2, CHUNK_MS / dt) : 2))));
    if (report) {
      const msg = { type: 'report', generation: gen, report: JSON.parse(report) };
      if (session.is_2d()) msg.boundary = { res: BOUNDARY_RES, probs: session.boundary(BOUNDARY_RES) };
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
  try {
    await loadData(m.config);
  } catch (e) {
    postMessage({ type: 'error', generation: m.generation, message: `Data: ${e.message || e}` });
    return;
  }
  if (m.generation !== generation) return; // superseded while loading
  const n = data.n_train();
  postMessage({ type: 'data', generation: m.generation, n_train: n, n_test: data.n_test(), n_features: data.n_features() });
  if (m.config.lot_size > n) {
    postMessage({ type: 'resize', generation: m.generation, n_train: n });
    return;
  }
  try {
    session = new Session(data, JSON.stringify(m.config));
  } catch (e) {
    postMessage({ type: 'error', generation: m.generation, message: e.message || String(e) });
    return;
  }
  const plane = session.is_2d() ? { bounds: session.bounds(), points: session.points(600) } : null;
  postMessage({ type: 'started', generation: m.generation, seed: session.seed(), q: session.sampling_rate(), steps_per_epoch: session.steps_per_epoch(), plane });
  running = m.play !== false;
  if (running) loop(m.generation);
}

onmessage = async (ev) => {
  const m = ev.data;
  if (m.type === 'start') generation = m.generation; // drop the old run before waiting
  await ready;
  if (m.type === 'start') {
    if (m.generation === generation) await start(m);
  } else if (m.type === 'own-data') {
    // Parse a student's file; on any error the current data and run stay as they were.
    try {
      const fresh = m.files.length === 2
        ? LabData.fromIdx(m.files[0], m.files[1], 1)
        : LabData.fromCsv(m.files[0], m.label, 1);
      if (ownData && ownData !== data) ownData.free();
      ownData = fresh;
      if (dataKey === 'own') dataKey = ''; // reload on the next start
      postMessage({ type: 'own-data', ok: true, n_train: fresh.n_train(), n_test: fresh.n_test(), n_features: fresh.n_features() });
    } catch (e) {
      postMessage({ type: 'own-data', ok: false, message: e.message || String(e) });
    }
  } else if (m.type === 'pause') {
    running = false;
    loopToken += 1;
  } else if (m.type === 'resume' && session && !running && m.generation === generation) {
    running = true;
    loop(generation);
  }
};
