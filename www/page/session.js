// @ts-check
// The page's run cycle, out of main.js (#54 §1): the run on screen (lab/run.js) and the runs
// queued to be pinned after it, started in the training worker one after another, and the
// worker's messages about them read into the run, the charts, the run log and the message box.
// Every run-scoped message carries the run's generation; an older run's are dropped. main.js
// makes one Session and hands it what it set up (the charts, the log, the pins, the previews).
import { draw_boundary } from '../pkg/dpsgd_lab.js';
import { accountingIdle } from '../lab/accounting.js';
import { auditing } from '../audit/audit.js';
import { renderCoverage } from '../views/coverage.js';
import {
  defaultWorkers,
  showPartsSummed,
  showWorkersUsed,
  timeCoresWhenQuiet,
  workerCount,
} from '../views/cores.js';
import { drawCanvasMessage, sizeCanvas } from '../views/drawing.js';
import { TO_WORKER } from '../core/protocol.js';
import { checkFromWorker } from '../core/message-checks.js';
import {
  addMessage,
  clearMessage,
  endProgress,
  setStatus,
  showMessage,
  showProgress,
} from '../core/messages.js';
import { pinIsTheRun } from '../lab/pins.js';
import { doneStatus, epochStatus } from '../views/status-text.js';
import { isPlaying, show as showPlay } from '../views/play-button.js';
import { settings } from '../lab/settings.js';
import { showSeedMode } from '../lab/seed-controls.js';
import { resized } from '../lab/lot-size.js';
import { earlierStepDone, refreshLesson } from '../lessons/lesson-player.js';
import { firstEpochShown, offlineCopyStored } from '../lab/update.js';
import { Run } from '../lab/run.js';

const $ = (/** @type {string} */ id) => /** @type {any} */ (document.getElementById(id));
/** @typedef {import('../core/protocol.js').FromTraining} FromTraining */
/** @template {FromTraining['type']} K @typedef {Extract<FromTraining, {type: K}>} Msg */
/** @typedef {{[K in FromTraining['type']]?: (m: Msg<K>) => void}} Handlers */
/** @typedef {import('../lab/run.js').QueuedPin} QueuedPin */

/**
 * What the run cycle is handed by main.js: the objects it set up, and the charts' functions.
 * @typedef {{
 *   worker: () => {post: (m: any) => void},
 *   loaded: import('../lab/run.js').LoadedFacts,
 *   log: import('../views/runlog.js').RunLog,
 *   ledger: import('../views/file-ledger.js').FileLedger,
 *   pins: import('../lab/pins.js').Pins,
 *   fmtEps: (v: number) => string,
 *   drawCharts: () => void,
 *   verdict: (share: any, nTest: any) => any,
 *   updatePreview: (cfg: any) => void,
 *   starting: (on: boolean) => void,
 *   showRunNotes: () => void,
 *   writeHash: (cfg: any) => void,
 *   ownData: {loaded: (facts: any, file: any) => boolean, rejected: (m: any) => string},
 *   earlierRuns: () => QueuedPin[] | null,
 * }} Wiring
 */

export class Session {
  /** @param {Wiring} w */
  constructor(w) {
    this.w = w;
    /** @type {Run | null} the run now training, or trained */
    this.run = null;
    this.generation = 0; // every run-scoped message carries it; older runs' messages are dropped
    /** @type {QueuedPin[]} runs to train and pin one after another */
    this.queue = [];
    this.norms = new Float32Array(0); // the latest lot's gradient norms; kept across restarts
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.debounce = undefined;
    this.restartPending = false; // a moved control's restart is due (scheduleRestart)
    this.wasmReady = false;
    this.workerReady = false;
    this.started = false;
    this.fromWorker = handlers({
      ready: () => {
        performance.mark('dpsgd:worker-ready');
        this.workerReady = true;
        this.startWhenReady();
      },
      'init-error': (m) => {
        showMessage(m.message);
        setStatus('The lab could not start.');
      },
      'own-data-loaded': (m) => this.ownDataLoaded(m.facts, m.file),
      'own-data-rejected': (m) => showMessage(w.ownData.rejected(m)),
    });
    this.fromRun = handlers({
      progress: (m) => showProgress(m, datasetName()),
      data: (m) => this.onData(m),
      resize: (m) => this.onResize(m),
      started: (m) => this.onStarted(m),
      workers: (m) => showWorkersUsed(m.workers),
      'helper-lost': (m) => showMessage(m.message),
      report: (m) => this.onReport(m),
      done: (m) => {
        showPartsSummed(m.parts);
        this.onDone();
        mark('dpsgd:run-done');
      },
      error: (m) => this.onRunError(m),
    });
  }

