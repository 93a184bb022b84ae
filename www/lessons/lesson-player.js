// @ts-check
// The lesson player: the picker and presenter toggle in the header, the lesson panel with its
// steps (Back / Next; Print worksheet is worksheet.js), and the sentences of the step on
// screen, filled from the run's own numbers each time they change. The URL names the lesson
// and the step (`lesson`, `step`), so a link opens exactly there; a step is entered through
// the link like any other, putting the lesson's settings on the controls (link.js).
// A step that compares with the one before it (`compare: 'run'`) pins the earlier step's run
// on the charts — the one just shown when the class pressed Next, or trained again for a link,
// with the settings on screen but what the earlier step sets differently.
import { accuracy_gap, adds_noise } from '../pkg/dpsgd_lab.js';
import { LESSONS, settingsOf } from './lessons.js';
import { factsOf, fillIn, fillers } from './lesson-facts.js';
import { claimsOf } from './lesson-claims.js';
import { keepPresenterFitted, predictFirst, setUpPresenter } from './teacher.js';
import { setUpWorksheet } from './worksheet.js';
import { sameConfig } from '../lab/config-key.js';
import { settings } from '../lab/settings.js';
import { presenting } from '../core/presenting.js';

const $ = (/** @type {string} */ id) => /** @type {any} */ (document.getElementById(id));

/** @typedef {import('./lessons.js').Lesson} Lesson */
/** @typedef {import('./lesson-facts.js').Facts} Facts */

let on = null; // {name, lesson, index} of the step on screen, or null
let prev = null; // the facts of the step before, as its run ended (or its preview)
let prevConfig = null; // the config of the step before, when only its preview is compared
let earlierConfig = null; // the config of the step before's run, when it is pinned ('run')
let carried = null; // {name, index, facts, cfg, history}: the run on screen when Next was pressed
let pressed = false; // the step's `then` button was pressed for this entry
let host = null;
let pressing = false; // the step is pressing its `then` button now
let revealed = false; // predict-then-reveal: the step on screen was revealed
// The step a key or button asked for whose link the page has not opened yet ({name: null}: the
// lesson closed), else null: a clicker's second press before the first's link is opened moves on
// from where the first went, not again from the step on screen.
let heading = null;

/** Whether the lesson is pressing its step's button now (its runs are the lesson's own). */
export const lessonPressing = () => pressing;

/**
 * Wires the header's picker, the presenter toggle, the text size and the panel's buttons.
 * `h` gives what the lesson reads: the run on screen, its data facts, preview and PLD curve,
 * the compared runs' gap, the audit of these settings and Rust's "learned nothing" verdict.
 */
export function setUpLessonPlayer(h) {
  host = h;
  const pick = $('lesson-pick');
  pick.append(...[...LESSONS].map(([name, l]) => new Option(l.title, name)));
  pick.addEventListener('change', () => go(pick.value || null, 0));
  $('lesson-back').addEventListener('click', () => move(-1));
  $('lesson-next').addEventListener('click', next);
  $('lesson-close').addEventListener('click', () => go(null, 0));
  $('lesson-reveal').addEventListener('click', reveal);
  // A presenter's clicker (#53): PageDown, → and Space go on, PageUp and ← go back, while a
  // lesson is open and no field has the focus (a slider's arrows and a menu's keys stay
  // theirs); on a focused button or link (the QR code's, after its dialog closed) only Space
  // and Enter stay its own.
  document.addEventListener('keydown', (e) => {
    const target = /** @type {any} */ (e.target);
    if (!on || e.altKey || e.ctrlKey || e.metaKey || e.defaultPrevented) return;
    if (target?.closest?.('input, select, textarea, dialog, [contenteditable], [role="region"]'))
      return; // a region scrolls
    if (target?.closest?.('button, summary, a') && (e.key === ' ' || e.key === 'Enter')) return;
    const onward = ['PageDown', 'ArrowRight', ' '].includes(e.key);
    if (onward && concealed()) {
      // the clicker's next key reveals a step before it moves on
      e.preventDefault();
      reveal();
      return;
    }
    // From the step asked for last: the buttons are the one on screen's (← just after PageDown).
    const by = onward ? 1 : ['PageUp', 'ArrowLeft'].includes(e.key) ? -1 : 0;
    if (!by || !stepFrom(by)) return;
    e.preventDefault();
    if (by > 0) next();
    else move(-1);
  });
  setUpWorksheet(() => on?.name ?? null);
  const relayout = () => {
    conceal();
    window.dispatchEvent(new Event('resize'));
  };
  setUpPresenter(relayout);
  keepPresenterFitted(relayout);
}

