// Training worker: loads the wasm core and the data, runs one run at a time in short chunks,
// and posts a report after every epoch. A newer generation (a restarted run) stops the old
// one at the next chunk, so a cancelled run never keeps computing.
import init, { LabData, Session } from './pkg/dpsgd_lab.js';

const CHUNK_MS = 25; // target time of one advance() call between yields
let data = null;
let session = null;
let generation = -1;
let running = false;
let loopToken = 0;

const ready = (async () => {
  await init();
  const res = await fetch('data/adult.bin');
  if (!res.ok) throw new Error(`cannot load data/adult.bin (HTTP ${res.status})`);
  data = new LabData(new Uint8Array(await res.arrayBuffer()));
  postMessage({ type: 'ready', n_train: data.n_train(), n_test: data.n_test(), n_features: data.n_features() });
})().catch((e) => postMessage({ type: 'error', generation: -1, message: `Loading failed: ${e.message || e}` }));

const yieldToEvents = () => new Promise((resolve) => setTimeout(resolve, 0));

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
    if (report) postMessage({ type: 'report', generation: gen, report: JSON.parse(report) });
    await yieldToEvents();
  }
  if (token === loopToken && gen === generation && session && session.is_finished()) {
    running = false;
    postMessage({ type: 'done', generation: gen });
  }
}

onmessage = async (ev) => {
  const m = ev.data;
  if (m.type === 'start') generation = m.generation; // drop the old run before waiting
  await ready;
  if (!data) return;
  if (m.type === 'start') {
    if (m.generation !== generation) return;
    running = false;
    loopToken += 1;
    if (session) session.free();
    session = null;
    try {
      session = new Session(data, JSON.stringify(m.config));
    } catch (e) {
      postMessage({ type: 'error', generation: m.generation, message: e.message || String(e) });
      return;
    }
    postMessage({ type: 'started', generation: m.generation, seed: session.seed(), q: session.sampling_rate(), steps_per_epoch: session.steps_per_epoch() });
    running = m.play !== false;
    if (running) loop(m.generation);
  } else if (m.type === 'pause') {
    running = false;
    loopToken += 1;
  } else if (m.type === 'resume' && session && !running && m.generation === generation) {
    running = true;
    loop(generation);
  }
};
