// @ts-check
// The training worker's data (worker.js): the built-in set of the current run, loaded only when
// it changed, and a student's own set, kept until replaced. Parsing and checking are Rust's
// (LabData); this holds the results and says what changed.
import { LabData } from '../pkg/dpsgd_lab.js';
import { dataKeyOf, loadBuiltin } from '../core/data-loader.js';
import { shown } from '../core/shown.js';
import { trapped } from './worker-shell.js';

/** @typedef {import('../core/protocol.js').ToTraining} ToTraining */
/** @typedef {import('../core/protocol.js').FromTraining} FromTraining */

export class TrainingData {
  constructor() {
    /** @type {LabData | null} the data set runs train on now */
    this.data = null;
    this.key = ''; // which set `data` is ('own' for the student's)
    /** @type {LabData | null} a student's own data set, kept until replaced */
    this.own = null;
    this.loads = 0; // counts changes of `data`, so helpers know when their rows are stale
  }

  /**
   * Makes `config`'s data set the current one, fetched or generated only when it changed;
   * `progress(p)` hears of a download (at most 10 times a second) and of decoding.
   * @param {any} config the run's settings (RunSettings.toJs())
   * @param {(p: any) => void} progress
   */
  async load(config, progress) {
    if (config.dataset === 'own') {
      if (!this.own) throw new Error('load a file of your own first');
      if (this.data !== this.own) this.loads += 1;
      this.data = this.own;
      this.key = 'own';
      return;
    }
    const key = dataKeyOf(config);
    if (key === this.key && this.data) return;
    let last = 0;
    const fresh = await loadBuiltin(config, (p) => {
      const now = performance.now();
      if (p.stage === 'download' && now - last < 100 && p.loaded < p.total) return;
      last = now;
      progress(p);
    });
    if (this.data && this.data !== this.own) this.data.free();
    this.data = fresh;
    this.key = key;
    this.loads += 1;
  }

  /**
   * Reads and parses a student's file(s), off the main thread. On any error the current data
   * and run stay as they were. Returns the message for the page: loaded, or rejected with what
   * preparing it released anyway (`spent`); null when the wasm trapped (the shell reports that).
   * @param {Extract<ToTraining, {type: 'own-data'}>} m
   * @returns {Promise<FromTraining | null>}
   */
  async readOwn(m) {
    let file = null;
    try {
      if (!m.files.every((f) => f instanceof Blob)) throw new Error('expected files');
      const limit = LabData.maxFileBytes();
      const big = m.files.find((f) => f.size > limit);
      if (big)
        throw new Error(
          `${shown(big.name)} is larger than ${limit / 1048576} MB, the most the lab reads`,
        );
      const bytes = await Promise.all(
        m.files.map(async (f) => new Uint8Array(await f.arrayBuffer())),
      );
      file = LabData.contentKey(bytes[0], bytes[1] ?? new Uint8Array());
      const fresh =
        bytes.length === 2
          ? LabData.fromIdx(bytes[0], bytes[1])
          : LabData.fromCsv(
              bytes[0],
              String(m.label),
              String(m.bounds || ''),
              m.ranges,
              m.read_off === true,
              Number(m.delta),
            );
      if (this.own && this.own !== this.data) this.own.free();
      this.own = fresh;
      if (this.key === 'own') this.key = ''; // reload on the next start
      this.loads += 1;
      return { type: 'own-data-loaded', facts: fresh.facts(), file };
    } catch (e) {
      if (trapped(e)) return null;
      const spent = file && Array.isArray(e?.spent) ? e.spent : [];
      return {
        type: 'own-data-rejected',
        message: String(e?.message || e),
        file,
        spent,
        ranges: e?.ranges ?? null,
      };
    }
  }
}
