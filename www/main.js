// @ts-check
// DP-SGD Lab page: wiring only. The settings live in settings.js, the messages in protocol.js;
// training runs in a module worker, the slow privacy computations in accounting workers, and
// every privacy quantity comes from Rust. Data flows one way:
// settings -> config -> worker -> reports -> history -> charts, run log and coverage.
import init, {
  accountant_labels,
  accountants,
  check_run_config,
  format_epsilon,
  matrix_kernel,
  opacus_accountants,
  pin_caveats,
  pin_label,
  run_defaults,
  suggested_settings,
} from './pkg/dpsgd_lab.js';
import { Accounting } from './lab/accounting.js';
import { Previews } from './lab/previews.js';
import {
  auditOf,
  draw as drawAudit,
  earlierAuditOf,
  fixAuditSeed,
  setUpAudit,
  trainingCap,
} from './audit/audit.js';
import { aliceOf, draw as drawAlice, setUpAlice } from './audit/alice.js';
import { FileLedger } from './views/file-ledger.js';
import { checkWorkers, setUpWorkers } from './views/cores.js';
import { setUpCharts } from './views/charts.js';
import { startTrainingWorker } from './lab/training-worker.js';
import { pageModule } from './core/wasm-module.js';
import { setUpOwnData } from './lab/own-data.js';
import { TO_WORKER } from './core/protocol.js';
import { clearMessage, setStatus, showMessage, showNotes } from './core/messages.js';
import { Pins, setUpPinButtons } from './lab/pins.js';
import { readLink, stepThenLinkRuns, writeLink } from './lab/link.js';
import { RunLog } from './views/runlog.js';
import { setUpExport } from './share/export.js';
import { setUpShare } from './share/share.js';
import { setUpCalibrate } from './lab/calibrate.js';
import { engineText, epsilonChartLabel } from './views/status-text.js';
import { setUpPlayButton } from './views/play-button.js';
import { settings } from './lab/settings.js';
import { showSeedMode } from './lab/seed-controls.js';
import { applyTeacherMode, fitPresenter, TEACHER_KEYS } from './lessons/teacher.js';
import {
  earlierRunsAfterMove,
  enterStep,
  lessonPressing,
  refreshLesson,
  setUpLessonPlayer,
} from './lessons/lesson-player.js';
import { setUpUpdates } from './lab/update.js';
import { LoadedFacts } from './lab/run.js';
import { Session } from './page/session.js';

const $ = (/** @type {string} */ id) => /** @type {any} */ (document.getElementById(id));
// The page's start-up on its timeline, stage by stage (the e2e tests print them for a page that
// never became ready): this module run, the wasm's response, its compilation, Rust ready, the
// training worker ready (session.js).
performance.mark('dpsgd:page-started');

// the data set's facts the last run loaded: previews wait for theirs
const loaded = new LoadedFacts();
const pins = new Pins(
  () => showRunNotes(),
  (cfg) => pin_caveats(cfg),
  (cfg, others) => pin_label(cfg, others),
);
let teacherParams = new URLSearchParams();

const fmtEps = (v) => (session.wasmReady ? format_epsilon(v) : '…');

// The accountants' names in a run's convention (Rust's), starred where no bound, and why.
const labelsOf = (cfg) => accountant_labels(String(cfg.amplification));
const log = new RunLog(fmtEps, labelsOf);
const accounting = new Accounting(showMessage);
const previews = new Previews(accounting, showMessage); // of the run being drawn
const ledger = new FileLedger(accounting, fmtEps); // all runs on a student's file, composed
// A student's own data: read the file(s) here, parse them in the worker (wasm).
const ownFiles = setUpOwnData(() => worker, showMessage, ledger, fmtEps);

const writeHash = (cfg) =>
  writeLink(
    cfg,
    [...teacherParams, ...settings.pageParams(teacherParams.has('lesson'))],
    pins.shared(),
    settings.defaults,
    check_run_config,
  );

// The run cycle (page/session.js): the run on screen, the queue, the worker's messages.
const session = new Session({
  worker: () => worker,
  loaded,
  log,
  ledger,
  pins,
  fmtEps,
  drawCharts: () => drawCharts(),
  verdict: (share, nTest) => verdict(share, nTest),
  updatePreview: (cfg) => updatePreview(cfg),
  starting: (on) => previews.starting(on),
  showRunNotes: () => showRunNotes(),
  writeHash: (cfg) => writeHash(cfg),
  ownData: ownFiles,
  earlierRuns: () => earlierRunsAfterMove((part) => settings.configWith(part)),
});
const history = () => session.history();
const run = () => session.run;
const restart = () => session.restart();
const scheduleRestart = (keep = false) => session.scheduleRestart(keep);
// The run's config from the settings now (a lot above N is the worker's to find: 'resize').
const current = () => settings.config();
// Rust's caveats on the numbers shown: the run's (its latest report's), then the pins'.
const showRunNotes = () => showNotes([...(history().at(-1)?.notes ?? []), ...pins.notes()]);
// The facts of `cfg`'s data set, or null until a run has loaded that one.
const factsFor = (cfg) => loaded.for(cfg);

