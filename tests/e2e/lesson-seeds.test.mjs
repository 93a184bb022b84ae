// End to end (#53 §2, "Done when"): every accuracy comparison a lesson states, at five seeds
// other than the lesson's own. At each seed the step's sentence either calls a difference a
// difference and it exceeds its ± (two standard errors, from the test rows), or says it is
// within its ±, and its numbers are the runs' on the page: this file recomputes each gap and
// each ± from the reports (the run's and its pinned comparison's), independently of Rust's
// train/gap.rs and charts/groups.rs, and reads the sentence's figures against them. A step
// that compares with the one before trains that earlier step at the same seed (the student's
// change carried into both): the comparison stays one setting against another.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generationOf, openLab, setUp, tearDown } from './lab.mjs';

before(setUp);
after(tearDown);

const SEEDS = [2, 3, 4, 5, 6];
// The test sets' sizes (src/data: Adult's 16,281 test rows, breast cancer's 114 patients).
const N_TEST = { adult: 16_281, 'breast-cancer': 114 };

// Two standard errors, in points, of the difference of two accuracies on n test rows each.
const margin = (a, b, n) => 200 * Math.sqrt((a * (1 - a)) / n + (b * (1 - b)) / n);
// A figure as the lessons write it: "−1.2" / "+0.4" / "3.5".
const figure = (s) => Number(s.replace('−', '-').replace('+', ''));
// The sentence's figures against ours: each within its rounding to one decimal.
const near = (said, ours, what, text) =>
  assert.ok(
    Math.abs(said - ours) <= 0.051,
    `${what}: the page says ${said}, the runs give ${ours.toFixed(3)}: ${text}`,
  );

// Each of SEEDS in turn, `check(seed, {text, last, pins})` once the step has said all it will
// (its sentences, the run's last report and the pinned runs' ends): the first seed on a fresh
// page, the others as links opened in place on it, as a class tries its next seed (30 fresh
// pages cost the suite half a minute of loading).
async function eachSeed(lesson, step, check) {
  let opened = null;
  for (const seed of SEEDS) {
    const link = `#lesson=${lesson}&step=${step}&seed=${seed}`;
    if (opened) {
      const g = await generationOf(opened.page);
      await opened.page.evaluate((h) => {
        location.hash = h;
      }, link);
      await opened.page.waitForFunction(
        (after) => Number(document.getElementById('run-log').dataset.generation) > after,
        g,
      );
    } else {
      opened = await openLab(link);
    }
    const { page } = opened;
    // Every step here pins a run to compare with (a link opened in place clears the last
    // seed's): once they are pinned at this seed and the run after them says "Done" (its
    // status and the lesson's sentences are written together), the sentences are this seed's.
    await page.waitForFunction(
      (s) => {
        const state = window.labTest.lessonState();
        const pinned = window.labTest.pinnedEnds();
        return (
          pinned.length > 0 &&
          pinned.every((p) => p.cfg.seed === s) &&
          /^Done/.test(document.getElementById('status').textContent) &&
          state &&
          state.done &&
          state.claims.every((c) => c !== null) &&
          !/…/.test(state.text)
        );
      },
      seed,
      { timeout: 300_000 },
    );
    const { text } = await page.evaluate(() => window.labTest.lessonState());
    // Another seed is the same step (lesson-claims.js): none of its sentences left out.
    assert.ok(!/^Off the step/.test(text), text);
    const last = await page.evaluate(() => window.labTest.reports().at(-1));
    const pins = await page.evaluate(() => window.labTest.pinnedEnds());
    check(seed, { text, last, pins });
  }
  assert.deepEqual(opened.problems, []);
  await opened.page.close();
}

