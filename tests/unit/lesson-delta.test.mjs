// δ is a setting every step's sentences rest on (each ε a step says is at it; "the paper's
// setting" is δ = 1e-5): moved off the lab's default it is named as a move, and the fixed words
// that hold only at the step's settings are left out — as for σ, C, L or η.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LESSONS, settingsOf } from '../../www/lessons/lessons.js';
import { claimsOf, movedFrom } from '../../www/lessons/lesson-claims.js';
import { addsNoise } from './rust-stand-ins.mjs';

const fill = (text) => text.replace(/\{[^}]+\}/g, '#');

test("δ moved off the default is off the step: named, and 'the paper's setting' not said", () => {
  const [name, lesson] = [...LESSONS].find(([, l]) =>
    l.steps.some((s) => s.say.some((p) => JSON.stringify(p).includes("The paper's setting"))),
  );
  const i = lesson.steps.findIndex((s) => JSON.stringify(s.say).includes("The paper's setting"));
  // As the player gives it (lesson-player.js wantOf): the lab's default δ under the step's own.
  const want = { delta: 1e-5, ...settingsOf(lesson, i) };
  assert.deepEqual(movedFrom(want, { ...want }), [], `${name} ${i + 1}`);
  // Written as the status line and the charts write δ (1e-5, not 0.00001).
  assert.deepEqual(movedFrom(want, { ...want, delta: 1e-3 }), [['δ', '1e-5', '1e-3']]);
  const facts = (cfg) => ({
    done: true,
    epoch: cfg.epochs,
    cfg,
    ...{ acc: 0.8, majority: 0.76, eps_: 1.2, q: 0.01, nTrain: 1000, nTest: 300 },
    whole: { naive: 9, strong: 5, moments: 1.2, rdp: 1.1, pld: 1 },
    learnedNothing: false,
    prev: null,
    addsNoise,
  });
  const said = (cfg) =>
    claimsOf(lesson.steps[i], want, facts(cfg), fill, true)
      .parts.map((p) => p.text)
      .join(' ');
  assert.match(said({ ...want }), /The paper's setting/);
  const moved = said({ ...want, delta: 1e-3 });
  assert.match(moved, /δ/);
  assert.doesNotMatch(moved, /The paper's setting/);
});
