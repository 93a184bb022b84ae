// @ts-check
// The longest the workers' previews wait for a starting run (below): a large model's first
// epoch, or a data set still downloading, does not keep the ε chart's PLD curve back longer.
const HOLD_MS = 2000;

/**
 * The PLD curve's and the σ panel's questions wait while a run starts, until its first epoch is
 * reported (or it ends, fails, or HOLD_MS pass): on two cores their accounting took the cores
 * that first epoch needed — one step's PLD and its compositions in two workers, the σ panel's
 * search: WebKitGTK's first epoch of the default run took 0.38–0.80 s (median 0.70) with them
 * at its start, 0.34–0.46 s (median 0.40) held (docs/performance.md, "Safari's engine"). Their
 * captions say "Computing…" meanwhile, as they would while their workers compute; only the
 * last question of each kind goes out.
 */
export class StartHold {
  /** @param {number} [most] the longest it holds (ms) */
  constructor(most = HOLD_MS) {
    this.most = most;
    /** @type {Map<string, () => void>} */
    this.waiting = new Map();
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
  }

  run(/** @type {string} */ kind, /** @type {() => void} */ ask) {
    if (this.timer === undefined) ask();
    else this.waiting.set(kind, ask);
  }

  drop(/** @type {string} */ kind) {
    this.waiting.delete(kind);
  }

  /** Holds the questions from now, for `most` ms at the most (a restart holds them anew). */
  start() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.end(), this.most);
  }

  /** Asks what waited, and holds nothing more. */
  end() {
    clearTimeout(this.timer);
    this.timer = undefined;
    const asks = [...this.waiting.values()];
    this.waiting.clear();
    for (const ask of asks) ask();
  }
}
