// DP-SGD Lab page: wiring only. The settings live in state.js, the messages in protocol.js;
// training runs in a module worker, the slow privacy computations in accounting workers, and
// every privacy quantity comes from Rust. Data flows one way:
// controls -> config -> worker -> reports -> history -> charts, run log and coverage.
import init, {
  draw_accuracy_chart, draw_epsilon_chart, draw_clipping_histogram, draw_noise_chart,
  draw_boundary, draw_sigma_chart, epsilon_preview, format_epsilon, run_defaults,
} from './pkg/dpsgd_lab.js';
import { Accounting, PldPreview, SigmaPanel } from './accounting.js';
import { draw as drawAudit, setUpAudit } from './audit.js';
import { renderCoverage } from './coverage.js';
import { ChartQueue, drawCanvasMessage, sizeCanvas } from './drawing.js';
import { setUpOwnData } from './own-data.js';
import { TO_WORKER, checkFromWorker } from './protocol.js';
import { clearMessage, setStatus, showMessage } from './messages.js';
import { MAX_PINS, Pins } from './pins.js';
import { RunLog } from './runlog.js';
import { setUpExport } from './export.js';
import {
  SLIDERS, fromHash, ownData, readConfig, seedProblem, setDefaults, setLotRange, setSigma, toHash,
} from './state.js';
import { applyTeacherMode } from './teacher.js';

const $ = (id) => document.getElementById(id);
const pct = (v) => `${(100 * v).toFixed(2)}%`;

let wasmReady = false;
let workerReady = false;
let facts = null;      // DataFacts of the data set the last run loaded (from the worker)
let factsOf = '';      // …and which data set that was: previews wait for the facts of theirs
let generation = 0;    // every run-scoped message carries it; older runs' messages are dropped
let run = null;        // { cfg, history, mechanism, plane, pin } of the run now training
let preview = [];      // epsilon_preview of the current settings
let playing = true;
let debounce = null;
let lastNorms = new Float32Array(0); // the latest lot's gradient norms; kept across restarts
const pins = new Pins();
let runQueue = [];     // { label, cfg } runs to train and pin one after another
let teacherParams = new URLSearchParams();

const fmtEps = (v) => (wasmReady ? format_epsilon(v) : '…');

const log = new RunLog(fmtEps);
const accounting = new Accounting(showMessage);
const sigmaPanel = new SigmaPanel(accounting);
const pldPreview = new PldPreview(new Accounting(showMessage));
let worker = null;

function writeHash(cfg) {
  const params = toHash(cfg, teacherParams);
  const shared = pins.shared();
  if (shared.length) params.set('pins', JSON.stringify(shared));
  window.history.replaceState(null, '', `#${params}`);
}

const history = () => (run ? run.history : []);
const pinned = () => pins.drawn();
const teaching = () => (run ? run.cfg.report : $('report').value) === 'teaching';

const charts = new ChartQueue([
  () => draw_accuracy_chart('accuracy-chart', history(), pinned(), readConfig().epochs, sizeCanvas($('accuracy-chart'))),
  () => draw_epsilon_chart('epsilon-chart', preview, pldPreview.curve, history(), pinned(), $('amplification').value,
    readConfig().epochs, $('log-log').checked, sizeCanvas($('epsilon-chart'))),
  () => drawTeachingView('noise-chart', () => draw_noise_chart('noise-chart', history(), readConfig().epochs, sizeCanvas($('noise-chart')))),
  () => drawHistogram(),
  () => drawSigmaChart(),
], (e) => showMessage(`Could not draw the charts: ${e.message || e}`), () => {
  if (!document.body.dataset.ready) {
    // Loaded and drawn once: from here on the page is interactive (tests wait for this).
    window.labReadyAt = performance.now();
    document.body.dataset.ready = '1';
  }
});

function drawCharts() {
  if (wasmReady) charts.drawAll();
}

// A teaching view draws only at the teaching level; at the private level it says why not.
function drawTeachingView(id, draw) {
  if (teaching()) draw();
  else drawCanvasMessage($(id), 'Not released: measured on the training data without noise');
}

function drawHistogram() {
  if (!wasmReady) return;
  drawTeachingView('clipping-chart', () => draw_clipping_histogram('clipping-chart', lastNorms, readConfig().clip, sizeCanvas($('clipping-chart'))));
}

function drawSigmaChart() {
  if (!wasmReady) return;
  const canvas = $('sigma-chart');
  const curve = sigmaPanel.curve;
  if (!curve) {
    drawCanvasMessage(canvas, sigmaPanel.message);
    return;
  }
  const cfg = readConfig();
  draw_sigma_chart('sigma-chart', curve.points, curve.target, curve.delta, cfg.epochs, cfg.sigma, sizeCanvas(canvas));
}

