// @ts-check
// Data-parallel lots through shared memory, in cross-origin-isolated pages only (COOP/COEP:
// `make serve` sends them, and sw.js adds them to what it serves, so a static host's second
// visit; where a page is not isolated, the messages of gradient-pool.js).
// A helper's part of each lot goes out, and its clipped sum comes back, in SharedArrayBuffers
// that stay put for the run; a job number in an Int32Array wakes the helper
// (`Atomics.wait`/`notify`) where a message would. Round trips between two idle workers, back
// to back, took 3–5 µs this way on a 2-core machine, 20–34 µs by `postMessage`: what kept
// logistic regression's two workers from 1.7 × one. What the training worker does with a part
// is the same either way (Session.receivePart, checked in Rust: train::part::LotParts).
//
// Both ends spin for a moment before they sleep (`spinMs`, set by the pool where every worker
// has a core of its own): a helper for its next job, the training worker for a helper's part. A
// sleeping worker is slow to wake: with the training worker busy on the other core, a helper
// blocked in `Atomics.wait` or `waitAsync` started its part 56–84 µs after the notify on this
// 2-core VM (its core idles, the VM must wake it), and a notify that had a waiter to wake took
// 13–18 µs. The next job comes 0.1–0.4 ms after a helper's last one, so a helper that spins up
// to a millisecond starts 7–13 µs after it is posted; logistic regression's lot went from 0.84
// to 0.75 ms with two workers (one run each, the same split).

// The SharedArrayBuffer constructor, where this page may share memory with its workers: the
// global, or, where a browser hides the global, the constructor of a shared wasm memory's buffer
// (WebKitGTK 2.50 hides it, though `new WebAssembly.Memory({shared: true}).buffer` is one) — but
// only if a buffer made with it can be posted: WebKitGTK refuses to (DataCloneError), so there it
// is null, as where there is no shared memory at all.
export function sharedBufferType() {
  /** @type {any} a constructor of shared buffers, found where the engine has one */
  let type = typeof SharedArrayBuffer === 'function' ? SharedArrayBuffer : null;
  try {
    type ??= Object.getPrototypeOf(
      new WebAssembly.Memory({ initial: 0, maximum: 1, shared: true }).buffer,
    )?.constructor;
    if (typeof type !== 'function' || type === ArrayBuffer) return null;
    const { port1, port2 } = new MessageChannel();
    port1.postMessage(new type(8));
    port1.close();
    port2.close();
    return type;
  } catch {
    return null;
  }
}

// What this browser lacks for the channel, '' when nothing: cross-origin isolation ('isolation'),
// shared memory ('SharedArrayBuffer') or a wait that does not block the event loop
// ('Atomics.waitAsync', for parts that take longer than the training worker's own).
export function sharedMemoryMissing() {
  if (globalThis.crossOriginIsolated !== true) return 'isolation';
  if (!sharedBufferType()) return 'SharedArrayBuffer';
  if (typeof Atomics.waitAsync !== 'function') return 'Atomics.waitAsync';
  return '';
}

// Only where nothing is missing.
export const sharedMemoryWorks = () => sharedMemoryMissing() === '';

// The slots of a channel's control array.
const JOB = 0; // the last job posted (the training worker counts up from 1)
const DONE = 1; // the last job the helper finished
const FAILED = 2; // 1 when that job failed (the helper also posts a 'part-error' saying why)
const SENT = 3; // setup messages (rows, configure, channel) sent so far: the helper handles
// them before any job posted after them
const PART_LEN = 4; // the job's row indices in `part`
const BOUNDS_LEN = 5; // its clipping bounds in `bounds`
const NORMS_LEN = 6; // the norms the helper wrote in `norms`; then, in the 4 slots from
const COUNTS = 7; // COUNTS, the part's examples, clipped and unclipped, and the digest of its
// rows (GradientWorker.counts)
const SPIN_US = 11; // how long the helper spins for its next job before it sleeps (µs)
const SLOTS = 12;
const MAX_BOUNDS = 64; // clipping bounds: one, or one per layer
// How long a worker spins, where it may, before it sleeps: longer than the training worker's
// work between two of a helper's jobs on the three benchmark models (0.1–0.4 ms).
export const SPIN_MS = 1;
// The longest a helper stays in one task serving job after job: then it lets its event loop
// run (it notices setup messages at once, whatever the time) and serves the next job after. A
// pause costs that job its start (a break every 50 ms put 0.06 ms on each of the 784→128→10
// MLP's 4.7 ms lots), and training pauses on its own (the training worker yields between
// chunks of lots), so this is only a bound.
const TASK_MS = 1000;