// A step that compares its run with the earlier step's (`compare: 'run'`): the gap of the
// test accuracies, said with its ±, and a gain called a gain only beyond it.
const earlierStep = (lesson, step, key, gain) => [
  `${lesson} step ${step}: the gain over the earlier step (${key} moved)`,
  async () => {
    await eachSeed(lesson, step, (seed, { text, last, pins }) => {
      assert.equal(pins.length, 1, `the earlier step pinned, once: ${JSON.stringify(pins)}`);
      const earlier = pins[0];
      assert.equal(earlier.cfg.seed, seed, 'the earlier step trained at the same seed');
      const n = N_TEST.adult;
      const points = 100 * (last.test_acc - earlier.last.test_acc);
      const m = margin(last.test_acc, earlier.last.test_acc, n);
      const said = text.match(/([+−]?\d+\.\d)(?: points, beyond the ±| ± )(\d+\.\d)/);
      assert.ok(said, `the gap and its ± are said: ${text}`);
      near(figure(said[1]), points, 'gap', text);
      near(figure(said[2]), m, '±', text);
      assert.equal(
        gain.test(text),
        points > m,
        `a gain is said exactly when it is beyond its ± (${points.toFixed(2)} ` +
          `± ${m.toFixed(2)}): ${text}`,
      );
      console.log(`${lesson} ${step}, seed ${seed}: ${points.toFixed(2)} ± ${m.toFixed(2)} points`);
    });
  },
];