// The ε preview (here), the σ panel and the PLD curve (in workers) for `cfg`: all from Rust,
// from the settings and the facts of the run's data set (until those arrive, no preview rather
// than one for another data set's N).
function updatePreview(cfg) {
  if (!wasmReady || !facts || factsOf !== cfg.dataset) {
    preview = [];
    return;
  }
  try {
    preview = epsilon_preview(cfg, facts);
  } catch (e) {
    preview = [];
    showMessage(`Cannot compute ε: ${e.message || e}`);
    return;
  }
  describeEpsilon(preview[preview.length - 1]);
  sigmaPanel.request(cfg, facts, Number($('budget-eps').value), drawSigmaChart, showMessage);
  pldPreview.request(cfg, facts, drawCharts, showMessage);
}

// The ε chart's text alternative: ε for the whole run, by accountant.
function describeEpsilon(last) {
  const text = last
    ? `for the whole run (${last.epoch} epochs): naive ${fmtEps(last.naive)}, strong ${fmtEps(last.strong)}, moments ${fmtEps(last.moments)}, RDP ${fmtEps(last.rdp)}`
    : 'not computed yet';
  $('epsilon-chart').setAttribute('aria-label', `Privacy spent ε against epochs; ${text}. The run log below has every epoch's numbers.`);
}

function pinRun(label, cfg, runHistory) {
  pins.add(label, cfg, runHistory);
  writeHash(readConfig(facts?.n_train));
}

// Trains the next queued run (to be pinned when done), or the controls' run when none is left.
function nextQueued() {
  const item = runQueue.shift();
  if (!item) {
    restart();
    return;
  }
  restart(item);
  setStatus(`Training "${item.label}" to pin it (${runQueue.length} more queued)…`);
}

// Starts a fresh run with the current controls (or a queued pin); the worker drops the old one.
function restart(pin) {
  clearTimeout(debounce);
  const cfg = pin ? pin.cfg : readConfig(facts?.n_train);
  if (!pin) writeHash(cfg);
  if (!run || run.cfg.dataset !== cfg.dataset || cfg.report !== 'teaching') lastNorms = new Float32Array(0);
  generation += 1;
  run = { cfg, history: [], mechanism: null, plane: null, pin: pin || null };
  log.clear(generation);
  updatePreview(cfg);
  drawCharts();
  worker.postMessage(TO_WORKER.start(generation, cfg, playing));
  const problem = pin ? null : seedProblem();
  if (problem) showMessage(`Seed: ${problem}.`);
  setStatus(playing ? `Training with σ = ${cfg.sigma}, C = ${cfg.clip}, L = ${cfg.lot_size}, η = ${cfg.lr}…` : 'Paused: press Play to train.');
}

function onReport(m) {
  const r = m.report;
  run.history.push(r);
  if (run.plane && m.boundary) {
    draw_boundary('boundary-chart', run.plane.bounds, m.boundary.res, m.boundary.probs, run.plane.points, sizeCanvas($('boundary-chart')));
  }
  if (r.last_lot_norms && r.last_lot_norms.length) lastNorms = Float32Array.from(r.last_lot_norms);
  log.append(r, r.stopped_by_budget);
  drawCharts();
  const acc = r.test_acc ?? r.private_test_acc;
  const outside = (r.not_private || []).includes('test_acc') ? ' (not private: your held-out rows, exactly)' : '';
  const shown = acc === undefined ? 'test accuracy not released' : `test accuracy ${pct(acc)}${outside}`;
  setStatus(`Epoch ${r.epoch}: ${shown}, ε = ${fmtEps(r.epsilon.moments)} (moments accountant, δ = ${r.delta.toExponential(0)})`);
}

function onDone() {
  const r = run.history[run.history.length - 1];
  if (run.pin) {
    pinRun(run.pin.label, run.pin.cfg, run.history);
    nextQueued();
    return;
  }
  if (!r) return;
  if (r.stopped_by_budget) {
    const accountant = run.cfg.budget_accountant;
    setStatus(`Stopped by the budget in epoch ${r.epoch} (step ${r.steps}): ε = ${fmtEps(r.epsilon[accountant])} with the ${accountant} accountant; one more step would exceed ${run.cfg.budget_epsilon}.`);
    return;
  }
  const acc = r.test_acc ?? r.private_test_acc;
  setStatus(`Done: ${run.history.length} epochs${acc === undefined ? '' : `, test accuracy ${pct(acc)}`}, ε = ${fmtEps(r.epsilon.moments)} (moments) — ${fmtEps(r.epsilon.pld)} (PLD).`);
}

