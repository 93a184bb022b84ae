// The "Audit this run" panel: a membership attack against real runs of the current settings,
// spread over audit workers (as many as the Workers control says, fewer where the data set's
// copies would not fit in memory: cores.js), with progress and Cancel; then the privacy region
// with each attack's ROC, and ε_lower against the accountants' ε. Every number comes
// from Rust (audit-worker.js, `AuditSession`); this file only hands out runs and draws.
import { audit_worker_bytes, draw_audit_epsilons, draw_audit_region } from '../pkg/dpsgd_lab.js';
import { TO_WORKER } from '../core/protocol.js';
import { AuditJob } from './audit-job.js';
import { drawCanvasMessage, sizeCanvas } from '../views/drawing.js';
import { showMessage } from '../core/messages.js';
import { auditWorkerPlan, defaultWorkers } from '../views/cores.js';
import { configKey } from '../lab/config-key.js';
import { settings } from '../lab/settings.js';
import { movedFrom } from '../lessons/lesson-claims.js';

const $ = (id) => document.getElementById(id);
const THREATS = ['worst-case', 'realistic'];
const RUNS = { min: 2, max: 1000 };
const ONE_RUN_CANARIES = 500;

let audit = null; // the audit under way: {job (audit-job.js), config, readConfig}
let onWorkersChange = () => {}; // tells the training worker (main.js): trainingCap() changed

/** Whether an audit is training. */
export const auditing = () => audit !== null;

// The training worker's limit ('cap', protocol.js): while an audit runs, the cores it leaves
// (at least one), so training and the audit together use no more workers than the cores —
// one pool of cores; none otherwise.
export function trainingCap() {
  if (!audit) return TO_WORKER.cap(null, '');
  const n = audit.job.workers.length;
  const cores = defaultWorkers();
  return TO_WORKER.cap(
    Math.max(1, cores - n),
    `the audit is training on ${n} of this device's ${cores} cores`,
  );
}

// The progress bar and its words are shown only while an audit trains (the row above the
// charts stays one line on a projector otherwise).
function setProgress(done, total) {
  $('audit-progress').hidden = !audit;
  $('audit-progress-text').hidden = !audit;
  $('audit-progress').max = Math.max(total, 1);
  $('audit-progress').value = done;
  $('audit-progress-text').textContent = total
    ? `${done} / ${total} runs${timeLeft(done, total)}`
    : '';
}

// ", about 40 min left" from the pace so far (an audit of a large data set trains hundreds of
// full runs: Cancel is there), or nothing before the first run is in.
function timeLeft(done, total) {
  if (!audit || done < 1 || done >= total) return '';
  const s = ((performance.now() - audit.job.t0) / 1000) * ((total - done) / done);
  return `, about ${s < 90 ? `${Math.max(1, Math.round(s))} s` : `${Math.round(s / 60)} min`} left`;
}

function stop(text) {
  const was = audit;
  audit?.job.cancel();
  audit = null;
  setProgress(0, 0);
  if (was) onWorkersChange();
  document.body.dataset.auditWorkers = '0';
  $('audit-start').disabled = false;
  $('audit-cancel').disabled = true;
  if (text !== undefined) $('audit-status').textContent = text;
}

// What the audit's job (audit-job.js) says, in the panel's words.
/** @type {import('./audit-job.js').JobEvents} */
const EVENTS = {
  progress: (done, total) => setProgress(done, total),
  combining: () => {
    $('audit-status').textContent = 'Combining the runs with the accountant…';
  },
  finished: (results, seconds) => finish(results, seconds),
  failed: (why, worker) => {
    if (why === null)
      return stop('The audit stopped: a worker sent a message the page does not understand.');
    showMessage(worker ? `Audit worker failed: ${why}` : `Audit: ${why}`);
    stop(worker ? 'The audit stopped.' : 'The audit stopped (see the message above).');
  },
};

function finish(byThreat, seconds) {
  const results = THREATS.map((t) => byThreat.get(t));
  const {
    job: { total, workers },
    config,
    readConfig,
  } = audit;
  stop('');
  keepEarlier(config);
  lastResults = results;
  lastConfig = configKey(config);
  // Against the settings now: they may have changed while it trained.
  markStale(readConfig());
  draw();
  const rate = (total / seconds).toFixed(1);
  // How long it took goes below the charts: above them, on a projector, every line is a line
  // less for the charts the lesson talks about.
  $('audit-timing').textContent =
    `${total} runs in ${seconds.toFixed(1)} s on ${workers.length} ` +
    `worker${workers.length > 1 ? 's' : ''} (${rate} runs/s).`;
  const list = $('audit-summary');
  list.replaceChildren(
    ...results.map((r) => Object.assign(document.createElement('li'), { textContent: r.summary })),
  );
  $('audit-summary-note').hidden = false;
}

let lastResults = null;
let lastConfig = ''; // the settings the last audit trained, as JSON
// The audit of other settings before the last one, kept beside it (#53 §4: the audit lesson's
// σ = 0 beside its σ = 2): {results, config (JSON), label}. What it was of is said by the
// settings that differ from the last audit's ("σ = 0").
let earlier = null;

