// e2e: alone (its pages' main-thread tasks are held to a CPU time (assertResponsive)).
// End to end, a student's small file (the classroom issue's "A student's own file works"): 200
// and 60 rows of the shipped breast cancer data are too few for the private estimate of their
// 30 columns' ranges. The page refuses each before anything is released, with one form for
// every column; the test types public ranges into it, declares them public, loads, and trains
// to the end — asserting every message on the way: the refusal listing all the columns, no ε
// spent before the form, the lot size changed only with a message naming the old and new L,
// and the ± of the noisy test accuracy on the status line and in the run log.
import { test as register, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  ARTIFACTS,
  generationOf,
  openLab,
  registerShuffled,
  responsiveSuite,
  waitForRun,
} from './lab.mjs';

const cases = [];
const test = (name, fn) => cases.push([name, fn]);

responsiveSuite(before, after);

const SHIPPED = readFileSync(new URL('../../www/data/breast_cancer.csv', import.meta.url), 'utf8')
  .trim()
  .split('\n');
const HEADER = SHIPPED[0].split(',');
const COLUMNS = HEADER.slice(0, -1); // the label, diagnosis, is last
// The first `n` rows of the shipped data as a file of one's own.
const firstRows = (n) => `${SHIPPED.slice(0, n + 1).join('\n')}\n`;
// "Public knowledge" for the test: 0 to 1.5 × each column's largest value in the shipped data.
const PUBLIC = COLUMNS.map((name, j) => {
  const top = Math.max(...SHIPPED.slice(1).map((r) => Number(r.split(',')[j])));
  return [name, 0, Number((1.5 * top).toPrecision(2))];
});
const moments = (text) => Number(text.match(/ε = ([\d.]+) \(moments/)[1]);
const message = (page) => page.locator('#message-text').textContent();

// Records every value the lot-size slider shows, with the message box's text at that moment:
// the lot must never change without a message naming the old and the new L.
async function watchLot(page) {
  await page.evaluate(() => {
    const seen = [];
    window.lotSeen = seen;
    const note = () =>
      seen.push({
        lot: document.getElementById('lot-size-value').textContent,
        said: document.getElementById('message').hidden
          ? ''
          : document.getElementById('message-text').textContent,
      });
    new MutationObserver(note).observe(document.getElementById('lot-size-value'), {
      childList: true,
      characterData: true,
      subtree: true,
    });
    note();
  });
}

// Every change of the lot the page made was said, old and new L named; returns the changes.
async function assertLotChangesSaid(page) {
  const seen = await page.evaluate(() => window.lotSeen);
  const changes = seen
    .slice(1)
    .map((s, i) => ({ ...s, from: seen[i].lot }))
    .filter((s) => s.lot !== s.from);
  for (const c of changes) {
    assert.ok(
      c.said.includes(`from L = ${c.from} to L = ${c.lot}`),
      `L changed from ${c.from} to ${c.lot} with the message: ${c.said}`,
    );
  }
  return changes;
}

// Loads `rows` rows of the shipped data with `bounds` in the text field: refused before any
// release, with the form listing all 30 columns (those in `bounds` filled in).
async function refusedWithTheForm(page, rows, bounds) {
  await page.fill('#bounds', bounds);
  await page.setInputFiles('#data-file', {
    name: `bc-${rows}.csv`,
    mimeType: 'text/csv',
    buffer: Buffer.from(firstRows(rows)),
  });
  await page.waitForFunction(
    () => document.getElementById('label-column').value === 'diagnosis',
    null,
    { timeout: 5_000 },
  );
  const datasetBefore = await page.locator('#dataset').inputValue();
  await page.click('#load-data');
  await page.waitForFunction(
    () => document.getElementById('message-text').textContent.includes('not loaded'),
    null,
    { timeout: 20_000 },
  );
  const said = await message(page);
  const given = bounds ? bounds.split(',').length : 0;
  const missing = COLUMNS.filter((c) => !bounds.includes(`${c}=`)); // the text field's first
  const train = Math.floor(rows * 0.8);
  assert.match(
    said,
    new RegExp(
      `^Your file was not loaded \\(the current data and run are unchanged\\): ${rows} rows ` +
        `\\(about ${train} for training\\) are too few ` +
        (`to estimate the ranges of ${30 - given} numeric columns privately: .* Nothing was ` +
          `released\\. State the range \\(min and max\\) of each of these columns: ` +
          `'${missing[0]}', '${missing[1]}',`),
    ),
    said,
  );
  assert.match(
    said,
    new RegExp(
      String.raw`The form under the file lists every numeric column: give their ranges and ` +
        String.raw`where they come from, then Load again\.$`,
    ),
    said,
  );
  assert.ok(!/already released|spent by this attempt/.test(said), said);
  assert.equal(await page.locator('#dataset').inputValue(), datasetBefore);
  // No ε spent: no preparation of the file is counted anywhere.
  assert.equal(await page.locator('#file-ledger').isHidden(), true, 'nothing to compose yet');
  // One form, every column: its name and two boxes each, the text field's ranges filled in.
  assert.equal(await page.locator('#ranges-form').isVisible(), true);
  const names = await page.locator('#ranges-table tbody th').allTextContents();
  assert.deepEqual(names, COLUMNS);
  assert.equal(await page.locator('#ranges-table tbody tr.missing').count(), 30 - given);
  assert.match(
    await page.locator('#ranges-why').textContent(),
    new RegExp(
      `^${rows} rows are too few to estimate these ranges privately \\(about \\d+ would be ` +
        `needed\\); nothing was released\\.`,
    ),
  );
  return names;
}

// Types the public ranges into the form's empty rows, declares them public and loads again;
// waits for the file's run to finish and returns the message it was loaded with.
async function fillDeclareAndLoad(page, epochs) {
  const rows = page.locator('#ranges-table tbody tr');
  for (let i = 0; i < COLUMNS.length; i++) {
    const [lo, hi] = [rows.nth(i).locator('input').nth(0), rows.nth(i).locator('input').nth(1)];
    if ((await lo.inputValue()) === '') await lo.fill(String(PUBLIC[i][1]));
    if ((await hi.inputValue()) === '') await hi.fill(String(PUBLIC[i][2]));
  }
  // The choice is asked for, not assumed.
  await page.click('#ranges-load');
  assert.equal(
    await message(page),
    'Say where these ranges come from: public knowledge, or read off this file (then nothing ' +
      'after is private).',
  );
  await page.check('#ranges-public');
  const g = await generationOf(page);
  await page.click('#ranges-load');
  await page.waitForFunction(
    () =>
      document
        .getElementById('message-text')
        .textContent.startsWith('Your file is loaded as private data'),
    null,
    { timeout: 20_000 },
  );
  const loaded = await message(page);
  await waitForRun(page, g, epochs, { done: true, timeout: 120_000 });
  return loaded;
}

// The loaded message's lot change: L = 256 at least the file's N, changed to Rust's tenth of N.
function assertLotMessage(loaded, n) {
  const m = loaded.match(
    new RegExp(
      `Lot size L = 256 is at least the N = ${n} training rows of your file: every step uses ` +
        `every row \\(q = 1\\), ` +
        ('which spends privacy fast — ε = ([\\d.]+) for 5 epochs \\(moments accountant, δ = ' +
          '1e-5\\)\\. So the lot size was changed from L = 256 to ') +
        ('L = (\\d+) \\(q = ([\\d.]+)\\), which spends ε = ([\\d.]+) at δ = 1e-5 for the same ' +
          'epochs; ' +
          'move the Lot size slider to choose another\\.$'),
    ),
  );
  assert.ok(m, loaded);
  const [, full, lot, q, fewer] = m;
  assert.equal(Number(lot), Math.max(10, Math.floor(n / 10)));
  assert.ok(Math.abs(Number(q) - Number(lot) / n) < 0.01 && Number(fewer) < Number(full), loaded);
  return Number(lot);
}

// The finished run: the status line's ± from Rust's sd, said too noisy, and the run log's.
async function assertNoisyDone(page, n, lot) {
  const status = await page.locator('#status').textContent();
  const m = status.match(
    new RegExp(
      String.raw`^Done: 5 epochs, test accuracy (\d+)% ± (\d+)% \(noisy count over (\d+) ` +
        String.raw`held-out rows(; it came out at (-?\d+)%, clamped to (0|100)%)?: too few to ` +
        String.raw`measure\), ε = `,
    ),
  );
  assert.ok(m, status);
  const last = await page.evaluate(() => window.labTest.reports().at(-1));
  const heldOut = Number(m[3]);
  assert.equal(last.private_test_acc_noise.held_out, heldOut);
  assert.equal(
    Number(m[2]),
    Math.round(2000 / heldOut),
    'σ = 20 over the held-out rows, in points',
  );
  assert.ok(Number(m[1]) >= 0 && Number(m[1]) <= 100);
  if (m[4]) assert.ok(Number(m[5]) < 0 || Number(m[5]) > 100, status);
  assert.ok(
    Math.abs(last.sampling_rate - lot / n) < 1e-9,
    `trained with L = ${lot}: q = ${last.sampling_rate}`,
  );
  const cell = await page
    .locator('#run-log tbody tr')
    .last()
    .locator('td[data-key="private_test_acc"]')
    .textContent();
  assert.match(cell, /^\d+% ± \d+% \(too noisy(, clamped)?\)$/);
  // One run on one preparation, which released nothing: the file's total is the run's ε.
  await page
    .waitForFunction(
      (steps) =>
        document
          .getElementById('file-ledger')
          .textContent.includes(`: 1 run, ${steps} training steps reported`),
      last.steps,
      { timeout: 10_000 },
    )
    .catch(async (e) =>
      assert.fail(
        `${e.message}; the ledger says: ${await page.locator('#file-ledger').textContent()}`,
      ),
    );
  const ledger = await page.locator('#file-ledger').textContent();
  assert.ok(!/prepared/.test(ledger), ledger);
  assert.equal(moments(ledger), moments(status), `${ledger} / ${status}`);
}

test(
  '200 rows: one form for all 30 columns before any release, then Done with L changed aloud ' +
    "and the accuracy's ±",
  async () => {
    const { page, problems } = await openLab('#v=1&epochs=5');
    await waitForRun(page, 0, 1);
    await page.locator('#own-data summary').click();
    await watchLot(page);
    await refusedWithTheForm(page, 200, 'mean radius=0:40, worst area=0:6000');
    const filled = page.locator('#ranges-table tbody tr').nth(0).locator('input');
    assert.deepEqual(
      [await filled.nth(0).inputValue(), await filled.nth(1).inputValue()],
      ['0', '40'],
    );
    await page
      .locator('#own-data')
      .screenshot({ path: path.join(ARTIFACTS, 'own-small-form.png') });
    const loaded = await fillDeclareAndLoad(page, 5);
    const n = Number(
      (await page.locator('#own-option').textContent()).match(
        /\((\d+) train, (\d+) test, 30 features\)/,
      )[1],
    );
    const lot = assertLotMessage(loaded, n);
    await assertNoisyDone(page, n, lot);
    const changes = await assertLotChangesSaid(page);
    assert.deepEqual(
      changes.map((c) => [c.from, c.lot]),
      [['256', String(lot)]],
      'one change of L, said',
    );
    await page.screenshot({ path: path.join(ARTIFACTS, 'own-small-done.png'), fullPage: true });
    assert.deepEqual(problems, []);
    await page.close();
  },
);

test(
  '60 rows: the form, ranges read off the file marked not private, then declared public; Done; ' +
    'L = N is said by the run',
  async () => {
    const { page, problems } = await openLab('#v=1&epochs=5');
    await waitForRun(page, 0, 1);
    await page.locator('#own-data summary').click();
    await watchLot(page);
    await refusedWithTheForm(page, 60, '');
    // The other choice is marked with the page's "not private" badge.
    const readOff = page.locator('label', { has: page.locator('#ranges-file') });
    assert.match(await readOff.textContent(), /I read them off this file\s+not private/);
    assert.equal(await readOff.locator('.badge').isVisible(), true);
    const loaded = await fillDeclareAndLoad(page, 5);
    const n = Number((await page.locator('#own-option').textContent()).match(/\((\d+) train, /)[1]);
    const lot = assertLotMessage(loaded, n);
    await assertNoisyDone(page, n, lot);
    const changes = await assertLotChangesSaid(page);
    assert.deepEqual(
      changes.map((c) => [c.from, c.lot]),
      [['256', String(lot)]],
      'one change of L, said',
    );
    // The student moves L to N: nothing is changed for them, and the run says what q = 1 means.
    const g = await generationOf(page);
    await page.locator('#lot-size').evaluate((el) => {
      el.value = el.max;
      el.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await waitForRun(page, g, 1);
    assert.equal(await page.locator('#lot-size-value').textContent(), String(n));
    assert.match(
      await page.locator('#run-notes').textContent(),
      new RegExp(
        `the lot is every training row \\(L = ${n} ≥ N = ${n}: q = 1\\), so sampling hides no ` +
          `one and ε grows fast`,
      ),
    );
    assert.deepEqual(problems, []);
    await page.close();
  },
);

registerShuffled(register, cases);