// A channel for a model of `nParams` parameters and parts of up to `capacity` examples:
// `params` carries the parameters out and the part's gradient sum back.
function makeChannel(nParams, capacity) {
  const Shared = sharedBufferType();
  const shared = (Type, n) => new Type(new Shared(n * Type.BYTES_PER_ELEMENT));
  return {
    ctl: shared(Int32Array, SLOTS),
    params: shared(Float32Array, nParams),
    part: shared(Uint32Array, capacity),
    norms: shared(Float32Array, capacity),
    bounds: shared(Float64Array, MAX_BOUNDS),
    ms: shared(Float64Array, 1), // the helper's time on the part (for the bench's phases)
  };
}

// Whether `c` (from a message) has the shape of a channel: typed arrays on shared memory,
// norms for every example a part can hold.
export function isChannel(c) {
  const Shared = sharedBufferType();
  const on = (a, Type) => !!Shared && a instanceof Type && a.buffer instanceof Shared;
  return (
    !!c &&
    on(c.ctl, Int32Array) &&
    c.ctl.length === SLOTS &&
    on(c.params, Float32Array) &&
    on(c.part, Uint32Array) &&
    on(c.norms, Float32Array) &&
    c.norms.length === c.part.length &&
    on(c.bounds, Float64Array) &&
    c.bounds.length === MAX_BOUNDS &&
    on(c.ms, Float64Array)
  );
}

// The training worker's end of one helper's channel; every setup message to that helper goes
// through `setUp`, numbered, so that the helper handles it before the next job.
export class ChannelEnd {
  constructor(worker) {
    this.worker = worker;
    this.c = null;
    this.job = 0;
    this.sent = 0;
    this.posted = null; // the channel the last job went on
    this.spinMs = 0; // how long both ends spin before they sleep (0: never spin)
  }

  /** @param {import('../core/protocol.js').ToHelper} message */
  setUp(message) {
    this.sent += 1;
    this.worker.postMessage({ ...message, setup: this.sent });
    if (!this.c) return;
    Atomics.store(this.c.ctl, SENT, this.sent);
    Atomics.notify(this.c.ctl, JOB); // a helper waiting for a job goes to read its messages
  }

  // The array to write the parameters of the next job in (a new channel when `n` changed).
  params(n) {
    if (this.c?.params.length !== n) this.open(n, 1024);
    return this.c.params;
  }

  open(n, capacity) {
    const fresh = makeChannel(n, capacity);
    if (this.c?.params.length === n) fresh.params.set(this.c.params); // written for this job
    fresh.ctl[SENT] = this.sent + 1; // this message
    this.setUp({ type: 'channel', channel: fresh });
    this.c = fresh;
    this.job = 0;
  }

  // Posts a job: `part` (row indices) at the parameters written in `params(n)`, clipped to
  // `bounds`. Returns its number.
  post(part, bounds) {
    if (bounds.length > MAX_BOUNDS) throw new Error('more clipping bounds than a channel holds');
    if (part.length > this.c.part.length)
      this.open(this.c.params.length, 2 ** Math.ceil(Math.log2(part.length)));
    const { ctl } = this.c;
    this.c.part.set(part);
    this.c.bounds.set(bounds);
    ctl[PART_LEN] = part.length;
    ctl[BOUNDS_LEN] = bounds.length;
    ctl[SPIN_US] = Math.round(this.spinMs * 1000);
    this.job += 1;
    this.posted = this.c;
    Atomics.store(ctl, JOB, this.job); // after every write above: the helper reads them next
    Atomics.notify(ctl, JOB);
    return this.job;
  }

  // Whether `job` is over: done, or abandoned (a new channel opened since; `answer` says null).
  done(job) {
    return this.posted !== this.c || Atomics.load(this.c.ctl, DONE) >= job;
  }

  // Blocks this worker up to `ms` while `job` is not done (a worker may; the page never does):
  // spinning the first `spinMs` of them, then asleep.
  waitFor(job, ms) {
    const t0 = performance.now();
    const spin = t0 + Math.min(ms, this.spinMs);
    while (!this.done(job) && performance.now() < spin);
    if (!this.done(job))
      Atomics.wait(this.c.ctl, DONE, job - 1, Math.max(0, ms - (performance.now() - t0)));
  }

  // A promise that resolves when `job` is done, without blocking.
  whenDone(job) {
    if (this.done(job)) return Promise.resolve();
    const w = Atomics.waitAsync(this.c.ctl, DONE, job - 1);
    return w.async ? w.value : Promise.resolve();
  }

  // Job `job`'s answer, {grad, norms, counts, ms} (`grad` a view, to read before the next
  // job), or null when it failed, is not done, or went on a channel since replaced.
  answer(job) {
    const { ctl } = this.c;
    if (this.posted !== this.c || Atomics.load(ctl, DONE) < job || Atomics.load(ctl, FAILED))
      return null;
    return {
      grad: this.c.params,
      norms: this.c.norms.slice(0, ctl[NORMS_LEN]),
      counts: Uint32Array.from(ctl.subarray(COUNTS, COUNTS + 4), (v) => v >>> 0),
      ms: this.c.ms[0],
    };
  }
}

