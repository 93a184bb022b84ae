// @ts-check
// DP-SGD Lab page: wiring only. The settings live in settings.js, the messages in protocol.js;
// training runs in a module worker, the slow privacy computations in accounting workers, and
// every privacy quantity comes from Rust. Data flows one way:
// settings -> config -> worker -> reports -> history -> charts, run log and coverage.
import init, {
  accountants, check_run_config, draw_boundary, format_epsilon, matrix_kernel,
  opacus_accountants, run_defaults, suggested_settings,
} from './pkg/dpsgd_lab.js';
import { Accounting, accountingIdle } from './lab/accounting.js';
import { Previews } from './lab/previews.js';
import { auditing, auditOf, draw as drawAudit, earlierAuditOf, fixAuditSeed, setUpAudit, trainingCap } from './audit/audit.js';
import { aliceOf, draw as drawAlice, setUpAlice } from './audit/alice.js';
import { renderCoverage } from './views/coverage.js';
import { FileLedger } from './views/file-ledger.js';
import { checkWorkers, defaultWorkers, setUpWorkers, showPartsSummed, showWorkersUsed, timeCoresWhenQuiet, workerCount } from './views/cores.js';
import { setUpCharts } from './views/charts.js';
import { drawCanvasMessage, sizeCanvas } from './views/drawing.js';
import { startTrainingWorker } from './lab/training-worker.js';
import { pageModule } from './core/wasm-module.js';
import { setUpOwnData } from './lab/own-data.js';
import { TO_WORKER, checkFromWorker } from './core/protocol.js';
import { addMessage, clearMessage, endProgress, setStatus, showMessage, showNotes, showProgress } from './core/messages.js';
import { Pins, pinIsTheRun, setUpPinButtons } from './lab/pins.js';
import { readLink, stepThenLinkRuns, writeLink } from './lab/link.js';
import { RunLog } from './views/runlog.js';
import { setUpExport } from './share/export.js';
import { setUpShare } from './share/share.js';
import { setUpCalibrate } from './lab/calibrate.js';
import { doneStatus, engineText, epochStatus, epsilonChartLabel } from './views/status-text.js';
import { isPlaying, setUpPlayButton, show as showPlay } from './views/play-button.js';
import { settings, showSeedMode } from './lab/settings.js';
import { resized } from './lab/lot-size.js';
import { applyTeacherMode, fitPresenter } from './lessons/teacher.js';
import { earlierStepDone, enterStep, lessonPressing, refreshLesson, setUpLessonPlayer } from './lessons/lesson-player.js';
import { firstEpochShown, offlineCopyStored, setUpUpdates } from './lab/update.js';
import { LoadedFacts, Run } from './lab/run.js';

const $ = (/** @type {string} */ id) => /** @type {any} */ (document.getElementById(id));
/** @typedef {import('./core/protocol.js').FromTraining} FromTraining */
/** @template {FromTraining['type']} K @typedef {Extract<FromTraining, {type: K}>} Msg */

let wasmReady = false;
let workerReady = false;
const loaded = new LoadedFacts(); // the data set's facts the last run loaded: previews wait for theirs
let generation = 0;    // every run-scoped message carries it; older runs' messages are dropped
/** @type {Run | null} */
let run = null;        // the run now training (lab/run.js)
let debounce = null;
let lastNorms = new Float32Array(0); // the latest lot's gradient norms; kept across restarts
const pins = new Pins(() => showRunNotes());
let runQueue = [];     // { label, cfg } runs to train and pin one after another
let teacherParams = new URLSearchParams();

const fmtEps = (v) => (wasmReady ? format_epsilon(v) : '…');

const log = new RunLog(fmtEps);
const accounting = new Accounting(showMessage);
const previews = new Previews(accounting, showMessage); // of the run being drawn
const ledger = new FileLedger(accounting, fmtEps); // all runs on a student's file, composed
let worker = null;

const writeHash = (cfg) => writeLink(cfg, teacherParams, pins.shared());

