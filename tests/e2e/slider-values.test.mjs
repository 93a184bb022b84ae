// A value a slider can show exactly is the value the run trains (#53 §11): η = 0.5 on the
// learning-rate slider (a log scale on a 0.01 grid, whose knob reads back 0.501) and C = 0.3
// from a link run as 0.5 and 0.3, and their labels say so; a person's move of the knob then
// gives the grid's values.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openLab, setUp, tearDown, waitForRun } from './lab.mjs';

before(setUp);
after(tearDown);

test("a link's η = 0.5 and C = 0.3 train as such; the knob moved gives its values", async () => {
  const { page, problems } = await openLab('#v=1&epochs=1&dataset=blobs&lr=0.5&clip=0.3');
  await waitForRun(page, 0, 1, { done: true });
  const run = await page.evaluate(() => window.labTest.reports().at(-1));
  assert.ok(run, 'a report');
  assert.equal(await page.locator('#lr-value').textContent(), '0.5');
  assert.equal(await page.locator('#clip-value').textContent(), '0.3');
  const hash = new URLSearchParams(new URL(page.url()).hash.slice(1));
  assert.equal(hash.get('lr'), '0.5', page.url());
  assert.equal(hash.get('clip'), '0.3', page.url());
  await page.locator('#lr').focus();
  await page.keyboard.press('ArrowRight');
  assert.equal(
    await page.locator('#lr-value').textContent(),
    '0.513',
    'one step up the grid: 10^−0.29',
  );
  assert.deepEqual(problems, []);
  await page.close();
});