  /** The run's epoch reports so far (none before the first run). */
  history() {
    return this.run ? this.run.history : [];
  }

  /** Rust's sentence on why the run on screen learned nothing or diverged, or undefined. */
  verdictNow() {
    const d = this.run && this.w.loaded.for(this.run.cfg);
    return this.w.verdict(d?.majority_share, d?.n_test)?.say;
  }

  /** Pins a run (a queued one done, or the controls'), and puts the pins in the link. */
  pin(label, cfg, runHistory, lessonStep = false, link = false) {
    this.w.pins.add(label, cfg, runHistory, lessonStep, link);
    this.w.writeHash(settings.config());
  }

  /**
   * Trains Compare's `runs` one after another to pin them: a lesson's own when it pressed
   * Compare (`linked` not null), then the link's pins it had (`linked`), pinned again as they were
   * — as on the lecturer's screen, who pinned them after the step's Compare.
   * @param {QueuedPin[]} runs @param {object[] | null} linked
   */
  queueCompare(runs, linked) {
    this.queue = runs.map((r) => ({ ...r, lessonStep: linked !== null }));
    for (const p of linked ?? []) this.queue.push({ label: p.label, cfg: p.cfg, pinned: p });
    this.nextQueued();
  }

  // Trains the next queued run (to be pinned when done), or the controls' run when none is left:
  // the run just pinned, when it has the controls' settings (pins.js), stays as that run.
  nextQueued() {
    let item = this.queue.shift();
    // a pin trained already (a link's, put back after a lesson's Compare): pinned as it was
    for (; item?.pinned; item = this.queue.shift()) this.w.pins.restore([item.pinned]);
    if (!item && pinIsTheRun(this.run, settings.config())) return this.keepAsRun();
    this.restart(item);
    if (item) setStatus(`Training "${item.label}" to pin it (${this.queue.length} more queued)…`);
  }

  keepAsRun() {
    const run = /** @type {Run} */ (this.run);
    run.pin = null;
    if (run.facts) settings.setLotRange(run.facts.n_train);
    this.w.writeHash(run.cfg);
    this.ended();
  }

  /**
   * Starts a fresh run with the current controls (or a queued pin); the worker drops the old one.
   * @param {QueuedPin} [pin]
   */
  restart(pin) {
    clearTimeout(this.debounce);
    this.restartPending = false;
    const cfg = pin ? pin.cfg : settings.config();
    if (!pin) this.w.writeHash(cfg);
    if (!this.run || this.run.cfg.dataset !== cfg.dataset || cfg.report !== 'teaching')
      this.norms = new Float32Array(0);
    this.generation += 1;
    this.run = new Run(cfg, pin || null, this.generation);
    // Its previews' accounting waits for its first epoch (previews.js StartHold).
    this.w.starting(isPlaying());
    this.w.log.clear(this.generation, cfg);
    // not the last run's model
    drawCanvasMessage($('boundary-chart'), "This run's model is drawn after its first epoch");
    this.w.showRunNotes();
    this.w.updatePreview(cfg);
    this.w.drawCharts();
    const start = TO_WORKER.start(
      this.generation,
      cfg,
      isPlaying(),
      workerCount(),
      defaultWorkers(),
    );
    this.w.worker().post(start);
    showPlay(false);
    const problem = pin ? null : settings.seedProblem();
    if (problem) showMessage(`Seed: ${problem}.`);
    setStatus(
      isPlaying()
        ? `Training with σ = ${cfg.sigma}, C = ${cfg.clip}, L = ${cfg.lot_size}, η = ${cfg.lr}…`
        : 'Paused: press Play to train.',
    );
  }

