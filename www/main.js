// DP-SGD Lab page: reads the controls into a config, runs training in a module worker, and
// draws the worker's epoch reports with the wasm charts. Data flows one way:
// controls -> config -> worker -> reports -> history -> charts and run log.
import init, {
  epsilon_curve, draw_accuracy_chart, draw_epsilon_chart, draw_clipping_histogram, draw_noise_chart,
  draw_boundary, draw_sigma_chart,
} from './pkg/dpsgd_lab.js';
import { Accounting, PldPreview, SigmaPanel, pcaArgs } from './accounting.js';
import { ChartQueue, drawCanvasMessage, sizeCanvas } from './drawing.js';
import { setUpOwnData } from './own-data.js';
import { applyTeacherMode } from './teacher.js';

// One table of the controls: slider id, config field, slider -> value, value -> slider, format.
const log10 = Math.log10;
const CONTROLS = [
  { id: 'sigma', field: 'sigma', toValue: (s) => +s.toFixed(4), toSlider: (v) => v, fmt: (v) => v.toFixed(2) },
  { id: 'clip', field: 'clip', toValue: (s) => +(10 ** s).toPrecision(3), toSlider: log10, fmt: (v) => String(v) },
  { id: 'lot-size', field: 'lot_size', toValue: (s) => Math.max(1, Math.round(10 ** s)), toSlider: log10, fmt: (v) => String(v) },
  { id: 'lr', field: 'lr', toValue: (s) => +(10 ** s).toPrecision(3), toSlider: log10, fmt: (v) => String(v) },
  { id: 'epochs', field: 'epochs', toValue: (s) => Math.round(s), toSlider: (v) => v, fmt: (v) => String(v) },
  { id: 'delta', field: 'delta', toValue: (s) => 10 ** Math.round(s), toSlider: (v) => Math.round(log10(v)), fmt: (v) => v.toExponential(0) },
];
const ACCOUNTANTS = ['naive', 'strong', 'moments', 'rdp'];
const $ = (id) => document.getElementById(id);

let nTrain = 32561;        // replaced by the worker's count once the data is loaded
let generation = 0;        // every message carries it; reports of older runs are dropped
let history = [];          // epoch reports of the current run
let preview = '[]';        // epsilon_curve JSON of the current settings
let playing = true;
let debounce = null;
let wasmReady = false;
let lastNorms = new Float32Array(0); // the latest lot's gradient norms; kept across restarts
let plane = null; // 2-D data: { bounds, points } of the current run, else null
const MAX_PINS = 4;
let pins = [];        // { label, cfg, history } of pinned runs, drawn faded
let runQueue = [];    // { label, cfg } runs to train and pin one after another
let pendingPin = null; // label of the queued run now training

const worker = new Worker('./worker.js', { type: 'module' });
// Slow privacy computations run in workers of their own (see accounting.js): σ calibration
// and the σ-needed panel in one, the PLD curve (up to seconds) in another.
const accounting = new Accounting((message) => setStatus(message, true));
const sigmaPanel = new SigmaPanel(accounting);
const pldPreview = new PldPreview(new Accounting((message) => setStatus(message, true)));

function setStatus(text, isError = false) {
  const s = $('status');
  s.textContent = text;
  s.classList.toggle('error', isError);
}

function readConfig() {
  const cfg = {};
  for (const c of CONTROLS) {
    const el = $(c.id);
    const v = c.toValue(Number(el.value));
    cfg[c.field] = v;
    $(`${c.id}-value`).textContent = c.fmt(v);
  }
  cfg.lot_size = Math.min(cfg.lot_size, nTrain);
  const seed = Number($('seed').value);
  cfg.seed = Number.isInteger(seed) && seed >= 0 && seed <= 4294967295 ? seed : 1;
  cfg.dataset = $('dataset').value;
  cfg.model = $('model').value;
  cfg.hidden = [64];
  cfg.data_noise = 0.1;
  const k = Number($('pca-k').value);
  cfg.pca = $('pca-on').checked && Number.isInteger(k) && k >= 1 ? k : null;
  cfg.pca_sigma = Math.max(0, Number($('pca-sigma').value) || 0);
  const budget = Number($('budget-eps').value);
  cfg.budget_accountant = $('budget-accountant').value;
  cfg.budget_epsilon = $('until-budget').checked && budget > 0 ? budget : null;
  return cfg;
}