// What the charts draw, read when they draw (charts.js).
const {
  drawCharts,
  drawHistogram,
  drawSigmaChart,
  verdict,
  learned,
  holdingBack,
  privacyCostPoints,
  groupsNow,
} = setUpCharts({
  ready: () => session.wasmReady,
  history,
  run,
  // The config of the run being drawn (the settings', before the first run starts).
  config: () => run()?.cfg ?? settings.config(),
  pinned: () => pins.drawn(),
  pinsVersion: () => pins.version,
  // The majority class's share of the run's (public) test set, or null (private data).
  // its majority share and size (the accuracy chart)
  testSet: () => (run() ? factsFor(run().cfg) : null),
  teaching: () => (run()?.cfg.report ?? settings.get('report')) === 'teaching',
  preview: () => previews.epsilon,
  pldCurve: () => previews.pld.curve,
  norms: () => session.norms,
  sigmaPanel: previews.sigmaPanel,
  // a chart's least height: teacher.js
  drawn: () => (refreshLesson(), fitPresenter() && drawCharts()),
});

// The run's previews (previews.js), once wasm and the facts of its data set are there.
const updatePreview = (cfg) =>
  previews.update(
    cfg,
    session.wasmReady ? factsFor(cfg) : null,
    settings.get('budget_epsilon') ?? '',
    {
      redraw: drawCharts,
      redrawSigma: drawSigmaChart,
      label: (last, c) => epsilonChartLabel(last, fmtEps, labelsOf(c), c.budget_epsilon, c.delta),
    },
  );

// The end-to-end tests' hooks (window.labTest), loaded only where a test asks for them
// (window.labTestWanted, set before the page's scripts run): the production page has none.
if (/** @type {any} */ (window).labTestWanted === true) {
  import('./testing/test-hooks.js').then((m) =>
    m.installTestHooks({
      training: () => worker,
      accounting,
      reports: () => run()?.history ?? [],
      fixAuditSeed,
      privacyCostPoints,
      pins,
    }),
  );
}

// What the page does when a person changes a setting (settings.js's one input handler): the
// run restarts, unless the setting says otherwise here.
const ON_INPUT = new Map([
  [
    'clip',
    () => {
      drawHistogram();
      scheduleRestart();
    },
  ], // the C line moves at once
  [
    'dataset',
    () => {
      showSeedMode();
      scheduleRestart();
    },
  ],
  [
    'fixed_seed',
    () => {
      showSeedMode();
      // What a fixed seed on private data costs is Rust's to say: the run's note (train/
      // epoch.rs) and "What ε covers" (train/coverage.rs) name it for the run it trains.
      scheduleRestart();
    },
  ],
  ['budget_epsilon', budgetInput],
  ['budget_accountant', budgetInput],
  [
    'workers',
    () => {
      if (checkWorkers()) restart();
    },
  ],
  // read when an audit starts; in the link (a lecturer's count reaches the class's audits)
  ['audit_runs', () => writeHash(run()?.cfg ?? current())],
]);
function budgetInput() {
  // a new target redraws the σ panel of the run on screen (a queued run's own settings, not the
  // sliders') and is in the link (`target`); a new budget restarts a run held to it
  if (settings.get('until_budget')) return scheduleRestart();
  const shown = run()?.cfg ?? current();
  updatePreview(shown);
  writeHash(shown);
}
settings.onInput((key) => (ON_INPUT.get(key) ?? (() => scheduleRestart()))());
$('log-log').addEventListener('change', drawCharts);

