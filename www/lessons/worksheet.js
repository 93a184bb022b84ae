// @ts-check
// "Print worksheet": a lesson as a sheet for the class, printed from the lesson panel. The sheet
// is the hidden #worksheet section, filled from the lesson's data (lessons.js) when the button
// is pressed; while it is to be printed the body carries `print-worksheet`, and the print
// stylesheet (style.css) then shows the sheet alone. On it: the lesson's title and settings;
// per step what to look at (its charts, and its sentences with a blank where the run's numbers
// go) and its question with ruled lines to answer; a table to fill in from the charts (ε and
// test accuracy for each step's settings, at three σ when the lesson moves σ, and what the
// attack proves when it audits); and, at the top, the QR code (share.js, from Rust's
// qr_modules) and link that open the lesson at step 1. Every word
// is set as text, never as HTML; at most two pages for every lesson (tests/e2e/worksheet.test.mjs).
import { lessonNamed } from './lessons.js';
import { LOOPBACK, paintQr, qrOf } from '../share/share.js';

const $ = (/** @type {string} */ id) => /** @type {any} */ (document.getElementById(id));

/** @typedef {import('./lessons.js').Lesson} Lesson */

/** The charts a step puts on screen, by element id, as the sheet names them. */
const CHART_NAMES = new Map([
  ['accuracy-chart', 'the accuracy chart'],
  ['groups-chart', 'the groups chart'],
  ['epsilon-chart', 'the ε chart'],
  ['clipping-chart', 'the gradient norms (clipping) chart'],
  ['noise-chart', 'the noise chart'],
  ['sigma-chart', 'the σ needed chart'],
  ['boundary-chart', 'the decision boundary'],
  ['audit-region', "the audit's privacy region"],
  ['audit-epsilons', "the audit's ε bounds"],
]);

/** Settings keys as the sheet writes them (the symbols the page's controls use). */
const SETTING_NAMES = new Map([
  ['sigma', 'σ'],
  ['clip', 'C'],
  ['lot_size', 'L'],
  ['lr', 'learning rate'],
  ['epochs', 'epochs'],
  ['dataset', 'data'],
  ['model', 'model'],
  ['seed', 'seed'],
  ['amplification', 'amplification'],
  ['audit_runs', 'audit runs per side'],
  ['groups', 'groups'],
]);

const BLANK = '______';
const RULED_LINES = 3; // lines to answer each question on

/** Wires the lesson panel's Print worksheet button: `lessonOnScreen()` names the lesson shown. */
export function setUpWorksheet(/** @type {() => string | null} */ lessonOnScreen) {
  $('lesson-print').addEventListener('click', () => {
    const name = lessonOnScreen();
    if (!name || !fillWorksheet(name)) return;
    window.addEventListener('afterprint', () => document.body.classList.remove('print-worksheet'), {
      once: true,
    });
    window.print();
  });
}

/**
 * Fills #worksheet with the lesson named `name` and marks the page to print it alone.
 * Returns false (and changes nothing) when `name` is not a lesson.
 */
export function fillWorksheet(/** @type {string} */ name) {
  const lesson = lessonNamed(name);
  if (!lesson) return false;
  const sheet = $('worksheet');
  const link = lessonLink(name);
  const head = el('div', '', 'ws-head');
  const words = el('div');
  words.append(
    el('h1', `DP-SGD Lab worksheet: ${lesson.title}`),
    el('p', `Settings: ${settingsText(lesson.base)}.`, 'ws-settings'),
    el('p', `Name: ${BLANK.repeat(4)}   Date: ${BLANK.repeat(2)}`),
    linkText(link),
  );
  // Printed from this computer's own address (a lecturer's laptop serving itself), the code
  // opens nothing on the students' phones: the sheet says so beside it, as the QR dialog does.
  if (LOOPBACK.test(new URL(link).hostname))
    words.append(
      el(
        'p',
        "This computer's own address: phones cannot open it (docs/teaching.md, Hosting).",
        'ws-local',
      ),
    );
  head.append(words, qrPart(link));
  sheet.replaceChildren(
    head,
    ...lesson.steps.map((step, i) => stepPart(step, i)),
    tablePart(lesson),
  );
  sheet.dataset.lesson = name;
  document.body.classList.add('print-worksheet');
  return true;
}

/** The link that opens lesson `name` at step 1 in this lab. */
export function lessonLink(/** @type {string} */ name) {
  const hash = new URLSearchParams({ lesson: name, step: '1' });
  return new URL(`#${hash}`, location.href).href;
}

/** An element with `text` as its text (never HTML) and an optional class. */
function el(
  /** @type {string} */ tag,
  /** @type {string} */ text = '',
  /** @type {string} */ cls = '',
) {
  const e = document.createElement(tag);
  e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

/** `{key: value, …}` of settings as "σ = 1, C = 0.1, …". */
function settingsText(/** @type {Record<string, any>} */ set) {
  return Object.entries(set)
    .map(([k, v]) => `${SETTING_NAMES.get(k) ?? k} = ${v}`)
    .join(', ');
}

/** A sentence of a step as printed: its live numbers ({name}) left blank for the class. */
const blanked = (/** @type {string} */ s) => s.replace(/\{[^}]*\}/g, BLANK).replace(/:\s*$/, '.');