let teacherParams = new URLSearchParams();

function writeHash(cfg) {
  const params = new URLSearchParams({ v: '1' });
  for (const [k, v] of teacherParams) params.set(k, v);
  for (const c of CONTROLS) params.set(c.field, String(cfg[c.field]));
  params.set('seed', String(cfg.seed));
  params.set('dataset', cfg.dataset);
  params.set('model', cfg.model);
  if (cfg.pca) {
    params.set('pca', String(cfg.pca));
    params.set('pca_sigma', String(cfg.pca_sigma));
  }
  if (pins.length) params.set('pins', JSON.stringify(pins.map((p) => ({ label: p.label, cfg: p.cfg }))));
  window.history.replaceState(null, '', `#${params}`);
}

function readHash() {
  const params = new URLSearchParams(location.hash.slice(1));
  teacherParams = applyTeacherMode(params, nTrain);
  for (const c of CONTROLS) {
    if (!params.has(c.field)) continue;
    const v = Number(params.get(c.field));
    if (Number.isFinite(v) && (v > 0 || (c.field === 'sigma' && v === 0))) {
      const el = $(c.id);
      el.value = String(Math.min(Number(el.max), Math.max(Number(el.min), c.toSlider(v))));
    }
  }
  if (params.has('seed')) $('seed').value = params.get('seed');
  if (params.has('pca')) {
    $('pca-on').checked = true;
    $('pca-k').value = params.get('pca');
    if (params.has('pca_sigma')) $('pca-sigma').value = params.get('pca_sigma');
  }
  try {
    const saved = JSON.parse(params.get('pins') || '[]');
    runQueue = saved.filter((p) => p && p.cfg && typeof p.label === 'string').slice(0, MAX_PINS);
  } catch {
    runQueue = []; // a damaged link still opens the lab
  }
  for (const id of ['dataset', 'model']) {
    const v = params.get(id);
    if (v && [...$(id).options].some((o) => o.value === v && !o.hidden)) $(id).value = v;
  }
}

const fmtEps = (v) => (v === 'inf' || v === null || v === undefined ? '∞' : v < 10 ? v.toFixed(3) : v.toFixed(1));
const pct = (v) => `${(100 * v).toFixed(2)}%`;

function appendRow(r) {
  const tr = document.createElement('tr');
  const cells = [r.epoch, pct(r.train_acc), pct(r.test_acc), ...ACCOUNTANTS.map((a) => fmtEps(r.epsilon[a])),
    pct(r.clipped_fraction), r.median_grad_norm.toFixed(3)];
  for (const c of cells) {
    const td = document.createElement('td');
    td.textContent = String(c);
    tr.appendChild(td);
  }
  $('run-log').tBodies[0].appendChild(tr);
}

function pinnedJson() {
  return JSON.stringify(pins.map((p) => ({ label: p.label, history: p.history })));
}

const charts = new ChartQueue([
  () => draw_accuracy_chart('accuracy-chart', JSON.stringify(history), pinnedJson(), readConfig().epochs, sizeCanvas($('accuracy-chart'))),
  () => draw_epsilon_chart('epsilon-chart', pldPreview.merge(preview), JSON.stringify(history), pinnedJson(), readConfig().epochs, $('log-log').checked, sizeCanvas($('epsilon-chart'))),
  () => draw_noise_chart('noise-chart', JSON.stringify(history), readConfig().epochs, sizeCanvas($('noise-chart'))),
  () => drawHistogram(),
  () => drawSigmaChart(),
], (e) => setStatus(`Could not draw the charts: ${e.message || e}`, true), () => {
  if (!document.body.dataset.ready) {
    // Loaded and drawn once: from here on the page is interactive (tests wait for this).
    window.labReadyAt = performance.now();
    document.body.dataset.ready = '1';
  }
});

