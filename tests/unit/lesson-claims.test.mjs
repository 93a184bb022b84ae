// The claim contract of every lesson sentence (#53), without a browser: for every step of every
// lesson, what it says of a run off its path — σ moved to 0, C and L at either end of their
// sliders and beyond, the data set switched, the seed changed — never narrates noise without
// noise, never says a fixed word that holds only at the step's settings, and names what was moved.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LESSONS, settingsOf } from '../../www/lessons/lessons.js';
import { claimsOf, movedFrom } from '../../www/lessons/lesson-claims.js';
import { fillers, fillIn } from '../../www/lessons/lesson-facts.js';
import { addsNoise } from './rust-stand-ins.mjs';

// Every `{name}` filled with a mark, so the test reads the words, not the numbers.
const fill = (text) => text.replace(/\{[^}]+\}/g, '#');
// Rust's accountants() names, as the page hands them to the lessons' fillers.
const ACCOUNTANTS = ['naive', 'strong', 'moments', 'rdp', 'pld'];

// The facts of a finished run with `cfg`: numbers everywhere a sentence might look.
function factsFor(cfg) {
  const numbers = {
    acc: 0.8,
    majority: 0.76,
    clipped: 0.3,
    noiseRatio_: 2,
    eps_: 1.2,
    q: 0.01,
    nTrain: 1000,
    nTest: 300,
    cost: 1.5,
  };
  const whole = { naive: 9, strong: 5, moments: 1.2, rdp: 1.1, pld: 1 };
  return {
    done: true,
    epoch: cfg.epochs,
    cfg,
    ...numbers,
    whole,
    learnedNothing: false,
    prev: { cfg, ...numbers, whole },
    addsNoise,
  };
}

// The fixed words of a step's `asSet` sentences (the longest run of words between its `{}`s):
// never said off the path.
const longest = (t) =>
  t
    .split(/\{[^}]*\}/)
    .map((w) => w.trim())
    .sort((a, b) => b.length - a.length)[0];
const fixedWords = (step) =>
  step.say
    .filter((s) => typeof s !== 'string' && s.asSet)
    .flatMap((s) => ('when' in s ? [s.yes] : [s.text]).map(longest).filter((t) => t.length > 8));

const steps = [...LESSONS].flatMap(([name, lesson]) =>
  lesson.steps.map((step, i) => ({ name, lesson, step, i, want: settingsOf(lesson, i) })),
);

test('at its own settings every step says its own sentences, nothing off the path', () => {
  for (const { name, step, i, want } of steps) {
    assert.deepEqual(movedFrom(want, want), [], `${name} ${i + 1}`);
    const { parts, ask } = claimsOf(step, want, factsFor({ ...want }), fill, true);
    assert.equal(ask, step.ask, `${name} ${i + 1}`);
    assert.ok(
      !/^(Off the step|No noise in this run)/.test(parts[0]?.text ?? ''),
      `${name} ${i + 1}: ${parts[0]?.text}`,
    );
  }
});

test('σ moved to 0 on a step with noise: no noise narrated, ε = ∞ said, and the way back', () => {
  let checked = 0;
  for (const { name, step, i, want } of steps) {
    if (!(want.sigma > 0)) continue; // a step without noise of its own (σ = 0 by design): below
    const { parts, ask } = claimsOf(step, want, factsFor({ ...want, sigma: 0 }), fill, true);
    const text = parts.map((p) => p.text).join(' ');
    assert.equal(parts.length, 1, `${name} ${i + 1}: only the premise's sentence: ${text}`);
    assert.match(text, /^No noise in this run \(σ = 0\): its ε = ∞, no guarantee/);
    assert.match(text, new RegExp(`σ = ${want.sigma}: move it back`), text);
    assert.ok(
      !/σ did not change|noise drowns|same noise/.test(ask + text),
      `${name} ${i + 1}: ${ask}`,
    );
    checked += 1;
  }
  assert.ok(checked >= 8, `${checked} steps with noise checked`);
  // A mode without noise, too.
  const { lesson } = steps.find((s) => s.name === 'noise');
  const cfg = { ...settingsOf(lesson, 1), mode: 'clip-only' };
  assert.match(
    claimsOf(lesson.steps[1], settingsOf(lesson, 1), factsFor(cfg), fill, true).parts[0].text,
    /^No noise in this run \(mode clip-only\)/,
  );
});