// Before the audit of `config` replaces the last one: the last is kept as the earlier one if it
// audited other settings; an earlier one of these very settings is dropped (the last is them).
function keepEarlier(config) {
  const json = configKey(config);
  if (lastResults && lastConfig !== json) {
    const moved = movedFrom(config, JSON.parse(lastConfig));
    const label = moved.length
      ? moved.map(([name, , was]) => `${name} = ${was}`).join(', ')
      : 'other settings';
    earlier = { results: lastResults, config: lastConfig, label };
  }
  if (earlier?.config === json) earlier = null;
}
let onDrawn = () => {};

// Says, the moment the settings differ from those the last audit trained, that its charts and
// sentences are that audit's and not this run's (`config`: the run's settings now).
function markStale(config) {
  const stale = !!lastResults && configKey(config) !== lastConfig;
  $('audit-stale').hidden = !stale;
  $('audit-stale').textContent = stale
    ? 'The settings have changed since this audit: its charts and sentences below are for the ' +
      "settings it trained, not for this run. Audit again to see this run's."
    : '';
  $('audit-region').closest('.charts').classList.toggle('stale', stale);
}

// The last audit's results ([{threat, eps_lower, …}], Rust's), if it audited `config`.
export const auditOf = (config) =>
  lastResults && configKey(config) === lastConfig ? lastResults : null;

// The last audit's results, whatever settings it audited (labTest.lastAudit).
export const lastAudit = () => lastResults;

// The audit of other settings kept beside the last one, when the last audited `config`:
// {label, results} (what a lesson quotes of it), or null.
export const earlierAuditOf = (config) =>
  earlier && auditOf(config) ? { label: earlier.label, results: earlier.results } : null;

// Draws the last audit's charts (also after a resize).
export function draw() {
  if (!lastResults) return;
  const pinned = earlier && { label: `earlier audit, ${earlier.label}`, results: earlier.results };
  draw_audit_region('audit-region', lastResults, pinned ?? null, sizeCanvas($('audit-region')));
  draw_audit_epsilons('audit-epsilons', lastResults, sizeCanvas($('audit-epsilons')));
  onDrawn();
}

// A fixed audit seed for the end-to-end tests (labTest.fixAuditSeed); null draws a fresh one.
let fixedSeed = null;
export function fixAuditSeed(seed) {
  fixedSeed = Number.isInteger(seed) && seed >= 0 && seed < 2 ** 32 ? seed : null;
}

// About how much memory one audit worker needs for the loaded data set (from Rust; a one-run
// audit also holds its `canaries`), or NaN before its facts are known.
function workerBytes(facts, canaries) {
  if (!facts) return NaN;
  try {
    return audit_worker_bytes(facts, canaries, false);
  } catch {
    return NaN;
  }
}

function start(readConfig, ownData, facts) {
  if (audit) return;
  if (ownData()) {
    showMessage(
      'The audit runs on the built-in data sets: it trains hundreds of models on the data ' +
        'and shows how they differ, which no ε covers.',
    );
    return;
  }
  const runs = settings.get('audit_runs');
  if (!Number.isInteger(runs) || runs < RUNS.min || runs > RUNS.max) {
    showMessage(`Runs per side must be a whole number from ${RUNS.min} to ${RUNS.max}.`);
    return;
  }
  const seed = fixedSeed ?? crypto.getRandomValues(new Uint32Array(1))[0];
  const canaries = $('audit-one-run').checked ? ONE_RUN_CANARIES : 0;
  const specs = THREATS.map((threat) => ({ threat, runs, canaries, seed }));
  const config = readConfig();
  const plan = auditWorkerPlan(workerBytes(facts(config), canaries));
  const n = plan.count;
  audit = { job: new AuditJob(n, config, specs, EVENTS), config, readConfig };
  document.body.dataset.auditWorkers = String(n);
  onWorkersChange();
  $('audit-start').disabled = true;
  $('audit-cancel').disabled = false;
  setProgress(0, 0);
  const fewer = !plan.reason
    ? ''
    : plan.count < plan.asked
      ? ` (not ${plan.asked}: ${plan.reason})`
      : ` (${plan.reason})`;
  $('audit-status').textContent =
    `Training ${2 * runs} runs per threat model on ${n} worker${n > 1 ? 's' : ''}${fewer}…`;
  $('audit-summary').replaceChildren();
  $('audit-timing').textContent = '';
  $('audit-summary-note').hidden = true;
  for (const id of ['audit-region', 'audit-epsilons']) drawCanvasMessage($(id), 'Auditing…');
}

// Wires the panel: `readConfig()` gives the run's settings, `ownData()` whether they name the
// student's own file, `facts(config)` the facts of its data set (null until they are known);
// `workersChanged()` runs when an audit starts or ends (trainingCap() changed); `drawn()` when
// an audit's charts were drawn.
export function setUpAudit(readConfig, ownData, facts, workersChanged, drawn = () => {}) {
  onWorkersChange = workersChanged;
  onDrawn = drawn;
  // A setting moved, or a link opened in place: is the audit on screen still this run's?
  settings.onInput(() => markStale(readConfig()));
  window.addEventListener('hashchange', () => setTimeout(() => markStale(readConfig()), 0));
  $('audit-start').addEventListener('click', () => start(readConfig, ownData, facts));
  $('audit-cancel').addEventListener('click', () => {
    stop('Audit cancelled: its workers were stopped.');
    setProgress(0, 0);
  });
  for (const id of ['audit-region', 'audit-epsilons'])
    drawCanvasMessage($(id), 'Press “Audit this run”');
}