  /** Starts the first run once both wasm and the worker are ready; a new worker re-runs. */
  startWhenReady() {
    if (!this.wasmReady || !this.workerReady) return;
    if (this.started) {
      this.restart(); // a restarted worker re-runs the last settings
      return;
    }
    this.started = true;
    this.nextQueued(); // pinned runs from a link, then the link's run
  }

  // `keep`: the message box keeps what it says (a file just loaded says what that means).
  scheduleRestart(keep = false) {
    // A moved control cancels queued comparisons (Compare's, of the settings then), not a
    // link's pins: the sharer's runs, each with its own settings (the one training: below).
    this.queue = this.queue.filter((r) => r.link);
    if (!keep) clearMessage();
    clearTimeout(this.debounce);
    this.restartPending = true;
    this.debounce = setTimeout(() => {
      this.restartPending = false;
      // A lesson step's pinned earlier run follows the move too, trained first, in place of
      // its old pin (lesson-player.js earlierRunsAfterMove; null: none, and no old pin either).
      const earlier = this.w.earlierRuns();
      if (earlier?.length !== 0) this.w.pins.dropLessonRuns();
      // a link's pin still training is trained again (done meanwhile, it was pinned)
      const cut = this.run?.pin?.link && !this.run.done ? [this.run.pin] : [];
      // (a link opened since keeps its runs)
      this.queue = [...(earlier ?? []), ...cut, ...this.queue];
      if (!this.queue.length) return this.restart();
      this.nextQueued();
    }, 150);
  }

  // A student's file is private data: the private release level, a hidden random seed.
  ownDataLoaded(own, file) {
    if (!this.w.ownData.loaded(own, file)) return; // the same file, given to a restarted worker
    this.w.loaded.keep('own', own);
    showSeedMode();
    this.scheduleRestart(true);
  }

  /**
   * The training worker's messages by type (protocol.js, type-checked): the worker's own, then
   * those of the run now training (an older run's are dropped).
   * @param {MessageEvent} ev
   */
  onWorkerMessage(ev) {
    const m = checkFromWorker(ev.data);
    if (!m) {
      showMessage(
        'The training worker sent a message the page does not understand; it was ignored.',
      );
      return;
    }
    const own = this.fromWorker.get(m.type);
    if (own) own(m);
    // else a cancelled run
    else if ('generation' in m && m.generation === this.generation && this.run)
      this.fromRun.get(m.type)?.(m);
  }

  /** @param {Msg<'report'>} m */
  onReport(m) {
    const run = /** @type {Run} */ (this.run);
    /** @type {any} */
    const r = m.report;
    run.history.push(r);
    if (run.history.length === 1) {
      mark('dpsgd:first-epoch');
      this.w.starting(false);
    }
    if (run.plane && m.boundary) {
      const { bounds, points } = run.plane;
      const size = sizeCanvas($('boundary-chart'));
      draw_boundary('boundary-chart', bounds, m.boundary.res, m.boundary.probs, points, size);
    }
    if (r.last_lot_norms && r.last_lot_norms.length)
      this.norms = Float32Array.from(r.last_lot_norms);
    this.w.log.append(r, r.stopped_by_budget);
    this.w.ledger.shown(this.generation, r.steps);
    this.w.drawCharts();
    const { line, aside } = epochStatus(r, this.w.fmtEps, this.verdictNow());
    setStatus(line, aside);
    this.w.showRunNotes();
    firstEpochShown();
  }

