// @ts-check
// The page's side of the accounting worker (accounting-worker.js): requests by type, answers to
// older requests of a type dropped; and the two views it feeds — the σ-needed panel and the
// PLD curve of the ε chart — each keyed by the settings it was computed for. Requests carry
// the run's settings and the data's facts; Rust derives every privacy quantity from them.
import { KeptWorker } from './kept-worker.js';
import { checkFromAccounting } from '../core/message-checks.js';

/** @typedef {import('../core/protocol.js').ToAccounting} ToAccounting */
/** @typedef {import('../core/protocol.js').FromAccounting} FromAccounting */
/** @typedef {{id: number, message: ToAccounting, then: (m: FromAccounting) => void}} Asked */

/** @type {Set<Accounting>} */
const every = new Set();

/** Whether no accounting worker has a request under way. */
export const accountingIdle = () => [...every].every((a) => a.pending.size === 0);

export class Accounting {
  /** @param {(text: string) => void} onError */
  constructor(onError) {
    every.add(this);
    this.onError = onError;
    /** @type {Map<string, Asked>} */
    this.pending = new Map(); // type -> the newest request not answered
    this.id = 0;
    // Calibrating with PLD takes seconds in one call, during which the worker cannot answer.
    this.worker = new KeptWorker(new URL('../workers/accounting-worker.js', import.meta.url), {
      silenceMs: 60_000,
      onMessage: (ev) => {
        if (ev.data?.type === 'init-error') {
          // Its wasm could not load: every request waiting is answered with the reason.
          this.answerAll(String(ev.data.message));
          return;
        }
        // An answer without its shape (message-checks.js) answers its request with why.
        const m = checkFromAccounting(ev.data);
        const asked = [...this.pending.values()].find((a) => a.id === ev.data?.id);
        if (!asked || (typeof m !== 'string' && asked.message.type !== m.type)) return; // older
        this.pending.delete(asked.message.type);
        asked.then(
          typeof m === 'string'
            ? { id: asked.id, type: asked.message.type, error: `the answer was unreadable: ${m}` }
            : m,
        );
      },
      // The new worker gets the requests the old one left unanswered.
      onRestart: (why) => {
        this.onError(`The accounting worker stopped (${why}); a new one was started.`);
        for (const asked of this.pending.values()) this.worker.post(asked.message);
      },
      onGiveUp: (why) => {
        this.onError(`The accounting worker stopped again (${why}); reload the page to try again.`);
        this.answerAll('the accounting worker has stopped; reload the page');
      },
      // A request it would not obey (a bug): that request is answered with the reason.
      onRefused: (m) => {
        const asked = [...this.pending.values()].find((a) => a.id === m.id);
        if (!asked) return;
        this.pending.delete(asked.message.type);
        asked.then({
          id: asked.id,
          type: asked.message.type,
          error: `the request was refused: ${m.message}`,
        });
      },
    });
  }

  // Answers every request waiting with `error`.
  /** @param {string} error */
  answerAll(error) {
    for (const asked of this.pending.values())
      asked.then({ id: asked.id, type: asked.message.type, error });
    this.pending.clear();
  }

  /**
   * Asks the worker for a `type` computation with the fields of `request`; `then(answer)`.
   * @template {ToAccounting['type']} K
   * @param {K} type
   * @param {Omit<Extract<ToAccounting, {type: K}>, 'type' | 'id'>} request
   * @param {(m: FromAccounting) => void} then
   */
  ask(type, request, then) {
    this.id += 1;
    const message = /** @type {ToAccounting} */ (
      /** @type {unknown} */ ({ ...request, id: this.id, type })
    );
    if (!this.worker.worker) {
      then({ id: this.id, type, error: 'the accounting worker has stopped; reload the page' });
      return;
    }
    this.pending.set(type, { id: this.id, message, then });
    this.worker.post(message);
  }

  // Drops the answer to any request of this type still under way.
  cancel(type) {
    this.pending.delete(type);
  }
}

const keyOf = (...parts) => JSON.stringify(parts);

