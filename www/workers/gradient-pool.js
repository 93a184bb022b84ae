// @ts-check
// The training worker's data-parallel helpers (gradient-worker.js): k − 1 workers that sum
// parts 1 … k − 1 of each lot while the training worker sums part 0. Parts go out by message
// (transferred arrays), or through shared memory in a cross-origin-isolated page
// (shared-channel.js: a few µs instead of a message's 30 or more each way; src/web/parallel.rs
// says why both). Each helper keeps the training rows it was last sent, under a key, so a run
// on the same rows sends only its settings. A helper that fails, or does not answer in many
// times a part's expected time (it hangs), rejects its pending parts and is dropped; the
// training worker then sums those parts itself, and hears of it (`takeLost`) to say so.
import { ChannelEnd, SPIN_MS, sharedMemoryMissing, sharedMemoryWorks } from './shared-channel.js';
import { ModuleWorker } from '../core/module-worker.js';
import { checkFromHelper } from '../core/message-checks.js';

/** @typedef {import('../core/protocol.js').ToHelper} ToHelper */

const HELPER_URL = new URL('./gradient-worker.js', import.meta.url);
// How long the training worker blocks for a shared-memory part once its own is done (longer
// parts are awaited without blocking, so the worker keeps answering the page).
const BLOCK_MS = 20;
// How long a helper's part may take before the helper is given up on (and the part summed by
// the training worker): WAIT_FACTOR times what a part takes, never less than MIN_WAIT_MS. What a
// part takes is measured on the training worker's own part of the same lots (the median over
// this plan's lots, or this lot's if longer): a helper's part is the same work, a little more
// (src/web/parallel.rs), and on fewer cores than workers the two take turns. So a hung helper is
// noticed in seconds, and a busy one is never taken for a hung one.
const MIN_WAIT_MS = 2000;
const WAIT_FACTOR = 20;
const MEASURED_LOTS = 9; // the own parts the median is over
// …except a helper's first part after new rows (a copy of the whole training set to take in, a
// model to build, perhaps its wasm still starting): that may take far longer than a part.
const SETUP_WAIT_MS = 60_000;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

class Helper {
  // `onLost(said, hung)`: called when the helper is given up on (not when it is no longer
  // needed), with what happened as a phrase ('did not answer for …', 'failed (…)').
  constructor(module, onLost) {
    this.onLost = onLost;
    // Started in turn, and again if its scripts fail to load once (module-worker.js).
    this.worker = new ModuleWorker(HELPER_URL, {
      onmessage: (ev) => this.answer(ev.data),
      onerror: (e, why) => this.die(why),
    });
    /** @type {import('../core/protocol.js').ToShell} */
    const wasm =
      module instanceof WebAssembly.Module
        ? { type: 'wasm', module }
        : { type: 'wasm', error: 'no module' };
    this.worker.postMessage(wasm);
    this.shared = sharedMemoryWorks() ? new ChannelEnd(this.worker) : null;
    this.job = 0; // the shared-memory job under way, if any
    this.rowsKey = null;
    this.buffer = null; // parameters out, its gradient sum back: one array, lot after lot
    this.pending = new Map(); // id → {resolve, reject, sent (performance.now())}
    this.timer = 0; // the deadline of its oldest part, once watched
    this.waitMs = 0; // …how long a part may take (0: not watched yet)
    this.partMs = 0; // …and what a part takes, for the words when it is given up on
    this.rowsSent = 0; // when it was last sent rows (performance.now())
    this.fresh = true; // no part sent after those rows answered yet (SETUP_WAIT_MS)
    this.dead = false;
  }

  // A helper's message: a part, or why it failed; the shell's 'crashed' (a trap), 'init-error'
  // and 'refused' end it as a 'part-error' does (worker-shell.js), and so does a message
  // without its shape (message-checks.js): its state is unknown.
  /** @param {unknown} raw */
  answer(raw) {
    const m = checkFromHelper(raw);
    if (typeof m === 'string') {
      this.die(`a message the training worker cannot read: ${m}`);
      return;
    }
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
    this.answered(p.sent);
    this.buffer = m.grad; // read by the training worker before it is filled again
    p.resolve({ grad: m.grad, norms: m.norms, counts: m.counts, ms: m.ms });
  }