// Outside the presenter layout (a laptop, a phone: the page in one long column), opening a
// step brings what it is about into view (#53): its button (Audit this run, Alice's, Compare)
// if it has one, else its first chart — scrolled the least that shows it whole (the phones'
// slider strip kept clear: style.css scroll-margin), so the lesson's text above stays in view
// where the screen allows.
function bringIntoView(step) {
  if (presenting()) return;
  const { button, target } = targetOf(step);
  if (!target || !target.getClientRects().length) return;
  const r = target.getBoundingClientRect();
  const whole = r.top >= 0 && (r.bottom <= window.innerHeight || r.height > window.innerHeight);
  // A button centred (room for the text above it to grow), a chart scrolled the least.
  if (!whole) target.scrollIntoView({ block: button ? 'center' : 'nearest' });
}

// What a step is about: its button shown, if it has one, else its first chart's figure.
function targetOf(step) {
  const button = step.controls
    .map((id) => $(id))
    .find((el) => el?.tagName === 'BUTTON' && el.getClientRects().length);
  return { button, target: button ?? $(step.charts[0])?.closest('figure') };
}

// What a student does to move the page: it ends keepInView's watch (and a scroll of theirs,
// by the scroll bar: one away from where the watch left the page).
const MOVES = ['wheel', 'touchstart', 'pointerdown', 'keydown'];
const SETTLE_MS = 15_000;
let settling = null;

// Brings the step into view once laid out, and again each time the page's size changes while
// it settles (its first numbers fill the lesson's text, a status line appears, a chart is
// resized; a busy machine may take seconds) — until the student moves the page or opens another
// step, or SETTLE_MS pass. (One look after a fixed delay missed later growth under load.) It
// watches the target, every box it sits in and every box before those, not the page alone:
// text growing above a chart in the charts' column moved the chart without changing the page's
// height (the controls' column is the taller), and a busy laptop was left with the chart half
// below the screen. A
// scroll to where this watch last left the page is its own, whenever its event comes (under
// load it came more than 200 ms after the resize, and was taken for the student's).
function keepInView(entered, step) {
  settling?.();
  let left = null; // the scroll position this watch last left the page at
  const again = () => {
    if (on === entered) bringIntoView(step);
    left = window.scrollY;
  };
  const scrolled = () => left !== null && Math.abs(window.scrollY - left) > 1 && stop();
  const watch = new ResizeObserver(again);
  const stop = () => {
    watch.disconnect();
    clearTimeout(timer);
    for (const e of MOVES) window.removeEventListener(e, stop, true);
    window.removeEventListener('scroll', scrolled);
    if (settling === stop) settling = null; // an older watch's timer leaves a newer one be
  };
  const timer = setTimeout(stop, SETTLE_MS);
  for (const e of MOVES) window.addEventListener(e, stop, { capture: true, passive: true });
  window.addEventListener('scroll', scrolled, { passive: true });
  settling = stop;
  // Its first call: now.
  for (let box = targetOf(step).target ?? document.body; box; box = box.parentElement) {
    watch.observe(box);
    for (let above = box.previousElementSibling; above; above = above.previousElementSibling)
      watch.observe(above);
  }
}

// Predict, then reveal (#53 §9): with the presenter's toggle on, a step opens with its results
// hidden — the lesson's sentences replaced by a line that says so, the charts, status line, run
// log and the audit's and Alice's words not drawn (style.css, body.concealed), so the class
// answers the question first — until Reveal or the clicker's next key. What the runs computed
// meanwhile is drawn then.
const concealed = () => !!on && !revealed && predictFirst();

// Hides or shows the step's results as concealed() says; the lesson's text is rewritten when
// that changed (a step entered is filled in by its first refresh).
function conceal(refresh = true) {
  const hide = concealed();
  const changed = document.body.classList.contains('concealed') !== hide;
  document.body.classList.toggle('concealed', hide);
  $('lesson-reveal').hidden = !hide;
  if (changed && refresh) refreshLesson();
}

function reveal() {
  revealed = true;
  conceal();
}

