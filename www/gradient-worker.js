// A data-parallel helper (src/web/parallel.rs): started by the training worker, it sums the
// clipped gradients of the parts of lots it is sent and posts them back. It never adds noise
// nor draws anything random: the training worker alone does (protocol.js lists the messages).
// Its parts come by message, or through shared memory where the page allows it
// (shared-channel.js); the sums are the same either way.
import init, { GradientWorker } from './pkg/dpsgd_lab.js';
import { initFromPage } from './wasm-in-worker.js';
import { HelperEnd, isChannel } from './shared-channel.js';

let helper = null; // a GradientWorker on the current rows
const ready = initFromPage(init);
let handled = 0; // the last setup message handled (shared memory only)
const shared = new HelperEnd({
  handled: () => handled,
  sum: (params, part, bounds, norms) => {
    if (!helper) throw new Error('no training rows');
    helper.sum(params, part, bounds);
    helper.gradInto(params);
    const own = helper.norms();
    if (own.length > norms.length) throw new Error('more norms than the part has examples');
    norms.set(own);
    return [own.length, ...helper.counts()];
  },
  fail: (e) => fail(undefined, e),
});

function fail(id, e) {
  postMessage({ type: 'part-error', id, message: String(e && e.message ? e.message : e).slice(0, 300) });
  if (e instanceof WebAssembly.RuntimeError) close(); // a trap: this instance is unusable
}

function handle(m) {
  if (Number.isInteger(m.setup)) handled = m.setup;
  if (m.type === 'channel') {
    if (!isChannel(m.channel)) throw new Error('not a shared-memory channel');
    shared.use(m.channel);
  } else if (m.type === 'rows') {
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
  if (m.type === 'rows' || m.type === 'configure') shared.serve(); // a job may wait for them
}

// A message that could not be read (a copy of the rows too large to allocate, say): a setup
// message or a part lost, so this helper can no longer be trusted to answer in step.
onmessageerror = () => fail(undefined, new Error('a helper could not read a message'));

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