function onWorkerMessage(ev) {
  const m = checkFromWorker(ev.data);
  if (!m) {
    showMessage('The training worker sent a message the page does not understand; it was ignored.');
    return;
  }
  if (m.type === 'ready') {
    workerReady = true;
    startWhenReady();
    return;
  }
  if (m.type === 'init-error') {
    showMessage(m.message);
    setStatus('The lab could not start.');
    return;
  }
  if (m.type === 'own-data-loaded') {
    ownDataLoaded(m.facts);
    return;
  }
  if (m.type === 'own-data-rejected') {
    showMessage(`Your file was not loaded (the current data and run are unchanged): ${m.message}`);
    return;
  }
  if (m.generation !== generation || !run) return; // a cancelled run
  if (m.type === 'data') {
    const fresh = factsOf !== run.cfg.dataset || JSON.stringify(facts) !== JSON.stringify(m.facts);
    facts = m.facts;
    factsOf = run.cfg.dataset;
    if (fresh) {
      if (!run.pin) setLotRange(facts.n_train);
      updatePreview(run.cfg);
      drawCharts();
    }
  } else if (m.type === 'resize') {
    if (run.pin) {
      // A pin's lot larger than its data: that pin uses the whole set; the controls stay.
      restart({ ...run.pin, cfg: { ...run.pin.cfg, lot_size: m.n_train } });
      return;
    }
    setLotRange(m.n_train, m.n_train);
    showMessage(`Lot size reduced to N = ${m.n_train}, the size of this data set.`);
    restart();
  } else if (m.type === 'started') {
    run.mechanism = m.mechanism;
    run.plane = m.plane;
    $('boundary-figure').hidden = !m.plane;
    $('boundary-badge').hidden = !(m.plane && m.plane.training_points);
    if (facts) renderCoverage(m.mechanism, run.cfg, facts);
  } else if (m.type === 'report') {
    onReport(m);
  } else if (m.type === 'done') {
    onDone();
  } else if (m.type === 'error') {
    if (run.pin) {
      showMessage(`Pinned run "${run.pin.label}" cannot run: ${m.message}. It was skipped.`);
      nextQueued();
    } else {
      showMessage(m.message);
      setStatus('Stopped.');
    }
  }
}