// Moves on a step; the run on screen, done, goes as the next step's earlier run (if not moved on).
function next() {
  if (!on) return;
  const run = host.run();
  const { name, index } = on;
  const facts = !heading && run && !run.pin && host.done() ? current() : null;
  if (facts) carried = { name, index, facts, cfg: run.cfg, history: run.history };
  move(1);
}

// The step `by` steps from the one last asked for (the one on screen, or the one a press before
// this asked for whose link is not open yet), or null where the lesson has none.
function stepFrom(by) {
  const at = heading ?? on;
  const index = at?.name ? at.index + by : -1;
  return index >= 0 && index < LESSONS.get(at.name).steps.length ? { name: at.name, index } : null;
}

function move(by) {
  const to = stepFrom(by);
  if (to) go(to.name, to.index);
}

// Opens `name`'s step `index` (null: no lesson) by its link, keeping the teacher's own keys.
function go(name, index) {
  heading = { name, index };
  const params = new URLSearchParams(location.hash.slice(1));
  const keep = new URLSearchParams();
  for (const k of ['teacher', 'big', 'size', 'predict', 'hide', 'lock'])
    if (params.has(k)) keep.set(k, params.get(k) ?? '');
  if (name) {
    keep.set('lesson', name);
    keep.set('step', String(index + 1));
  }
  location.hash = keep.toString();
}

/**
 * Shows the step a link names (`step`: stepOf's answer) and returns the runs to pin before
 * its own: the earlier step's run when this one compares with it. `configWith(part)` is the
 * run config of the settings with `part` over them.
 * @returns {{label: string, cfg: any, lessonStep: true}[]}
 */
export function enterStep(step, configWith) {
  on = step;
  // the step asked for last is open (another press may be on its way: it stays the one to
  // move on from)
  if (heading?.name === (step?.name ?? null) && (!step || heading.index === step.index))
    heading = null;
  revealed = false;
  prev = null;
  prevConfig = null;
  earlierConfig = null;
  pressed = false;
  $('lesson-pick').value = step ? step.name : '';
  $('lesson').hidden = !step;
  conceal(false);
  if (!step) {
    carried = null;
    return [];
  }
  const { lesson, index } = step;
  requestAnimationFrame(() => keepInView(step, lesson.steps[index]));
  $('lesson-title').textContent = lesson.title;
  $('lesson-count').textContent = `Step ${index + 1} of ${lesson.steps.length}`;
  $('lesson-ask').textContent = lesson.steps[index].ask;
  $('lesson-back').disabled = index === 0;
  $('lesson-next').disabled = index === lesson.steps.length - 1;
  const before = index > 0 ? lesson.steps[index - 1] : null;
  const mode = lesson.steps[index].compare;
  const earlier =
    carried && carried.name === step.name && carried.index === index - 1 ? carried : null;
  carried = null;
  if (!before || !mode) return [];
  // The earlier step's run differs from the one on screen only in what the earlier step sets
  // differently (C = 0.1 against C = 1): a student's own change (another seed, σ moved) is
  // carried into both, so the comparison stays one setting against another.
  const cfg = earlierStepConfig(lesson, index, configWith);
  if (mode === 'preview') {
    prevConfig = cfg; // its preview needs the data set's facts: read when the lesson is filled
    return [];
  }
  earlierConfig = cfg;
  if (cfg.dataset === 'own') return []; // no run on a student's file unasked (earlierRunsAfterMove)
  if (earlier && sameConfig(earlier.cfg, cfg)) {
    prev = earlier.facts;
    host.pin(before.label, cfg, earlier.history);
    return [];
  }
  return [{ label: before.label, cfg, lessonStep: true }];
}

// The settings a step's sentences rest on: its own, and δ at the lab's default (every ε a step
// says is at it; "the paper's setting" is δ = 1e-5). A step opens at the defaults (its link
// resets them, main.js), so δ moved is a setting moved off the step.
function wantOf(step) {
  const delta = settings.defaults?.delta;
  return { ...(delta === undefined ? {} : { delta }), ...settingsOf(step.lesson, step.index) };
}

// The earlier step's run config: the settings now with what the earlier step sets differently.
function earlierStepConfig(lesson, index, configWith) {
  const was = settingsOf(lesson, index - 1);
  const is = settingsOf(lesson, index);
  return configWith(Object.fromEntries(Object.entries(was).filter(([key, v]) => is[key] !== v)));
}

