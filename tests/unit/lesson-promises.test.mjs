// What an accountant "promises" in a lesson is the whole run's ε — what the audit's runs and
// Alice's, each trained to its end, are held to — from the run's first epoch on, never the ε
// spent so far (a step read while its run trains quoted the first epoch's, a fraction of it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LESSONS, settingsOf } from '../../www/lessons/lessons.js';
import { factsOf, fillers, fillIn } from '../../www/lessons/lesson-facts.js';

const ACCOUNTANTS = ['naive', 'strong', 'moments', 'rdp', 'pld'];
const textsOf = (s) =>
  typeof s === 'string' ? [s] : 'when' in s ? [s.yes, s.no, s.wait ?? ''] : [s.text];

test('every promise of an ε is the whole run’s, filled from the first epoch', () => {
  const promises = [];
  for (const [name, lesson] of LESSONS) {
    lesson.steps.forEach((step, i) => {
      for (const text of step.say.flatMap(textsOf).filter((t) => typeof t === 'string')) {
        const promised = text.match(/promises ε = \{([^}]+)\}/);
        if (promised) promises.push({ name, i, text, filled: promised[1] });
      }
    });
  }
  assert.ok(promises.length >= 2, JSON.stringify(promises));
  for (const p of promises) assert.match(p.filled, /^whole\./, `${p.name} ${p.i + 1}: ${p.text}`);

  const { name, i, text } = promises[0];
  const facts = factsOf({
    cfg: { delta: 1e-5, ...settingsOf(LESSONS.get(name), i) },
    history: [{ epoch: 1, test_acc: 0.6, epsilon: { moments: 0.41 } }],
    done: false,
    data: { n_test: 300 },
    preview: [
      { epoch: 1, moments: 0.41 },
      { epoch: 20, moments: 1.73 },
    ],
    pld: null,
    cost: undefined,
    learnedNothing: undefined,
    prev: null,
  });
  const said = fillIn(
    text,
    facts,
    fillers((v) => v.toFixed(2), ACCOUNTANTS),
  );
  assert.match(said, /promises ε = 1\.73 at δ = 1e-5 for the whole run/, said);
});
