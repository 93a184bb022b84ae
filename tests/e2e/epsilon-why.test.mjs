// Why two ε differ (#53 §10): under the ε chart, one sentence from Rust (privacy::why) where two
// accountants on it are more than 2× apart. The page's first screen (σ = 1, L = 256 on Adult,
// the exact per-step bound) has strong composition above naive: the sentence says why (its two
// terms' shares of naive's T·ε′) and that both are valid bounds; in the paper's convention,
// that neither is. Where the accountants agree within 2× (the moments lesson's paper setting: naive
// 144, strong 9.37, moments 1.26, PLD 0.95) nothing is said.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generationOf, openLab, setRange, setUp, tearDown, waitForRun } from './lab.mjs';

before(setUp);
after(tearDown);

const why = (page) => page.locator('#epsilon-why').evaluate((e) => (e.hidden ? '' : e.textContent));

test('the first screen says why strong is above naive, and that both are bounds', async () => {
  const { page, problems } = await openLab('#v=1&epochs=2');
  await waitForRun(page, 0, 1);
  await page.waitForFunction(() => !document.getElementById('epsilon-why').hidden, null, {
    timeout: 30_000,
  });
  const said = await why(page);
  assert.match(
    said,
    new RegExp(
      String.raw`^Strong composition is above naive here\. Against naive's T·ε′ \(ε′ = ` +
        String.raw`[\d.]+ a step, T = [\d,]+ steps\), its √\(2T·ln\(1\/δ\)\)·ε′ term is about ` +
        String.raw`\d+% of it`,
    ),
    said,
  );
  assert.match(said, /Both are valid bounds: the smaller holds\./);
  await page.selectOption('#amplification', 'paper');
  // In the paper's convention strong composition is not above naive, or if it is, neither is
  // called a bound (the moments accountant's sentence may stay: it does not depend on it).
  await page.waitForFunction(
    () => {
      const t = document.getElementById('epsilon-why');
      return (
        t.hidden ||
        !/Strong composition/.test(t.textContent) ||
        /neither is a bound/.test(t.textContent)
      );
    },
    null,
    { timeout: 30_000 },
  );
  assert.ok(
    !/Strong composition[^]*Both are valid bounds: the smaller holds/.test(await why(page)),
    await why(page),
  );
  assert.deepEqual(problems, []);
  await page.close();
});

test('accountants within 2× of each other: nothing is said under the chart', async () => {
  const { page, problems } = await openLab('#lesson=moments&step=1');
  // The whole run's ε (the lesson quotes the preview's) and PLD's (the status line) are in.
  await page.waitForFunction(
    () =>
      window.labTest.lessonState()?.text.includes('moments accountant 1.26') &&
      /\(PLD\)/.test(document.getElementById('status').textContent),
    null,
    { timeout: 120_000 },
  );
  await page.waitForTimeout(500); // the ε chart's redraw
  assert.equal(await why(page), '');
  assert.deepEqual(problems, []);
  await page.close();
});

// The previews' keys are Rust's (#54 §3: preview_keys, the mechanism and δ): moving C, which
// the mechanism does not depend on, asks the accounting workers for no new PLD curve and no new
// σ panel; moving σ asks for the PLD curve again, but not the σ panel (σ is its unknown).
test('moving C recomputes no privacy preview; moving σ only the PLD curve', async () => {
  // Every message the page posts to a worker, counted by its type.
  const COUNT_POSTS = () => {
    window.labPosts = {};
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (message, ...rest) {
      const type = message && typeof message === 'object' ? message.type : undefined;
      if (typeof type === 'string') window.labPosts[type] = (window.labPosts[type] || 0) + 1;
      return post.call(this, message, ...rest);
    };
  };
  const { page, problems } = await openLab('#v=1&epochs=2', COUNT_POSTS);
  const asked = () =>
    page.evaluate(() => ({
      pld: window.labPosts['pld-curve'] || 0,
      sigma: window.labPosts['sigma-needed'] || 0,
    }));
  await waitForRun(page, 0, 2, { done: true });
  await page.waitForFunction(
    () => window.labPosts['pld-curve'] >= 1 && window.labPosts['sigma-needed'] >= 1,
    null,
    { timeout: 30_000 },
  );
  const first = await asked();
  let g = await generationOf(page);
  await setRange(page, '#clip', '3');
  await waitForRun(page, g, 2, { done: true });
  assert.deepEqual(await asked(), first, 'C moved: no preview asked again');
  g = await generationOf(page);
  await setRange(page, '#sigma', '2');
  await waitForRun(page, g, 2, { done: true });
  await page.waitForFunction((n) => window.labPosts['pld-curve'] > n, first.pld, {
    timeout: 30_000,
  });
  assert.equal((await asked()).sigma, first.sigma, 'σ moved: the σ panel stands');
  assert.deepEqual(problems, []);
  await page.close();
});