  // A setup message: numbered on the shared-memory channel, so a job waits for it.
  /** @param {ToHelper} message */
  setUp(message) {
    if (this.shared) this.shared.setUp(message);
    else this.worker.postMessage(message);
  }

  // A promise for answer `id` (watched once the training worker's own part is done: `watch`).
  expect(id) {
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, sent: performance.now() });
    });
  }

  // Gives this helper up (and its parts to the training worker) if its oldest part is not
  // answered `waitMs` after it was sent: an answer re-arms the watch for the next.
  watch(waitMs) {
    clearTimeout(this.timer);
    const oldest = this.pending.values().next().value;
    if (this.dead || !oldest) return;
    const allowed = this.fresh ? Math.max(waitMs, SETUP_WAIT_MS) : waitMs;
    this.waitMs = waitMs;
    this.timer = /** @type {any} */ (setTimeout)(
      () =>
        this.die(
          `did not answer for ${(allowed / 1000).toFixed(1)} s (its part of a lot takes ` +
            `about ${this.partMs} ms)`,
          'hung',
        ),
      Math.max(0, oldest.sent + allowed - performance.now()),
    );
  }

  // The part sent at `sent` was answered: its watch ends; the next part out, if any, is watched
  // as long.
  answered(sent) {
    if (sent >= this.rowsSent) this.fresh = false;
    clearTimeout(this.timer);
    if (this.pending.size && this.waitMs) this.watch(this.waitMs);
  }

  // The shared-memory job's answer, once it is done (rejected when it failed).
  settle(job) {
    const p = this.pending.get(job);
    if (this.dead || !p || this.job !== job) return;
    this.pending.delete(job);
    this.job = 0;
    this.answered(p.sent);
    const a = this.shared.answer(job);
    if (a) p.resolve(a);
    else {
      p.reject(new Error('a helper failed'));
      this.die('a helper failed'); // its 'part-error' says why; its state is unknown
    }
  }

  // Ends this helper, rejecting its parts with `why`. `how` it ended: 'failed', 'hung' (`why`
  // says how long it was waited for) or 'unneeded' (a smaller plan: not lost).
  die(why, how = 'failed') {
    if (this.dead) return;
    this.dead = true;
    clearTimeout(this.timer);
    if (how !== 'unneeded')
      this.onLost(how === 'hung' ? why : `failed (${String(why).slice(0, 200)})`, how === 'hung');
    this.worker.terminate();
    for (const p of this.pending.values()) p.reject(new Error(why));
    this.pending.clear();
  }
}

export class GradientPool {
  constructor() {
    this.helpers = [];
    this.nextId = 1;
    this.ownMs = []; // the training worker's own part of the last lots (ms)
    this.partMs = 10; // what a part takes, as last measured (ms)
    /** @type {{helper: Helper, index: number, why: string, hung: boolean}[]} */
    this.lost = []; // helpers given up on, not yet told (takeLost)
  }

  // Keeps `n` live helpers (starting new ones with `module`, ending extra ones). Shared-memory
  // channels spin between jobs only where the training worker and its helpers have a core each
  // (`cores`, the page's default count: as timed by core-probe.js, at most 2 before that;
  // `navigator.hardwareConcurrency` where it did not say, which can be more than the machine
  // has): where they do not, a spinning worker
  // would take a core from one that has work.
  resize(n, module, cores) {
    this.helpers = this.helpers.filter((h) => !h.dead);
    while (this.helpers.length > n) this.helpers.pop().die('no longer needed', 'unneeded');
    while (this.helpers.length < n) {
      const h = new Helper(module, (why, hung) =>
        this.lost.push({ helper: h, index: this.helpers.indexOf(h), why, hung }),
      );
      this.helpers.push(h);
    }
    const spin = n + 1 <= (cores || navigator.hardwareConcurrency || 1) ? SPIN_MS : 0;
    for (const h of this.helpers) if (h.shared) h.shared.spinMs = spin;
  }

