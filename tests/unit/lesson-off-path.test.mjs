// Lesson sentences a class breaks by moving what the step hands it (a review of the lessons
// off their path, without a browser): each sentence below was said, false, with the move.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LESSONS, settingsOf } from '../../www/lessons/lessons.js';
import { claimsOf } from '../../www/lessons/lesson-claims.js';
import { addsNoise } from './rust-stand-ins.mjs';
import { fillers } from '../../www/lessons/lesson-facts.js';

const fill = (text) => text.replace(/\{[^}]+\}/g, '#');

// The step's words for a finished run with `cfg` and the facts `over` (numbers where it looks).
function said(name, number, change, over = {}) {
  const lesson = LESSONS.get(name);
  const want = settingsOf(lesson, number - 1);
  const cfg = { ...want, ...change };
  // a field Rust's config leaves out (groups at None): `undefined` here
  for (const [key, v] of Object.entries(change)) if (v === undefined) delete cfg[key];
  const numbers = { acc: 0.76, majority: 0.76, noiseRatio_: 2, eps_: 1, nTest: 100, cost: 1 };
  const whole = { naive: 9, strong: 5, moments: 1.2, rdp: 1.1, pld: 1 };
  const facts = {
    done: true,
    epoch: cfg.epochs,
    cfg,
    ...numbers,
    whole,
    learnedNothing: true,
    prev: { cfg: { ...cfg, amplification: 'paper' }, ...numbers, whole },
    addsNoise,
    ...over,
  };
  const step = lesson.steps[number - 1];
  return claimsOf(step, want, facts, fill, true)
    .parts.map((p) => p.text)
    .join(' ');
}

test('moments 2: "the exact per-step bound" only of a run in the exact convention', () => {
  assert.match(said('moments', 2, {}), /exact per-step bound/);
  // The step's own control moved back to the paper's: both figures would be the paper's.
  const paper = said('moments', 2, { amplification: 'paper' });
  assert.doesNotMatch(paper, /exact per-step bound/, paper);
  assert.match(paper, /^Off the step/, paper);
});

// Rust's holding_back (src/train/verdict.rs) as the page hands it: its cause and its hint.
const held = (cause) => ({ holdingBack: { cause, say: `Rust's ${cause} hint.` } });

