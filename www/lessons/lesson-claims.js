// @ts-check
// What a lesson step says about the run on screen, as a pure function of the step, its
// settings and the run's facts (#53's claim contract): testable without a browser
// (tests/unit/lesson-claims.test.mjs runs it over every step of every lesson, off the path).
//
// A step's sentences speak of its own settings. Each premise they rest on is checked first, and
// each way the room breaks one has an honest sentence of its own:
// - noise present: a step whose settings add noise, shown a run with σ = 0 (or a mode without
//   noise), says only that — there is no noise to narrate and ε = ∞ — and how to get it back;
// - the step's settings in force: a setting moved away from the step's is named, with both
//   values, before the step's sentences; those marked `asSet` (fixed words that hold only at the
//   step's settings: "the paper's setting", "the same noise") are left out, and the question,
//   which may presuppose them, asks about the change instead.
// The sentences left are filled from the run on screen, so they stay true as it changes.

import { deltaText } from '../core/shown.js';

/** @typedef {import('./lessons.js').Step} Step */
/** @typedef {import('./lesson-facts.js').Facts} Facts */
/** @typedef {{text: string, claim: boolean | null | undefined}} Part */

// The words for a setting a step sets (keys of the settings table that are run settings). Not
// the seed: every figure a step says is the run on screen's and every comparison carries its ±
// (#53 §2), so another seed leaves each sentence true; its earlier step trains at it too.
const NAMES = new Map(
  Object.entries({
    sigma: 'σ',
    clip: 'C',
    lot_size: 'L',
    lr: 'η',
    epochs: 'epochs',
    delta: 'δ',
    dataset: 'the data set',
    model: 'the model',
    amplification: 'the amplification convention',
    mode: 'the mode',
    groups: 'the groups',
    pca: 'DP-PCA',
    clip_quantile: 'adaptive clipping',
    report: 'the release level',
    budget_epsilon: 'the ε budget',
  }),
);

// What every step assumes of the settings it leaves to the lab: no DP-PCA, C fixed (not adapted),
// every view released and no ε budget to stop at (a step's "whole run" is all its epochs). A
// room that turns one on is off the step as much as a moved slider.
const ASSUMED = { pca: null, clip_quantile: null, report: 'teaching', budget_epsilon: null };

// The fields Rust's RunConfig leaves out while none (so links stay short), as the run has them
// then: a step's groups moved to None is off the step too.
const LEFT_OUT_WHILE_NONE = new Map([['groups', 'none']]);

const deltaOrValue = (/** @type {unknown} */ d) =>
  typeof d === 'number' ? deltaText(d) : shownValue(d);
const shownValue = (/** @type {unknown} */ v) =>
  v === null
    ? 'off'
    : typeof v === 'number' && !Number.isInteger(v)
      ? String(Number(v.toPrecision(3)))
      : String(v);
// A number the same within 1%: a log slider shows the step's value to the nearest of its
// positions (η = 0.5 is 0.501 on it, its positions 2.3% apart), and one position moved is a move.
const same = (/** @type {unknown} */ a, /** @type {unknown} */ b) =>
  typeof a === 'number' && typeof b === 'number'
    ? Math.abs(a - b) <= 0.01 * Math.max(Math.abs(a), Math.abs(b))
    : a === b;

/**
 * The step's settings that the run on screen does not have: [name, the step's, the run's].
 * @param {Record<string, any>} want the step's settings (lessons.js settingsOf)
 * @param {Record<string, any>} cfg the run's config
 */
export function movedFrom(want, cfg) {
  const has = (/** @type {string} */ key) =>
    Object.hasOwn(cfg, key) ? cfg[key] : LEFT_OUT_WHILE_NONE.get(key);
  return Object.entries({ ...ASSUMED, ...want })
    .filter(([key, v]) => NAMES.has(key) && has(key) !== undefined && !same(v, has(key)))
    .map(([key, v]) => {
      // δ as the status line and the charts write it (1e-5, not 0.00001).
      const show = key === 'delta' ? (/** @type {unknown} */ d) => deltaOrValue(d) : shownValue;
      return [NAMES.get(key), show(v), show(has(key))];
    });
}

