// Hooks for the end-to-end tests (window.labTest): a worker dying as a crash or a Rust panic
// would end it, a data-parallel helper that hangs, a message the page must refuse, a worker that
// goes silent, an audit's cap on the training workers, the run's reports, a fixed audit seed, each
// chart's layout as drawn and the cost of privacy the accuracy chart writes, and the lesson step on
// screen. `training()` is the current training worker (a KeptWorker).
import { chart_layout } from '../pkg/dpsgd_lab.js';
import { lessonState } from '../lessons/lesson-player.js';
import { lastAudit } from '../audit/audit.js';
import { lastAlice, pointOnChart } from '../audit/alice.js';

export function installTestHooks({
  training,
  accounting,
  reports,
  fixAuditSeed,
  privacyCostPoints,
  pins,
}) {
  let defaults = null; // the page's own silences, read when a test first shortens them
  window.labTest = Object.freeze({
    killTrainingWorker: () => training().kill(),
    panicTrainingWorker: () => training().post({ type: 'test-panic' }),
    hangHelper: () => training().post({ type: 'test-hang-helper' }),
    capTraining: (workers) => training().post({ type: 'cap', workers, reason: 'a test' }),
    killAccountingWorker: () => accounting.worker.kill(),
    fakeWorkerMessage: (data) =>
      training().worker?.dispatchEvent(new MessageEvent('message', { data })),
    // A short silence, for as long as a test waits for a killed worker to be noticed; null puts
    // the page's own back (a slow machine must not see a busy worker as a dead one).
    setSilence: (ms) => {
      defaults ??= { training: training().silenceMs, accounting: accounting.worker.silenceMs };
      training().silenceMs = ms ?? defaults.training;
      accounting.worker.silenceMs = ms ?? defaults.accounting;
    },
    reports: () => JSON.parse(JSON.stringify(reports())),
    // The pinned runs as a link would carry them, lesson steps' own included.
    pinnedConfigs: () =>
      JSON.parse(JSON.stringify(pins.list.map((p) => ({ label: p.label, cfg: p.cfg })))),
    // The pinned runs' settings and the last report each keeps (pins.js), a lesson's earlier step
    // included.
    pinnedEnds: () =>
      JSON.parse(
        JSON.stringify(
          pins.list.map((p) => ({ label: p.label, cfg: p.cfg, last: p.history.at(-1) })),
        ),
      ),
    fixAuditSeed,
    // The last audit's results as drawn (Rust's AuditResult per threat), or null.
    lastAudit: () => JSON.parse(JSON.stringify(lastAudit())),
    // The last "Alice" result (Rust's AuditResult with its `alice` view), or null.
    lastAlice: () => JSON.parse(JSON.stringify(lastAlice())),
    // Where training point i is drawn on the boundary chart (CSS px in the canvas), or null.
    alicePointAt: (i) => pointOnChart(i),
    // The chart last drawn on canvas `id`: {plot: {x, y, w, h}, fonts: {title, tick, legend}}
    // in canvas pixels (divide by canvas.width / clientWidth for CSS px), or null.
    chartLayout: (id) => chart_layout(id),
    privacyCostPoints,
    // The lesson step on screen: its text and whether each of its claims holds (lesson-player.js).
    lessonState,
  });
}
