// The training worker's data-parallel helpers (gradient-worker.js): k − 1 workers that sum
// parts 1 … k − 1 of each lot while the training worker sums part 0 (src/web/parallel.rs says
// why message passing). Each helper keeps the training rows it was last sent, under a key, so
// a run on the same rows sends only its settings. A helper that fails rejects its pending
// parts and is dropped; the training worker then sums those parts itself.

const HELPER_URL = new URL('./gradient-worker.js', import.meta.url);

class Helper {
  constructor(module) {
    this.worker = new Worker(HELPER_URL, { type: 'module' });
    this.worker.postMessage(module instanceof WebAssembly.Module ? { type: 'wasm', module } : { type: 'wasm', error: 'no module' });
    this.rowsKey = null;
    this.buffer = null; // parameters out, its gradient sum back: one array, lot after lot
    this.pending = new Map(); // id → {resolve, reject}
    this.dead = false;
    this.worker.onmessage = (ev) => this.answer(ev.data);
    this.worker.onerror = (e) => {
      e.preventDefault();
      this.die(e.message || 'a helper worker failed');
    };
  }

  answer(m) {
    if (!m || typeof m !== 'object') return;
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
      && m.counts instanceof Uint32Array && m.counts.length === 3;
    if (ok) {
      this.buffer = m.grad; // read by the training worker before it is filled again
      p.resolve({ grad: m.grad, norms: m.norms, counts: m.counts, ms: Number(m.ms) || 0 });
    } else p.reject(new Error('a helper sent a malformed part'));
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

  // Keeps `n` live helpers (starting new ones with `module`, ending extra ones).
  resize(n, module) {
    this.helpers = this.helpers.filter((h) => !h.dead);
    while (this.helpers.length > n) this.helpers.pop().die('no longer needed');
    while (this.helpers.length < n) this.helpers.push(new Helper(module));
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
        h.worker.postMessage({ type: 'rows', x: made.x, y: made.y });
        h.rowsKey = key;
      }
      h.worker.postMessage({ type: 'configure', spec });
    }
  }

  // Helper `j`'s array of `n` floats for the parameters it is sent (the one it sent its last
  // gradient sum back in). One array per helper goes back and forth, transferred, never copied
  // nor allocated per lot: Chromium's structured clone of the paper MLP's 284 KB took 0.5 ms
  // each way here, a transfer 0.06, and a fresh array 0.18 ms. The helper holds none until the
  // array comes back.
  buffer(j, n) {
    const h = this.helpers[j];
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
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      h.pending.set(id, { resolve, reject });
      h.worker.postMessage({ type: 'sum', id, params, part, bounds }, [params.buffer, part.buffer]);
    });
  }
}
