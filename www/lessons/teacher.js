import { chart_layout } from '../pkg/dpsgd_lab.js';
import { settingsOf, stepOf } from './lessons.js';
import { shown } from '../core/shown.js';
import { presenting } from '../core/presenting.js';
// Teacher mode and lessons, read from the URL hash (docs/teaching.md says how to use them).
const $ = (id) => document.getElementById(id);

// Teacher mode, from the URL: `hide` and `lock` (comma-separated control ids), `big=1` for a
// presenter layout, `size` its text size, `predict=1` for predict-then-reveal, `lesson` and
// `step` for a lesson (lessons.js). Kept in the hash as the page rewrites it.
export const TEACHER_KEYS = ['teacher', 'hide', 'lock', 'big', 'size', 'predict', 'lesson', 'step'];
// The presenter's text sizes (`size` in the link): the stylesheet scales type and charts by it.
export const TEXT_SIZES = ['1', '1.25', '1.5'];
// The teacher keys the page keeps in its links now (applyTeacherMode's `kept`).
let keptNow = new URLSearchParams();

// The header's presenter toggle and text size: they change the layout in place (the run goes
// on) and the link. `relayout()` fits and redraws the charts.
export function setUpPresenter(relayout) {
  const set = (key, value) => {
    for (const p of [keptNow, new URLSearchParams(location.hash.slice(1))]) {
      if (value === null) p.delete(key);
      else p.set(key, value);
      if (p !== keptNow) window.history.replaceState(null, '', `#${p}`);
    }
    showPresenter(keptNow.get('big') === '1', keptNow.get('size'), keptNow.get('predict') === '1');
    relayout();
  };
  $('presenter').addEventListener('click', () =>
    set('big', document.body.classList.contains('presenter') ? null : '1'),
  );
  $('predict').addEventListener('click', () => set('predict', predictFirst() ? null : '1'));
  $('text-size').addEventListener('change', () =>
    set('size', $('text-size').value === '1' ? null : $('text-size').value),
  );
}
// What the last link's teacher keys changed, undone when another link is opened in place.
const applied = { hidden: [], locked: [] };

function undoTeacherMode() {
  for (const el of applied.hidden) el.hidden = false;
  for (const el of applied.locked) el.disabled = false;
  applied.hidden = [];
  applied.locked = [];
  for (const el of document.querySelectorAll('.lesson-chart, .lesson-control'))
    el.classList.remove('lesson-chart', 'lesson-control');
}

// What the presenter layout puts on the first screen without a lesson: the main charts and
// the four sliders of the paper's algorithm.
const PRESENTER_DEFAULT = {
  charts: ['accuracy-chart', 'epsilon-chart'],
  controls: ['sigma', 'clip', 'lot-size', 'lr'],
};

// Marks the charts and controls a lesson is about (the presenter layout shows them first),
// and the play and reset buttons, which every lesson uses.
function markShown(shows) {
  for (const id of shows.charts) $(id).closest('figure').classList.add('lesson-chart');
  for (const id of shows.controls)
    ($(id).closest('.control, .audit-controls') || $(id)).classList.add('lesson-control');
  $('play').closest('.buttons').classList.add('lesson-control');
}