function drawCharts() {
  if (wasmReady) charts.drawAll();
}

function drawHistogram() {
  if (!wasmReady) return;
  try {
    draw_clipping_histogram('clipping-chart', lastNorms, readConfig().clip, sizeCanvas($('clipping-chart')));
  } catch (e) {
    setStatus(`Could not draw the histogram: ${e.message || e}`, true);
  }
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
  try {
    draw_sigma_chart('sigma-chart', curve.json, curve.target, curve.delta, cfg.epochs, cfg.sigma, sizeCanvas(canvas));
  } catch (e) {
    setStatus(`Could not draw the σ panel: ${e.message || e}`, true);
  }
}

const statusError = (message) => setStatus(message, true);
const requestSigmaCurve = (cfg) => sigmaPanel.request(cfg, Number($('budget-eps').value), nTrain, drawSigmaChart, statusError);

function updatePreview(cfg) {
  if (!wasmReady) return;
  const q = cfg.lot_size / nTrain;
  const stepsPerEpoch = Math.max(1, Math.round(nTrain / cfg.lot_size));
  try {
    preview = epsilon_curve(q, cfg.sigma, stepsPerEpoch, cfg.epochs, cfg.delta, ...pcaArgs(cfg));
    requestSigmaCurve(cfg);
    pldPreview.request(cfg, q, stepsPerEpoch, drawCharts, statusError);
  } catch (e) {
    preview = '[]';
    setStatus(`Cannot compute ε: ${e.message || e}`, true);
  }
}

function renderPins() {
  const list = $('pin-list');
  list.replaceChildren(...pins.map((p) => {
    const li = document.createElement('li');
    li.textContent = p.label;
    return li;
  }));
}

function pinRun(label, cfg, runHistory) {
  if (!runHistory.length) return;
  pins.push({ label, cfg, history: runHistory.map((r) => ({ epoch: r.epoch, test_acc: r.test_acc, epsilon: r.epsilon })) });
  if (pins.length > MAX_PINS) pins.shift();
  renderPins();
  writeHash(readConfig());
}

// Trains the next queued run (to be pinned when done), or the controls' run when none is left.
function nextQueued() {
  const item = runQueue.shift();
  if (!item) {
    pendingPin = null;
    restart();
    return;
  }
  pendingPin = item;
  restart(item.cfg);
  setStatus(`Training "${item.label}" to pin it (${runQueue.length} more queued)…`);
}

// Starts a fresh run with the current controls (or `override`); the worker drops the old one.
function restart(override) {
  clearTimeout(debounce);
  const cfg = override || readConfig();
  if (!override) writeHash(cfg);
  generation += 1;
  $('run-log').dataset.generation = String(generation); // lets tests tell runs apart
  history = [];
  $('run-log').tBodies[0].replaceChildren();
  updatePreview(cfg);
  drawCharts();
  worker.postMessage({ type: 'start', generation, config: cfg, play: playing });
  setStatus(playing ? `Training with σ = ${cfg.sigma}, C = ${cfg.clip}, L = ${cfg.lot_size}, η = ${cfg.lr}…` : 'Paused: press Play to train.');
}

