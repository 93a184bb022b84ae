// @ts-check
// The "Is Alice in the data?" panel (#41 §2): one real training example, Alice, and the
// audit's own runs (audit-worker.js, `AuditSession` with `alice` in its spec: the realistic
// threat with her as the canary) — the current settings trained R times without her (D′) and R
// times with her (D), the loss on her in each, as two histograms, with the line of the
// threshold test at 5% false alarms (the one the sentence quotes) and what ε allows. Alice is the
// point clicked on the decision-boundary chart (2-D sets, when it shows the training points) or the
// lab's pick. Every number comes from Rust (`audit::alice`); this file only hands out runs, draws
// and says Rust's sentence.
import {
  audit_worker_bytes,
  chart_layout,
  draw_alice,
  draw_alice_image,
} from '../pkg/dpsgd_lab.js';
import { AuditJob } from './audit-job.js';
import { drawCanvasMessage, sizeCanvas } from '../views/drawing.js';
import { showMessage } from '../core/messages.js';
import { auditWorkerPlan } from '../views/cores.js';
import { configKey } from '../lab/config-key.js';
import { settings } from '../lab/settings.js';
import { dataKeyOf } from '../core/data-loader.js';

const $ = (id) => document.getElementById(id);
const button = (id) => /** @type {HTMLButtonElement} */ ($(id));
const THREAT = 'realistic';

let job = null; // the runs under way: {run (audit-job.js), config, index}
let last = null; // {result, config (JSON)} of the last finished Alice audit
// {index, data}: the training row clicked and its data set (dataKeyOf), or null for the lab's pick
let chosen = null;
let host = null;

function setProgress(done, total) {
  const bar = /** @type {HTMLProgressElement} */ ($('alice-progress'));
  bar.max = Math.max(total, 1);
  bar.value = done;
  $('alice-progress-text').textContent = total ? `${done} / ${total} runs` : '';
}

function stop(text) {
  job?.run.cancel();
  job = null;
  button('alice-start').disabled = false;
  button('alice-cancel').disabled = true;
  if (text !== undefined) $('alice-status').textContent = text;
}

// What Alice's job (audit-job.js) says, in the panel's words.
/** @type {import('./audit-job.js').JobEvents} */
const EVENTS = {
  progress: (done, total) => setProgress(done, total),
  combining: () => {
    $('alice-status').textContent = 'Comparing the runs with what ε allows…';
  },
  finished: (results, seconds) => {
    const {
      run: { total },
      config,
      index,
    } = job;
    stop(`${total} runs in ${seconds.toFixed(1)} s.`);
    last = { result: results.get(THREAT), config: configKey(config), index };
    draw();
  },
  failed: (why, worker) => {
    if (why === null) return stop('Stopped: a worker sent a message the page does not understand.');
    showMessage(worker ? `Alice's worker failed: ${why}` : `Alice: ${why}`);
    stop(worker ? 'Stopped.' : 'Stopped (see the message above).');
  },
};

const chosenIndex = () => chosen?.index ?? null;
// Whether the last result is of the settings and the Alice now chosen.
const current = () =>
  !!last && last.config === configKey(host.readConfig()) && last.index === chosenIndex();

// Fades the chart and its sentence the moment the settings, or the Alice chosen, differ from
// those it trained, and says so in words (a faded ε is still read out by a screen reader), as
// the audit does.
function markStale() {
  const stale = !!last && !current();
  $('alice-chart').closest('figure').classList.toggle('stale', stale);
  $('alice-summary').classList.toggle('stale', stale);
  $('alice-stale').hidden = !stale;
  $('alice-stale').textContent = stale
    ? 'The settings or Alice have changed since these runs: the chart and the sentence below ' +
      'are for those they trained, not for this run. Train with and without Alice again to ' +
      "see this run's."
    : '';
}

// Draws the last result (also after a resize) and says it in words; then the host reads it
// (the lesson's claims, and the presenter the height its layout asks for: drawn at a larger
// Text, the chart may ask for more than the refit before it gave — as the audit's draw does).
export function draw() {
  const a = last?.result?.alice;
  if (!a) return;
  markStale();
  draw_alice('alice-chart', a, sizeCanvas($('alice-chart')));
  const who = a.alice;
  const at = who.x.length === 2 ? `, at (${who.x.map((v) => v.toFixed(2)).join(', ')})` : '';
  const kinds = who.categories.length ? `: ${who.categories.join(', ')}` : '';
  $('alice-who-text').textContent = `Alice: ${who.picked} (class ${who.class_name}${at})${kinds}.`;
  // On an image set, who she is: her picture.
  const image = /** @type {HTMLCanvasElement} */ ($('alice-image'));
  image.hidden = !who.image_side;
  if (who.image_side) draw_alice_image('alice-image', who);
  $('alice-summary').textContent = a.summary;
  host.drawn();
}

// Rust's result for `config` ({alice: AliceResult, region, …}), if the last run was of it.
export const aliceOf = (config) =>
  last && last.config === configKey(config) && last.index === chosenIndex() ? last.result : null;
export const lastAlice = () => last?.result ?? null;