// In the presenter layout, the highest the charts may be so that they, the lesson and the
// controls it uses fit the screen without scrolling (the stylesheet reads it). Returns whether
// the charts' height changed (they must be redrawn).
export function fitPresenter() {
  const body = document.body;
  const before = body.style.getPropertyValue('--chart-max-height');
  const fontsBefore = body.style.getPropertyValue('--chart-fit');
  if (!presenting()) {
    // Not shown (off, or a window narrower than the layout): no height of its to keep.
    body.style.removeProperty('--chart-max-height');
    body.style.removeProperty('--lesson-fit');
    body.style.removeProperty('--chart-fit');
    return before !== '' || fontsBefore !== '';
  }
  const figures = [...document.querySelectorAll('figure.lesson-chart')];
  const controls = [
    ...document.querySelectorAll('.controls .lesson-control, .audit-controls.lesson-control'),
  ];
  if (!figures.length) return false;
  body.style.setProperty('--chart-max-height', 'none');
  body.style.setProperty('--lesson-fit', '1');
  body.style.removeProperty('--chart-fit');
  const canvases = figures.map((f) => f.querySelector('canvas'));
  const topOf = () =>
    Math.min(...canvases.map((c) => c.getBoundingClientRect().top)) + window.scrollY;
  let top = topOf();
  const below = Math.max(
    ...figures.map(
      (f, i) => f.getBoundingClientRect().bottom - canvases[i].getBoundingClientRect().bottom,
    ),
  );
  // The controls below the charts take a row of their own; those above (the audit's button)
  // are already in `top`.
  const under = controls.filter((c) => c.getBoundingClientRect().top + window.scrollY >= top);
  const rows = under.length ? Math.max(...under.map((c) => c.getBoundingClientRect().height)) : 0;
  let least = minChart(canvases);
  // gaps, padding
  const room = () => Math.floor(window.innerHeight - top - below - rows - 40);
  // A step too long for the screen at a larger Text: its words a little smaller, step by step,
  // down to Text: normal's size at the least, before the charts' axes go below the screen
  // (1280 × 720 at Text: largest showed the top third of each chart).
  const floor = 1 / Number(body.style.getPropertyValue('--text-scale') || 1);
  for (let fit = 1; room() < least && fit > floor + 1e-9;) {
    fit = Math.max(floor, fit - 0.05);
    body.style.setProperty('--lesson-fit', fit.toFixed(3));
    top = topOf();
  }
  // Still too long with the words at their least (off the step at Text: largest: its "Off the
  // step" sentence, the run's verdict, a note on the lot), so that the charts themselves, not
  // only the controls below them, would reach below the screen: their labels come down toward
  // Text: normal's size, never below it, and with them the height the charts ask for.
  const chartsRoom = () => window.innerHeight - top - below - 8;
  let chartFit = 1;
  while (chartsRoom() < least && chartFit > 0) {
    chartFit = Math.max(0, chartFit - 0.25);
    body.style.setProperty('--chart-fit', String(chartFit));
    least = minChart(canvases);
  }
  let height = Math.max(least, room());
  body.style.setProperty('--chart-max-height', `${height}px`);
  // A chart that needs more than its shape gives (a row chart's rows) is that tall.
  body.style.setProperty('--chart-min-height', `${least}px`);
  // The controls may wrap to a second row: take what still sticks out off the charts.
  const bottom =
    Math.max(...[...figures, ...controls].map((e) => e.getBoundingClientRect().bottom)) +
    window.scrollY;
  if (bottom > window.innerHeight - 4 && height > least) {
    // From the charts' height on screen (their shape may hold them below the cap).
    const shown = Math.max(...canvases.map((c) => c.getBoundingClientRect().height));
    height = Math.max(
      least,
      Math.floor(Math.min(height, shown) - (bottom - window.innerHeight) - 8),
    );
    body.style.setProperty('--chart-max-height', `${height}px`);
  }
  const fonts = body.style.getPropertyValue('--chart-fit');
  return `${height}px` !== before || fonts !== fontsBefore;
}

// The lowest a presenter's charts may be: 180 px, 7.5 lines of their tick labels (the
// canvas's font-size, drawing.js: a header, the tick row with the x title folded in, a plot of
// 40% of the canvas), and at a larger Text, once a chart is drawn, what its layout says it
// needs (Rust's chart_layout `least`: a plot of 40% of the canvas, a row chart's rows apart).
// Where that is more than the screen has, the controls go below the first screen, not the
// plot (#53); at Text: normal the charts take what is left above the lesson's controls.
function minChart(canvases) {
  const larger = Number(document.body.style.getPropertyValue('--text-scale') || 1) > 1;
  const least = canvases.map((c) => {
    const tick = parseFloat(getComputedStyle(c).fontSize) || 0;
    let drawn = 0;
    try {
      const l = chart_layout(c.id);
      const k = c.width / c.clientWidth || 1;
      // Its layout's need, drawn at its labels' size then, at their size now (a row or a
      // legend line is a line of them; the plot a share of the rest).
      const labels = l?.fonts?.tick / k;
      drawn = (((larger && l?.least) || 0) / k) * (labels > 0 ? tick / labels : 1);
    } catch {
      // Before the lab's WebAssembly has loaded: no chart drawn yet.
    }
    return Math.max(Math.ceil(7.5 * tick), Math.ceil(drawn));
  });
  return Math.max(180, ...least);
}