test('a setting moved is named with both values; the fixed words of the step are not said', () => {
  // C and L at each end of their sliders and past them, the data set, σ (not to 0).
  const moves = [
    ['clip', 0.001, 'C'],
    ['clip', 100, 'C'],
    ['lot_size', 1, 'L'],
    ['lot_size', 100000, 'L'],
    ['dataset', 'blobs', 'the data set'],
    ['sigma', 0.5, 'σ'],
  ];
  let offPath = 0;
  for (const { name, step, i, want } of steps) {
    for (const [key, value, word] of moves) {
      if (!Object.hasOwn(want, key) || want[key] === value) continue;
      const { parts, ask } = claimsOf(step, want, factsFor({ ...want, [key]: value }), fill, true);
      const text = parts.map((p) => p.text).join(' ');
      assert.match(
        parts[0].text,
        new RegExp(
          `^Off the step: ${word} = ${value} here \\(the step sets ${word} = ${want[key]}\\)`,
        ),
        `${name} ${i + 1}`,
      );
      for (const words of fixedWords(step))
        assert.ok(
          !text.includes(words),
          `${name} ${i + 1} with ${word} = ${value} says "${words}"`,
        );
      assert.match(
        ask,
        new RegExp(
          `^What changed on the charts when ${word} = ${value} replaced the step's ` +
            `${word.replace(/^the /, '')} = `,
        ),
        ask,
      );
      offPath += 1;
    }
  }
  assert.ok(offPath >= 40, `${offPath} runs off the path checked`);
});

// Another seed is another draw of the same settings: each sentence is the run on screen's and
// each comparison carries its ± (lesson-seeds.test.mjs reads them at five seeds), so the step
// stays on its path and says all it says at its own seed.
test('another seed keeps the step on its path, every sentence said', () => {
  let checked = 0;
  for (const { name, step, i, want } of steps) {
    if (!Object.hasOwn(want, 'seed')) continue;
    const own = claimsOf(step, want, factsFor(want), fill, true).parts.length;
    const { parts } = claimsOf(step, want, factsFor({ ...want, seed: 99 }), fill, true);
    assert.ok(
      !/^Off the step|^No noise in this run/.test(parts[0].text),
      `${name} ${i + 1}: ${parts[0].text}`,
    );
    assert.equal(parts.length, own, `${name} ${i + 1}: the same sentences at seed 99`);
    checked += 1;
  }
  assert.ok(checked >= 15, `${checked} steps checked`);
});

