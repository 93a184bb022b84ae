// Lesson sentences a class breaks by moving what the step hands it (a review of the lessons
// off their path, without a browser): each sentence below was said, false, with the move.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LESSONS, settingsOf } from '../../www/lessons/lessons.js';
import { claimsOf } from '../../www/lessons/lesson-claims.js';

const fill = (text) => text.replace(/\{[^}]+\}/g, '#');

// The step's words for a finished run with `cfg` and the facts `over` (numbers where it looks).
function said(name, number, change, over = {}) {
  const lesson = LESSONS.get(name);
  const want = settingsOf(lesson, number - 1);
  const cfg = { ...want, ...change };
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

test('noise 1: no "only L" of a lot dragged up; "drowns" only with the noise above', () => {
  assert.doesNotMatch(said('noise', 1, { lot_size: 4096 }), /only L/);
  assert.match(said('noise', 1, {}), /the noise drowns what the model could learn/);
  // Nothing learned with the noise below the signal (η or C moved, say): not the noise's doing.
  const quiet = said('noise', 1, { lr: 0.01 }, { noiseRatio_: 0.3 });
  assert.doesNotMatch(quiet, /drowns/, quiet);
  assert.match(quiet, /something else holds it back/, quiet);
});

test("audit 2 and Alice 2 promise the whole run's ε only where no budget stops the runs", () => {
  for (const name of ['audit', 'alice']) {
    assert.match(said(name, 2, {}), /promises ε = # for the whole run/, name);
    const budget = said(name, 2, { budget_epsilon: 1 });
    assert.doesNotMatch(budget, /promises/, `${name}: ${budget}`);
  }
});