// Refits the presenter layout whenever something above the charts changes height — the
// lesson's text, the status line, the run's notes, a message, the file ledger, the audit's
// status (a number filled in, a verdict or a note added), the ε chart's note on why two
// accountants differ: `relayout()` redraws the charts at
// their new size.
const WATCHED = [
  'lesson',
  'status',
  'run-notes',
  'message',
  'file-ledger',
  'audit-status',
  'epsilon-why',
];
export function keepPresenterFitted(relayout) {
  let last = '';
  // The refit in the next frame: it sets the step's words smaller (--lesson-fit), which
  // resizes what is watched, and done inside the observer's callback that is a loop error.
  let frame = 0;
  const observer = new ResizeObserver(() => {
    cancelAnimationFrame(frame);
    frame = requestAnimationFrame(() => {
      const sizes = WATCHED.map((id) => $(id).getBoundingClientRect().height).join();
      if (sizes === last) return;
      last = sizes;
      if (fitPresenter()) relayout();
      // What the refit itself changed is not a change to refit for.
      last = WATCHED.map((id) => $(id).getBoundingClientRect().height).join();
    });
  });
  for (const id of WATCHED) observer.observe($(id));
}

// A control a link may hide or lock: an element of the controls panel. The results, the
// status line, "What ε covers" and every "not private" badge are out of its reach: a link
// must not take away the words that say what ε does not cover.
function control(id) {
  const el = $(id);
  return el && el.closest('section.controls') ? el : null;
}

// Applies the teacher keys of `params` to the page; returns them (`kept`, to be kept in the hash
// as the page rewrites it) and the lesson's settings (`lesson`: keys of the settings table, for
// settings.apply); an id that is not a control is named in `problems`. Lessons are looked
// up in a Map: a user's string never reaches an object's prototype keys.
export function applyTeacherMode(params, problems = []) {
  undoTeacherMode();
  const kept = new URLSearchParams();
  for (const k of TEACHER_KEYS) if (params.has(k)) kept.set(k, params.get(k));
  const ids = (k) =>
    (params.get(k) || '')
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
  const refused = [];
  for (const id of ids('hide')) {
    const el = control(id);
    if (!el) refused.push(id);
    const box = el && (el.closest('.control') || el);
    if (box && !box.hidden) {
      box.hidden = true;
      applied.hidden.push(box);
    }
  }
  for (const id of ids('lock')) {
    const el = control(id);
    if (!el) refused.push(id);
    if (el && !el.disabled) {
      el.disabled = true;
      applied.locked.push(el);
    }
  }
  if (refused.length)
    problems.push(
      `teacher mode hides and locks controls only; ` +
        `"${shown(refused.join(', '))}" ${refused.length > 1 ? 'are' : 'is'} not one and ` +
        `stayed as ${refused.length > 1 ? 'they were' : 'it was'}`,
    );
  showPresenter(params.get('big') === '1', params.get('size'), params.get('predict') === '1');
  const step = stepOf(params);
  const asked = params.get('lesson');
  if (asked !== null && asked !== '' && !step)
    problems.push(`lesson = '${shown(asked)}' is not one of the lessons: none is opened`);
  const number = params.get('step');
  if (step && number !== null && number !== String(step.index + 1))
    problems.push(
      `step = '${shown(number)}' is not a step of "${step.lesson.title}": step ` +
        `${step.index + 1} of ${step.lesson.steps.length} is opened`,
    );
  if (step) {
    kept.set('step', String(step.index + 1));
    const { charts, controls } = step.lesson.steps[step.index];
    markShown({ charts, controls });
  } else {
    kept.delete('lesson');
    kept.delete('step');
    markShown(PRESENTER_DEFAULT);
  }
  keptNow = kept;
  return { kept, lesson: step ? settingsOf(step.lesson, step.index) : {}, step };
}

// The presenter layout on or off, at text size `size` (one of TEXT_SIZES; another is 1), with
// predict-then-reveal on or off (`predict`: a presenter's, for the room; a student's copy of
// the link opened outside the presenter layout shows every result).
export function showPresenter(big, size, predict) {
  document.body.classList.toggle('presenter', big);
  const scale = size !== null && TEXT_SIZES.includes(size) ? size : '1';
  document.body.style.setProperty('--text-scale', scale);
  $('presenter').setAttribute('aria-pressed', String(big));
  $('text-size').hidden = !big;
  $('text-size').value = scale;
  $('predict').hidden = !big;
  $('predict').setAttribute('aria-pressed', String(big && predict));
}

/**
 * Whether the presenter asked for predict-then-reveal (#53 §9): a step's results wait for Reveal.
 */
export const predictFirst = () =>
  presenting() && $('predict').getAttribute('aria-pressed') === 'true';