function start() {
  if (job) return;
  if (host.ownData()) {
    showMessage(
      'Alice is picked from the built-in data sets only: the runs with and without her ' +
        'release how they differ, which no ε covers.',
    );
    return;
  }
  const runs = settings.get('audit_runs');
  if (!Number.isInteger(runs) || runs < 2 || runs > 1000) {
    showMessage('Runs per side (under Audit this run) must be a whole number from 2 to 1000.');
    return;
  }
  // a point clicked on another data set (changed by a lesson or a link) is not Alice here
  dataChanged();
  const config = host.readConfig();
  // The run's own seed when it has one (a lesson's runs repeat), else a fresh one.
  const seed = Number.isInteger(config.seed)
    ? config.seed
    : crypto.getRandomValues(new Uint32Array(1))[0];
  const spec = { threat: THREAT, runs, canaries: 0, seed, alice: { index: chosenIndex() } };
  let bytes = NaN;
  try {
    bytes = audit_worker_bytes(host.facts(config), 0, true);
  } catch {
    /* facts not known yet: cores.js plans without */
  }
  const n = auditWorkerPlan(bytes).count;
  job = { run: new AuditJob(n, config, [spec], EVENTS), config, index: chosenIndex() };
  button('alice-start').disabled = true;
  button('alice-cancel').disabled = false;
  setProgress(0, 0);
  $('alice-status').textContent =
    `Picking Alice and training ${runs} runs with her and ${runs} without on ${n} ` +
    `worker${n > 1 ? 's' : ''}…`;
  drawCanvasMessage($('alice-chart'), 'Training with and without Alice…');
}

// The decision-boundary chart's plot as drawn (Rust's layout, in canvas pixels) against the
// run's plane (bounds [x0, x1, y0, y1], points [x, y, label, …]): null unless it shows the
// training points, in order.
function planeOnCanvas() {
  const plane = host.plane();
  const canvas = /** @type {HTMLCanvasElement} */ ($('boundary-chart'));
  const lay = chart_layout('boundary-chart');
  if (!plane?.training_points || !lay?.plot || !canvas.clientWidth) return null;
  const k = canvas.width / canvas.clientWidth; // canvas pixels per CSS pixel
  const [x0, x1, y0, y1] = plane.bounds;
  const { x, y, w, h } = lay.plot;
  return {
    points: plane.points,
    // CSS offset in the canvas → plane coordinates, and back.
    toPlane: (cx, cy) => [x0 + ((cx * k - x) / w) * (x1 - x0), y1 - ((cy * k - y) / h) * (y1 - y0)],
    toCanvas: (px, py) => [
      (x + ((px - x0) / (x1 - x0)) * w) / k,
      (y + ((y1 - py) / (y1 - y0)) * h) / k,
    ],
  };
}

// Where training point `i` is drawn, as a CSS offset in the boundary chart (the tests click it).
export function pointOnChart(i) {
  const p = planeOnCanvas();
  return p && 3 * i + 1 < p.points.length ? p.toCanvas(p.points[3 * i], p.points[3 * i + 1]) : null;
}

// A click on the decision-boundary chart, when it shows the training points, picks the nearest
// as Alice.
function pickAt(ev) {
  const p = planeOnCanvas();
  if (!p) return;
  const r = $('boundary-chart').getBoundingClientRect();
  const [px, py] = p.toPlane(ev.clientX - r.left, ev.clientY - r.top);
  let best = -1;
  let dist = Infinity;
  for (let i = 0; 3 * i + 1 < p.points.length; i += 1) {
    const d = (p.points[3 * i] - px) ** 2 + (p.points[3 * i + 1] - py) ** 2;
    if (d < dist) [best, dist] = [i, d];
  }
  if (best < 0) return;
  choose(best);
}

// Alice: training row `index` of the data set on show (clicked), or the lab's pick (null);
// `why` says why the choice went back to the lab's pick.
function choose(index, why = '') {
  chosen = index === null ? null : { index, data: dataKeyOf(host.readConfig()) };
  $('alice-choice').textContent =
    index === null
      ? `the lab's pick (the largest loss under a non-private model)${why}`
      : `training example ${index} (clicked)`;
  markStale();
}

// A clicked point belongs to its data set: another data set (or another draw of a 2-D set)
// goes back to the lab's pick.
function dataChanged() {
  if (chosen && chosen.data !== dataKeyOf(host.readConfig()))
    choose(null, ': the point clicked was on another data set');
  markStale();
}

// Wires the panel. `h`: readConfig(), ownData(), facts(config), plane() (the run's plane:
// bounds, points, training_points), drawn() (a result was drawn: the lesson reads it).
export function setUpAlice(h) {
  host = h;
  $('alice-start').addEventListener('click', start);
  $('alice-cancel').addEventListener('click', () => {
    stop('Cancelled: its workers were stopped.');
    setProgress(0, 0);
  });
  $('alice-lab-pick').addEventListener('click', () => choose(null));
  $('boundary-chart').addEventListener('click', pickAt);
  settings.onInput(dataChanged);
  window.addEventListener('hashchange', () => setTimeout(dataChanged, 0));
  choose(null);
  drawCanvasMessage($('alice-chart'), 'Press “Train with and without Alice”');
}