let workerRestarts = 0;
function startWorker() {
  worker = new Worker('./worker.js', { type: 'module' });
  worker.onmessage = onWorkerMessage;
  worker.onerror = (e) => {
    e.preventDefault();
    worker.terminate();
    workerReady = false;
    if (workerRestarts >= 3) {
      showMessage(`The training worker failed again (${e.message || 'no message'}); reload the page to try again.`);
      return;
    }
    workerRestarts += 1;
    showMessage(`The training worker failed (${e.message || 'no message'}); it was restarted with the last settings.`);
    startWorker();
  };
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

function scheduleRestart() {
  runQueue = []; // a moved control cancels queued comparisons
  clearMessage();
  readConfig(facts?.n_train); // show the new values at once
  clearTimeout(debounce);
  debounce = setTimeout(restart, 150);
}

// A student's file is private data: the private release level, a hidden random seed.
function ownDataLoaded(own) {
  facts = own;
  factsOf = 'own';
  $('own-option').hidden = false;
  $('own-option').textContent = `Your data: ${ownDataName()} (${own.n_train} train, ${own.n_test} test, ${own.n_features} features)`;
  $('dataset').value = 'own';
  $('report').value = 'private';
  showSeedMode();
  showMessage('Your file is loaded as private data: the lab now shows only what ε covers and uses a hidden random seed. '
    + 'You may switch "What the lab shows" to teaching: what ε does not cover is then marked.');
  scheduleRestart();
}

function showSeedMode() {
  const own = ownData();
  for (const el of document.querySelectorAll('#seed-control .own-only')) el.hidden = !own;
  $('seed-help').hidden = own;
  $('seed').hidden = own && !$('fixed-seed').checked;
}

for (const s of SLIDERS) $(s.id).addEventListener('input', scheduleRestart);
for (const id of ['seed', 'until-budget', 'pca-on', 'pca-k', 'pca-sigma', 'adapt-on', 'adapt-quantile', 'report', 'model']) {
  $(id).addEventListener('change', scheduleRestart);
}
$('dataset').addEventListener('change', () => {
  showSeedMode();
  scheduleRestart();
});
$('fixed-seed').addEventListener('change', () => {
  showSeedMode();
  if ($('fixed-seed').checked) showMessage('With a fixed seed the noise can be reproduced — and subtracted — by anyone who knows it: this run is not private.');
  scheduleRestart();
});
$('clip').addEventListener('input', drawHistogram); // the C line moves at once
$('log-log').addEventListener('change', drawCharts);
$('amplification').addEventListener('change', scheduleRestart);
for (const id of ['budget-eps', 'budget-accountant']) {
  $(id).addEventListener('change', () => {
    if ($('until-budget').checked) scheduleRestart();
    else updatePreview(readConfig(facts?.n_train));
  });
}

$('calibrate').addEventListener('click', () => {
  const cfg = readConfig(facts?.n_train);
  if (!facts || factsOf !== cfg.dataset) {
    showMessage('The data set is still loading: press Calibrate σ again in a moment.');
    return;
  }
  const accountant = $('budget-accountant').value;
  const target = Number($('budget-eps').value);
  const asked = JSON.stringify([cfg, facts]);
  clearMessage();
  setStatus(`Calibrating σ for ε = ${target} with the ${accountant} accountant…`);
  accounting.ask('calibrate', { config: cfg, facts, accountant, target }, (m) => {
    if (JSON.stringify([readConfig(facts.n_train), facts]) !== asked) {
      showMessage('The settings changed while σ was being calibrated: press Calibrate σ again.');
      return;
    }
    if (m.error) {
      showMessage(`Cannot calibrate: ${m.error}`);
      return;
    }
    const { sigma, epsilon } = m.result;
    if (sigma > Number($('sigma').max)) {
      showMessage(`σ = ${sigma} would be needed for ε = ${target}; the slider stops at ${$('sigma').max}. Try fewer epochs or a smaller lot.`);
      return;
    }
    setSigma(sigma);
    scheduleRestart();
    showMessage(`σ = ${sigma} (rounded up) spends ε = ${fmtEps(epsilon)} ≤ ${target} in ${cfg.epochs} epochs (${m.result.accountant} accountant).`);
  });
});

setUpExport(() => run);
setUpAudit(() => readConfig(facts?.n_train), ownData);
$('play').addEventListener('click', () => {
  playing = !playing;
  $('play').textContent = playing ? 'Pause' : 'Play';
  $('play').setAttribute('aria-pressed', String(playing));
  worker.postMessage(playing ? TO_WORKER.resume(generation) : TO_WORKER.pause(generation));
  setStatus(playing ? 'Training…' : 'Paused.');
});
$('reset').addEventListener('click', () => restart());
$('pin').addEventListener('click', () => {
  const c = readConfig(facts?.n_train);
  pinRun(`σ=${c.sigma} C=${c.clip} L=${c.lot_size}`, c, history());
  drawCharts();
});
$('clear-pins').addEventListener('click', () => {
  pins.clear();
  writeHash(readConfig(facts?.n_train));
  drawCharts();
});
$('compare').addEventListener('click', () => {
  const base = readConfig(facts?.n_train);
  pins.clear();
  runQueue = [['non-private', 'non-private'], ['clip-only', 'clip only'], ['noise-only', 'noise only'], ['dp', 'DP-SGD']]
    .map(([mode, label]) => ({ label, cfg: { ...base, mode, budget_epsilon: null } }));
  nextQueued();
});
window.addEventListener('resize', () => { drawCharts(); drawAudit(); });

// A student's own data: read the file(s) here, parse them in the worker (wasm).
const ownDataName = setUpOwnData(() => worker, showMessage);

// Offline after the first visit (see sw.js); the lab works without it too.
if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('./sw.js').catch(() => {});
}

// The link's settings (and teacher mode) once Rust's defaults are on the controls.
function readHash() {
  const params = new URLSearchParams(location.hash.slice(1));
  teacherParams = applyTeacherMode(params);
  const problems = fromHash(params);
  try {
    const saved = JSON.parse(params.get('pins') || '[]');
    const list = Array.isArray(saved) ? saved : [];
    runQueue = list.filter((p) => p && typeof p === 'object' && p.cfg && typeof p.cfg === 'object' && typeof p.label === 'string')
      .slice(0, MAX_PINS).map((p) => ({ label: p.label.slice(0, 60), cfg: p.cfg }));
    if (runQueue.length < list.length) problems.push(`${list.length - runQueue.length} pinned run(s) in the link are damaged and were skipped`);
  } catch {
    problems.push('the pinned runs in the link are damaged and were skipped');
  }
  if (problems.length) showMessage(`The link has settings the lab cannot use (the defaults are kept for those): ${problems.join('; ')}.`);
}

startWorker();
init().then(() => {
  setDefaults(run_defaults());
  readHash();
  showSeedMode();
  readConfig();
  wasmReady = true;
  startWhenReady();
  setTimeout(drawCharts, 0); // the first drawing in a task of its own
}).catch((e) => {
  showMessage(`Could not load the lab's WebAssembly: ${e.message || e}`);
  setStatus('The lab could not start.');
});
