// A data-parallel helper (src/web/parallel.rs): started by the training worker, it sums the
// clipped gradients of the parts of lots it is sent and posts them back. It never adds noise
// nor draws anything random: the training worker alone does (protocol.js lists the messages).
import init, { GradientWorker } from './pkg/dpsgd_lab.js';
import { initFromPage } from './wasm-in-worker.js';

let helper = null; // a GradientWorker on the current rows
const ready = initFromPage(init);

function fail(id, e) {
  postMessage({ type: 'part-error', id, message: String(e && e.message ? e.message : e).slice(0, 300) });
  if (e instanceof WebAssembly.RuntimeError) close(); // a trap: this instance is unusable
}

function handle(m) {
  if (m.type === 'rows') {
    if (helper) helper.free();
    helper = null;
    helper = new GradientWorker(m.x, m.y);
  } else if (m.type === 'configure') {
    if (!helper) throw new Error('no training rows');
    helper.configure(m.spec);
  } else if (m.type === 'sum') {
    if (!helper) throw new Error('no training rows');
    if (!(m.params instanceof Float32Array)) throw new Error('parameters must be a Float32Array');
    const t0 = performance.now();
    helper.sum(m.params, m.part, m.bounds);
    helper.gradInto(m.params); // the sum goes back in the array the parameters came in
    const norms = helper.norms();
    const ms = performance.now() - t0; // for the bench's phase timings
    postMessage({ type: 'part', id: m.id, grad: m.params, norms, counts: helper.counts(), ms }, [m.params.buffer, norms.buffer]);
  }
}

onmessage = async (ev) => {
  const m = ev.data;
  if (!m || typeof m !== 'object' || m.type === 'wasm') return;
  try {
    await ready;
    handle(m);
  } catch (e) {
    fail(m.id, e);
  }
};
