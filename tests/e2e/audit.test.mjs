// e2e: alone (it holds the page's main-thread CPU time to a bound while the audit's workers run).
// End to end: the "Audit this run" panel. Its runs go to audit workers, the page draws the
// privacy region with both attacks' ROC curves and ε_lower against the accountants' ε, Cancel
// stops the workers at once, and no main-thread task takes over 50 ms of CPU while an audit runs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ARTIFACTS, longTasks, openLab, setRange, setUp, tearDown } from './lab.mjs';

before(() => setUp({ traced: true }));
// The time windows (page, from, to) in which an audit was under way.
const windows = [];
after(async () => {
  const all = await longTasks();
  await tearDown();
  const during = all.filter((t) =>
    windows.some((w) => w.page === t.page && t.start >= w.from && t.start <= w.to),
  );
  console.log(`long tasks while auditing: ${JSON.stringify(during)} (all: ${JSON.stringify(all)})`);
  assert.deepEqual(
    during.filter((x) => x.ms > 50),
    [],
    'main-thread tasks over 50 ms of CPU during an audit',
  );
});

const now = (page) => page.evaluate(() => [window.labPageId, performance.now()]);

const summaries = (page) => page.locator('#audit-summary li');

// Runs an audit once the page's own run is done, so the window measured is the audit's alone.
async function audit(page, runs) {
  await page.waitForFunction(
    () => /^(Done|Stopped)/.test(document.getElementById('status').textContent),
    null,
    { timeout: 120_000 },
  );
  if (runs) await page.fill('#audit-runs', String(runs));
  const [id, from] = await now(page);
  await page.click('#audit-start');
  const started = {
    status: await page.locator('#audit-status').textContent(),
    workers: await page.evaluate(() => document.body.dataset.auditWorkers),
  };
  // Once (run 93, under load, MNIST, one worker) an audit never finished in 180 s: a recurrence
  // says where the panel stood.
  await page
    .waitForFunction(() => document.querySelectorAll('#audit-summary li').length === 2, null, {
      timeout: 180_000,
    })
    .catch(async (e) => {
      const where = await page.evaluate(() => ({
        status: document.getElementById('audit-status')?.textContent,
        workers: document.body.dataset.auditWorkers,
        summary: document.getElementById('audit-summary')?.textContent,
        message: document.getElementById('message')?.textContent,
      }));
      throw new Error(`the audit never finished: ${JSON.stringify({ started, where })}: ${e}`);
    });
  windows.push({ page: id, from, to: (await now(page))[1] });
  return started;
}