const history = () => (run ? run.history : []);
// The run's config from the settings now (a lot above N is the worker's to find: 'resize').
const current = () => settings.config();
// Rust's caveats on the numbers shown: the run's (its latest report's), then the pins'.
const showRunNotes = () => showNotes([...(history().at(-1)?.notes ?? []), ...pins.notes()]);
// The facts of `cfg`'s data set, or null until a run has loaded that one.
const factsFor = (cfg) => loaded.for(cfg);
// Rust's sentence on why the run on screen learned nothing or diverged, or undefined.
const verdictNow = () => ((d) => verdict(d?.majority_share, d?.n_test)?.say)(run && factsFor(run.cfg));

// What the charts draw, read when they draw (charts.js).
const { drawCharts, drawHistogram, drawSigmaChart, verdict, privacyCostPoints, groupsNow } = setUpCharts({
  ready: () => wasmReady,
  history,
  run: () => run,
  // The config of the run being drawn (the settings', before the first run starts).
  config: () => (run ? run.cfg : settings.config()),
  pinned: () => pins.drawn(),
  pinsVersion: () => pins.version,
  // The majority class's share of the run's (public) test set, or null (private data).
  testSet: () => (run ? factsFor(run.cfg) : null), // its majority share and size (the accuracy chart)
  teaching: () => (run ? run.cfg.report : settings.get('report')) === 'teaching',
  preview: () => previews.epsilon,
  pldCurve: () => previews.pld.curve,
  norms: () => lastNorms,
  sigmaPanel: previews.sigmaPanel,
  drawn: () => (refreshLesson(), fitPresenter() && drawCharts()), // a chart's least height: teacher.js
});

// The run's previews (previews.js), once wasm and the facts of its data set are there.
const updatePreview = (cfg) => previews.update(cfg, wasmReady ? factsFor(cfg) : null, settings.get('budget_epsilon') ?? '', {
  redraw: drawCharts, redrawSigma: drawSigmaChart, label: (last) => epsilonChartLabel(last, fmtEps, log.accountants),
});

function pinRun(label, cfg, runHistory, lessonStep = false) {
  pins.add(label, cfg, runHistory, lessonStep);
  writeHash(current());
}

// Trains the next queued run (to be pinned when done), or the controls' run when none is left:
// the run just pinned, when it has the controls' settings (pins.js), stays as that run.
function nextQueued() {
  const item = runQueue.shift();
  if (!item && pinIsTheRun(run, current())) return keepAsRun();
  restart(item);
  if (item) setStatus(`Training "${item.label}" to pin it (${runQueue.length} more queued)…`);
}
function keepAsRun() {
  run.pin = null;
  if (run.facts) settings.setLotRange(run.facts.n_train);
  writeHash(run.cfg);
  ended();
}

// Starts a fresh run with the current controls (or a queued pin); the worker drops the old one.
function restart(pin) {
  clearTimeout(debounce);
  const cfg = pin ? pin.cfg : current();
  if (!pin) writeHash(cfg);
  if (!run || run.cfg.dataset !== cfg.dataset || cfg.report !== 'teaching') lastNorms = new Float32Array(0);
  generation += 1;
  run = new Run(cfg, pin || null, generation);
  log.clear(generation);
  drawCanvasMessage($('boundary-chart'), 'This run\'s model is drawn after its first epoch'); // not the last run's
  showRunNotes();
  updatePreview(cfg);
  drawCharts();
  worker.post(TO_WORKER.start(generation, cfg, isPlaying(), workerCount(), defaultWorkers()));
  showPlay(false);
  const problem = pin ? null : settings.seedProblem();
  if (problem) showMessage(`Seed: ${problem}.`);
  setStatus(isPlaying() ? `Training with σ = ${cfg.sigma}, C = ${cfg.clip}, L = ${cfg.lot_size}, η = ${cfg.lr}…` : 'Paused: press Play to train.');
}

