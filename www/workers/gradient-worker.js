// @ts-check
// A data-parallel helper (src/web/parallel.rs): started by the training worker, it sums the
// clipped gradients of the parts of lots it is sent and posts them back. It never adds noise
// nor draws anything random: the training worker alone does (protocol.js lists the messages).
// Its parts come by message, or through shared memory where the page allows it
// (shared-channel.js); the sums are the same either way. Start-up, pings and traps:
// worker-shell.js (a trap posts 'crashed', and the training worker drops this helper).
import init, { GradientWorker } from '../pkg/dpsgd_lab.js';
import { checkToHelper } from '../core/message-checks.js';
import { post, startWorker, trapped } from './worker-shell.js';
import { HelperEnd, isChannel } from './shared-channel.js';

/** @typedef {import('../core/protocol.js').ToHelper} ToHelper */
/** @typedef {import('../core/protocol.js').FromHelper} FromHelper */

/**
 * @param {FromHelper} m
 * @param {Transferable[]} [transfer]
 */
const send = (m, transfer) => post(m, transfer);

/** @type {GradientWorker | null} */
let helper = null; // a GradientWorker on the current rows
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

/**
 * Part `id` (none: a shared-memory job, or a setup message) failed with `e`.
 * @param {number | undefined} id
 * @param {any} e
 */
function fail(id, e) {
  if (trapped(e)) return; // this instance is unusable: 'crashed'
  send({ type: 'part-error', id, message: String(e && e.message ? e.message : e).slice(0, 300) });
}

/**
 * A setup message's handler (rows, settings, a channel): it counts as handled (shared memory
 * only), and a job may wait for it.
 * @template {ToHelper} M
 * @param {(m: M) => void} handle
 * @returns {(m: M) => void}
 */
const setUp = (handle) => (m) => {
  if ('setup' in m && Number.isInteger(m.setup)) handled = m.setup;
  handle(m);
  shared.serve();
};

startWorker({
  init,
  check: checkToHelper,
  handlers: {
    channel: setUp((m) => {
      if (!isChannel(m.channel)) throw new Error('not a shared-memory channel');
      shared.use(m.channel);
    }),
    rows: setUp((m) => {
      if (helper) helper.free();
      helper = null;
      helper = new GradientWorker(m.x, m.y);
    }),
    configure: setUp((m) => {
      if (!helper) throw new Error('no training rows');
      helper.configure(m.spec);
    }),
    sum: (m) => {
      if (!helper) throw new Error('no training rows');
      if (!(m.params instanceof Float32Array)) throw new Error('parameters must be a Float32Array');
      const t0 = performance.now();
      helper.sum(m.params, m.part, m.bounds);
      helper.gradInto(m.params); // the sum goes back in the array the parameters came in
      const norms = helper.norms();
      const ms = performance.now() - t0; // for the bench's phase timings
      send({ type: 'part', id: m.id, grad: m.params, norms, counts: helper.counts(), ms }, [
        m.params.buffer,
        norms.buffer,
      ]);
    },
    // The tests' stand-in for a helper that hangs (an endless loop, a browser that stopped
    // it): from 'test-hang' on, nothing is answered, so the next part never ends. Not a flag
    // checked in every part's handler: that slowed every lot sent by message (docs/performance.md,
    // "Against the code before the redesign").
    'test-hang': () => {
      for (;;) {
        /* hung */
      }
    },
  },
  failed: (e, m) => fail(m.type === 'sum' ? m.id : undefined, e),
});

// A message that could not be read (a copy of the rows too large to allocate, say): a setup
// message or a part lost, so this helper can no longer be trusted to answer in step.
onmessageerror = () => fail(undefined, new Error('a helper could not read a message'));
