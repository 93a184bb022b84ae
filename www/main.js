// DP-SGD Lab page: reads the controls into a config, runs training in a module worker, and
// draws the worker's epoch reports with the wasm charts. Data flows one way:
// controls -> config -> worker -> reports -> history -> charts and run log.
import init, {
  epsilon_curve, draw_accuracy_chart, draw_epsilon_chart, draw_clipping_histogram, draw_noise_chart,
  draw_boundary, draw_sigma_chart,
} from './pkg/dpsgd_lab.js';

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
// Slow privacy computations (σ calibration, the σ-needed panel) run in a second worker; each
// request type keeps the id of its latest request, and older answers are dropped.
const accounting = new Worker('./accounting-worker.js', { type: 'module' });
const latestRequest = {};
const onAnswer = {};
let requestId = 0;
function ask(type, args, then) {
  latestRequest[type] = ++requestId;
  onAnswer[type] = then;
  accounting.postMessage({ id: requestId, type, args });
}
// Drops the answer to any request of this type still under way.
function cancel(type) {
  latestRequest[type] = ++requestId;
}
accounting.onmessage = (ev) => {
  const m = ev.data;
  if (m.id === latestRequest[m.type]) onAnswer[m.type](m);
};
accounting.onerror = (e) => setStatus(`The accounting worker failed: ${e.message}`, true);
const SIGMA_PANEL_EPOCHS = 400; // the σ-needed panel's range: 1 to max(400, E) epochs
let sigmaCurve = null; // { json, target, delta } of sigma_needed_curve for sigmaCurveKey, or null
let sigmaCurveKey = '';
let sigmaPanelMessage = 'Computing the σ each accountant needs…'; // shown while sigmaCurve is null
let pldCurve = null; // the PLD accountant's ε per epoch for pldKey's settings, or null
let pldKey = '';

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

// Teacher mode, from the URL: `hide` and `lock` (comma-separated control ids), `big=1` for a
// presenter layout, `lesson` for a preset. Kept in the hash as the page rewrites it.
const TEACHER_KEYS = ['teacher', 'hide', 'lock', 'big', 'lesson'];
const LESSONS = {
  clipping: {
    title: 'What clipping does',
    set: { clip: 0.1, sigma: 1, epochs: 10 },
    text: 'C is small: most gradients are clipped (orange bars). Drag C up to 5 and watch the histogram and the accuracy: too small a C throws signal away, too large a C lets the noise σC grow.',
  },
  moments: {
    title: 'Why the moments accountant matters',
    set: { sigma: 4, epochs: 100, lotFraction: 0.01 },
    text: 'The paper\'s setting: q = 0.01, σ = 4. The naive bound grows like the number of epochs, strong composition like its square root, and the moments accountant barely moves: about 1.26 at 100 epochs where strong composition says 9.34. The σ panel turns it around: the noise each accountant would need to stay within the target ε.',
  },
  noise: {
    title: 'When noise drowns the signal',
    set: { sigma: 8, lot: 32, epochs: 10 },
    text: 'A small lot with much noise: in the lower right chart the noise is far above the clipped signal. Raise L and watch the gap close, and the accuracy recover, at a price in ε.',
  },
};
let teacherParams = new URLSearchParams();

function applyTeacherMode(params) {
  teacherParams = new URLSearchParams();
  for (const k of TEACHER_KEYS) if (params.has(k)) teacherParams.set(k, params.get(k));
  const ids = (k) => (params.get(k) || '').split(',').map((x) => x.trim()).filter(Boolean);
  for (const id of ids('hide')) {
    const el = $(id);
    const box = el && (el.closest('.control') || el);
    if (box) box.hidden = true;
  }
  for (const id of ids('lock')) if ($(id)) $(id).disabled = true;
  document.body.classList.toggle('presenter', params.get('big') === '1');
  const lesson = LESSONS[params.get('lesson')];
  if (lesson) {
    const set = (id, v) => { $(id).value = String(v); };
    if (!params.has('clip') && lesson.set.clip) set('clip', Math.log10(lesson.set.clip));
    if (!params.has('sigma') && lesson.set.sigma !== undefined) set('sigma', lesson.set.sigma);
    if (!params.has('epochs') && lesson.set.epochs) set('epochs', lesson.set.epochs);
    if (!params.has('lot_size') && lesson.set.lot) set('lot-size', Math.log10(lesson.set.lot));
    if (!params.has('lot_size') && lesson.set.lotFraction) set('lot-size', Math.log10(lesson.set.lotFraction * nTrain));
    $('lesson').hidden = false;
    $('lesson').replaceChildren(Object.assign(document.createElement('strong'), { textContent: `${lesson.title}. ` }), lesson.text);
  }
}

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
  applyTeacherMode(params);
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

