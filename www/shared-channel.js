// Data-parallel lots through shared memory, in cross-origin-isolated pages only (COOP/COEP:
// `make serve` sends them, and sw.js adds them to what it serves, so a static host's second
// visit; where a page is not isolated, the messages of gradient-pool.js).
// A helper's part of each lot goes out, and its clipped sum comes back, in SharedArrayBuffers
// that stay put for the run; a job number in an Int32Array wakes the helper
// (`Atomics.wait`/`notify`) where a message would. An idle round trip between two workers took
// 3 µs this way on a 2-core machine, 30–34 µs by `postMessage`: the difference that kept
// logistic regression's two workers from 1.7 × one. What the training worker does with a part
// is the same either way (Session.receivePart, checked in Rust: train::part::LotParts).

// Only where the browser grants shared memory and can wait on it without blocking the event
// loop (`Atomics.waitAsync`, for parts that take longer than the training worker's own).
export const sharedMemoryWorks = () => globalThis.crossOriginIsolated === true
  && typeof SharedArrayBuffer === 'function' && typeof Atomics.waitAsync === 'function';

// The slots of a channel's control array.
const JOB = 0; // the last job posted (the training worker counts up from 1)
const DONE = 1; // the last job the helper finished
const FAILED = 2; // 1 when that job failed (the helper also posts a 'part-error' saying why)
const SENT = 3; // setup messages (rows, configure, channel) sent so far: the helper handles
// them before any job posted after them
const PART_LEN = 4; // the job's row indices in `part`
const BOUNDS_LEN = 5; // its clipping bounds in `bounds`
const NORMS_LEN = 6; // the norms the helper wrote in `norms`; 7…10: the part's examples,
const SLOTS = 11; // clipped and unclipped, and the digest of its rows (GradientWorker.counts)
const MAX_BOUNDS = 64; // clipping bounds: one, or one per layer

// A channel for a model of `nParams` parameters and parts of up to `capacity` examples:
// `params` carries the parameters out and the part's gradient sum back.
function makeChannel(nParams, capacity) {
  const shared = (Type, n) => new Type(new SharedArrayBuffer(n * Type.BYTES_PER_ELEMENT));
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
  const on = (a, Type) => a instanceof Type && a.buffer instanceof SharedArrayBuffer;
  return !!c && on(c.ctl, Int32Array) && c.ctl.length === SLOTS && on(c.params, Float32Array)
    && on(c.part, Uint32Array) && on(c.norms, Float32Array) && c.norms.length === c.part.length
    && on(c.bounds, Float64Array) && c.bounds.length === MAX_BOUNDS && on(c.ms, Float64Array);
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
  }

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
    if (part.length > this.c.part.length) this.open(this.c.params.length, 2 ** Math.ceil(Math.log2(part.length)));
    const { ctl } = this.c;
    this.c.part.set(part);
    this.c.bounds.set(bounds);
    ctl[PART_LEN] = part.length;
    ctl[BOUNDS_LEN] = bounds.length;
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

  // Blocks this worker up to `ms` while `job` is not done (a worker may; the page never does).
  waitFor(job, ms) {
    if (!this.done(job)) Atomics.wait(this.c.ctl, DONE, job - 1, ms);
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
    if (this.posted !== this.c || Atomics.load(ctl, DONE) < job || Atomics.load(ctl, FAILED)) return null;
    return {
      grad: this.c.params,
      norms: this.c.norms.slice(0, ctl[NORMS_LEN]),
      counts: Uint32Array.from(ctl.subarray(NORMS_LEN + 1, SLOTS), (v) => v >>> 0),
      ms: this.c.ms[0],
    };
  }
}

// The helper's end. `handled()`: the number of the last setup message it handled; `sum(params,
// part, bounds, norms)` sums a part into `params` and `norms` and returns [norms written,
// examples, clipped, unclipped], or throws, and then `fail(e)` reports it. It never blocks:
// it waits for each job with `Atomics.waitAsync`, one job a task, as its messages would come.
// (A helper that looped over jobs in one task, blocking in `Atomics.wait` between them, woke
// as fast, but after the 1000-wide MLP had run its summing of logistic regression's parts took
// 0.8 ms instead of 0.5 in the relaxed build; it did not with V8's
// --no-turbo-inline-js-wasm-calls: the hot JS loop's optimised code was what changed.)
export class HelperEnd {
  constructor({ handled, sum, fail }) {
    Object.assign(this, { handled, sum, fail });
    this.c = null;
    this.served = 0;
    this.listening = null; // the channel a waitAsync is pending on
  }

  use(channel) {
    this.c = channel;
    this.served = 0;
    this.serve();
  }

  // Sums the job posted, if any, unless a setup message sent before it is still queued; then
  // listens for the next.
  serve() {
    if (!this.c) return;
    const { ctl } = this.c;
    const job = Atomics.load(ctl, JOB);
    if (job !== this.served && Atomics.load(ctl, SENT) === this.handled()) this.run(job);
    this.listen();
  }

  run(job) {
    const c = this.c;
    const t0 = performance.now();
    let failed = 0;
    try {
      const counts = this.sum(c.params, c.part.subarray(0, c.ctl[PART_LEN]), c.bounds.subarray(0, c.ctl[BOUNDS_LEN]), c.norms);
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
