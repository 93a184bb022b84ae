// e2e: alone (its pages' main-thread tasks are held to a CPU time (assertResponsive)).
// End to end, "Export as Opacus script" (export-opacus.js, #41 §4): on Adult the button
// downloads one tar of the script and the prepared features, and the script's numbers are the
// run's own (σ, C, L, δ, the seed, q = L/N with N the rows of its train.csv, the steps of an
// epoch as the run's report counts them); the PRV choice reaches the script; a setting Opacus
// cannot express exactly (adaptive clipping), and a run on one's own file, download nothing and
// say why in one line.
import { test as register, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { generationOf, openLab, registerShuffled, responsiveSuite, waitForRun } from './lab.mjs';

const cases = [];
const test = (name, fn) => cases.push([name, fn]);

responsiveSuite(before, after);

/** The files of an uncompressed ustar archive: Map name → Buffer. */
function untar(buf) {
  const files = new Map();
  for (let at = 0; at + 512 <= buf.length;) {
    const name = buf
      .subarray(at, at + 100)
      .toString('latin1')
      .replace(/\0.*$/s, '');
    if (!name) break;
    const size = parseInt(buf.subarray(at + 124, at + 135).toString('latin1'), 8);
    files.set(name, buf.subarray(at + 512, at + 512 + size));
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

/** The Python literal `NAME = value` sets in the script. */
function constant(script, name) {
  const line = script.split('\n').find((l) => l.startsWith(`${name} = `));
  assert.ok(line, `no ${name} in the script`);
  return line
    .slice(name.length + 3)
    .split('  #')[0]
    .trim();
}

test("Adult: one tar of the script and its features, with the run's own numbers", async () => {
  const { page, problems } = await openLab('#v=1&epochs=2&sigma=1.5&seed=7');
  await waitForRun(page, 0, 1);
  const [report] = await page.evaluate(() => window.labTest.reports());
  await page.selectOption('#opacus-accountant', 'prv');
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.click('#export-opacus'),
  ]);
  assert.equal(download.suggestedFilename(), 'dpsgd-opacus-adult.tar');
  const files = untar(await readFile(await download.path()));
  assert.deepEqual([...files.keys()].sort(), [
    'dpsgd-opacus-adult/test.csv',
    'dpsgd-opacus-adult/train.csv',
    'dpsgd-opacus-adult/train_opacus.py',
  ]);
  const script = files.get('dpsgd-opacus-adult/train_opacus.py').toString('utf8');
  const n =
    files.get('dpsgd-opacus-adult/train.csv').toString('utf8').trim().split('\n').length - 1;
  assert.equal(Number(constant(script, 'N_TRAIN')), n);
  assert.equal(Number(constant(script, 'SIGMA')), 1.5);
  assert.equal(Number(constant(script, 'NOISE_MULTIPLIER')), report.accounted_sigma);
  assert.equal(Number(constant(script, 'CLIP')), report.clip);
  assert.equal(Number(constant(script, 'DELTA')), report.delta);
  assert.equal(Number(constant(script, 'LR')), report.lr);
  assert.equal(Number(constant(script, 'SAMPLE_RATE')), report.sampling_rate);
  assert.equal(Number(constant(script, 'SAMPLE_RATE')), Number(constant(script, 'LOT_SIZE')) / n);
  assert.equal(Number(constant(script, 'STEPS_PER_EPOCH')), report.steps);
  assert.equal(Number(constant(script, 'EPOCHS')), 2);
  assert.equal(Number(constant(script, 'SEED')), 7);
  assert.equal(constant(script, 'ACCOUNTANT'), '"prv"');
  await page.waitForFunction(() =>
    /^Saved dpsgd-opacus-adult\.tar/.test(
      document.getElementById('opacus-export-message').textContent,
    ),
  );
  assert.deepEqual(problems, []);
  await page.close();
});

test('adaptive clipping is refused in one line, and nothing is downloaded', async () => {
  const { page, problems } = await openLab('#v=1&epochs=1&adapt=0.9');
  await waitForRun(page, 0, 1);
  let downloads = 0;
  page.on('download', () => {
    downloads += 1;
  });
  await page.click('#export-opacus');
  const message = page.locator('#opacus-export-message');
  await page.waitForFunction(() =>
    /^Not exported/.test(document.getElementById('opacus-export-message').textContent),
  );
  const text = await message.innerText();
  assert.match(text, /^Not exported: adaptive clipping cannot be exported exactly/);
  assert.equal(text.split('\n').length, 1);
  assert.equal(downloads, 0);
  assert.deepEqual(problems, []);
  await page.close();
});

test("DP-PCA without a seed is refused: it would export a new DP-PCA, not the run's", async () => {
  const { page, problems } = await openLab('#v=1&epochs=1&dataset=breast-cancer&pca=5');
  await waitForRun(page, 0, 1);
  const g = await generationOf(page);
  await page.fill('#seed', ''); // a blank seed box: a fresh seed each run
  await page.locator('#seed').dispatchEvent('change');
  await waitForRun(page, g, 1, { done: true });
  // (Clicked in the page: the seed's message box moves the button as Playwright aims.)
  await page.evaluate(() => document.getElementById('export-opacus').click());
  await page.waitForFunction(() =>
    /^Not exported/.test(document.getElementById('opacus-export-message').textContent),
  );
  assert.match(
    await page.locator('#opacus-export-message').innerText(),
    /^Not exported: this run's DP-PCA was drawn from a seed the page does not keep/,
  );
  assert.deepEqual(problems, []);
  await page.close();
});

test("a run on a file of one's own is refused with the command that exports it", async () => {
  const { page, problems } = await openLab('#v=1&epochs=1');
  await waitForRun(page, 0, 1);
  await page.locator('#own-data summary').click();
  const rows = [
    'x,city,label',
    ...Array.from(
      { length: 300 },
      (_, i) => `${i % 17},${['Paris', 'Lyon'][i % 2]},${i % 3 ? 'a' : 'b'}`,
    ),
  ].join('\n');
  await page.setInputFiles('#data-file', {
    name: 'mine.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(rows),
  });
  await page.waitForFunction(
    () => document.getElementById('label-column').value === 'label',
    null,
    { timeout: 5_000 },
  );
  const g = await generationOf(page);
  await page.click('#load-data');
  await waitForRun(page, g, 1, { done: true });
  let downloads = 0;
  page.on('download', () => {
    downloads += 1;
  });
  await page.click('#export-opacus');
  await page.waitForFunction(() =>
    /^Not exported/.test(document.getElementById('opacus-export-message').textContent),
  );
  const text = await page.locator('#opacus-export-message').innerText();
  assert.match(
    text,
    new RegExp(
      String.raw`^Not exported: a run on a file of your own is exported by the command line, ` +
        String.raw`beside your file: dpsgd export-opacus --csv `,
    ),
  );
  assert.equal(downloads, 0);
  assert.deepEqual(problems, []);
  await page.close();
});

registerShuffled(register, cases);
