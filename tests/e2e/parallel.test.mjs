// End to end: data-parallel training. The "Workers" control splits each lot between that many
// workers (the training worker and its helpers); the training worker alone adds the noise and
// steps, so the run does not change with k beyond the rounding of its sums. Small lots stay in
// one worker, and the page says why.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generationOf, openLab, setUp, tearDown, waitForRun } from './lab.mjs';

before(setUp);
after(tearDown);

// Runs the page's current settings with `k` workers; returns the reports and the note shown.
async function runWith(page, k, epochs) {
  const g = await generationOf(page);
  await page.fill('#workers', String(k));
  await page.dispatchEvent('#workers', 'change');
  await waitForRun(page, g, epochs, { done: true, timeout: 120_000 });
  return {
    reports: await page.evaluate(() => window.labTest.reports()),
    used: await page.locator('#workers-used').textContent(),
  };
}

const close = (a, b, tol) => Math.abs(a - b) <= tol * Math.max(Math.abs(a), 1e-3);

test('k = 1, 2 and 3 workers train the same run to 1e-5; the noise is drawn once, by the coordinator', async () => {
  const { page, problems } = await openLab('#v=1&epochs=2&dataset=mnist&model=mlp&lot_size=600&seed=3&report=teaching');
  const one = await runWith(page, 1, 2);
  assert.equal(one.used, '(1 in use)');
  for (const k of [2, 3]) {
    const many = await runWith(page, k, 2);
    assert.equal(many.used, `(${k} in use)`);
    assert.equal(many.reports.length, one.reports.length);
    let differs = false;
    one.reports.forEach((a, e) => {
      const b = many.reports[e];
      const pairs = [
        ['test_loss', a.test_loss, b.test_loss],
        ['test_acc', a.test_acc, b.test_acc],
        ['train_loss', a.train_loss, b.train_loss],
        ['signal_norm', a.signal_norm, b.signal_norm],
        ['noise_norm', a.noise_norm, b.noise_norm],
        ['median_grad_norm', a.median_grad_norm, b.median_grad_norm],
        ['clipped_fraction', a.clipped_fraction, b.clipped_fraction],
      ];
      for (const [key, x, y] of pairs) {
        assert.ok(close(x, y, 1e-5), `k = ${k}, epoch ${e + 1}: ${key} ${x} vs ${y}`);
        differs ||= x !== y;
      }
      // One noise draw per lot of the same size: the same noise norm, and the same ε.
      assert.equal(b.epsilon.moments, a.epsilon.moments);
      assert.equal(b.mean_lot_size, a.mean_lot_size);
    });
    assert.ok(differs, `k = ${k}: the parts were not summed apart (every figure bit-identical)`);
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('lots too small to be worth splitting stay in one worker, and the page says why', async () => {
  const { page, problems } = await openLab('#v=1&epochs=1');
  const two = await runWith(page, 2, 1);
  assert.match(two.used, /^\(1 in use: lots this small are faster in one worker\)$/);
  // A bad value is named, not obeyed.
  await page.fill('#workers', '99');
  await page.dispatchEvent('#workers', 'change');
  assert.equal(await page.locator('#workers').evaluate((el) => el.validationMessage), 'a whole number from 1 to 8');
  assert.deepEqual(problems, []);
  await page.close();
});