/** @param {Msg<'report'>} m */
function onReport(m) {
  /** @type {any} */
  const r = m.report;
  run.history.push(r);
  if (run.plane && m.boundary) {
    draw_boundary('boundary-chart', run.plane.bounds, m.boundary.res, m.boundary.probs, run.plane.points, sizeCanvas($('boundary-chart')));
  }
  if (r.last_lot_norms && r.last_lot_norms.length) lastNorms = Float32Array.from(r.last_lot_norms);
  log.append(r, r.stopped_by_budget);
  ledger.shown(generation, r.steps);
  drawCharts();
  setStatus(epochStatus(r, fmtEps, verdictNow()));
  showRunNotes();
  firstEpochShown();
}

function onDone() {
  const r = run.history[run.history.length - 1];
  if (r?.divergence) {
    const why = run.pin ? `Pinned run "${run.pin.label}": ${r.divergence}` : r.divergence[0].toUpperCase() + r.divergence.slice(1);
    showMessage(`${why}.`);
  }
  run.done = true;
  timeCoresWhenQuiet(() => run.done && !auditing() && accountingIdle(), offlineCopyStored()); // once per tab
  if (!run.pin) return ended();
  earlierStepDone(run);
  pinRun(run.pin.label, run.pin.cfg, run.history, !!run.pin.lessonStep);
  nextQueued();
}
// The controls' run has ended: Play again, its last status, the lesson's sentences.
function ended() {
  showPlay(true);
  if (run.history.length) setStatus(doneStatus(run.history.at(-1), run.history.length, fmtEps, verdictNow()));
  refreshLesson();
}

/** @param {Msg<'data'>} m */
function onData(m) {
  const fresh = loaded.keep(run.cfg.dataset, m.facts);
  run.facts = m.facts;
  if (fresh) {
    if (!run.pin) settings.setLotRange(m.facts.n_train);
    updatePreview(run.cfg);
    drawCharts();
  }
}

/** @param {Msg<'resize'>} m — the lot is larger than the data: changed, and said (lot-size.js) */
function onResize(m) {
  const { lot, said } = resized(run.cfg, { ...run.facts, n_train: m.n_train }, run.pin, fmtEps);
  if (run.pin) restart({ ...run.pin, cfg: { ...run.pin.cfg, lot_size: lot } }); // the settings stay
  else {
    settings.setLotRange(m.n_train, lot);
    restart();
  }
  (run.pin ? addMessage : showMessage)(said); // a link's pins may have said more already
}

/** @param {Msg<'started'>} m */
function onStarted(m) {
  run.plane = m.plane;
  endProgress();
  showWorkersUsed(m.workers);
  $('boundary-figure').hidden = !m.plane;
  $('boundary-badge').hidden = !m.plane?.not_private;
  $('boundary-badge').title = m.plane?.not_private || '';
  renderCoverage((run.coverage = m.coverage)); // the export repeats its `outside` list
  if (run.cfg.dataset === 'own' && run.facts) ledger.started(generation, run.cfg, run.facts);
}

/** @param {Msg<'error'>} m */
function onRunError(m) {
  run.failed = m.message; drawCharts(); // the ε chart says it stopped, not "computing" (charts.js)
  if (run.pin) {
    showMessage(`Pinned run "${run.pin.label}" cannot run: ${m.message}. It was skipped.`);
    nextQueued();
  } else {
    showMessage(m.message);
    setStatus('Stopped.');
  }
}