test("steps that presuppose their settings mark those words (the paper's setting, …)", () => {
  const said = (n, i) => fixedWords(LESSONS.get(n).steps[i]).join(' | ');
  assert.match(said('moments', 0), /the paper's own optimistic convention/);
  assert.match(said('noise', 1), /the same noise/);
  assert.match(said('clipping', 2), /the noise σC grew with C/);
  assert.match(said('cost', 0), /On Adult, 32,561 people/);
  // A wait text never presupposes the result (clipping step 2's once said "climb").
  for (const { name, step, i } of steps) {
    for (const s of step.say)
      if (typeof s !== 'string' && s.wait)
        assert.ok(!/climb|drown|recover/.test(s.wait), `${name} ${i + 1}: ${s.wait}`);
  }
});

test("a comparison training first (a pinned run) is not judged as the step's own", () => {
  const { lesson } = steps.find((s) => s.name === 'clipping');
  const want = settingsOf(lesson, 1);
  const { parts } = claimsOf(lesson.steps[1], want, factsFor({ ...want, clip: 0.1 }), fill, false);
  assert.ok(
    !/^Off the step/.test(parts[0]?.text ?? ''),
    "the earlier step's run is on screen while it trains",
  );
});

// Every accuracy comparison a lesson states carries its ± and says a difference only beyond it
// (#53 §2): the facts' gaps are Rust's (train/gap.rs); here each is set by hand.
test('an accuracy comparison is a difference only beyond its ±, and always gives the ±', () => {
  const gaps = [
    ['within', { points: 0.4, margin: 0.8, clear: false }],
    ['up', { points: 8.4, margin: 0.9, clear: true }],
    ['down', { points: -2, margin: 0.9, clear: true }],
  ];
  let checked = 0;
  for (const { name, step, i, want } of steps) {
    const compares = step.say.filter(
      (s) =>
        typeof s !== 'string' &&
        'when' in s &&
        /\{accGap\}|\{cost\}|\{costAbs\}/.test(String(s.yes) + String(s.no)),
    );
    for (const s of compares) {
      for (const [kind, gap] of gaps) {
        const f = { ...factsFor({ ...want }), accGap: gap, costGap: gap, cost: gap.points };
        const pick = s.when(f) ? s.yes : s.no;
        const said = typeof pick === 'function' ? pick(f) : pick;
        if (kind === 'down') assert.doesNotMatch(said, /Privacy costs/, `DP-SGD above: ${said}`);
        assert.match(said, /±/, `${name} ${i + 1} (${kind}): ${said}`);
        if (kind === 'within')
          assert.ok(
            !/climbs|recovers|below the|costs \{cost\} ±|clearly/.test(said),
            `${name} ${i + 1}: a gap within the noise said as one: ${said}`,
          );
        checked += 1;
      }
    }
  }
  assert.ok(checked >= 12, `${checked} comparisons checked`); // clipping 2 and 3, noise 2, cost 2
});

// Every `{name}` of every lesson's text is one the fillers know (with Rust's accountants'
// names: {whole.NAME} is made from them, not listed in the page), so no sentence shows a raw
// `{whole.moments}` to a class.
test('every name a lesson fills in is one the fillers know', () => {
  const texts = [];
  const walk = (v) => {
    // a function's words are in its source (yes, no, wait and offStep may be functions)
    if (typeof v === 'string' || typeof v === 'function') texts.push(String(v));
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  for (const lesson of LESSONS.values()) walk(lesson);
  const names = new Set(
    texts.flatMap((t) => [...t.matchAll(/\{(?:prev\.)?([a-zA-Z.]+)\}/g)].map((m) => m[1])),
  );
  assert.ok(names.has('whole.moments') && names.size > 20, [...names].join(' '));
  const known = fillers((v) => v.toFixed(2), ACCOUNTANTS);
  assert.deepEqual(
    [...names].filter((n) => !known.has(n)),
    [],
  );
  const before = fillers((v) => v.toFixed(2), []);
  assert.ok(!before.has('whole.moments'), "the accountants' names come from Rust");
  const facts = factsFor(settingsOf(LESSONS.get('moments'), 0));
  assert.equal(
    fillIn('ε = {whole.moments}, {whole.typo}', facts, before),
    'ε = …, …',
    'before the wasm: waiting',
  );
  assert.equal(
    fillIn('ε = {whole.moments}, {whole.typo}', facts, known),
    'ε = 1.20, {whole.typo}',
    'a typo shows',
  );
});

test('noise on the steps, another release without (σ_p = 0): Rust’s cause, no figure', () => {
  // Coverage.open's words for DP-PCA without noise (src/train/coverage.rs).
  const open = "DP-PCA's projection (σ_p = 0) has no noise, so ε = ∞.";
  let checked = 0;
  for (const { name, step, i, want } of steps) {
    if (!(want.sigma > 0) || ['non-private', 'clip-only'].includes(want.mode)) continue;
    const facts = { ...factsFor({ ...want, pca: 3, pca_sigma: 0 }), open };
    const { parts, ask } = claimsOf(step, want, facts, fill, true);
    const text = parts.map((p) => p.text).join(' ');
    assert.equal(parts.length, 1, `${name} ${i + 1}: only the premise's sentence: ${text}`);
    assert.ok(text.startsWith(`No privacy in this run: ${open} `), `${name} ${i + 1}: ${text}`);
    assert.ok(!/#|σ = 0\)/.test(text.replace(open, '')), `${name} ${i + 1}: ${text}`);
    assert.match(ask, /one release without noise/);
    // Not live (a pinned run training first): the step's own sentences wait, as before.
    const pinned = claimsOf(step, want, facts, fill, false);
    assert.ok(!pinned.parts.some((p) => p.text.startsWith('No privacy')), `${name} ${i + 1}`);
    checked += 1;
  }
  assert.ok(checked >= 8, `${checked} steps with noise`);
});

test('the cost step without a non-private run alike on the chart says so, not "training"', () => {
  const [, step] = LESSONS.get('cost').steps;
  const want = settingsOf(LESSONS.get('cost'), 1);
  const moved = { ...factsFor({ ...want, lr: 2 }), cost: undefined, costGap: undefined };
  const said = (facts, live) =>
    claimsOf(step, want, facts, fill, live)
      .parts.map((p) => p.text)
      .join(' ');
  assert.match(said(moved, true), /No non-private run with these settings is on the chart/);
  assert.match(said({ ...moved, done: false }, true), /appears on the chart once this run is done/);
  assert.match(said(moved, false), /The four runs are training/);
});

test('a setting a step leaves to the lab, turned on, is named: DP-PCA, adaptive C, release', () => {
  const turnedOn = [
    [{ pca: 3 }, 'DP-PCA = 3 here', 'DP-PCA = off'],
    [{ clip_quantile: 0.9 }, 'adaptive clipping = 0.9 here', 'adaptive clipping = off'],
    [{ report: 'private' }, 'the release level = private here', 'the release level = teaching'],
    [{ budget_epsilon: 2 }, 'the ε budget = 2 here', 'the ε budget = off'],
  ];
  let checked = 0;
  for (const { name, step, i, want } of steps) {
    const lab = { pca: null, clip_quantile: null, report: 'teaching', budget_epsilon: null };
    const still = claimsOf(step, want, factsFor({ ...want, ...lab }), fill, true);
    assert.ok(!/^Off the step/.test(still.parts[0]?.text ?? ''), `${name} ${i + 1}: lab's own`);
    for (const [on, now, was] of turnedOn) {
      const { parts } = claimsOf(step, want, factsFor({ ...want, ...lab, ...on }), fill, true);
      const text = parts.map((p) => p.text).join(' ');
      if (/^No noise in this run/.test(text)) continue; // a step without noise of its own
      assert.ok(text.startsWith(`Off the step: ${now} (the step sets ${was})`), `${name}: ${text}`);
      for (const words of fixedWords(step)) assert.ok(!text.includes(words), `${name}: ${words}`);
      checked += 1;
    }
  }
  assert.ok(checked >= 4 * steps.length - 4, `${checked} of ${4 * steps.length}`);
});

test('at the private release level no sentence waits on what is not released', () => {
  // A built-in set releases its exact test accuracy at this level; a student's own file only
  // a noisy count (accNoisy). "…" for what never comes.
  const views = 'clipped|noiseRatio';
  const accuracy = '|acc|accGap|accMargin|cost|costAbs|costMargin';
  const unreleased = (noisy) =>
    new RegExp(String.raw`\{(prev\.)?(${views}${noisy ? accuracy : ''})\}`, 'g');
  for (const noisy of [false, true]) {
    const fillPrivate = (text) => text.replace(unreleased(noisy), '…').replace(/\{[^}]+\}/g, '#');
    let said = 0;
    let withheld = 0;
    for (const { name, step, i, want } of steps) {
      const facts = { ...factsFor({ ...want, report: 'private' }), accNoisy: noisy };
      const { parts } = claimsOf(step, want, facts, fillPrivate, true);
      const text = parts.map((p) => p.text).join(' ');
      assert.ok(!text.includes('…'), `${name} ${i + 1}: ${text}`);
      if (/not released at this level/.test(text)) said += 1;
      if (/exact test accuracy/.test(text)) withheld += 1;
    }
    assert.ok(said >= 4, `${said} steps said why`);
    assert.equal(withheld > 0, noisy, `the accuracy withheld only as a noisy count: ${withheld}`);
  }
});

test('a run below the majority line is "no better" than it, never "within two points"', () => {
  const lesson = LESSONS.get('noise');
  const [step] = lesson.steps;
  const want = settingsOf(lesson, 0);
  const said = (facts) => claimsOf(step, want, { ...factsFor(want), ...facts }, fill, true).parts;
  const claim = (facts) => said(facts).find((p) => p.claim !== undefined);
  // σ = 16 or L = 1: the model wanders, ending far below the line (Rust: neither on the line
  // for three epochs nor clearly above it).
  const below = claim({ acc: 0.5, majority: 0.76, learnedNothing: undefined });
  assert.equal(below.claim, true);
  assert.match(below.text, /no better than the grey majority line/);
  assert.equal(claim({ acc: 0.76, learnedNothing: true }).claim, true);
  assert.equal(claim({ acc: 0.85, learnedNothing: false }).claim, false);
  assert.equal(claim({ done: false, learnedNothing: undefined }).claim, null);
});

test("while another run trains first, no sentence quotes its numbers as the step's", () => {
  let named = 0;
  for (const { name, step, i, want } of steps) {
    for (const earlier of [undefined, 'C = 0.1']) {
      const { parts } = claimsOf(step, want, factsFor(want), fill, false, earlier);
      for (const p of parts) assert.ok(!p.text.includes('#'), `${name} ${i + 1}: ${p.text}`);
      if (earlier && parts[0]?.text.startsWith("First the earlier step's run (C = 0.1)"))
        named += 1;
    }
  }
  assert.equal(named, steps.length);
});

test('Alice: a high catch rate inside the region is no fluke; "do not touch" only when so', () => {
  const lesson = LESSONS.get('alice');
  const said = (i, alice) => {
    const want = settingsOf(lesson, i);
    const { parts } = claimsOf(lesson.steps[i], want, { ...factsFor(want), alice }, fill, true);
    return parts;
  };
  // σ lowered to 1 in step 2: the guess catches 96%, the region allows 100%.
  const high = said(1, { tpr: 0.96, allowed: 1, verdict: 'inside', best: 0.97, bestFpr: 0.02 });
  const claim = high.find((p) => p.claim !== undefined);
  assert.equal(claim.claim, true);
  assert.ok(!/fluke|bug/.test(claim.text), claim.text);
  const outside = said(1, { tpr: 0.96, allowed: 0.5, verdict: 'outside', best: 1, bestFpr: 0 });
  assert.match(outside.find((p) => p.claim !== undefined).text, /fluke, or a bug/);
  // Above what the region allows, but within the band: "at most" is not left contradicted.
  const chance = said(1, { tpr: 0.4, allowed: 0.35, verdict: 'within-chance', runs: 20 });
  const within = chance.find((p) => p.claim !== undefined);
  assert.equal(within.claim, true);
  assert.match(within.text, /allows at most #\. Its ROC rises above the region somewhere, but/);
  assert.match(within.text, /as much as chance allows with # runs a side\.$/);
  assert.ok(!/rises above/.test(high.find((p) => p.claim !== undefined).text));
  // Step 1: 95% caught at a 5% false-alarm rate is no proof the histograms are apart.
  const text = (parts) => parts.map((p) => p.text).join(' ');
  const close = said(0, { tpr: 0.95, verdict: 'outside', best: 0.96, bestFpr: 0.03 });
  assert.ok(!/do not touch/.test(text(close)), text(close));
  const apart = said(0, { tpr: 1, verdict: 'outside', best: 1, bestFpr: 0 });
  assert.match(text(apart), /do not touch/);
});

// What who-pays step `number` says of a comparison of Rust's (`compared`), with `over` facts.
function whoPaysSaid(number, compared, over = {}) {
  const lesson = LESSONS.get('who-pays');
  const want = settingsOf(lesson, number - 1);
  const facts = { ...factsFor(want), groups: { summary: {}, compared }, ...over };
  return claimsOf(lesson.steps[number - 1], want, facts, fill, true)
    .parts.map((p) => p.text)
    .join(' ');
}

test('who pays: no digit "loses most" unless its fall is beyond its ±', () => {
  const said = (compared) => whoPaysSaid(2, compared);
  const none = { most_lost: '5', rarest: '5', most_lost_points: -0.3, most_lost_clear: false };
  const text = said({ ...none, falls_beyond_noise: 0 });
  assert.ok(!/loses most/.test(text), text);
  assert.match(text, /No #'s fall under DP-SGD is beyond its ±/);
  // Another digit's smaller fall beyond its ± (more test rows): not "no digit".
  const other = said({ ...none, most_lost_points: 3, falls_beyond_noise: 1 });
  assert.ok(!/loses most|No #'s fall/.test(other), other);
  // A clear fall, but no more than chance ahead of the next (Rust's most_lost_ahead_clear):
  // "falls most", the next named; "loses most" only where it is ahead beyond chance.
  const clear = { ...none, most_lost_points: 4, most_lost_clear: true, falls_beyond_noise: 2 };
  const close = said({ ...clear, most_lost_ahead_clear: false, next_lost: '8' });
  assert.ok(!/loses most/.test(close), close);
  assert.match(close, /falls most: # ± # points, no more than chance allows ahead of # #/);
  const apart = said({ ...clear, most_lost_ahead_clear: true, next_lost: '8' });
  assert.match(apart, /loses most: # ± # points\./);
  assert.ok(!/chance allows ahead/.test(apart), apart);
});

test('who pays 3: "loses most" on Adult only ahead of the next fall beyond chance', () => {
  const said = (compared) => whoPaysSaid(3, compared);
  const c = {
    most_lost: 'Other',
    most_lost_points: 6,
    most_lost_clear: true,
    falls_beyond_noise: 2,
  };
  const close = said({ ...c, most_lost_ahead_clear: false, next_lost: 'Black' });
  assert.ok(!/loses most/.test(close), close);
  assert.match(close, /falls most under DP-SGD: .* no more than chance allows ahead of/, close);
  assert.match(said({ ...c, most_lost_ahead_clear: true }), /# loses most to DP-SGD/);
  // Done, nothing compared at these settings (a setting moved since Compare): said, not blank.
  const moved = whoPaysSaid(3, null, { done: true });
  assert.match(moved, /No non-private run with these settings .* press Compare/, moved);
});