/** One step: its settings, what to look at, its question and ruled lines to answer on. */
function stepPart(/** @type {import('./lessons.js').Step} */ step, /** @type {number} */ i) {
  const part = el('section', '', 'ws-step');
  const set = settingsText(step.set);
  part.append(
    el(
      'h2',
      `Step ${i + 1}${set ? `: ${set}` : ''}${step.then === 'compare' ? ' — press Compare' : ''}`,
    ),
  );
  const charts = step.charts.map((id) => CHART_NAMES.get(id) ?? id);
  // Plain sentences, and those whose only premise is the step's own settings (`sheet`: no ε
  // budget, say), which hold on a sheet printed for the step: its reader fills in the numbers.
  const said = step.say
    .map((s) => (typeof s === 'string' ? s : 'text' in s && s.sheet ? s.text : null))
    .filter((s) => typeof s === 'string')
    .map(blanked)
    .join(' ');
  part.append(el('p', `Look at ${charts.join(' and ')}. ${said}`.trim(), 'ws-look'));
  part.append(el('p', step.ask, 'ws-ask'));
  for (let k = 0; k < RULED_LINES; k++) part.append(el('div', '', 'ws-line'));
  return part;
}

/**
 * The table to fill in from the charts: one row per step's settings, with ε and the test
 * accuracy. A lesson that moves σ gets three σ values (its steps' and the next doubling); a
 * lesson on who pays, the gap between groups for each of its groupings, non-private and
 * DP-SGD; every lesson a last row for a setting of the class's own choice.
 */
function tablePart(/** @type {Lesson} */ lesson) {
  const part = el('section', '', 'ws-table');
  part.append(el('h2', 'Fill in from the charts'));
  const sigmas = [
    ...new Set(lesson.steps.map((s) => s.set.sigma).filter((v) => typeof v === 'number')),
  ];
  /** @type {string[]} */
  let rows;
  if (sigmas.length > 0) {
    while (sigmas.length < 3) sigmas.push(Math.max(...sigmas, 0.5) * 2);
    const others = settingsText(
      Object.fromEntries(Object.entries(lesson.steps[0].set).filter(([k]) => k !== 'sigma')),
    );
    rows = sigmas.map((s) => `σ = ${s}${others ? `, ${others}` : ''}`);
  } else {
    rows = lesson.steps.map(
      (s, i) => `Step ${i + 1}${settingsText(s.set) ? `: ${settingsText(s.set)}` : ''}`,
    );
  }
  const audited = lesson.steps.some((s) => s.controls.includes('audit-start'));
  let columns = [
    'Settings',
    'ε (at δ = ___)',
    'Test accuracy',
    ...(audited ? ['The attack proves ε ≥ (95% confidence)'] : []),
  ];
  // A lesson on who pays (the groups chart): what its charts show is the gap between groups,
  // without privacy and with it, for each data set and grouping its steps use.
  if (lesson.steps.some((s) => s.charts.includes('groups-chart'))) {
    columns = ['Settings', 'Best − worst group (points, with its ±)', 'Worst group'];
    const seen = new Set();
    rows = [];
    for (const step of lesson.steps) {
      const set = { ...lesson.base, ...step.set };
      const key = `${set.dataset} by ${set.groups}`;
      if (seen.has(key)) continue;
      seen.add(key);
      rows.push(`${key}: non-private`, `${key}: DP-SGD, σ = ${set.sigma}`);
    }
  }
  rows.push(`Your choice: ${BLANK}`);
  const table = document.createElement('table');
  const head = table.createTHead().insertRow();
  for (const h of columns) head.append(el('th', h));
  const body = table.createTBody();
  for (const r of rows) {
    const row = body.insertRow();
    row.append(el('td', r), ...columns.slice(1).map(() => el('td')));
  }
  part.append(table);
  return part;
}

/** The QR code of the link that opens the lesson at step 1 (or a sentence if no code fits). */
function qrPart(/** @type {string} */ link) {
  const canvas = /** @type {HTMLCanvasElement} */ (el('canvas'));
  canvas.id = 'worksheet-qr';
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', "QR code of the lesson's link (written beside it)");
  try {
    paintQr(canvas, qrOf(link), 8);
    return canvas;
  } catch (e) {
    return el('p', `No QR code: ${e instanceof Error ? e.message : e}`);
  }
}

/** The link that opens the lesson at step 1, written out to type. */
function linkText(/** @type {string} */ link) {
  const words = el('p', 'Open the lesson at step 1: scan the code, or type ');
  const url = el('span', link, 'ws-url');
  url.id = 'worksheet-link';
  words.append(url);
  return words;
}