// Fits a canvas's pixels to its displayed size and returns the charts' scale: the device pixel
// ratio, times the growth beyond the 640 px the charts are designed for, so text and lines
// grow with the chart (a presenter layout on a projector gets large type, not just room).
function sizeCanvas(canvas) {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.round(canvas.clientWidth * dpr) || 560;
  const h = Math.round(w * 0.64);
  if (canvas.width !== w || canvas.height !== h) {
    canvas.width = w;
    canvas.height = h;
  }
  return dpr * Math.max(1, canvas.clientWidth / 640);
}

// Each chart is drawn in a task of its own (a few milliseconds each), so a redraw of all of
// them never holds the main thread for long; a redraw asked for while one is under way
// restarts the queue with fresh data instead of stacking up.
const CHART_DRAWS = [
  () => draw_accuracy_chart('accuracy-chart', JSON.stringify(history), pinnedJson(), readConfig().epochs, sizeCanvas($('accuracy-chart'))),
  () => draw_epsilon_chart('epsilon-chart', previewWithPld(), JSON.stringify(history), pinnedJson(), readConfig().epochs, $('log-log').checked, sizeCanvas($('epsilon-chart'))),
  () => draw_noise_chart('noise-chart', JSON.stringify(history), readConfig().epochs, sizeCanvas($('noise-chart'))),
  () => drawHistogram(),
  () => drawSigmaChart(),
];
let dirtyCharts = new Set(); // indices into CHART_DRAWS waiting to be drawn
let nextChart = 0;
let drawing = false;

function pinnedJson() {
  return JSON.stringify(pins.map((p) => ({ label: p.label, history: p.history })));
}

function drawCharts() {
  if (!wasmReady) return;
  CHART_DRAWS.forEach((_, i) => dirtyCharts.add(i));
  if (!drawing) {
    drawing = true;
    setTimeout(drawNextChart, 0);
  }
}

// Draws the next chart waiting, round robin from where the last one left off, so that fast
// reports cannot starve the charts late in the list.
function drawNextChart() {
  let i = nextChart;
  while (!dirtyCharts.has(i)) i = (i + 1) % CHART_DRAWS.length;
  dirtyCharts.delete(i);
  nextChart = (i + 1) % CHART_DRAWS.length;
  try {
    CHART_DRAWS[i]();
  } catch (e) {
    setStatus(`Could not draw the charts: ${e.message || e}`, true);
  }
  if (dirtyCharts.size) {
    setTimeout(drawNextChart, 0);
    return;
  }
  drawing = false;
  if (!document.body.dataset.ready) {
    // Loaded and drawn once: from here on the page is interactive (tests wait for this).
    window.labReadyAt = performance.now();
    document.body.dataset.ready = '1';
  }
}

function drawHistogram() {
  if (!wasmReady) return;
  try {
    draw_clipping_histogram('clipping-chart', lastNorms, readConfig().clip, sizeCanvas($('clipping-chart')));
  } catch (e) {
    setStatus(`Could not draw the histogram: ${e.message || e}`, true);
  }
}

// A message on a chart's canvas in place of the chart (while computing, or why there is none).
function drawCanvasMessage(canvas, text, scale) {
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = '#555';
  ctx.font = `${Math.round(16 * scale)}px sans-serif`;
  ctx.textAlign = 'center';
  ctx.fillText(text, canvas.width / 2, canvas.height / 2);
}

function drawSigmaChart() {
  if (!wasmReady) return;
  const cfg = readConfig();
  const scale = sizeCanvas($('sigma-chart'));
  if (!sigmaCurve) {
    drawCanvasMessage($('sigma-chart'), sigmaPanelMessage, scale);
    return;
  }
  try {
    draw_sigma_chart('sigma-chart', sigmaCurve.json, sigmaCurve.target, sigmaCurve.delta, cfg.epochs, cfg.sigma, scale);
  } catch (e) {
    setStatus(`Could not draw the σ panel: ${e.message || e}`, true);
  }
}

// DP-PCA's step as the accounting functions take it: sampling rate (every example) and σ_p,
// or no step.
const pcaArgs = (cfg) => (cfg.pca ? [1.0, cfg.pca_sigma] : [0, 0]);

