// @ts-check
// The run on screen and the data set's facts, as objects with named fields (#54 §1) instead of
// main.js's loose state: what the training worker is training (or has trained) for the page,
// and the public facts of the data set the last run loaded, which the previews and the lessons
// wait for. page/session.js's handlers of the worker's messages fill them in; the charts, the
// exports, the pins and the lessons read them.

/**
 * A run to train and pin; `link`: a link's (kept queued when a control moves, Compare's not);
 * `pinned`: a pin as it was (Pins), put back as it is, not trained.
 * @typedef {{
 *   label: string, cfg: Record<string, any>, lessonStep?: boolean, link?: boolean,
 *   pinned?: object
 * }} QueuedPin
 */

export class Run {
  /**
   * @param {Record<string, any>} cfg the settings it trains with (Rust checks them in the worker)
   * @param {QueuedPin | null} pin the pin it becomes once done (a queued run), or null: the
   *   controls'
   * @param {number} generation its messages carry it; an older run's are dropped
   */
  constructor(cfg, pin, generation) {
    this.cfg = cfg;
    this.pin = pin;
    this.generation = generation;
    /** @type {any[]} its epoch reports, as they came */
    this.history = [];
    /** @type {any} its boundary chart's plane (a 2-D data set's), from 'started' */
    this.plane = null;
    /** @type {any} the public facts of its data set, from 'data' */
    this.facts = null;
    /** @type {{covered: string[], outside: string[]} | null} what ε covers, from 'started' */
    this.coverage = null;
    /** Whether the worker said 'done'. */
    this.done = false;
    /** @type {string | null} why it stopped ('error'), or null */
    this.failed = null;
  }
}

/** The public facts of the data set the last run loaded, and which data set that was. */
export class LoadedFacts {
  constructor() {
    /** @type {any} */
    this.facts = null;
    this.dataset = '';
  }

  /**
   * The facts of `cfg`'s data set, or null until a run has loaded that one.
   * @param {Record<string, any>} cfg its `dataset` is read
   */
  for(cfg) {
    return this.facts && this.dataset === cfg.dataset ? this.facts : null;
  }

  /**
   * Keeps `facts` as those of `dataset`; whether they are new (another set, or other facts).
   * @param {string} dataset
   * @param {any} facts
   */
  keep(dataset, facts) {
    const fresh = this.dataset !== dataset || JSON.stringify(this.facts) !== JSON.stringify(facts);
    this.facts = facts;
    this.dataset = dataset;
    return fresh;
  }
}
