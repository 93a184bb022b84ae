// Who pays for privacy on the page (#41 §1): the groups chart draws each group of the run
// (Rust's chart, its layout recorded), the Groups control offers only the groupings the data
// set has (Rust's group_choices), "What ε covers" lists the groups' accuracy as covered and
// their training sizes as a public fact, and on a student's own file no grouping is offered,
// with the one line that says why. The lesson's claims are tests/e2e/lessons.test.mjs's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ARTIFACTS, generationOf, openLab, setUp, tearDown, waitForRun } from './lab.mjs';

before(setUp);
after(tearDown);

const offered = (page) =>
  page.evaluate(() =>
    [...document.getElementById('groups').options].filter((o) => !o.disabled).map((o) => o.value),
  );
const done = (page) =>
  page.waitForFunction(() => /^Done/.test(document.getElementById('status').textContent), null, {
    timeout: 120_000,
  });

test("MNIST by class: the groups chart draws ten digits, ε's coverage names them", async () => {
  const { page, problems } = await openLab(
    '#dataset=mnist&groups=class&sigma=2&lr=0.5&epochs=2&seed=1',
  );
  await done(page);
  assert.equal(await page.locator('#groups-figure').isVisible(), true);
  assert.deepEqual(await offered(page), ['none', 'class'], 'MNIST offers the class only');
  const layout = await page.evaluate(() => window.labTest.chartLayout('groups-chart'));
  assert.ok(layout?.plot?.h > 100, JSON.stringify(layout));
  const reported = await page.evaluate(() => document.getElementById('covered').textContent);
  assert.match(
    reported,
    /Each group's test accuracy \(by class\): measured on the same public test set/,
  );
  assert.match(
    await page.locator('#not-covered').textContent(),
    /Each group's size in the training data \(by class\): a public fact of this public data set/,
  );
  // Back to Adult by hand: sex and race are offered again; none hides the chart.
  await page.selectOption('#dataset', 'adult');
  assert.deepEqual(await offered(page), ['none', 'sex', 'race', 'class']);
  const before = await generationOf(page);
  await page.selectOption('#groups', 'none');
  await waitForRun(page, before, 2, { done: true, timeout: 120_000 });
  // The run done may be the one the data set's switch started (by class, debounced), finished
  // before None's replaced it under load: wait for None's run on screen, then check.
  await page.waitForFunction(
    () =>
      document.getElementById('groups-figure').hidden &&
      !/group/.test(document.getElementById('covered').textContent),
    null,
    { timeout: 120_000 },
  );
  assert.equal(await page.locator('#groups-figure').isVisible(), false);
  assert.doesNotMatch(await page.locator('#covered').textContent(), /group/);
  assert.deepEqual(problems, []);
  await page.close();
});

// A lesson sets its groups (who pays: by class); a student or lecturer who picks None and
// shares the link must get None back (left out of the link, the lesson's grouping came back).
test("who pays, None picked: the step's link opens with None, not the lesson's", async () => {
  const { page, problems } = await openLab('#lesson=who-pays&step=1&epochs=1&seed=1');
  await done(page);
  assert.notEqual(await page.locator('#groups').inputValue(), 'none');
  await page.selectOption('#groups', 'none');
  await page.waitForFunction(() => /groups=none/.test(location.hash), null, { timeout: 30_000 });
  const other = await openLab(new URL(page.url()).hash);
  await done(other.page);
  assert.equal(await other.page.locator('#groups').inputValue(), 'none');
  assert.equal(await other.page.locator('#groups-figure').isVisible(), false);
  assert.deepEqual(other.problems, []);
  await other.page.close();
  assert.deepEqual(problems, []);
  await page.close();
});

test(
  "a link asking for race on MNIST falls back to none; on a student's own file no grouping is " +
    'offered, and the page says why',
  async () => {
    const { page, problems } = await openLab('#dataset=mnist&groups=race&epochs=1&seed=1');
    await done(page);
    assert.equal(await page.locator('#groups').inputValue(), 'none');
    assert.match(
      await page.locator('#message-text').textContent(),
      /Groups: MNIST[^.]* has no grouping by race, so no groups are shown\./,
      'said, not dropped',
    );
    assert.equal(await page.locator('#groups-own').isVisible(), false);
    // The shipped breast-cancer file as one's own, every column's range stated.
    const csv = readFileSync(new URL('../../www/data/breast_cancer.csv', import.meta.url), 'utf8');
    const rows = csv.trim().split('\n');
    const header = rows[0].split(',').slice(0, -1);
    const bounds = header.map((name, j) => {
      const max = Math.max(...rows.slice(1).map((r) => Number(r.split(',')[j])));
      return `${name}=0:${(1.5 * max).toPrecision(2)}`;
    });
    await page.locator('#own-data summary').click();
    await page.fill('#bounds', bounds.join(','));
    await page.setInputFiles('#data-file', {
      name: 'mine.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(csv),
    });
    await page.waitForFunction(
      () => document.getElementById('label-column').value === 'diagnosis',
      null,
      { timeout: 5_000 },
    );
    await page.click('#load-data');
    await page.waitForFunction(() => document.getElementById('dataset').value === 'own', null, {
      timeout: 30_000,
    });
    assert.deepEqual(await offered(page), ['none']);
    assert.equal(await page.locator('#groups').inputValue(), 'none');
    assert.equal(await page.locator('#groups-own').isVisible(), true);
    assert.match(await page.locator('#groups-own').textContent(), /released without noise/);
    await page
      .locator('#groups-control')
      .screenshot({ path: path.join(ARTIFACTS, 'groups-own-data.png') });
    assert.deepEqual(problems, []);
    await page.close();
  },
);