test('noise 1: no "only L" of a lot dragged up; "drowns" only where Rust blames the noise', () => {
  assert.doesNotMatch(said('noise', 1, { lot_size: 4096 }), /only L/);
  const noise = said('noise', 1, {}, held('noise'));
  assert.match(noise, /the noise drowns what the model could learn/, noise);
  // Nothing learned with the noise below the signal (η or C moved, say): not the noise's doing.
  const quiet = said('noise', 1, { lr: 0.01 }, { noiseRatio_: 0.3, ...held('short-steps') });
  assert.doesNotMatch(quiet, /drowns/, quiet);
  assert.match(
    quiet,
    /the noise is below the signal here, so something else holds it back: #/,
    quiet,
  );
  // The noise above the signal, 2×, but C moved so low that clipping is Rust's first cause:
  // the step says what the status says, not that the noise drowns it.
  const clipped = said('noise', 1, { clip: 0.01 }, { noiseRatio_: 2, ...held('clipping') });
  assert.doesNotMatch(clipped, /drowns/, clipped);
  assert.match(clipped, /the noise is not the first thing to move here: #$/, clipped);
  const hint = fillers(String, []).get('holdingBack')(held('clipping'));
  assert.equal(hint, "Rust's clipping hint.");
});

test("audit 2 and Alice 2 promise the whole run's ε only where no budget stops the runs", () => {
  for (const name of ['audit', 'alice']) {
    assert.match(said(name, 2, {}), /promises ε = # at δ = # for the whole run/, name);
    const budget = said(name, 2, { budget_epsilon: 1 });
    assert.doesNotMatch(budget, /promises/, `${name}: ${budget}`);
  }
});

test('who-pays and cost name a group and a test row by the data set on screen', () => {
  const fill = fillers(String, []);
  const word = (name, cfg) => fill.get(name)({ cfg });
  assert.equal(word('groups.One', { dataset: 'mnist', groups: 'class' }), 'Digit');
  // The step opened on Adult (a link, or a student): ">50K" is no digit, and no image.
  assert.equal(word('groups.One', { dataset: 'adult', groups: 'class' }), 'Group');
  assert.equal(word('groups.items', { dataset: 'adult', groups: 'class' }), 'examples');
  assert.equal(word('examples', { dataset: 'breast-cancer' }), 'patients');
  assert.equal(word('examples', { dataset: 'blobs' }), 'examples');
});

test("one's own file: no sentence waits for a majority line or an earlier run never shown", () => {
  // Clipping 1 quotes the majority line, clipping 2 the earlier step's run: on one's own file
  // (Rust draws no majority line; no earlier run trains on it) each said why, once.
  const one = said('clipping', 1, { dataset: 'own' }, { majority: undefined });
  assert.doesNotMatch(one, /majority line \(#\)/, one);
  assert.match(one, /The majority line is not drawn for a file of your own/, one);
  const two = said('clipping', 2, { dataset: 'own' }, { prev: {} });
  assert.doesNotMatch(two, /\bprev\b|it was #/, two);
  assert.match(two, /The earlier step's run is not trained again on a file of your own/, two);
});

test('no reason for nothing learned without a ratio; a preview compared on a file too', () => {
  // The noise views not released (the private level): the ratio is unknown, no reason given.
  const hidden = said('noise', 1, {}, { noiseRatio_: undefined, ...held('noise') });
  assert.doesNotMatch(hidden, /drowns|something else|first thing/, hidden);
  // Moments 2 compares with a preview (nothing trained): said on one's own file too.
  const preview = said('moments', 2, { dataset: 'own' });
  assert.doesNotMatch(preview, /not trained again/, preview);
  assert.match(preview, /exact per-step bound/, preview);
});

test('who-pays 2 with Groups at None: off the step, no wait for rings on no chart', () => {
  // Rust's RunConfig leaves groups out while none: the run's config has no `groups`.
  const none = said('who-pays', 2, { groups: undefined }, { groups: undefined, done: false });
  assert.doesNotMatch(none, /rings on the groups chart/, none);
  assert.match(none, /choose Class again/, none);
  const off = /^Off the step: the groups = none here \(the step sets the groups = class/;
  assert.match(none, off, none);
  // Step 1 then waits for no digit's figures: its sentences are the step's settings' own.
  const one = said('who-pays', 1, { groups: undefined }, { groups: undefined });
  assert.doesNotMatch(one, /rarest/, one);
  const three = said('who-pays', 3, { groups: undefined }, { groups: undefined });
  assert.match(three, /choose Race again/, three);
  const open = said('who-pays', 2, {}, { groups: undefined, done: false });
  assert.match(open, /rings on the groups chart/, open);
});

test("clipping 1 answers at the run's end even without three flat epochs (L = 1, σ = 16)", () => {
  // Rust's verdict needs three flat epochs; a run ending near or below the line has none.
  const ended = said('clipping', 1, { lot_size: 1 }, { learnedNothing: undefined, acc: 0.6 });
  assert.doesNotMatch(ended, /Watch the accuracy/, ended);
  assert.match(ended, /no better than the grey majority line \(#\) within chance/, ended);
  const above = said('clipping', 1, {}, { learnedNothing: false });
  assert.match(above, /above the grey majority line \(#\) by more than chance allows/, above);
});

test("moments 1 off its settings: the paper's convention still named; no ε under a budget", () => {
  const moved = said('moments', 1, { epochs: 50 });
  assert.match(moved, /^Off the step/, moved);
  assert.match(moved, /paper's own optimistic convention, which is no bound/, moved);
  assert.match(moved, /naive composition says ε = #/, moved);
  const exact = said('moments', 1, { epochs: 50, amplification: 'rigorous' });
  assert.doesNotMatch(exact, /optimistic/, exact);
  // Under a budget the run stops where it is spent: the whole run's ε is not what it spent.
  const budget = said('moments', 1, { budget_epsilon: 2 }, { budgetStopped: true });
  assert.doesNotMatch(budget, /naive composition says/, budget);
  assert.doesNotMatch(budget, /:\s*$/, 'nothing left to introduce');
  assert.match(budget, /With an ε budget a run stops where its ε is spent/, budget);
  // A budget that never stopped the run (done, Rust's report): its whole run is what it spent.
  const unspent = said('moments', 1, { budget_epsilon: 50 }, { budgetStopped: false });
  assert.match(unspent, /For the whole run: naive composition says ε = #/, unspent);
});

test("moments 2 under a budget: no whole run's ε of a run the budget stopped", () => {
  const budget = said('moments', 2, { budget_epsilon: 2 }, { budgetStopped: true });
  assert.doesNotMatch(budget, /composition says ε|RDP \(#\)/, budget);
  assert.match(budget, /With an ε budget a run stops where its ε is spent, maybe before/, budget);
  // Still training under a budget: whether it will stop the run is not known yet.
  const training = said(
    'moments',
    2,
    { budget_epsilon: 2 },
    { done: false, budgetStopped: undefined },
  );
  assert.doesNotMatch(training, /composition says ε|RDP \(#\)/, training);
  assert.match(training, /With an ε budget/, training);
  // Done, and the budget never stopped it (Rust's report): the whole run is what it spent.
  const unspent = said('moments', 2, { budget_epsilon: 50 }, { budgetStopped: false });
  assert.match(unspent, /^Off the step/, unspent);
  assert.match(unspent, /strong composition says ε = #/, unspent);
  assert.match(unspent, /RDP \(#\) or the privacy loss distribution \(#\)/, unspent);
  assert.doesNotMatch(unspent, /With an ε budget/, unspent);
  const free = said('moments', 2, {});
  assert.match(free, /strong composition says ε = #/, free);
  assert.match(free, /RDP \(#\) or the privacy loss distribution \(#\)/, free);
  assert.doesNotMatch(free, /budget/, free);
});

test('noise 2: "recovers" only of a run that learned more than the majority line', () => {
  const gain = { accGap: { points: 1.7, margin: 1, clear: true }, noiseRatio_: 0.1 };
  const flat = said('noise', 2, { lot_size: 32561 }, { ...gain, learnedNothing: true });
  assert.doesNotMatch(flat, /recovers/, flat);
  assert.match(flat, /above # \(# ± # points\) but no better than the grey majority line/, flat);
  const learned = said('noise', 2, {}, { ...gain, learnedNothing: false });
  assert.match(learned, /The test accuracy recovers to #/, learned);
  // One epoch: too early for Rust to say (undefined): the gain, neither recovery nor not.
  const early = said('noise', 2, { epochs: 1 }, { ...gain, learnedNothing: undefined });
  assert.match(early, /The test accuracy is #, above # \(# ± # points\)\./, early);
  assert.doesNotMatch(early, /recovers|majority/, early);
});

test('cost 2: "the same seed four times" only where the runs have one', () => {
  assert.match(said('cost', 2, {}), /The same seed four times/);
  // A file of one's own, its seed hidden: each of Compare's runs draws its own.
  const own = said('cost', 2, { dataset: 'own', seed: null });
  assert.doesNotMatch(own, /same seed/, own);
  assert.match(own, /Four runs, each with a random seed of its own/, own);
});

test('who-pays 3: "loses most" only of a fall beyond its own ±', () => {
  const compared = (clear) => ({
    groups: {
      summary: { gap: 5, worst: 'Other', worst_acc: 0.7, rarest: 'Other', rarest_n_train: 200 },
      compared: {
        most_lost: 'Other',
        most_lost_points: 4,
        most_lost_margin: 6,
        most_lost_n_test: 135,
        most_lost_clear: clear,
        falls_beyond_noise: 1,
      },
    },
  });
  const within = said('who-pays', 3, {}, compared(false));
  assert.doesNotMatch(within, /loses most/, within);
  assert.match(within, /is within its ±/, within);
  assert.match(said('who-pays', 3, {}, compared(true)), /# loses most to DP-SGD/);
  const fill = fillers(String, []).get('groups.fallsBeyondNoise');
  assert.equal(fill(compared(true)), '1 group falls beyond the noise of its test rows');
});

test('audit 2: "as it must be" not beside a ROC that leaves the region', () => {
  const audit = (verdict) => ({
    audit: {
      realistic: 0.5,
      upper: 1.2,
      aboveUpper: false, // Rust's
      worst: 1,
      region: { verdict, above_at: [0.1] },
      said: {},
    },
  });
  const outside = said('audit', 2, {}, audit('outside'));
  assert.doesNotMatch(outside, /as it must be/, outside);
  assert.match(outside, /leaves the region elsewhere/, outside);
  assert.match(said('audit', 2, {}, audit('inside')), /as it must be/);
});
