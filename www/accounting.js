// The page's side of the accounting worker (accounting-worker.js): requests by type, answers to
// older requests of a type dropped; and the two views it feeds — the σ-needed panel and the
// PLD curve of the ε chart — each keyed by the settings it was computed for.

// DP-PCA's step as the accounting functions take it: sampling rate (every example) and σ_p,
// or no step.
export const pcaArgs = (cfg) => (cfg.pca ? [1.0, cfg.pca_sigma] : [0, 0]);

export class Accounting {
  constructor(onError) {
    this.worker = new Worker('./accounting-worker.js', { type: 'module' });
    this.latest = {}; // type -> id of the newest request
    this.handlers = {}; // type -> what to do with its answer
    this.id = 0;
    this.worker.onmessage = (ev) => {
      const m = ev.data;
      if (m.id === this.latest[m.type]) this.handlers[m.type](m);
    };
    this.worker.onerror = (e) => onError(`The accounting worker failed: ${e.message}`);
  }

  ask(type, args, then) {
    this.latest[type] = ++this.id;
    this.handlers[type] = then;
    this.worker.postMessage({ id: this.id, type, args });
  }

  // Drops the answer to any request of this type still under way.
  cancel(type) {
    this.latest[type] = ++this.id;
  }
}

const SIGMA_PANEL_EPOCHS = 400; // the σ-needed panel's range: 1 to max(400, E) epochs

// "σ needed for a target ε versus T": the curves for the settings last asked for, or a message
// (computing, or why there are none) — never an older curve under a new caption.
export class SigmaPanel {
  constructor(accounting) {
    this.accounting = accounting;
    this.key = '';
    this.curve = null; // { json, target, delta }
    this.message = 'Computing the σ each accountant needs…';
  }

  // Asks for the curves when (target ε, δ, q, epochs, DP-PCA) changed; `redraw` runs when the
  // panel has something new to show, `onError` gets a message for the status line.
  request(cfg, target, nTrain, redraw, onError) {
    const q = cfg.lot_size / nTrain;
    const stepsPerEpoch = Math.max(1, Math.round(nTrain / cfg.lot_size));
    const maxEpochs = Math.max(SIGMA_PANEL_EPOCHS, cfg.epochs);
    const args = [target, cfg.delta, q, stepsPerEpoch, maxEpochs, ...pcaArgs(cfg)];
    const key = JSON.stringify(args);
    if (key === this.key) return;
    this.key = key;
    this.curve = null;
    if (!(target > 0 && target <= 100)) {
      this.accounting.cancel('sigma-curve');
      this.message = 'Set a target ε in (0, 100] under Privacy budget';
      onError(`Target ε must be a number in (0, 100]; got '${target}'.`);
      redraw();
      return;
    }
    this.message = 'Computing the σ each accountant needs…';
    this.accounting.ask('sigma-curve', args, (m) => {
      if (m.error) {
        this.message = 'No σ panel for these settings (see the status line)';
        onError(`Cannot compute the σ panel: ${m.error}`);
      } else {
        this.curve = { json: m.result, target, delta: cfg.delta };
      }
      redraw();
    });
  }
}

// The PLD accountant's ε per epoch for the ε chart, computed in a worker of its own (from a few
// milliseconds to a few seconds), so it never holds up calibration or the σ panel. With DP-PCA
// on there is none (the worker's curve has no PCA step), and the chart shows four.
export class PldPreview {
  constructor(accounting) {
    this.accounting = accounting;
    this.key = '';
    this.curve = null;
  }

  request(cfg, q, stepsPerEpoch, redraw, onError) {
    const key = [q, cfg.sigma, stepsPerEpoch, cfg.epochs, cfg.delta].join('|');
    if (cfg.pca) {
      this.key = '';
      return;
    }
    if (key === this.key) return;
    this.key = key;
    this.curve = null;
    // The accountant's own grid, h = 1e-4: 1e-3 is ten times faster but its discretisation
    // error grows with T (3× too high at L = 1 on Adult, T = 651,000 steps).
    this.accounting.ask('pld-curve', [q, cfg.sigma, stepsPerEpoch, cfg.epochs, cfg.delta, 1e-4], (m) => {
      if (m.error) {
        onError(`Cannot compute the PLD curve: ${m.error}`);
        return;
      }
      this.curve = JSON.parse(m.result);
      redraw();
    });
  }

  // `previewJson` (epsilon_curve's points) with the PLD curve merged in when it is there for
  // the current settings.
  merge(previewJson) {
    if (!this.curve || !this.key) return previewJson;
    const points = JSON.parse(previewJson);
    if (points.length !== this.curve.length) return previewJson;
    points.forEach((p, i) => { p.pld = this.curve[i]; });
    return JSON.stringify(points);
  }
}