test("an audit is marked another run's the moment the settings differ (#40, 3.3)", async () => {
  const { page, problems } = await openLab(
    '#v=1&dataset=blobs&model=logistic&lot_size=60&epochs=3&sigma=1',
  );
  await audit(page, 4);
  assert.equal(await page.locator('#audit-stale').isVisible(), false, "the audit is this run's");
  await setRange(page, '#sigma', '4');
  await page.waitForFunction(() => !document.getElementById('audit-stale').hidden);
  assert.match(
    await page.locator('#audit-stale').textContent(),
    /settings have changed since this audit/,
  );
  // back to the audited settings: the result is this run's again
  await setRange(page, '#sigma', '1');
  await page.waitForFunction(() => document.getElementById('audit-stale').hidden);

  // Settings changed while the audit trains: its result arrives marked (σ, then the data set).
  for (const change of [
    () => setRange(page, '#sigma', '4'),
    () => page.selectOption('#dataset', 'circle'),
  ]) {
    await page.waitForFunction(
      () => /^(Done|Stopped)/.test(document.getElementById('status').textContent),
      null,
      { timeout: 120_000 },
    );
    await page.fill('#audit-runs', '150');
    await page.click('#audit-start');
    await change();
    assert.equal(await summaries(page).count(), 0, 'changed while the audit still trains');
    await page.waitForFunction(
      () => document.querySelectorAll('#audit-summary li').length === 2,
      null,
      { timeout: 180_000 },
    );
    assert.equal(
      await page.locator('#audit-stale').isVisible(),
      true,
      'settings changed during the audit',
    );
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('an audit draws the privacy region, both ROC curves and ε_lower, off-thread', async () => {
  const { page, problems } = await openLab(
    '#v=1&dataset=blobs&model=logistic&lot_size=60&epochs=5&sigma=1',
  );
  await audit(page, 8);
  const text = (await summaries(page).allTextContents()).join(' ');
  assert.match(text, /gradient canary.*proved ε ≥ [\d.]+.*promised ε ≤ [\d.]+/);
  assert.match(text, /final model.*proved ε ≥ [\d.]+/);
  assert.ok(!/NaN|undefined|Infinity/.test(text), text);
  assert.ok(
    await page.locator('#audit-summary-note').isVisible(),
    'the sentences say they are not covered by ε',
  );
  assert.match(
    await page.locator('#audit-summary-note').textContent(),
    /not private[\s\S]*ε does not cover them/,
  );
  assert.match(
    await page.locator('#audit-timing').textContent(),
    /32 runs in [\d.]+ s on \d workers? \([\d.]+ runs\/s\)/,
  );
  // The region (grey), its edge (black), the worst-case ROC (vermillion) and the realistic
  // one (blue) are on the canvas; the bars of the second chart too.
  const px = (rgb, tol = [40, 40, 40]) =>
    page.evaluate(([c, t]) => window.near('audit-region', c, t), [rgb, tol]);
  assert.ok((await px([0, 0, 0], [60, 60, 60])) > 200, 'the trade-off curve');
  assert.ok((await px([213, 94, 0])) > 100, 'the worst-case ROC');
  assert.ok((await px([0, 114, 178])) > 100, 'the realistic ROC');
  assert.ok((await px([215, 215, 215], [25, 25, 25])) > 2000, 'the shaded region');
  assert.ok((await page.evaluate(() => window.ink('audit-epsilons'))).inked > 2000);
  await page.locator('#audit').screenshot({ path: path.join(ARTIFACTS, 'audit.png') });
  assert.equal(
    await page.evaluate(() => document.body.dataset.auditWorkers),
    '0',
    'workers are gone when done',
  );
  assert.deepEqual(problems, []);
  await page.close();
});

test('Cancel stops the audit workers at once and the panel can start again', async () => {
  const { page, problems } = await openLab(
    '#v=1&dataset=blobs&model=logistic&lot_size=60&epochs=20',
  );
  await page.fill('#audit-runs', '1000');
  await page.click('#audit-start');
  await page.waitForFunction(() => document.getElementById('audit-progress').value >= 2, null, {
    timeout: 60_000,
  });
  assert.match(
    await page.locator('#audit-progress-text').textContent(),
    /^\d+ \/ \d+ runs, about \d+ (s|min) left$/,
  );
  assert.ok(Number(await page.evaluate(() => document.body.dataset.auditWorkers)) >= 1);
  await page.click('#audit-cancel');
  assert.equal(await page.evaluate(() => document.body.dataset.auditWorkers), '0');
  assert.match(await page.locator('#audit-status').textContent(), /cancelled/);
  assert.equal(
    await page.locator('#audit-progress-text').textContent(),
    '',
    'no progress (or time left) once cancelled',
  );
  const value = await page.evaluate(() => document.getElementById('audit-progress').value);
  await page.waitForTimeout(1500);
  assert.equal(
    await page.evaluate(() => document.getElementById('audit-progress').value),
    value,
    'no run reports after Cancel',
  );
  assert.equal(await page.locator('#audit-start').isDisabled(), false);
  // Bad input gets a message and starts nothing.
  await page.fill('#audit-runs', '1e9');
  await page.click('#audit-start');
  assert.match(await page.locator('#message-text').textContent(), /Runs per side/);
  assert.equal(await page.evaluate(() => document.body.dataset.auditWorkers), '0');
  assert.deepEqual(problems, []);
  await page.close();
});

test(
  "where copies of the data set would not fit in the device's memory, the audit runs fewer " +
    'workers and says why',
  async () => {
    // Each audit worker holds its own copy of the data: about 120 MB on MNIST (audit_worker_bytes).
    // A device that reports 0.4 GB fits one in half its memory; at 0.2 GB (below
    // navigator.deviceMemory's smallest value, 0.25, which fits one of this small set) even one
    // does not fit, and the panel warns; this machine (it reports 8, the most browsers say) fits
    // both. A one-run audit's worker also holds its 500 canaries (3 MB more): 0.485 GB fits two
    // workers of the multi-run audit (239 MB), one of it (246 MB).
    const fewer = new RegExp(
      String.raw`on 1 worker \(not 2: each needs its own copy of this data set, about \d+ ` +
        String.raw`MB, and the audit keeps within half of this device's memory\)`,
    );
    const tooBig = new RegExp(
      String.raw`on 1 worker \(not 2: one needs about \d+ MB, more than half of this ` +
        String.raw`device's memory: the audit may run out of memory\)`,
    );
    const cases = [
      [0.4, false, '1', fewer],
      [0.2, false, '1', tooBig],
      [null, false, '2', null],
      [0.485, false, '2', null],
      [0.485, true, '1', fewer],
    ];
    for (const [gb, oneRun, want, why] of cases) {
      const device =
        gb && `Object.defineProperty(Navigator.prototype, 'deviceMemory', { get: () => ${gb} });`;
      const { page, problems } = await openLab('#v=1&dataset=mnist&epochs=1', device);
      await page.waitForFunction(
        () => /^(Done|Stopped)/.test(document.getElementById('status').textContent),
        null,
        { timeout: 120_000 },
      );
      await page.fill('#workers', '2');
      await page.dispatchEvent('#workers', 'change');
      await page.setChecked('#audit-one-run', oneRun);
      const started = await audit(page, 2);
      assert.equal(
        started.workers,
        want,
        `deviceMemory ${gb}, one-run ${oneRun}: ${started.status}`,
      );
      if (why) assert.match(started.status, why);
      else assert.doesNotMatch(started.status, /not 2/);
      assert.match((await summaries(page).allTextContents()).join(' '), /proved ε ≥/);
      assert.deepEqual(problems, []);
      await page.close();
    }
  },
);

test('the audit works on every built-in data set, and with DP-PCA', async () => {
  // With PCA the model reads projected inputs, and the realistic attack's canaries must be
  // projected by the run too (they were not once, and the audit panicked).
  for (const dataset of [
    'adult',
    'mnist',
    'mnist&model=mlp&pca=60',
    'breast-cancer',
    'blobs',
    'circle',
    'xor',
    'spiral',
  ]) {
    const { page, problems } = await openLab(`#v=1&dataset=${dataset}&epochs=1`);
    await audit(page, 2);
    const text = (await summaries(page).allTextContents()).join(' ');
    assert.match(text, /proved ε ≥/, `${dataset}: ${text}`);
    assert.deepEqual(problems, [], dataset);
    await page.close();
  }
});

test('the audit lesson: the realistic attack wins at σ = 0, proves nothing at σ = 2', async () => {
  const { page, problems } = await openLab('#v=1&lesson=audit');
  assert.match(await page.locator('#lesson').textContent(), /What ε means/);
  assert.equal(await page.inputValue('#audit-runs'), '300');
  // The audit's seed is fixed (seed 1: 3.12 and 0.48 natively, `dpsgd audit --audit-seed 1`):
  // over 31 seeds σ = 0 proves 2.5 to 3.6 and σ = 2 proves 0 to 0.8, so a fresh seed would
  // make this test a lottery.
  await page.evaluate(() => window.labTest.fixAuditSeed(1));
  await audit(page);
  const realistic = async () =>
    Number((await summaries(page).nth(1).textContent()).match(/proved ε ≥ ([\d.]+)/)[1]);
  const wins = await realistic();
  assert.ok(wins >= 2.5, `σ = 0: ε_lower ${wins}`);
  await page
    .locator('#audit')
    .screenshot({ path: path.join(ARTIFACTS, 'audit-lesson-sigma0.png') });
  await setRange(page, '#sigma', '2');
  await audit(page);
  const fails = await realistic();
  assert.ok(fails < 1, `σ = 2: ε_lower ${fails}`);
  assert.deepEqual(problems, []);
  await page.close();
});