/**
 * When a preview's question goes to its worker: `run(kind, ask)` asks now or later (the last
 * ask of a kind), `drop(kind)` forgets a later one (previews.js holds them while a run starts).
 * @typedef {{run: (kind: string, ask: () => void) => void, drop: (kind: string) => void}} AskGate
 */
/** @type {AskGate} */
const NO_GATE = { run: (_kind, ask) => ask(), drop: () => {} };

// "σ needed for a target ε versus T": the curves for the settings last asked for, or a message
// (computing, or why there are none) — never an older curve under a new caption.
export class SigmaPanel {
  /** @param {any} accounting its Accounting @param {AskGate} [gate] when its question goes out */
  constructor(accounting, gate = NO_GATE) {
    this.accounting = accounting;
    this.gate = gate;
    this.key = '';
    this.curve = null; // { points, target, delta }
    this.message = 'Computing the σ each accountant needs…';
  }

  // No curves: the settings now have no preview (their data set loads, or Rust refused them).
  forget() {
    this.accounting.cancel('sigma-needed');
    this.gate.drop('sigma-needed');
    this.key = '';
    this.curve = null;
    this.message = 'No σ panel until these settings have an ε preview';
  }

  // Asks for the curves when what they depend on changed (`mechanism`: Rust's key of the
  // run's mechanism at σ = 1, preview_keys; and the target); `redraw` runs when the panel has
  // something new to show, `onError` gets a message for the page.
  request(config, facts, target, mechanism, redraw, onError) {
    const key = keyOf(mechanism, target);
    if (key === this.key) return;
    this.key = key;
    this.curve = null;
    // No number above 0 in the box (empty, say): nothing to ask. Its upper end is Rust's:
    // a link's budget = 500 is a valid run (its config's range), and its panel is drawn.
    if (!(Number(target) > 0 && Number.isFinite(Number(target)))) {
      this.accounting.cancel('sigma-needed');
      this.gate.drop('sigma-needed');
      this.message = 'Set a target ε above 0 under Privacy budget';
      onError(`Target ε must be a number above 0; got '${target}'.`);
      redraw();
      return;
    }
    this.message = 'Computing the σ each accountant needs…';
    this.gate.run('sigma-needed', () => this.ask(config, facts, target, key, redraw, onError));
  }

  ask(config, facts, target, key, redraw, onError) {
    this.accounting.ask('sigma-needed', { config, facts, target }, (m) => {
      if (this.key !== key) return; // forgotten since: these settings are not on screen
      if (m.error) {
        this.key = ''; // asked again on the next change
        this.message = 'No σ panel for these settings (see the message above)';
        onError(`Cannot compute the σ panel: ${m.error}`);
      } else {
        this.curve = { points: m.result, target, delta: config.delta };
      }
      redraw();
    });
  }
}

// The PLD accountant's ε per epoch for the ε chart (milliseconds to seconds), in a worker of
// its own so that it never holds up calibration or the σ panel.
export class PldPreview {
  /** @param {any} accounting its Accounting @param {AskGate} [gate] when its question goes out */
  constructor(accounting, gate = NO_GATE) {
    this.accounting = accounting;
    this.gate = gate;
    this.key = '';
    this.curve = null;
  }

  // No curve: the settings now have no preview (their data set loads, or Rust refused them).
  forget() {
    this.gate.drop('pld-curve');
    this.key = '';
    this.curve = null;
  }

  // Asks for the curve when the run's mechanism changed (`mechanism`: Rust's key of it,
  // preview_keys).
  request(config, facts, mechanism, redraw, onError) {
    const key = keyOf(mechanism);
    if (key === this.key) return;
    this.key = key;
    this.curve = null;
    this.gate.run('pld-curve', () =>
      this.accounting.ask('pld-curve', { config, facts }, (m) => {
        if (this.key !== key) return; // forgotten since: these settings are not on screen
        if (m.error) {
          this.key = '';
          onError(`Cannot compute the PLD curve: ${m.error}`);
          return;
        }
        this.curve = m.result;
        redraw();
      }),
    );
  }
}