// The helper's end. `handled()`: the number of the last setup message it handled; `sum(params,
// part, bounds, norms)` sums a part into `params` and `norms` and returns [norms written,
// examples, clipped, unclipped, digest], or throws, and then `fail(e)` reports it. It never
// blocks in `Atomics.wait`: after a job it spins for the next (up to the job's SPIN_US) and
// serves it in the same task (its event loop runs at least every TASK_MS, and at once for a
// setup message), else it waits for it with `Atomics.waitAsync`. (A helper that served its jobs
// in one task and blocked in `Atomics.wait` between them once summed logistic regression's
// parts in 0.8 ms instead of 0.5 after the 1000-wide MLP had run, in an older build; it did not
// with V8's --no-turbo-inline-js-wasm-calls. Spinning, with a call per job, it sums them as
// fast as the training worker sums its own, after the MLP too: `make bench`'s phases. And a job
// that came through a message to itself instead, one job a task, started 54–60 µs after it was
// posted.)
export class HelperEnd {
  /**
   * @param {{handled: () => number, sum: (...arrays: any[]) => ArrayLike<number>, fail: (e:
   *   unknown) => void}} hooks
   * `handled()`: setup messages handled so far; `sum(params, part, bounds, norms)`: a part's
   * sum into `params`' buffer, its counts returned; `fail(e)`: a job that threw.
   */
  constructor({ handled, sum, fail }) {
    this.handled = handled;
    this.sum = sum;
    this.fail = fail;
    /**
     * @type {{ctl: Int32Array, [array: string]: any} | null} the channel's arrays (as ChannelEnd
     *   posted them)
     */
    this.c = null;
    this.served = 0;
    this.listening = null; // the channel a waitAsync is pending on
  }

  // A new channel: a wait still pending on the old one is woken, so that nothing holds the old
  // arrays (its `again` finds the channel replaced and does nothing).
  use(channel) {
    if (this.listening && this.listening === this.c) Atomics.notify(this.c.ctl, JOB);
    this.c = channel;
    this.served = 0;
    this.serve();
  }

  // Sums the jobs posted, unless a setup message sent before them is still queued, spinning
  // for the next after each (for up to TASK_MS in all); then listens for the next.
  serve() {
    const c = this.c;
    if (!c) return;
    const until = performance.now() + TASK_MS;
    for (let job = this.ready(c); job !== 0; job = this.ready(c)) {
      this.run(job);
      const spin = performance.now() + c.ctl[SPIN_US] / 1000;
      while (
        Atomics.load(c.ctl, JOB) === this.served &&
        Atomics.load(c.ctl, SENT) === this.handled() &&
        performance.now() < spin
      );
      if (performance.now() >= until) break;
    }
    this.listen();
  }

  // The job posted on `c` and not served yet, if it may be served now (no setup message sent
  // before it is still queued); else 0.
  /** @param {{ctl: Int32Array}} c */
  ready(c) {
    if (this.c !== c) return 0;
    const job = Atomics.load(c.ctl, JOB);
    return job !== this.served && Atomics.load(c.ctl, SENT) === this.handled() ? job : 0;
  }

  run(job) {
    const c = this.c;
    const t0 = performance.now();
    let failed = 0;
    try {
      const counts = this.sum(
        c.params,
        c.part.subarray(0, c.ctl[PART_LEN]),
        c.bounds.subarray(0, c.ctl[BOUNDS_LEN]),
        c.norms,
      );
      if (counts.length !== COUNTS - NORMS_LEN + 4)
        throw new Error("a part's counts have the wrong length");
      c.ctl.set(counts, NORMS_LEN);
      c.ms[0] = performance.now() - t0;
    } catch (e) {
      failed = 1;
      this.fail(e);
    }
    this.served = job;
    Atomics.store(c.ctl, FAILED, failed);
    Atomics.store(c.ctl, DONE, job); // after every write above: the training worker reads them
    Atomics.notify(c.ctl, DONE);
  }

  // Serves again when the training worker posts a job or a setup message (it notifies both),
  // or, when a job waits for a setup message, after the tasks queued (that message among them).
  listen() {
    const c = this.c;
    if (!c || this.listening === c) return;
    this.listening = c;
    const again = () => {
      if (this.listening === c) this.listening = null;
      if (this.c === c) this.serve();
    };
    const w = Atomics.waitAsync(c.ctl, JOB, this.served);
    if (w.async) w.value.then(again);
    else setTimeout(again, 0);
  }
}
