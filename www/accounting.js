// The page's side of the accounting worker (accounting-worker.js): requests by type, answers to
// older requests of a type dropped; and the two views it feeds — the σ-needed panel and the
// PLD curve of the ε chart — each keyed by the settings it was computed for. Requests carry
// the run's settings and the data's facts; Rust derives every privacy quantity from them.

export class Accounting {
  constructor(onError) {
    this.onError = onError;
    this.latest = new Map(); // type -> id of the newest request
    this.handlers = new Map(); // type -> what to do with its answer
    this.id = 0;
    this.restarts = 0;
    this.start();
  }

  start() {
    this.worker = new Worker('./accounting-worker.js', { type: 'module' });
    this.worker.onmessage = (ev) => {
      const m = ev.data;
      if (!m || typeof m !== 'object') return;
      if (m.id === this.latest.get(m.type)) this.handlers.get(m.type)(m);
    };
    this.worker.onerror = (e) => {
      e.preventDefault();
      if (this.restarts >= 3) {
        this.onError(`The accounting worker failed again (${e.message || 'no message'}); reload the page to try again.`);
        return;
      }
      this.restarts += 1;
      this.onError(`The accounting worker failed (${e.message || 'no message'}); it was restarted.`);
      this.restart();
    };
  }

  // A dead worker is replaced; requests under way are answered with an error.
  restart() {
    this.worker.terminate();
    for (const [type, id] of this.latest) {
      const handler = this.handlers.get(type);
      if (handler) handler({ id, type, error: 'the accounting worker stopped; please try again' });
    }
    this.latest.clear();
    this.start();
  }

  ask(type, request, then) {
    this.id += 1;
    this.latest.set(type, this.id);
    this.handlers.set(type, then);
    this.worker.postMessage({ ...request, id: this.id, type });
  }

  // Drops the answer to any request of this type still under way.
  cancel(type) {
    this.id += 1;
    this.latest.set(type, this.id);
  }
}

const keyOf = (...parts) => JSON.stringify(parts);

// "σ needed for a target ε versus T": the curves for the settings last asked for, or a message
// (computing, or why there are none) — never an older curve under a new caption.
export class SigmaPanel {
  constructor(accounting) {
    this.accounting = accounting;
    this.key = '';
    this.curve = null; // { points, target, delta }
    this.message = 'Computing the σ each accountant needs…';
  }

  // Asks for the curves when the settings that matter changed; `redraw` runs when the panel
  // has something new to show, `onError` gets a message for the page.
  request(config, facts, target, redraw, onError) {
    const { sigma, lr, seed, amplification, ...relevant } = config;
    const key = keyOf(relevant, facts, target);
    if (key === this.key) return;
    this.key = key;
    this.curve = null;
    if (!(target > 0 && target <= 100)) {
      this.accounting.cancel('sigma-needed');
      this.message = 'Set a target ε in (0, 100] under Privacy budget';
      onError(`Target ε must be a number in (0, 100]; got '${target}'.`);
      redraw();
      return;
    }
    this.message = 'Computing the σ each accountant needs…';
    this.accounting.ask('sigma-needed', { config, facts, target }, (m) => {
      if (m.error) {
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
  constructor(accounting) {
    this.accounting = accounting;
    this.key = '';
    this.curve = null;
  }

  request(config, facts, redraw, onError) {
    const { lr, seed, amplification, budget_epsilon, budget_accountant, ...relevant } = config;
    const key = keyOf(relevant, facts);
    if (key === this.key) return;
    this.key = key;
    this.curve = null;
    this.accounting.ask('pld-curve', { config, facts }, (m) => {
      if (m.error) {
        onError(`Cannot compute the PLD curve: ${m.error}`);
        return;
      }
      this.curve = m.result;
      redraw();
    });
  }
}
