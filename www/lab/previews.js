// @ts-check
// What the page shows of a run before it trains, all from Rust: the ε preview of the whole run
// (computed here, in a few milliseconds), the σ-needed panel and the PLD curve (computed in the
// accounting workers), for the run's settings and the facts of its data set.
import { epsilon_preview, preview_keys } from '../pkg/dpsgd_lab.js';
import { Accounting, PldPreview, SigmaPanel } from './accounting.js';
import { StartHold } from './start-hold.js';

export class Previews {
  /**
   * @param {Accounting} accounting the σ panel's worker
   * @param {(text: string) => void} showMessage
   */
  constructor(accounting, showMessage) {
    this.showMessage = showMessage;
    this.hold = new StartHold();
    this.sigmaPanel = new SigmaPanel(accounting, this.hold);
    this.pld = new PldPreview(new Accounting(showMessage), this.hold);
    /** @type {any[]} epsilon_preview of the run's settings: ε per epoch by accountant */
    this.epsilon = [];
  }

  /**
   * The previews of `cfg` on data with `facts` (null until the run has loaded its data set:
   * no preview rather than one for another data set's N). `redraw` draws the charts,
   * `redrawSigma` the σ panel, `label(last, cfg)` is the ε chart's text alternative.
   */
  update(cfg, facts, budget, { redraw, redrawSigma, label }) {
    // (A lot larger than the data set waits for the worker's resize: a pin from a link.)
    const ok = !!facts && cfg.lot_size <= facts.n_train;
    this.epsilon = ok ? this.of(cfg, facts) : [];
    // The chart's text alternative says what the chart shows: this preview's ε, or none yet
    // (never the ε of the data set shown before, while another loads).
    document
      .getElementById('epsilon-chart')
      ?.setAttribute('aria-label', label(this.epsilon.at(-1), cfg));
    const keys = this.epsilon.length ? this.keysOf(cfg, facts) : null;
    if (!keys) {
      // no PLD curve or σ panel of the settings before, while these have none
      this.pld.forget();
      this.sigmaPanel.forget();
      redrawSigma();
      return;
    }
    this.sigmaPanel.request(cfg, facts, budget, keys.sigma_panel, redrawSigma, this.showMessage);
    this.pld.request(cfg, facts, keys.pld, redraw, this.showMessage);
  }

  /** A run starts training (`true`: its previews wait, StartHold) or has shown an epoch, ended
   * or failed (`false`: they go out). */
  starting(/** @type {boolean} */ on) {
    if (on) this.hold.start();
    else this.hold.end();
  }

  /** The ε preview of `cfg` on data with `facts` ([] and a message when Rust refuses it). */
  of(cfg, facts) {
    try {
      return epsilon_preview(cfg, facts);
    } catch (e) {
      this.showMessage(`Cannot compute ε: ${e.message || e}`);
      return [];
    }
  }

  /**
   * What the workers' previews of `cfg` depend on (Rust's keys of its mechanism), or null.
   * @returns {{pld: string, sigma_panel: string} | null}
   */
  keysOf(cfg, facts) {
    try {
      return preview_keys(cfg, facts);
    } catch (e) {
      this.showMessage(`Cannot compute ε: ${e.message || e}`);
      return null;
    }
  }
}