const cases = [
  earlierStep('clipping', 2, 'clip', /beyond the ±/),
  earlierStep('clipping', 3, 'clip', /clearly above/),
  earlierStep('noise', 2, 'lot_size', /recovers to/),
  [
    'cost step 2: what privacy costs, against the non-private run of the same seed',
    async () => {
      await eachSeed('cost', 2, (seed, { text, last, pins }) => {
        const np = pins.find((p) => p.cfg.mode === 'non-private');
        assert.equal(np?.cfg.seed, seed, JSON.stringify(pins));
        const cost = 100 * (np.last.test_acc - last.test_acc);
        const m = margin(last.test_acc, np.last.test_acc, N_TEST['breast-cancer']);
        const within = text.match(/end (\d+\.\d) points apart here .*within the ±(\d+\.\d) points/);
        const beyond = text.match(/Privacy costs (−?\d+\.\d) ± (\d+\.\d) points .*beyond chance/);
        assert.ok(within || beyond, text);
        near(
          within ? figure(within[1]) : figure(beyond[1]),
          within ? Math.abs(cost) : cost,
          'cost',
          text,
        );
        near(figure((within ?? beyond)[2]), m, '±', text);
        assert.equal(
          !!beyond,
          Math.abs(cost) > m,
          `a cost is said exactly when it is beyond its ± (${cost.toFixed(2)} ` +
            `± ${m.toFixed(2)}): ${text}`,
        );
        console.log(`cost 2, seed ${seed}: ${cost.toFixed(2)} ± ${m.toFixed(2)} points`);
      });
    },
  ],
  [
    "who pays step 2: the digits' gap widened only beyond its ±",
    async () => {
      await eachSeed('who-pays', 2, (seed, { text, last, pins }) => {
        const np = pins.find((p) => p.cfg.mode === 'non-private');
        assert.equal(np?.cfg.seed, seed, JSON.stringify(pins));
        // The gap between the best and the worst group, and the variance of it in points².
        const gap = (groups) => {
          const measured = groups
            .filter((g) => Number.isFinite(g.test_acc))
            .sort((a, b) => a.test_acc - b.test_acc);
          const [worst, best] = [measured[0], measured.at(-1)];
          const v = (g) => (1e4 * g.test_acc * (1 - g.test_acc)) / g.n_test;
          return { points: 100 * (best.test_acc - worst.test_acc), variance: v(best) + v(worst) };
        };
        const [a, b] = [gap(np.last.groups), gap(last.groups)];
        const m = 2 * Math.sqrt(a.variance + b.variance);
        const wider = text.match(
          /are (\d+\.\d) points apart; DP-SGD widens that to (\d+\.\d) \(±(\d+\.\d)\)/,
        );
        const not = text.match(
          /the gap is (\d+\.\d) points; with DP-SGD (\d+\.\d): not wider beyond its ±(\d+\.\d)/,
        );
        const said = wider ?? not;
        assert.ok(said, text);
        near(figure(said[1]), a.points, 'gap without privacy', text);
        near(figure(said[2]), b.points, 'gap with DP-SGD', text);
        near(figure(said[3]), m, '±', text);
        assert.equal(
          !!wider,
          b.points - a.points > m,
          `widened is said exactly beyond its ±: ${text}`,
        );
        console.log(
          `who-pays 2, seed ${seed}: ${a.points.toFixed(1)} → ${b.points.toFixed(1)} ` +
            `± ${m.toFixed(1)}`,
        );
      });
    },
  ],
  [
    "who pays step 3: a group's fall said only beyond the noise of its test rows",
    async () => {
      await eachSeed('who-pays', 3, (seed, { text, last, pins }) => {
        const np = pins.find((p) => p.cfg.mode === 'non-private');
        assert.equal(np?.cfg.seed, seed, JSON.stringify(pins));
        const falls = np.last.groups.map((g, i) => {
          const [p, q] = [g.test_acc, last.groups[i].test_acc];
          return { name: g.name, n: g.n_test, points: 100 * (p - q), m: margin(p, q, g.n_test) };
        });
        const ranked = falls
          .filter((f) => Number.isFinite(f.points))
          .sort((x, y) => y.points - x.points);
        const [most, next] = ranked;
        // "Loses most" ranks the falls: only where the largest is ahead of the next by more
        // than chance (the two on different rows: their ± added in quadrature).
        const ahead = !next || most.points - next.points > Math.hypot(most.m, next.m);
        const beyond = falls.filter((f) => f.points > f.m).length;
        const none = text.match(
          /No group's fall .* \(the most: (.+), (−?\d+\.\d) ± (\d+\.\d) points on (\d+) rows\)/,
        );
        // A fall beyond its ±: "loses most"; the largest fall within its ± is said as such.
        const clear = text.match(
          new RegExp(
            String.raw`(\S.*) loses most to DP-SGD: (−?\d+\.\d) ± (\d+\.\d) points on (\d+) ` +
              String.raw`test rows; (\d+) groups? falls? beyond`,
          ),
        );
        const close = text.match(
          new RegExp(
            String.raw`(\S.*) falls most under DP-SGD: (−?\d+\.\d) ± (\d+\.\d) points on (\d+) ` +
              String.raw`test rows, no more than chance allows ahead of group (\S.*) ` +
              String.raw`\((−?\d+\.\d)\); (\d+) groups? falls? beyond`,
          ),
        );
        if (close) {
          assert.ok(close[5].endsWith(next.name), `the next fall, ${next.name}: ${text}`);
          near(figure(close[6]), next.points, 'next fall', text);
        }
        const within = text.match(
          new RegExp(
            String.raw`Under DP-SGD (\d+) groups? falls? beyond .*; the largest fall, (\S.*) by ` +
              String.raw`(−?\d+\.\d) ± (\d+\.\d) points on (\d+) test rows, is within its ±`,
          ),
        );
        const some =
          clear ??
          (close && [...close.slice(0, 5), close[7]]) ??
          (within && [within[0], ...within.slice(2), within[1]]);
        const said = none ?? some;
        assert.ok(said, text);
        if (some) {
          const beyondIts = most.points > most.m;
          assert.equal(!!clear, beyondIts && ahead, `"loses most" beyond its ± and ahead: ${text}`);
          assert.equal(!!close, beyondIts && !ahead, `"falls most", not ahead: ${text}`);
        }
        assert.ok(said[1].endsWith(most.name), `the group that fell most, ${most.name}: ${text}`);
        near(figure(said[2]), most.points, 'fall', text);
        near(figure(said[3]), most.m, '±', text);
        assert.equal(Number(said[4]), most.n);
        assert.equal(!!none, beyond === 0, `${beyond} groups fall beyond their ±: ${text}`);
        if (some) assert.equal(Number(some[5]), beyond, text);
        console.log(
          `who-pays 3, seed ${seed}: ${most.name} ${most.points.toFixed(1)} ` +
            `± ${most.m.toFixed(1)}; ${beyond} beyond; ahead of the next: ${ahead}`,
        );
      });
    },
  ],
];

for (const [name, fn] of cases) test(name, fn);