/**
 * A setting moved inside a step that compares with the step before: the runs to train first,
 * so that both runs have the move (docs/teaching.md). A pinned earlier run is trained again
 * when its settings now differ, or when it never ended (the move cancelled it); a compared
 * preview is read again. `configWith` as enterStep's.
 * @returns {{label: string, cfg: any, lessonStep: true}[] | null}
 */
export function earlierRunsAfterMove(configWith) {
  if (!on || on.index === 0) return [];
  const { lesson, index } = on;
  const mode = lesson.steps[index].compare;
  if (!mode) return [];
  const cfg = earlierStepConfig(lesson, index, configWith);
  if (mode === 'preview') {
    if (!sameConfig(prevConfig, cfg)) [prevConfig, prev] = [cfg, null];
    return [];
  }
  if (prev && sameConfig(earlierConfig, cfg)) return [];
  [earlierConfig, prev] = [cfg, null];
  // Never a run on a student's file the student did not ask for (each spends its ε): no
  // earlier run, and its old pin of other data goes (null).
  if (cfg.dataset === 'own') return null;
  return [{ label: lesson.steps[index - 1].label, cfg, lessonStep: true }];
}

/** A lesson's earlier step, trained for comparison, has ended: its facts are the step's `prev`. */
export function earlierStepDone(run) {
  if (on && run.pin?.lessonStep)
    prev = factsOf({
      ...host.sources(),
      cfg: run.cfg,
      history: run.history,
      done: true,
      prev: null,
      gap: accuracy_gap,
    });
}

// The facts of the run on screen.
function current() {
  const earlier = !prev && prevConfig ? host.factsOfConfig(prevConfig) : null;
  if (earlier) prev = factsOf({ ...earlier, prev: null, gap: accuracy_gap });
  return { ...factsOf({ ...host.sources(), prev, gap: accuracy_gap }), addsNoise: adds_noise };
}

// The label of the earlier step's run when that is the run training on screen (not one of the
// runs the step's Compare queued, also the lesson's), else undefined.
function earlierTraining(run, step) {
  const before = on && on.index > 0 ? on.lesson.steps[on.index - 1] : null;
  const pin = run?.pin;
  return pin?.lessonStep && step.compare === 'run' && pin.label === before?.label
    ? pin.label
    : undefined;
}

/** Fills the step's sentences from the run on screen; presses its button once its run is set. */
export function refreshLesson() {
  if (!on || !host) return;
  const run = host.run();
  const step = on.lesson.steps[on.index];
  if (step.then && !pressed && run && !run.pin && host.ready()) {
    pressed = true;
    pressing = true; // the runs it queues are the lesson's: pinned, never carried in a link
    try {
      host.press(step.then);
    } finally {
      pressing = false;
    }
  }
  // The run on screen now: a button just pressed (Compare) may have queued another in its
  // place, whose facts these are (its non-private run read as the step's own said "No noise").
  const shown = host.run();
  const facts = current();
  const fill = fillers(host.fmtEps, host.accountants());
  // The step's premises checked first (noise present, its settings in force): lesson-claims.js.
  const { parts, ask } = claimsOf(
    step,
    wantOf(on),
    facts,
    (t) => fillIn(t, facts, fill),
    !!shown && !shown.pin,
    earlierTraining(shown, step),
  );
  $('lesson-ask').textContent = ask;
  const spans = parts
    .filter((p) => p.text)
    .map((p) => {
      const span = document.createElement('span');
      span.textContent = `${p.text} `;
      if (p.claim !== undefined && p.claim !== null)
        span.dataset.claim = p.claim ? 'holds' : 'fails';
      return span;
    });
  const hidden = concealed(); // what the step says is not in the page until it is revealed
  $('lesson-say').classList.toggle('concealed', hidden);
  if (hidden)
    $('lesson-say').textContent =
      "Predict first: the class answers the question below, then Reveal (or the clicker's " +
      "next key) shows what this step's runs did.";
  else $('lesson-say').replaceChildren(...spans);
  const text = spans.map((s) => s.textContent).join('');
  lastState = {
    lesson: on.name,
    step: on.index + 1,
    steps: on.lesson.steps.length,
    done: facts.done,
    claims: parts.filter((p) => p.claim !== undefined).map((p) => p.claim),
    text,
    concealed: hidden,
  };
}

let lastState = null;
/** For the tests: the step on screen, its text and whether each of its claims (the sentences
 * that are objects in lessons.js) holds (null: not known yet). */
export const lessonState = () => (on ? lastState : null);