  // How long a new run lets an earlier run's parts finish before it sends its own (a part sent
  // to a shared-memory helper still on one is summed here): a few parts' time, or MIN_WAIT_MS
  // while a helper takes in new rows. A healthy helper is done by then; a hung one is not waited
  // for.
  get settleMs() {
    if (this.helpers.some((h) => h.fresh && h.pending.size)) return MIN_WAIT_MS;
    return Math.max(50, 5 * this.partMs);
  }

  get size() {
    return this.helpers.length;
  }

  // Gives every helper the run's rows (only those that do not hold `key` already; `rows()`
  // is called at most once) and settings.
  setUp(key, spec, rows) {
    let made = null;
    this.ownMs = []; // a new plan: its parts take their own time
    for (const h of this.helpers) {
      if (h.rowsKey !== key) {
        made = made || rows();
        h.setUp({ type: 'rows', x: made.x, y: made.y });
        h.rowsKey = key;
        h.rowsSent = performance.now();
        h.fresh = true;
      }
      h.setUp({ type: 'configure', spec });
    }
  }

  // Helper `j`'s array of `n` floats for the parameters it is sent (the one it sent its last
  // gradient sum back in). One array per helper goes back and forth, transferred, never copied
  // nor allocated per lot: Chromium's structured clone of the paper MLP's 284 KB took 0.5 ms
  // each way here, a transfer 0.06, and a fresh array 0.18 ms. The helper holds none until the
  // array comes back. A shared-memory helper with a part still out (an earlier run's lot: a new
  // run does not wait for it) keeps its channel as it is; its part this lot is summed here.
  buffer(j, n) {
    const h = this.helpers[j];
    // shared memory: the channel's array
    if (h?.shared) return h.job ? new Float32Array(n) : h.shared.params(n);
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

  // Called once the training worker's own part is done, after `ownMs`: every helper's part out
  // is watched (given up on after WAIT_FACTOR times what a part takes); the shared-memory parts
  // that are done are answered, blocking up to BLOCK_MS for those that are not, and the rest
  // awaited without blocking. (Message-passing parts answer by message.)
  collect(ownMs) {
    this.ownMs = [...this.ownMs.slice(1 - MEASURED_LOTS), ownMs];
    const partMs = Math.max(ownMs, median(this.ownMs));
    this.partMs = partMs;
    const waitMs = Math.max(MIN_WAIT_MS, WAIT_FACTOR * partMs);
    for (const h of this.helpers) {
      h.partMs = partMs < 10 ? partMs.toFixed(1) : Math.round(partMs);
      h.watch(waitMs);
    }
    const until = performance.now() + BLOCK_MS;
    for (const h of this.helpers) {
      const job = h.job;
      if (!job || h.dead) continue;
      for (
        let left = until - performance.now();
        !h.shared.done(job) && left > 0;
        left = until - performance.now()
      ) {
        h.shared.waitFor(job, left);
      }
      if (h.shared.done(job)) h.settle(job);
      else h.shared.whenDone(job).then(() => h.settle(job));
    }
  }

  // The helpers given up on since the last call (a part not answered in time, a failure), each
  // as {index (its place then: 0 for the first helper), why, hung, inPlan}: `inPlan` while it
  // still holds a place in the pool (a plan made before it was lost counts it).
  takeLost() {
    const lost = this.lost.map(({ helper, index, why, hung }) => ({
      index,
      why,
      hung,
      inPlan: this.helpers.includes(helper),
    }));
    this.lost = [];
    return lost;
  }

  // The tests' hung helper: the first one's next part never ends ('test-hang').
  hangForTests() {
    this.helpers.find((h) => !h.dead)?.worker.postMessage({ type: 'test-hang' });
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
