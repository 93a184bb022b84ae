// Teacher mode and lessons, read from the URL hash (docs/teaching.md says how to use them).
const $ = (id) => document.getElementById(id);

// Teacher mode, from the URL: `hide` and `lock` (comma-separated control ids), `big=1` for a
// presenter layout, `lesson` for a preset. Kept in the hash as the page rewrites it.
export const TEACHER_KEYS = ['teacher', 'hide', 'lock', 'big', 'lesson'];
const LESSONS = new Map(Object.entries({
  clipping: {
    title: 'What clipping does',
    set: { clip: 0.1, sigma: 1, epochs: 10 },
    shows: { charts: ['accuracy-chart', 'clipping-chart'], controls: ['clip', 'sigma'] },
    text: 'C is small: most gradients are clipped (orange bars). Drag C up to 5 and watch the histogram and the accuracy: too small a C throws signal away, too large a C lets the noise σC grow.',
  },
  moments: {
    title: 'Why the moments accountant matters',
    set: { sigma: 4, epochs: 100, lot_size: 326, amplification: 'paper' }, // q ≈ 0.01 on Adult
    shows: { charts: ['accuracy-chart', 'epsilon-chart'], controls: ['sigma', 'epochs', 'lot-size'] },
    text: 'The paper\'s setting: q = 0.01, σ = 4, with naive and strong composition in the paper\'s own (optimistic) convention, as in its Fig. 2. The naive bound grows like the number of epochs, strong composition like its square root, and the moments accountant barely moves: about 1.26 at 100 epochs where strong composition says 9.34 — and the exact strong bound (switch the ε chart to it) is larger still. The σ panel turns it around: the noise each accountant would need to stay within the target ε.',
  },
  audit: {
    title: 'What ε means: an attack',
    set: { dataset: 'blobs', model: 'logistic', lot_size: 60, epochs: 20, sigma: 0, audit_runs: 300 },
    shows: { charts: ['accuracy-chart', 'epsilon-chart'], controls: ['sigma', 'epochs'] },
    text: 'Small 2-D data, clipping but σ = 0: press "Audit this run" below. An attacker who only sees the final model tells runs with an odd, mislabeled point from runs without it almost every time — it proves ε ≥ 2.5 to 3.6 (at most 3.7 with 300 runs a side), and without noise the accountant promises nothing. Now set σ to 2 and audit again: the same attack proves nothing, and the worst-case attack, which sees every step, still cannot leave the grey region the accountant draws.',
  },
  cost: {
    title: 'What privacy costs',
    set: { dataset: 'breast-cancer', model: 'logistic', sigma: 4, lot_size: 32, lr: 0.5, epochs: 10 },
    shows: { charts: ['accuracy-chart', 'epsilon-chart'], controls: ['sigma', 'lot-size', 'compare'] },
    text: 'On Adult, 32,561 people hide one person cheaply and DP-SGD matches non-private training. Here there are 455 patients: press Compare and watch DP-SGD (ε ≈ 1) end about three points below non-private training, with clipping alone and noise alone in between.',
  },
  noise: {
    title: 'When noise drowns the signal',
    set: { sigma: 8, lot_size: 32, epochs: 10 },
    shows: { charts: ['accuracy-chart', 'noise-chart'], controls: ['lot-size', 'sigma'] },
    text: 'A small lot with much noise: in the lower right chart the noise is far above the clipped signal. Raise L and watch the gap close, and the accuracy recover, at a price in ε.',
  },
}));
// What the last link's teacher keys changed, undone when another link is opened in place.
const applied = { hidden: [], locked: [] };

function undoTeacherMode() {
  for (const el of applied.hidden) el.hidden = false;
  for (const el of applied.locked) el.disabled = false;
  applied.hidden = [];
  applied.locked = [];
  for (const el of document.querySelectorAll('.lesson-chart, .lesson-control')) el.classList.remove('lesson-chart', 'lesson-control');
  $('lesson').hidden = true;
  $('lesson').replaceChildren();
}

// What the presenter layout puts on the first screen without a lesson: the main charts and
// the four sliders of the paper's algorithm.
const PRESENTER_DEFAULT = { charts: ['accuracy-chart', 'epsilon-chart'], controls: ['sigma', 'clip', 'lot-size', 'lr'] };

// Marks the charts and controls a lesson is about (the presenter layout shows them first),
// and the play and reset buttons, which every lesson uses.
function markShown(shows) {
  for (const id of shows.charts) $(id).closest('figure').classList.add('lesson-chart');
  for (const id of shows.controls) ($(id).closest('.control') || $(id)).classList.add('lesson-control');
  $('play').closest('.buttons').classList.add('lesson-control');
}

// In the presenter layout, the highest the charts may be so that they, the lesson and the
// first row of controls fit the screen without scrolling (the stylesheet reads it).
export function fitPresenter() {
  const body = document.body;
  if (!body.classList.contains('presenter')) return;
  body.style.setProperty('--chart-max-height', 'none');
  const figures = [...document.querySelectorAll('figure.lesson-chart')];
  const controls = [...document.querySelectorAll('.controls > .lesson-control')];
  if (!figures.length) return;
  const top = Math.min(...figures.map((f) => f.querySelector('canvas').getBoundingClientRect().top)) + window.scrollY;
  const below = Math.max(...figures.map((f) => f.getBoundingClientRect().bottom - f.querySelector('canvas').getBoundingClientRect().bottom));
  const rows = controls.length ? Math.max(...controls.map((c) => c.getBoundingClientRect().height)) : 0;
  const room = window.innerHeight - top - below - rows - 40; // gaps, the panel's padding
  body.style.setProperty('--chart-max-height', `${Math.max(180, Math.floor(room))}px`);
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
  const ids = (k) => (params.get(k) || '').split(',').map((x) => x.trim()).filter(Boolean);
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
  if (refused.length) problems.push(`teacher mode hides and locks controls only; "${refused.join(', ').slice(0, 80)}" ${refused.length > 1 ? 'are' : 'is'} not one and stayed as ${refused.length > 1 ? 'they were' : 'it was'}`);
  document.body.classList.toggle('presenter', params.get('big') === '1');
  const lesson = LESSONS.get(params.get('lesson'));
  markShown(lesson ? lesson.shows : PRESENTER_DEFAULT);
  if (lesson) {
    $('lesson').hidden = false;
    $('lesson').replaceChildren(Object.assign(document.createElement('strong'), { textContent: `${lesson.title}. ` }), lesson.text);
  }
  return { kept, lesson: lesson ? lesson.set : {} };
}