  onDone() {
    const run = /** @type {Run} */ (this.run);
    const r = run.history[run.history.length - 1];
    if (r?.divergence) {
      const why = run.pin
        ? `Pinned run "${run.pin.label}": ${r.divergence}`
        : r.divergence[0].toUpperCase() + r.divergence.slice(1);
      showMessage(`${why}.`);
    }
    run.done = true;
    this.w.starting(false);
    // once per tab
    timeCoresWhenQuiet(
      () => !!this.run?.done && !auditing() && accountingIdle(),
      offlineCopyStored(),
    );
    if (!run.pin) return this.ended();
    earlierStepDone(run);
    this.pin(run.pin.label, run.pin.cfg, run.history, !!run.pin.lessonStep, !!run.pin.link);
    if (this.restartPending) return; // a moved control's restart follows (scheduleRestart)
    this.nextQueued();
  }

  // The controls' run has ended: Play again, its last status, the lesson's sentences.
  ended() {
    const run = /** @type {Run} */ (this.run);
    showPlay(true);
    if (run.history.length) {
      const last = run.history.at(-1);
      const { line, aside } = doneStatus(
        last,
        run.history.length,
        this.w.fmtEps,
        this.verdictNow(),
      );
      setStatus(line, aside);
    }
    refreshLesson();
  }

  /** @param {Msg<'data'>} m */
  onData(m) {
    const run = /** @type {Run} */ (this.run);
    const fresh = this.w.loaded.keep(run.cfg.dataset, m.facts);
    run.facts = m.facts;
    if (fresh) {
      if (!run.pin) settings.setLotRange(m.facts.n_train);
      this.w.updatePreview(run.cfg);
      this.w.drawCharts();
    }
  }

  /** @param {Msg<'resize'>} m — the lot is larger than the data: changed, and said (lot-size.js) */
  onResize(m) {
    const run = /** @type {Run} */ (this.run);
    const facts = { ...run.facts, n_train: m.n_train };
    const { lot, said } = resized(run.cfg, facts, run.pin, this.w.fmtEps);
    if (run.pin)
      this.restart({ ...run.pin, cfg: { ...run.pin.cfg, lot_size: lot } }); // the settings stay
    else {
      settings.setLotRange(m.n_train, lot);
      this.restart();
    }
    // Added: a link's pins, or its parts the lab cannot use, may have said more already (a
    // moved control cleared the box before its run started).
    addMessage(said);
  }

  /** @param {Msg<'started'>} m */
  onStarted(m) {
    mark('dpsgd:run-started');
    const run = /** @type {Run} */ (this.run);
    run.plane = m.plane;
    endProgress();
    showWorkersUsed(m.workers);
    $('boundary-figure').hidden = !m.plane;
    $('boundary-badge').hidden = !m.plane?.not_private;
    $('boundary-badge').title = m.plane?.not_private || '';
    renderCoverage((run.coverage = m.coverage)); // the export repeats its `outside` list
    if (run.cfg.dataset === 'own' && run.facts)
      this.w.ledger.started(this.generation, run.cfg, run.facts);
  }

  /** @param {Msg<'error'>} m */
  onRunError(m) {
    const run = /** @type {Run} */ (this.run);
    run.failed = m.message;
    this.w.starting(false);
    this.w.drawCharts(); // the ε chart says it stopped, not "computing" (charts.js)
    if (run.pin) {
      showMessage(`Pinned run "${run.pin.label}" cannot run: ${m.message}. It was skipped.`);
      this.nextQueued();
    } else {
      showMessage(m.message);
      setStatus('Stopped.');
    }
  }
}

const handlers = (/** @type {Handlers} */ h) =>
  /** @type {Map<string, (m: FromTraining) => void>} */ (new Map(Object.entries(h)));

// The data set's name in the progress line: its choice's words, without the parenthesis.
const datasetName = () =>
  $('dataset').selectedOptions[0]?.textContent.replace(/\s*\(.*$/, '') || 'the data';

// The run's start, first epoch and end on the page's timeline (`scripts/bench-engines.mjs` reads
// them in every engine the same way); only the last of each is kept.
/** @param {string} name */
function mark(name) {
  performance.clearMarks(name);
  performance.mark(name);
}