// Asks the accounting worker for the σ-needed curves when (target ε, δ, q, epochs, DP-PCA)
// changed. Until the answer comes the panel says it is computing; answers to older requests
// are dropped, so a curve is never drawn under another target's caption.
function requestSigmaCurve(cfg) {
  const target = Number($('budget-eps').value);
  const q = cfg.lot_size / nTrain;
  const stepsPerEpoch = Math.max(1, Math.round(nTrain / cfg.lot_size));
  const maxEpochs = Math.max(SIGMA_PANEL_EPOCHS, cfg.epochs);
  const args = [target, cfg.delta, q, stepsPerEpoch, maxEpochs, ...pcaArgs(cfg)];
  const key = JSON.stringify(args);
  if (key === sigmaCurveKey) return;
  sigmaCurveKey = key;
  sigmaCurve = null;
  if (!(target > 0 && target <= 100)) {
    cancel('sigma-curve');
    sigmaPanelMessage = 'Set a target ε in (0, 100] under Privacy budget';
    setStatus(`Target ε must be a number in (0, 100]; got '${$('budget-eps').value}'.`, true);
    drawSigmaChart();
    return;
  }
  sigmaPanelMessage = 'Computing the σ each accountant needs…';
  ask('sigma-curve', args, (m) => {
    if (m.error) {
      sigmaPanelMessage = 'No σ panel for these settings (see the status line)';
      setStatus(`Cannot compute the σ panel: ${m.error}`, true);
    } else {
      sigmaCurve = { json: m.result, target, delta: cfg.delta };
    }
    drawSigmaChart();
  });
}

// Asks the accounting worker for the PLD accountant's curve when (q, σ, T, δ) changed; with
// DP-PCA on there is none (the worker's curve has no PCA step), so the chart shows four.
function requestPldCurve(cfg, q, stepsPerEpoch) {
  const key = [q, cfg.sigma, stepsPerEpoch, cfg.epochs, cfg.delta].join('|');
  if (cfg.pca || key === pldKey) {
    if (cfg.pca) pldKey = '';
    return;
  }
  pldKey = key;
  pldCurve = null;
  ask('pld-curve', [q, cfg.sigma, stepsPerEpoch, cfg.epochs, cfg.delta, 1e-3], (m) => {
    if (m.error) {
      setStatus(`Cannot compute the PLD curve: ${m.error}`, true);
      return;
    }
    pldCurve = JSON.parse(m.result);
    drawCharts();
  });
}

// The preview with the PLD curve merged in when it is there for the current settings.
function previewWithPld() {
  if (!pldCurve || !pldKey) return preview;
  const points = JSON.parse(preview);
  if (points.length !== pldCurve.length) return preview;
  points.forEach((p, i) => { p.pld = pldCurve[i]; });
  return JSON.stringify(points);
}

function updatePreview(cfg) {
  if (!wasmReady) return;
  const q = cfg.lot_size / nTrain;
  const stepsPerEpoch = Math.max(1, Math.round(nTrain / cfg.lot_size));
  try {
    const pcaQ = cfg.pca ? 1.0 : 0; // DP-PCA samples every training example (pca_sample = 1)
    preview = epsilon_curve(q, cfg.sigma, stepsPerEpoch, cfg.epochs, cfg.delta, pcaQ, cfg.pca_sigma);
    requestSigmaCurve(cfg);
    requestPldCurve(cfg, q, stepsPerEpoch);
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
      $('own-option').textContent = `Your data: ${ownName} (${m.n_train} train, ${m.n_test} test, ${m.n_features} features)`;
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
  ask('calibrate', args, (m) => {
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
const MAX_FILE_BYTES = 100 * 1024 * 1024;
let ownName = '';
$('data-file').addEventListener('change', async () => {
  const files = [...$('data-file').files];
  const select = $('label-column');
  select.replaceChildren();
  select.disabled = true;
  $('load-data').disabled = files.length === 0;
  if (files.length === 1 && !/\.(gz|idx|ubyte)$/i.test(files[0].name)) {
    const head = (await files[0].slice(0, 65536).text()).split(/\r?\n/)[0] || '';
    for (const name of head.split(',').map((c) => c.trim().replace(/^"|"$/g, ''))) {
      const o = document.createElement('option');
      o.value = name;
      o.textContent = name;
      select.appendChild(o);
    }
    select.value = select.options.length ? select.options[select.options.length - 1].value : '';
    select.disabled = select.options.length === 0;
  }
});
$('load-data').addEventListener('click', async () => {
  const files = [...$('data-file').files];
  if (files.length < 1 || files.length > 2) {
    setStatus('Choose one CSV file, or two IDX files (images and labels).', true);
    return;
  }
  const big = files.find((f) => f.size > MAX_FILE_BYTES);
  if (big) {
    setStatus(`${big.name} is ${(big.size / 1048576).toFixed(0)} MB; the limit is 100 MB. Nothing changed.`, true);
    return;
  }
  ownName = files.map((f) => f.name).join(' + ');
  const bytes = await Promise.all(files.map(async (f) => new Uint8Array(await f.arrayBuffer())));
  worker.postMessage({ type: 'own-data', files: bytes, label: $('label-column').value });
});

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