// What a run at the private release level does not release, and why a step says nothing of
// it: the figures only the teaching views measure (the training data without noise; its views
// say "Not released", views/charts.js), and — on a student's own file, whose test rows are
// private too — the exact test accuracy (a noisy count instead, whose noise a lesson's ± would
// leave out) with every comparison made of it. `left`: whether the run on screen leaves it out.
const UNRELEASED = [
  {
    figures: /\{(prev\.)?(clipped|noiseRatio)\}/,
    what: 'the clipping and noise views (they measure the training data without noise)',
    many: true,
    left: (/** @type {Facts} */ f) => (f.cfg?.report ?? 'teaching') !== 'teaching',
  },
  {
    figures: /\{(prev\.)?(acc|accGap|accMargin|cost|costAbs|costMargin)\}/,
    what: 'the exact test accuracy (a noisy count is, in the run log with its ±)',
    many: false,
    left: (/** @type {Facts} */ f) => f.accNoisy === true,
  },
  // A student's own file at any level: its class shares are private (Rust draws no majority
  // line), and no earlier step's run is trained again on it (each would spend ε on its rows),
  // so these numbers never come: said once, in `own`, rather than waited for.
  {
    figures: /\{(prev\.)?majority\}/,
    own:
      'The majority line is not drawn for a file of your own (its class shares are private), ' +
      'so this step does not quote it.',
    left: (/** @type {Facts} */ f) => f.cfg?.dataset === 'own',
  },
  {
    figures: /\{prev\./,
    // (a preview's earlier step, moments 2, trains nothing: it is computed on one's file too)
    own:
      "The earlier step's run is not trained again on a file of your own (it would spend ε on " +
      'your rows), so this step does not compare with it.',
    left: (/** @type {Facts} */ f, /** @type {Step} */ step) =>
      f.cfg?.dataset === 'own' && step.compare === 'run',
  },
];
// A sentence's texts, for the placeholders they quote: a text chosen by a function (yes or no
// on the facts) is read in its source, which holds every text it can give.
const source = (/** @type {any} */ t) => (typeof t === 'function' ? String(t) : t);
const textsOf = (/** @type {any} */ s) =>
  typeof s === 'string'
    ? [s]
    : 'when' in s
      ? [source(s.yes), source(s.no), source(s.wait ?? ''), source(s.offStep ?? '')]
      : [s.text, source(s.offStep ?? '')];

/**
 * What the step says of the run on screen: its sentences (each with whether its claim holds:
 * true / false, null while not known, undefined for a plain sentence) and its question.
 * `live`: the run on screen is the step's own (not a pinned comparison training first); when
 * not, no sentence quotes its numbers (they are another run's), and `earlier` names the earlier
 * step's run when that is the one training.
 * @param {Step} step
 * @param {Record<string, any>} want the step's settings
 * @param {Facts} facts the run on screen's
 * @param {(text: string) => string} fill fills `{name}`s from the facts (lesson-facts.js fillIn)
 * @param {boolean} live
 * @param {string} [earlier] the earlier step's run's label, while it trains first
 * @returns {{parts: Part[], ask: string}}
 */
export function claimsOf(step, want, facts, fill, live, earlier) {
  const cfg = facts.cfg ?? {};
  // Whether settings add noise is Rust's to say (RunConfig::adds_noise, the page's adds_noise,
  // handed in with the facts): of the run on screen, and of a step that sets a σ of its own
  // (the DP-SGD mode unless it says another).
  // Without it (not yet known) neither branch on the noise is taken.
  const adds = (/** @type {Record<string, any>} */ s) =>
    facts.addsNoise?.({ mode: s.mode ?? 'dp', sigma: s.sigma });
  const noiseless = (/** @type {Record<string, any>} */ s) => adds(s) === false;
  const addsNoise = (/** @type {Record<string, any>} */ s) =>
    typeof s.sigma === 'number' && adds(s) === true;
  const moved = live ? movedFrom(want, cfg) : [];
  const list = (/** @type {string[][]} */ m) =>
    m.map(([name, , now]) => `${name} = ${now}`).join(', ');
  if (live && !noiseless(cfg) && facts.open && addsNoise(want)) {
    // Noise on the steps, yet nothing private: another release has none (Rust's cause).
    const back = moved.map(([name, was]) => `${name} = ${was}`).join(' and ');
    return {
      parts: [
        {
          text:
            `No privacy in this run: ${facts.open} This step speaks of a private run at ` +
            `its own settings${back ? ` (${back})` : ''}: give every release noise (see ` +
            `“Not covered”) to see it.`,
          claim: undefined,
        },
      ],
      ask: 'Why does one release without noise make the whole run’s ε = ∞?',
    };
  }
  if (live && noiseless(cfg) && addsNoise(want)) {
    const back = moved
      .filter(([name]) => name === 'σ' || name === 'the mode')
      .map(([name, was]) => `${name} = ${was}`)
      .join(' and ');
    return {
      parts: [
        {
          text:
            `No noise in this run (${cfg.sigma === 0 ? 'σ = 0' : `mode ${cfg.mode}`}): its ` +
            `ε = ∞, no guarantee, and there is no noise on the charts for this step to ` +
            `speak of. The step is about its own setting${back ? `, ${back}` : ''}: move it ` +
            `back to see it.`,
          claim: undefined,
        },
      ],
      ask: 'What does DP-SGD need the noise for, if the model learns without it?',
    };
  }
  /** @type {Part[]} */
  const parts = [];
  if (!live && earlier)
    parts.push({
      text:
        `First the earlier step's run (${earlier}) trains again, to compare with; this ` +
        `step's own run follows it.`,
      claim: undefined,
    });
  if (moved.length) {
    const was = moved.map(([name, step]) => `${name} = ${step}`).join(', ');
    parts.push({
      text:
        `Off the step: ${list(moved)} here (the step sets ${was}); what follows is the run on ` +
        `screen.`,
      claim: undefined,
    });
  }
  // A sentence quoting what the run does not release is not said (its number never comes: "…"
  // for ever); one sentence says why instead.
  const withheld = live ? UNRELEASED.filter((u) => u.left(facts, step)) : [];
  const unreleased = new Set();
  for (const s of step.say) {
    const left = withheld.find(({ figures }) => textsOf(s).some((t) => figures.test(t)));
    if (left) {
      unreleased.add(left);
      continue;
    }
    // its premise unmet: not said
    if (typeof s !== 'string' && s.only && !(live && s.only(facts))) continue;
    if (typeof s !== 'string' && moved.length && s.asSet) {
      // what of it still holds off the step, if anything (a function of the facts)
      const off = s.offStep?.(facts) ?? '';
      if (off) parts.push({ text: fill(off), claim: undefined });
      continue;
    }
    if (typeof s === 'string' || !('when' in s)) {
      const text = typeof s === 'string' ? s : s.text;
      // Another run's numbers are not this step's: said once the step's own run is on screen.
      if (!live && /\{[^}]+\}/.test(text)) continue;
      parts.push({ text: fill(text), claim: undefined });
      continue;
    }
    const holds = live ? s.when(facts) : undefined;
    const wait = typeof s.wait === 'function' ? s.wait(facts, live) : (s.wait ?? '');
    const chosen = holds === undefined ? wait : holds ? s.yes : s.no;
    const text = typeof chosen === 'function' ? chosen(facts) : chosen;
    if (!live && /\{[^}]+\}/.test(text)) continue; // its numbers wait for the step's own run
    parts.push({ text: fill(text), claim: holds === undefined ? null : holds });
  }
  for (const u of UNRELEASED)
    if (unreleased.has(u) && u.own) parts.push({ text: u.own, claim: undefined });
  const atLevel = UNRELEASED.filter((u) => unreleased.has(u) && !u.own);
  if (atLevel.length) {
    const left = /** @type {{what: string, many: boolean}[]} */ (atLevel);
    const what = left.map((u) => u.what).join(' and ');
    const [are, them] = left.length > 1 || left[0].many ? ['are', 'them'] : ['is', 'it'];
    parts.push({
      text:
        `${what[0].toUpperCase()}${what.slice(1)} ${are} not released at this level, so this ` +
        `step does not quote ${them}: set “What the lab shows” to teaching to see ${them}.`,
      claim: undefined,
    });
  }
  const ask = moved.length
    ? `What changed on the charts when ${list(moved)} replaced the ` +
      // ("the step's groups = class", not "the step's the groups")
      `step's ${moved.map(([name, step]) => `${name.replace(/^the /, '')} = ${step}`).join(', ')}?`
    : step.ask;
  // a claim not known yet with no wait text: an empty sentence, still a claim
  return { parts, ask };
}
