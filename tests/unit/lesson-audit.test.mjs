// The audit lesson's numbers (#53 §4), without a browser: quoted as the audit's own summary
// words them, compared with the PLD accountant's ε (the region drawn), and the earlier audit
// kept beside step 2's quoted only when there is one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LESSONS, settingsOf } from '../../www/lessons/lessons.js';
import { claimsOf } from '../../www/lessons/lesson-claims.js';
import { factsOf, fillers, fillIn } from '../../www/lessons/lesson-facts.js';

// Rust's accountants() names, as the page hands them to the lessons' fillers.
const ACCOUNTANTS = ['naive', 'strong', 'moments', 'rdp', 'pld'];

// The facts of audit step 2's finished run (ε = `moments` after 20 epochs) with `audit`.
const sources = (want, audit, moments) => ({
  cfg: want,
  history: [{ epoch: 20, test_acc: 0.9, epsilon: { moments } }],
  done: true,
  data: { n_test: 300 },
  preview: [],
  pld: null,
  cost: undefined,
  audit,
  learnedNothing: false,
  prev: null,
});

// One audit, one set of numbers (#53 §4): the audit lesson quotes ε_lower and the PLD ε as
// the audit's own summary words them (Rust's `said`: a lower bound rounded down, an upper
// bound up; here 3.669 is "3.66", never JS's "3.67"), and compares with the PLD accountant's ε,
// the region drawn, which it names.
test("the audit lesson quotes the audit's figures as its summary does, names PLD's region", () => {
  const lesson = LESSONS.get('audit');
  const want = settingsOf(lesson, 1);
  const audit = [
    {
      threat: 'realistic',
      eps_lower: 3.669,
      eps_upper: { pld: 4.213, moments: 5.1 },
      lower_above_pld: false,
      said: { eps_lower: '3.66', pld: '4.22' },
      region: { verdict: 'inside', above_at: null },
    },
    {
      threat: 'worst-case',
      eps_lower: 0.051,
      eps_upper: { pld: 4.213 },
      said: { eps_lower: '0.05', pld: '4.22' },
    },
  ];
  const facts = factsOf(sources(want, audit, 5.1));
  const fill = fillers((v) => v.toFixed(2), ACCOUNTANTS);
  assert.equal(fill.get('audit.realistic')(facts), '3.66');
  assert.equal(fill.get('audit.worst')(facts), '0.05');
  assert.equal(fill.get('audit.upper')(facts), '4.22');
  const said = lesson.steps[1].say
    .filter((s) => typeof s !== 'string' && 'when' in s)
    .map((s) =>
      ((t) => fillIn(typeof t === 'function' ? t(facts) : t, facts, fill))(
        s.when(facts) ? s.yes : s.no,
      ),
    );
  assert.ok(
    said.some((t) =>
      /ε ≥ 3\.66 \(at 95% confidence\): below the PLD accountant's ε = 4\.22/.test(t),
    ),
    said.join(' | '),
  );
  assert.ok(!said.join(' ').includes('3.67'));
});

// Whether the attack proved more than the PLD accountant promised is Rust's `lower_above_pld`,
// not a comparison of the two numbers here: equal to the last bit (JS's `<` once said "above …
// or the accounting is wrong" there, where Rust's verdict is inside), above, and not yet known.
test("the audit lesson says above or below the PLD accountant's ε as Rust decided it", () => {
  const lesson = LESSONS.get('audit');
  const want = settingsOf(lesson, 1);
  const fill = fillers((v) => v.toFixed(2), ACCOUNTANTS);
  const text = (above, lower = 2.5) => {
    const audit = [
      {
        threat: 'realistic',
        eps_lower: lower,
        eps_upper: { pld: 2.5 },
        ...(above === undefined ? {} : { lower_above_pld: above }),
        said: { eps_lower: '2.50', pld: '2.50' },
        region: { verdict: above ? 'outside' : 'inside', above_at: null },
      },
    ];
    const facts = factsOf(sources(want, audit, 2.5));
    return claimsOf(lesson.steps[1], want, facts, (t) => fillIn(t, facts, fill), true)
      .parts.map((p) => p.text)
      .join(' ');
  };
  assert.match(text(false), /below the PLD accountant's ε = 2\.50, the grey region's, as it must/);
  assert.doesNotMatch(text(false), /accounting is wrong/);
  assert.match(text(true, 2.6), /above the PLD accountant's ε = 2\.50, .*accounting is wrong/);
  assert.doesNotMatch(text(undefined), /PLD accountant's ε = 2\.50, the grey/);
});

// Step 1's audit beside step 2's (#53 §4): audit step 2 quotes the audit of other settings kept
// on the region chart — what it was of and its ε_lower as its summary worded it — and says
// nothing of one when there is none (a link opened at step 2).
test('audit step 2 quotes the earlier audit kept beside it, and only when there is one', () => {
  const lesson = LESSONS.get('audit');
  const want = settingsOf(lesson, 1);
  const audit = [
    {
      threat: 'realistic',
      eps_lower: 0.48,
      eps_upper: { pld: 0.9 },
      lower_above_pld: false,
      said: { eps_lower: '0.48', pld: '0.90' },
      region: { verdict: 'inside', above_at: null },
    },
  ];
  const earlier = {
    label: 'σ = 0',
    results: [{ threat: 'realistic', eps_lower: 3.129, said: { eps_lower: '3.12' } }],
  };
  const base = sources(want, audit, 0.9);
  const fill = fillers((v) => v.toFixed(2), ACCOUNTANTS);
  const text = (facts) =>
    claimsOf(lesson.steps[1], want, facts, (t) => fillIn(t, facts, fill), true)
      .parts.map((p) => p.text)
      .join(' ');
  const beside = text(factsOf({ ...base, earlierAudit: earlier }));
  assert.match(beside, /At σ = 0 \(long dashes\) it proved ε ≥ 3\.12\./);
  const alone = text(factsOf({ ...base, earlierAudit: null }));
  assert.doesNotMatch(alone, /long dashes/);
  assert.doesNotMatch(
    text(factsOf({ ...base, audit: null, earlierAudit: earlier })),
    /long dashes/,
    'not before this audit is in',
  );
});