setUpCalibrate({
  accounting,
  fmtEps,
  restart: scheduleRestart,
  current: () => ((cfg) => ({ cfg, facts: factsFor(cfg) }))(current()),
});
setUpExport(run, () => ledger.text, accounting);
setUpShare();
// An audit's or Alice's charts drawn: the lesson reads them, and the presenter gives each the
// height its layout asks for (the ε bars their rows'; all drawn again at it, as after a resize).
const panelDrawn = () => {
  refreshLesson();
  if (fitPresenter()) window.dispatchEvent(new Event('resize'));
};
setUpAudit(
  current,
  () => settings.ownData(),
  factsFor,
  () => worker.post(trainingCap()),
  panelDrawn,
);
setUpAlice({
  readConfig: current,
  ownData: () => settings.ownData(),
  facts: factsFor,
  plane: () => run()?.plane,
  drawn: panelDrawn,
});
// What a lesson reads of the run on screen (lesson-player.js); it quotes these numbers.
const negated = (/** @type {boolean | undefined} */ b) => (b === undefined ? undefined : !b);
const lessonSources = (cfg = run()?.cfg ?? current(), data = factsFor(cfg)) => ({
  cfg,
  history: history(),
  done: !!run()?.done,
  data,
  preview: previews.epsilon,
  pld: previews.pld.curve,
  cost: privacyCostPoints(),
  groups: groupsNow(),
  audit: auditOf(cfg),
  earlierAudit: earlierAuditOf(cfg),
  alice: aliceOf(cfg),
  auditRuns: settings.get('audit_runs'),
  // Rust's: false once the accuracy shows learning, true when it learned nothing, else unknown.
  learnedNothing: negated(learned(data?.majority_share, data?.n_test)),
  // Rust's: what holds the run on screen back (the status's hint), of that run only
  holdingBack: cfg === run()?.cfg ? holdingBack() : undefined,
  open: cfg === run()?.cfg ? run()?.coverage?.open : undefined, // Rust's: why ε = ∞, when so
});
setUpLessonPlayer({
  run,
  done: () => !!run()?.done,
  ready: () => session.wasmReady && !!run() && !!factsFor(run().cfg),
  fmtEps,
  // Rust's accountants(), once wasm has loaded
  accountants: () => log.accountants.map((a) => a.name),
  pin: (label, cfg, history) => session.pin(label, cfg, history, true),
  press: (id) => $(id).click(),
  sources: lessonSources,
  factsOfConfig: (cfg) =>
    factsFor(cfg)
      ? {
          ...lessonSources(cfg),
          history: [],
          done: true,
          preview: previews.of(cfg, factsFor(cfg)),
          pld: null,
        }
      : null,
});
setUpWorkers();
setUpPlayButton((playing) => {
  const { generation } = session;
  worker.post(playing ? TO_WORKER.resume(generation) : TO_WORKER.pause(generation));
  setStatus(playing ? 'Training…' : 'Paused.');
});
$('reset').addEventListener('click', () => restart());
setUpPinButtons(pins, {
  current,
  shown: () => run()?.cfg ?? current(),
  history,
  pinRun: (label, cfg, runHistory) => session.pin(label, cfg, runHistory),
  changed: () => {
    writeHash(current());
    drawCharts();
  },
  // a step's Compare: the lesson's own; a link's pins stay, after it
  queue: (runs, linked) => session.queueCompare(runs, lessonPressing() ? linked : null),
  ownData: () => settings.ownData(),
});
window.addEventListener('resize', () => {
  fitPresenter();
  drawCharts();
  drawAudit();
  drawAlice();
});

setUpUpdates(); // offline after the first visit, one version at a time (sw.js)

// The link's settings (and teacher mode) once Rust's defaults are on the controls.
function readHash(hash = location.hash) {
  const link = readLink(hash, check_run_config, applyTeacherMode, TEACHER_KEYS);
  teacherParams = link.teacherParams;
  session.queue = stepThenLinkRuns(
    enterStep(link.step, (part) => settings.configWith(part)),
    link.queue,
    check_run_config,
  );
  // A setting skipped keeps what the page had before the link's own: the lesson step's value
  // where the link opens a step, else the default.
  const kept = link.step ? "the lesson's value or the default" : 'the default';
  if (link.problems.length)
    showMessage(
      `The link has parts the lab cannot use as written (a setting skipped keeps ${kept}): ` +
        `${link.problems.join('; ')}.`,
    );
}

// A link pasted into (or edited in) the address bar of an open lab replaces its settings and
// pins, as a fresh load would: the link the event opened, even if the page rewrote its address
// since (writeLink as a compared run came in, before the event's turn: the link was lost).
window.addEventListener('hashchange', (e) => {
  if (!session.wasmReady) return; // read once the lab has loaded
  settings.reset(run_defaults());
  clearMessage();
  pins.clear();
  readHash(new URL(e.newURL).hash);
  // The lot slider's end back to N where the link's data set is loaded already (reset gave it
  // the page's own end, to read the link's lot against): its new data set's load sets it else.
  const facts = factsFor(settings.config());
  if (facts) settings.setLotRange(facts.n_train);
  showSeedMode();
  fitPresenter();
  // Before the training worker is ready its first run starts when it is (startWhenReady):
  // started here too, that run was replaced and never pinned.
  if (session.started) session.nextQueued();
});

const worker = startTrainingWorker({
  onMessage: (ev) => session.onWorkerMessage(ev),
  lost: () => {
    session.workerReady = false;
  },
  resend: () => ownFiles.resend(),
  cap: trainingCap,
});
pageModule()
  .then((module) => {
    performance.mark('dpsgd:wasm-compiled');
    return init({ module_or_path: module });
  })
  .then(() => {
    performance.mark('dpsgd:wasm-ready');
    const listed = accountants();
    $('budget-accountant').replaceChildren(...listed.map((a) => new Option(a.choice, a.name)));
    $('opacus-accountant').replaceChildren(
      ...opacus_accountants().map((a) => new Option(a.label, a.name)),
    );
    settings.start(run_defaults(), suggested_settings());
    log.setAccountants(listed);
    $('engine').textContent = engineText(matrix_kernel());
    readHash();
    showSeedMode();
    session.wasmReady = true;
    fitPresenter();
    session.startWhenReady();
    setTimeout(drawCharts, 0); // the first drawing in a task of its own
  })
  .catch((e) => {
    showMessage(`Could not load the lab's WebAssembly: ${e.message || e}`);
    setStatus('The lab could not start.');
  });