// The training worker's messages by type (protocol.js, type-checked): the worker's own, then
// those of the run now training (an older run's are dropped).
/** @typedef {{[K in FromTraining['type']]?: (m: Msg<K>) => void}} Handlers */
const handlers = (/** @type {Handlers} */ h) => /** @type {Map<string, (m: FromTraining) => void>} */ (new Map(Object.entries(h)));
const FROM_WORKER = handlers({
  ready: () => { workerReady = true; startWhenReady(); },
  'init-error': (m) => { showMessage(m.message); setStatus('The lab could not start.'); },
  'own-data-loaded': (m) => ownDataLoaded(m.facts, m.file),
  'own-data-rejected': (m) => showMessage(ownFiles.rejected(m)),
});
const FROM_RUN = handlers({
  progress: (m) => showProgress(m, $('dataset').selectedOptions[0]?.textContent.replace(/\s*\(.*$/, '') || 'the data'),
  data: onData,
  resize: onResize,
  started: onStarted,
  workers: (m) => showWorkersUsed(m.workers),
  'helper-lost': (m) => showMessage(m.message),
  report: onReport,
  done: (m) => { showPartsSummed(m.parts); onDone(); },
  error: onRunError,
});

function onWorkerMessage(ev) {
  const m = checkFromWorker(ev.data);
  if (!m) {
    showMessage('The training worker sent a message the page does not understand; it was ignored.');
    return;
  }
  const own = FROM_WORKER.get(m.type);
  if (own) own(m);
  else if ('generation' in m && m.generation === generation && run) FROM_RUN.get(m.type)?.(m); // else a cancelled run
}

// The end-to-end tests' hooks (window.labTest), loaded only where a test asks for them
// (window.labTestWanted, set before the page's scripts run): the production page has none.
if (/** @type {any} */ (window).labTestWanted === true) {
  import('./testing/test-hooks.js').then((m) => m.installTestHooks({ training: () => worker, accounting, reports: () => run?.history ?? [], fixAuditSeed, privacyCostPoints, pins }));
}

let started = false;
function startWhenReady() {
  if (!wasmReady || !workerReady) return;
  if (started) {
    restart(); // a restarted worker re-runs the last settings
    return;
  }
  started = true;
  nextQueued(); // pinned runs from a link, then the link's run
}

// `keep`: the message box keeps what it says (a file just loaded says what that means).
function scheduleRestart(keep = false) {
  runQueue = []; // a moved control cancels queued comparisons
  if (!keep) clearMessage();
  clearTimeout(debounce);
  debounce = setTimeout(restart, 150);
}

// A student's file is private data: the private release level, a hidden random seed.
function ownDataLoaded(own, file) {
  if (!ownFiles.loaded(own, file)) return; // the same file, given to a restarted worker
  loaded.keep('own', own);
  showSeedMode();
  scheduleRestart(true);
}

// What the page does when a person changes a setting (settings.js's one input handler): the
// run restarts, unless the setting says otherwise here.
const ON_INPUT = new Map([
  ['clip', () => { drawHistogram(); scheduleRestart(); }], // the C line moves at once
  ['dataset', () => { showSeedMode(); scheduleRestart(); }],
  ['fixed_seed', () => {
    showSeedMode();
    scheduleRestart();
    if (settings.get('fixed_seed')) showMessage('With a fixed seed the noise can be reproduced — and subtracted — by anyone who knows it: this run is not private.');
  }],
  ['budget_epsilon', budgetInput],
  ['budget_accountant', budgetInput],
  ['workers', () => { if (checkWorkers()) restart(); }],
  ['audit_runs', () => {}], // read when an audit starts
]);
function budgetInput() { // a new target redraws the σ panel; a new budget restarts a run held to it
  return settings.get('until_budget') ? scheduleRestart() : updatePreview(current());
}
settings.onInput((key) => (ON_INPUT.get(key) ?? (() => scheduleRestart()))());
$('log-log').addEventListener('change', drawCharts);

setUpCalibrate({
  accounting, fmtEps, restart: scheduleRestart,
  current: () => ((cfg) => ({ cfg, facts: factsFor(cfg) }))(current()),
});
setUpExport(() => run, () => ledger.text, accounting);
setUpShare();
setUpAudit(current, () => settings.ownData(), factsFor, () => worker.post(trainingCap()), refreshLesson);
setUpAlice({ readConfig: current, ownData: () => settings.ownData(), facts: factsFor, plane: () => run?.plane, drawn: refreshLesson });
// What a lesson reads of the run on screen (lesson-player.js); it quotes these numbers.
const lessonSources = (cfg = run?.cfg ?? current(), data = factsFor(cfg)) => ({
  cfg, history: history(), done: !!run?.done, data, preview: previews.epsilon, pld: previews.pld.curve,
  cost: privacyCostPoints(), groups: groupsNow(), audit: auditOf(cfg), earlierAudit: earlierAuditOf(cfg), alice: aliceOf(cfg), auditRuns: settings.get('audit_runs'), learnedNothing: verdict(data?.majority_share, data?.n_test)?.kind === 'nothing-learned',
});
setUpLessonPlayer({
  run: () => run, done: () => !!run?.done, ready: () => wasmReady && !!run && !!factsFor(run.cfg), fmtEps,
  accountants: () => log.accountants.map((a) => a.name), // Rust's accountants(), once wasm has loaded
  pin: (label, cfg, history) => pinRun(label, cfg, history, true), press: (id) => $(id).click(), sources: lessonSources,
  factsOfConfig: (cfg) => (factsFor(cfg) ? { ...lessonSources(cfg), history: [], done: true, preview: previews.of(cfg, factsFor(cfg)), pld: null } : null),
});
setUpWorkers();
setUpPlayButton((playing) => {
  worker.post(playing ? TO_WORKER.resume(generation) : TO_WORKER.pause(generation));
  setStatus(playing ? 'Training…' : 'Paused.');
});
$('reset').addEventListener('click', () => restart());
setUpPinButtons(pins, {
  current, history, pinRun,
  changed: () => { writeHash(current()); drawCharts(); },
  queue: (runs) => { runQueue = runs.map((r) => ({ ...r, lessonStep: lessonPressing() })); nextQueued(); }, // a step's Compare: the lesson's own
  ownData: () => settings.ownData(),
});
window.addEventListener('resize', () => { fitPresenter(); drawCharts(); drawAudit(); drawAlice(); });

// A student's own data: read the file(s) here, parse them in the worker (wasm).
const ownFiles = setUpOwnData(() => worker, showMessage, ledger, fmtEps);

setUpUpdates(); // offline after the first visit, one version at a time (sw.js)

// The link's settings (and teacher mode) once Rust's defaults are on the controls.
function readHash(hash = location.hash) {
  const link = readLink(hash, check_run_config, applyTeacherMode);
  teacherParams = link.teacherParams;
  runQueue = stepThenLinkRuns(enterStep(link.step, (part) => settings.configWith(part)), link.queue, check_run_config);
  if (link.problems.length) showMessage(`The link has settings the lab cannot use (the defaults are kept for those): ${link.problems.join('; ')}.`);
}

// A link pasted into (or edited in) the address bar of an open lab replaces its settings and
// pins, as a fresh load would: the link the event opened, even if the page rewrote its address
// since (writeLink as a compared run came in, before the event's turn: the link was lost).
window.addEventListener('hashchange', (e) => {
  if (!wasmReady) return; // read once the lab has loaded
  settings.reset(run_defaults());
  clearMessage();
  pins.clear();
  readHash(new URL(e.newURL).hash);
  showSeedMode();
  fitPresenter();
  nextQueued();
});

worker = startTrainingWorker({ onMessage: onWorkerMessage, lost: () => { workerReady = false; }, resend: () => ownFiles.resend(), cap: trainingCap });
pageModule().then((module) => init({ module_or_path: module })).then(() => {
  const listed = accountants();
  $('budget-accountant').replaceChildren(...listed.map((a) => new Option(a.choice, a.name)));
  $('opacus-accountant').replaceChildren(...opacus_accountants().map((a) => new Option(a.label, a.name)));
  settings.start(run_defaults(), suggested_settings());
  log.setAccountants(listed);
  $('engine').textContent = engineText(matrix_kernel());
  readHash();
  showSeedMode();
  wasmReady = true;
  fitPresenter();
  startWhenReady();
  setTimeout(drawCharts, 0); // the first drawing in a task of its own
}).catch((e) => {
  showMessage(`Could not load the lab's WebAssembly: ${e.message || e}`);
  setStatus('The lab could not start.');
});