worker.onmessage = (ev) => {
  const m = ev.data;
  if (m.type === 'ready') {
    if (runQueue.length) nextQueued(); // pinned runs from a link, then the link's run
    else restart();
    return;
  }
  if (m.type === 'own-data') {
    if (m.ok) {
      $('own-option').hidden = false;
      $('own-option').textContent = `Your data: ${ownDataName()} (${m.n_train} train, ${m.n_test} test, ${m.n_features} features)`;
      $('dataset').value = 'own';
      restart();
    } else {
      setStatus(`Your file was not loaded (the current data and run are unchanged): ${m.message}`, true);
    }
    return;
  }
  if (m.generation !== generation) return; // a cancelled run
  if (m.type === 'data') {
    if (m.n_train !== nTrain) {
      nTrain = m.n_train;
      $('lot-size').max = String(log10(nTrain));
      readConfig();
      updatePreview(readConfig());
      drawCharts();
    }
  } else if (m.type === 'resize') {
    // The lot was larger than the new data set: use the whole set and start again.
    $('lot-size').value = String(log10(m.n_train));
    setStatus(`Lot size reduced to N = ${m.n_train}, the size of this data set.`);
    restart();
  } else if (m.type === 'started') {
    plane = m.plane;
    $('boundary-figure').hidden = !plane;
  } else if (m.type === 'report') {
    history.push(m.report);
    if (plane && m.boundary) {
      try {
        draw_boundary('boundary-chart', plane.bounds, m.boundary.res, m.boundary.probs, plane.points, sizeCanvas($('boundary-chart')));
      } catch (e) {
        setStatus(`Could not draw the decision boundary: ${e.message || e}`, true);
      }
    }
    if (m.report.last_lot_norms.length) lastNorms = Float32Array.from(m.report.last_lot_norms);
    appendRow(m.report);
    drawCharts();
    const r = m.report;
    setStatus(`Epoch ${r.epoch}: test accuracy ${pct(r.test_acc)}, ε = ${fmtEps(r.epsilon.moments)} (moments accountant, δ = ${readConfig().delta.toExponential(0)})`);
  } else if (m.type === 'done') {
    const r = history[history.length - 1];
    if (pendingPin) {
      pinRun(pendingPin.label, pendingPin.cfg, history);
      nextQueued();
      return;
    }
    if (r && r.stopped_by_budget) {
      $('run-log').tBodies[0].lastElementChild.classList.add('budget-stop');
      const acc = readConfig().budget_accountant;
      setStatus(`Stopped by the budget in epoch ${r.epoch} (step ${r.steps}): ε = ${fmtEps(r.epsilon[acc] ?? r.epsilon.moments)} with the ${acc} accountant; one more step would exceed ${$('budget-eps').value}.`);
      return;
    }
    setStatus(`Done: ${history.length} epochs, test accuracy ${pct(r.test_acc)}, ε = ${fmtEps(r.epsilon.moments)} (moments) — ${fmtEps(r.epsilon.rdp)} (RDP).`);
  } else if (m.type === 'error') {
    setStatus(m.message, true);
  }
};
worker.onerror = (e) => setStatus(`The training worker failed: ${e.message}`, true);

function scheduleRestart() {
  runQueue = []; // a moved control cancels queued comparisons
  pendingPin = null;
  readConfig(); // show the new values at once
  clearTimeout(debounce);
  debounce = setTimeout(restart, 150);
}

for (const c of CONTROLS) $(c.id).addEventListener('input', scheduleRestart);
$('seed').addEventListener('change', scheduleRestart);
$('clip').addEventListener('input', drawHistogram); // the C line moves at once
$('until-budget').addEventListener('change', scheduleRestart);
$('log-log').addEventListener('change', drawCharts);
for (const id of ['pca-on', 'pca-k', 'pca-sigma']) $(id).addEventListener('change', scheduleRestart);
$('budget-eps').addEventListener('change', () => { if ($('until-budget').checked) scheduleRestart(); });
$('budget-accountant').addEventListener('change', () => { if ($('until-budget').checked) scheduleRestart(); });
// Calibration's arguments for the current controls (DP-PCA's step included).
function calibrationArgs() {
  const cfg = readConfig();
  const steps = cfg.epochs * Math.max(1, Math.round(nTrain / cfg.lot_size));
  return [$('budget-accountant').value, Number($('budget-eps').value), cfg.delta, cfg.lot_size / nTrain, steps, ...pcaArgs(cfg)];
}

