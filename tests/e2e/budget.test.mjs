// e2e: alone (its pages' main-thread tasks are held to a CPU time (assertResponsive)).
// End to end, a privacy budget (out of page.test.mjs): calibrate σ finds the σ whose run spends
// at most a target ε by each accountant, budget mode stops a run before a step would spend more,
// and the σ-needed panel draws every accountant's σ for the target, in the accounting worker.
// Each test opens a page of its own; they run in a shuffled order (E2E_SEED=n repeats one).
import { test as register, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import {
  ARTIFACTS,
  cell,
  generationOf,
  openLab,
  registerShuffled,
  responsiveSuite,
  setRange,
  waitForRun,
} from './lab.mjs';

const cases = [];
const test = (name, fn) => cases.push([name, fn]);

responsiveSuite(before, after);

test('calibrate σ never spends over the target; budget mode stops before going over', async () => {
  const { page, problems } = await openLab('#v=1&epochs=5');
  await waitForRun(page, 0, 1);
  for (const [accountant, target] of [
    ['moments', '1.5'],
    ['pld', '0.8'],
    ['strong', '30'],
  ]) {
    await page.fill('#budget-eps', target);
    await page.selectOption('#budget-accountant', accountant);
    const g = await generationOf(page);
    await page.click('#calibrate');
    await waitForRun(page, g, 5, { done: true });
    // The run log rounds ε up, so a shown value within the target means the true one is too.
    const key = `epsilon.${accountant}`;
    const eps = Number(await cell(page, 4, key));
    assert.ok(
      eps <= Number(target) && eps >= Number(target) * 0.97,
      `${accountant}: calibrated run ended at ε = ${eps} for a target of ${target}`,
    );
    assert.match(
      await page.locator('#message-text').textContent(),
      /rounded up\) spends ε = [\d.]+ ≤/,
    );
  }
  await page.selectOption('#budget-accountant', 'moments');
  await page.fill('#budget-eps', '1.2');
  // At σ = 1 one step already costs ε = 1.28 by the moments accountant: said, not stuck.
  await setRange(page, '#sigma', '1');
  await page.check('#until-budget');
  await page.waitForFunction(
    () => /spent before the first step/.test(document.getElementById('message-text').textContent),
    null,
    { timeout: 20_000 },
  );
  const g = await generationOf(page);
  await setRange(page, '#sigma', '1.2');
  await waitForRun(page, g, 1, { done: true });
  assert.match(
    await page.locator('#status').textContent(),
    new RegExp(
      String.raw`^Stopped by the budget in epoch \d+ \(step \d+\): one more step would spend ` +
        String.raw`more than ε = 1\.2 with the moments accountant\.$`,
    ),
  );
  const stop = page.locator('#run-log tbody tr.budget-stop');
  assert.equal(await stop.count(), 1);
  const eps = Number(await stop.locator('td[data-key="epsilon.moments"]').textContent());
  assert.ok(eps <= 1.2, `stopped at ε = ${eps}`);
  assert.ok(Number(await stop.locator('td[data-key="epoch"]').textContent()) < 5);
  await page.screenshot({ path: path.join(ARTIFACTS, 'page-budget.png'), fullPage: true });
  assert.deepEqual(problems, []);
  await page.close();
});

test('the σ-needed panel draws every accountant, follows the target ε, off-thread', async () => {
  const { page, problems } = await openLab('#v=1&epochs=5');
  const fingerprint = () => page.evaluate(() => window.ink('sigma-chart'));
  await page.waitForFunction(() => window.ink('sigma-chart').inked > 2000, null, {
    timeout: 30_000,
  });
  const before = await fingerprint();
  await page.locator('#sigma-chart').screenshot({ path: path.join(ARTIFACTS, 'sigma-needed.png') });
  // A new target: the panel says it is computing, then draws the new curves.
  const redrawn = (h) =>
    page.waitForFunction(
      (old) => {
        const now = window.ink('sigma-chart');
        return now.hash !== old && now.inked > 2000;
      },
      h,
      { timeout: 30_000 },
    );
  await page.fill('#budget-eps', '0.5');
  await page.locator('#budget-eps').dispatchEvent('change');
  await redrawn(before.hash);
  // The target is in the link (not as a budget): the page it opens draws the same panel.
  await page.waitForFunction(() => /[#&]target=0\.5(&|$)/.test(location.hash));
  assert.doesNotMatch(page.url(), /[#&]budget=/);
  const shared = await openLab(new URL(page.url()).hash);
  await shared.page
    .waitForFunction((h) => window.ink('sigma-chart').hash === h, (await fingerprint()).hash, {
      timeout: 30_000,
    })
    .catch(() => assert.fail("the link's page drew another σ panel"));
  assert.equal(await shared.page.locator('#budget-eps').inputValue(), '0.5');
  assert.equal(await shared.page.locator('#until-budget').isChecked(), false);
  assert.deepEqual(shared.problems, []);
  await shared.page.close();
  // No target: the old curves give way to a message, never stay under a wrong caption.
  await page.fill('#budget-eps', '');
  await page.locator('#budget-eps').dispatchEvent('change');
  await page.waitForFunction(() => window.ink('sigma-chart').inked < 1500, null, {
    timeout: 10_000,
  });
  assert.match(await page.locator('#message-text').textContent(), /Target ε must be a number/);
  const empty = await fingerprint();
  await page.fill('#budget-eps', '2');
  await page.locator('#budget-eps').dispatchEvent('change');
  await redrawn(empty.hash);
  assert.deepEqual(problems, []);
  await page.close();
});

// A target typed while a queued run is on screen (Compare's non-private run, started paused so
// that it stays there): the ε chart stays that run's (ε = ∞, no noise added), not the curves of
// the sliders' DP-SGD run under its name.
test("a target typed while Compare's non-private run is on screen keeps its ε chart", async () => {
  const { page, problems } = await openLab('#v=1&epochs=5');
  await waitForRun(page, 0, 5, { done: true });
  await page.click('#play'); // pause: the queued runs start paused
  await page.click('#compare');
  await page.waitForFunction(
    () => /"non-private"/.test(document.getElementById('status').textContent),
    null,
    { timeout: 30_000 },
  );
  const said = 'ε = ∞ — no privacy (no noise added)';
  const message = () => page.locator('#epsilon-chart').getAttribute('data-message');
  await page.waitForFunction(
    (s) => document.getElementById('epsilon-chart').dataset.message === s,
    said,
    { timeout: 20_000 },
  );
  await page.fill('#budget-eps', '3');
  await page.locator('#budget-eps').dispatchEvent('change');
  await page.waitForTimeout(1500); // the previews and the charts' redraw
  assert.equal(await message(), said);
  assert.deepEqual(problems, []);
  await page.close();
});

registerShuffled(register, cases);
