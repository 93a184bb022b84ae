// @ts-check
// The training worker's data-parallel helpers (gradient-worker.js): k − 1 workers that sum
// parts 1 … k − 1 of each lot while the training worker sums part 0. Parts go out by message
// (transferred arrays), or through shared memory in a cross-origin-isolated page
// (shared-channel.js: a few µs instead of a message's 30 or more each way; src/web/parallel.rs
// says why both). Each helper keeps the training rows it was last sent, under a key, so a run
// on the same rows sends only its settings. A helper that fails rejects its pending parts and
// is dropped; the training worker then sums those parts itself.
import { ChannelEnd, SPIN_MS, sharedMemoryMissing, sharedMemoryWorks } from './shared-channel.js';
import { ModuleWorker } from './module-worker.js';

/** @typedef {import('./protocol.js').ToHelper} ToHelper */
/** @typedef {import('./protocol.js').FromHelper | import('./protocol.js').FromShell} FromHelper */

const HELPER_URL = new URL('./gradient-worker.js', import.meta.url);
// How long the training worker blocks for a shared-memory part once its own is done (longer
// parts are awaited without blocking, so the worker keeps answering the page).
const BLOCK_MS = 20;
// How long a part may take before its helper is given up on (and the part summed here): far
// beyond any part's time (a lot of 60,000 on the largest model: seconds), so only a helper that
// will never answer — a message it could not read, a worker gone without an error — meets it.
const DEADLINE_MS = 60_000;

class Helper {
  constructor(module) {
    // Started in turn, and again if its scripts fail to load once (module-worker.js).
    this.worker = new ModuleWorker(HELPER_URL, {
      onmessage: (ev) => this.answer(ev.data),
      onerror: (e, why) => this.die(why),
    });
    /** @type {import('./protocol.js').ToShell} */
    const wasm = module instanceof WebAssembly.Module ? { type: 'wasm', module } : { type: 'wasm', error: 'no module' };
    this.worker.postMessage(wasm);
    this.shared = sharedMemoryWorks() ? new ChannelEnd(this.worker) : null;
    this.job = 0; // the shared-memory job under way, if any
    this.rowsKey = null;
    this.buffer = null; // parameters out, its gradient sum back: one array, lot after lot
    this.pending = new Map(); // id → {resolve, reject}
    this.dead = false;
  }

  // A helper's message: a part, or why it failed; the shell's 'crashed' (a trap), 'init-error'
  // and 'refused' end it as a 'part-error' does (worker-shell.js).
  /** @param {FromHelper} m */
  answer(m) {
    if (!m || typeof m !== 'object') return;
    if (m.type === 'crashed' || m.type === 'init-error' || m.type === 'refused') {
      this.die(String(m.message));
      return;
    }
    if (m.type === 'pong') return;
    const p = this.pending.get(m.id);
    if (m.type === 'part-error') {
      if (p) this.pending.delete(m.id);
      this.die(String(m.message)); // its state is unknown: never use it again
      if (p) p.reject(new Error(String(m.message)));
      return;
    }
    if (!p || m.type !== 'part') return;
    this.pending.delete(m.id);
    const ok = m.grad instanceof Float32Array && m.norms instanceof Float32Array
      && m.counts instanceof Uint32Array && m.counts.length === 4;
    if (ok) {
      this.buffer = m.grad; // read by the training worker before it is filled again
      p.resolve({ grad: m.grad, norms: m.norms, counts: m.counts, ms: Number(m.ms) || 0 });
    } else p.reject(new Error('a helper sent a malformed part'));
  }

  // A setup message: numbered on the shared-memory channel, so a job waits for it.
  /** @param {ToHelper} message */
  setUp(message) {
    if (this.shared) this.shared.setUp(message);
    else this.worker.postMessage(message);
  }

  // A promise for answer `id`, given up on (with this helper) after DEADLINE_MS.
  expect(id) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.die(`a helper did not answer in ${DEADLINE_MS / 1000} s`), DEADLINE_MS);
      const then = (f) => (v) => {
        clearTimeout(timer);
        f(v);
      };
      this.pending.set(id, { resolve: then(resolve), reject: then(reject) });
    });
  }

  // The shared-memory job's answer, once it is done (rejected when it failed).
  settle(job) {
    const p = this.pending.get(job);
    if (this.dead || !p || this.job !== job) return;
    this.pending.delete(job);
    this.job = 0;
    const a = this.shared.answer(job);
    if (a) p.resolve(a);
    else {
      p.reject(new Error('a helper failed'));
      this.die('a helper failed'); // its 'part-error' says why; its state is unknown
    }
  }

  die(why) {
    if (this.dead) return;
    this.dead = true;
    this.worker.terminate();
    for (const p of this.pending.values()) p.reject(new Error(why));
    this.pending.clear();
  }
}