$('calibrate').addEventListener('click', () => {
  const args = calibrationArgs();
  const [acc, target] = args;
  const epochs = readConfig().epochs;
  setStatus(`Calibrating σ for ε = ${target} with the ${acc} accountant…`);
  accounting.ask('calibrate', args, (m) => {
    if (JSON.stringify(calibrationArgs()) !== JSON.stringify(args)) {
      setStatus('The settings changed while σ was being calibrated: press Calibrate σ again.', true);
      return;
    }
    if (m.error) {
      setStatus(`Cannot calibrate: ${m.error}`, true);
      return;
    }
    const sigma = m.result;
    if (sigma > Number($('sigma').max)) {
      setStatus(`σ = ${sigma.toFixed(2)} would be needed for ε = ${target}; the slider stops at ${$('sigma').max}. Try fewer epochs or a smaller lot.`, true);
      return;
    }
    $('sigma').value = String(sigma);
    setStatus(`σ = ${sigma.toFixed(3)} spends ε = ${target} in ${epochs} epochs (${acc} accountant).`);
    scheduleRestart();
  });
});
$('budget-eps').addEventListener('change', () => requestSigmaCurve(readConfig()));

function download(name, href) {
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
}
$('export-csv').addEventListener('click', () => {
  const cols = ['epoch', 'steps', 'train_acc', 'test_acc', 'train_loss', 'test_loss', 'clipped_fraction', 'median_grad_norm', 'signal_norm', 'noise_norm', 'lr'];
  const lines = [[...cols, ...ACCOUNTANTS.map((a) => `epsilon_${a}`), 'delta', 'sigma', 'clip', 'lot_size', 'seed'].join(',')];
  const cfg = readConfig();
  for (const r of history) {
    lines.push([...cols.map((c) => r[c]), ...ACCOUNTANTS.map((a) => r.epsilon[a]), cfg.delta, cfg.sigma, cfg.clip, cfg.lot_size, cfg.seed].join(','));
  }
  const url = URL.createObjectURL(new Blob([lines.join('\n') + '\n'], { type: 'text/csv' }));
  download('dpsgd-run-log.csv', url);
  setTimeout(() => URL.revokeObjectURL(url), 1000);
});
$('export-png').addEventListener('click', () => {
  for (const id of ['accuracy-chart', 'epsilon-chart', 'clipping-chart', 'noise-chart', 'sigma-chart']) {
    download(`dpsgd-${id}.png`, $(id).toDataURL('image/png'));
  }
});
$('dataset').addEventListener('change', scheduleRestart);
$('model').addEventListener('change', scheduleRestart);
$('play').addEventListener('click', () => {
  playing = !playing;
  $('play').textContent = playing ? 'Pause' : 'Play';
  $('play').setAttribute('aria-pressed', String(playing));
  worker.postMessage({ type: playing ? 'resume' : 'pause', generation });
  setStatus(playing ? 'Training…' : 'Paused.');
});
$('reset').addEventListener('click', () => restart());
$('pin').addEventListener('click', () => {
  const c = readConfig();
  pinRun(`σ=${c.sigma} C=${c.clip} L=${c.lot_size}`, c, history);
  drawCharts();
});
$('clear-pins').addEventListener('click', () => {
  pins = [];
  renderPins();
  writeHash(readConfig());
  drawCharts();
});
$('compare').addEventListener('click', () => {
  const base = readConfig();
  pins = [];
  renderPins();
  runQueue = [['non-private', 'non-private'], ['clip-only', 'clip only'], ['noise-only', 'noise only'], ['dp', 'DP-SGD']]
    .map(([mode, label]) => ({ label, cfg: { ...base, mode, budget_epsilon: null } }));
  nextQueued();
});
window.addEventListener('resize', drawCharts);

// A student's own data: read the file(s) here, parse them in the worker (wasm).
const ownDataName = setUpOwnData(worker, setStatus);

// Offline after the first visit (see sw.js); the lab works without it too.
if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('./sw.js').catch(() => {});
}

readHash();
readConfig();
init().then(() => {
  wasmReady = true;
  // The first preview and drawing in tasks of their own, apart from the wasm instantiation.
  setTimeout(() => {
    updatePreview(readConfig());
    drawCharts();
  }, 0);
}).catch((e) => setStatus(`Could not load the lab's WebAssembly: ${e.message || e}`, true));