export class GradientPool {
  constructor() {
    this.helpers = [];
    this.nextId = 1;
  }

  // Keeps `n` live helpers (starting new ones with `module`, ending extra ones). Shared-memory
  // channels spin between jobs only where the training worker and its helpers have a core each
  // (`cores`, as the page timed them: core-probe.js; `navigator.hardwareConcurrency` where it
  // did not say, which can be more than the machine has): where they do not, a spinning worker
  // would take a core from one that has work.
  resize(n, module, cores) {
    this.helpers = this.helpers.filter((h) => !h.dead);
    while (this.helpers.length > n) this.helpers.pop().die('no longer needed');
    while (this.helpers.length < n) this.helpers.push(new Helper(module));
    const spin = n + 1 <= (cores || navigator.hardwareConcurrency || 1) ? SPIN_MS : 0;
    for (const h of this.helpers) if (h.shared) h.shared.spinMs = spin;
  }

  get size() {
    return this.helpers.length;
  }

  // Gives every helper the run's rows (only those that do not hold `key` already; `rows()`
  // is called at most once) and settings.
  setUp(key, spec, rows) {
    let made = null;
    for (const h of this.helpers) {
      if (h.rowsKey !== key) {
        made = made || rows();
        h.setUp({ type: 'rows', x: made.x, y: made.y });
        h.rowsKey = key;
      }
      h.setUp({ type: 'configure', spec });
    }
  }

  // Helper `j`'s array of `n` floats for the parameters it is sent (the one it sent its last
  // gradient sum back in). One array per helper goes back and forth, transferred, never copied
  // nor allocated per lot: Chromium's structured clone of the paper MLP's 284 KB took 0.5 ms
  // each way here, a transfer 0.06, and a fresh array 0.18 ms. The helper holds none until the
  // array comes back.
  buffer(j, n) {
    const h = this.helpers[j];
    if (h?.shared) return h.shared.params(n); // shared memory: the channel's array
    const own = h?.buffer;
    if (h) h.buffer = null;
    return own?.length === n ? own : new Float32Array(n);
  }

  // Helper `j` sums `part` at `params` (its `buffer`): resolves to {grad, norms, counts, ms},
  // `grad` in the same array, `ms` the time the helper spent on it. Both arrays are
  // transferred, not copied.
  sum(j, params, part, bounds) {
    const h = this.helpers[j];
    if (!h || h.dead) return Promise.reject(new Error('that helper has stopped'));
    if (h.shared) {
      if (h.job) return Promise.reject(new Error('that helper has a part under way'));
      const job = h.shared.post(part, bounds);
      h.job = job;
      return h.expect(job);
    }
    const id = this.nextId++;
    const answer = h.expect(id);
    /** @type {ToHelper} */
    const sum = { type: 'sum', id, params, part, bounds };
    h.worker.postMessage(sum, [params.buffer, part.buffer]);
    return answer;
  }

  // Helper `j`'s answer was refused (Rust's check of a part, `why`): its state is unknown, so
  // it is not used again.
  drop(j, why) {
    this.helpers[j]?.die(why);
  }

  // Called once the training worker's own part is done: answers the shared-memory parts that
  // are done, blocking up to BLOCK_MS for those that are not, and then awaits the rest
  // without blocking. (Message-passing parts answer by message.)
  collect() {
    const until = performance.now() + BLOCK_MS;
    for (const h of this.helpers) {
      const job = h.job;
      if (!job || h.dead) continue;
      for (let left = until - performance.now(); !h.shared.done(job) && left > 0; left = until - performance.now()) {
        h.shared.waitFor(job, left);
      }
      if (h.shared.done(job)) h.settle(job);
      else h.shared.whenDone(job).then(() => h.settle(job));
    }
  }

  // Whether parts reach the helpers through shared memory (else by message).
  get sharedMemory() {
    return sharedMemoryWorks();
  }

  // The same, in words: 'shared memory' or 'messages'.
  get channel() {
    return this.sharedMemory ? 'shared memory' : 'messages';
  }

  // What shared memory lacks here ('' when nothing: shared-channel.js), for the page to say.
  get missing() {
    return sharedMemoryMissing();
  }
}
