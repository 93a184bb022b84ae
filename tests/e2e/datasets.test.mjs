// e2e: alone (its pages' main-thread tasks are held to a CPU time (assertResponsive)).
// End to end, the data: the built-in data sets and models load and train (MNIST from its IDX
// files, Fashion-MNIST with a progress bar and never stored offline), and a student's own file
// is private data (the lab offline after a first visit: update.test.mjs). Each test opens a page
// of its own; they run in a shuffled order (printed; E2E_SEED=n repeats one).
import { test as register, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import {
  ARTIFACTS,
  cell,
  downloadCsv,
  generationOf,
  openLab,
  registerShuffled,
  responsiveSuite,
  waitForRun,
} from './lab.mjs';

const cases = [];
const test = (name, fn) => cases.push([name, fn]);

responsiveSuite(before, after);

test('choosing another data set and model loads it and trains', async () => {
  const { page, problems } = await openLab('#v=1&epochs=5');
  await waitForRun(page, 0, 1);
  const g = await generationOf(page);
  await page.selectOption('#dataset', 'xor');
  await page.selectOption('#model', 'mlp');
  await waitForRun(page, g, 3);
  assert.match(page.url(), /dataset=xor/);
  assert.equal(
    await page.locator('#boundary-figure').isVisible(),
    true,
    'the boundary view shows for 2-D data',
  );
  assert.match(page.url(), /model=mlp/);
  const max = Number(await page.locator('#lot-size').getAttribute('max'));
  assert.ok(Math.abs(10 ** max - 600) < 1, `lot-size slider spans 1..N = 600, max 10^${max}`);
  await page.screenshot({ path: path.join(ARTIFACTS, 'page-xor-mlp.png'), fullPage: true });
  assert.deepEqual(problems, []);
  await page.close();
});

test("MNIST loads from its gzipped IDX files and trains; DP-PCA's cost is in ε", async () => {
  const { page, problems } = await openLab('#v=1&epochs=3&sigma=2&dataset=mnist');
  await waitForRun(page, 0, 2);
  assert.equal(await page.locator('#boundary-figure').isHidden(), true);
  assert.ok(parseFloat(await cell(page, 0, 'test_acc')) > 50);
  const without = Number(await cell(page, 0, 'epsilon.moments'));
  const g = await generationOf(page);
  await page.check('#pca-on');
  await waitForRun(page, g, 1);
  const withPca = Number(await cell(page, 0, 'epsilon.moments'));
  assert.ok(withPca > without, `ε moments with PCA ${withPca} vs without ${without}`);
  assert.match(page.url(), /pca=60/);
  assert.match(await page.locator('#covered').innerText(), /DP-PCA's projection/);
  assert.deepEqual(problems, []);
  await page.close();
});

test(
  'Fashion-MNIST (60,000 images, prepared by setup) loads in the worker with a progress bar ' +
    'and trains; it is not stored offline',
  async () => {
    const { page, problems } = await openLab('#v=1&epochs=1&sigma=1&dataset=blobs&model=logistic');
    await waitForRun(page, 0, 1, { done: true });
    // Every status line and progress value while it loads.
    await page.evaluate(() => {
      window.seen = [];
      const bar = document.getElementById('load-progress');
      const label = () => document.getElementById('epsilon-chart').getAttribute('aria-label');
      new MutationObserver(() =>
        window.seen.push([
          document.getElementById('status').textContent,
          bar.hidden,
          bar.getAttribute('value'),
          bar.max,
          label(),
        ]),
      ).observe(document.getElementById('status'), {
        childList: true,
        characterData: true,
        subtree: true,
      });
    });
    const g = await generationOf(page);
    await page.selectOption('#dataset', 'fashion-mnist');
    await waitForRun(page, g, 1, { done: true });
    assert.ok(parseFloat(await cell(page, 0, 'test_acc')) > 50);
    const seen = await page.evaluate(() => window.seen);
    const download = seen.filter(([text]) =>
      /^Downloading Fashion-MNIST clothing: [\d.]+ of \d\d\.\d MB…$/.test(text),
    );
    assert.ok(download.length >= 1, JSON.stringify(seen.slice(0, 6)));
    assert.ok(
      download.every(([, hidden, value, max]) => !hidden && Number(value) <= max && max > 30e6),
      JSON.stringify(download),
    );
    assert.ok(
      seen.some(
        ([text, hidden, value]) =>
          text === 'Decoding Fashion-MNIST clothing…' && !hidden && value === null,
      ),
    );
    // While it loads, the ε chart's text alternative claims no ε (blobs' stayed there: #40, 3.2).
    const loading = seen.filter(([text]) => /^(Downloading|Decoding) Fashion-MNIST/.test(text));
    assert.ok(
      loading.length >= 2 && loading.every(([, , , , label]) => /not computed yet/.test(label)),
      JSON.stringify(loading.slice(0, 3)),
    );
    assert.equal(
      await page.locator('#load-progress').isHidden(),
      true,
      'the bar goes when training starts',
    );
    const stored = await page.evaluate(async () => {
      const urls = [];
      for (const name of await caches.keys())
        for (const r of await (await caches.open(name)).keys()) urls.push(r.url);
      return urls.filter((u) => u.includes('fashion-mnist'));
    });
    assert.deepEqual(stored, []);
    assert.deepEqual(problems, []);
    await page.close();

    // Where setup has not prepared it, the page says so and where it comes from.
    const missing = await openLab('#v=1&epochs=1&dataset=blobs');
    await missing.page.route('**/data/fashion-mnist-*', (route) =>
      route.fulfill({ status: 404, body: 'not found' }),
    );
    await missing.page.selectOption('#dataset', 'fashion-mnist');
    await missing.page.waitForFunction(
      () =>
        /is not on this server\. Fashion-MNIST is not shipped with the lab: scripts\/setup/.test(
          document.getElementById('message-text').textContent,
        ),
      null,
      { timeout: 20_000 },
    );
    assert.match(
      await missing.page.getAttribute('#epsilon-chart', 'aria-label'),
      /not computed yet/,
      'no ε of the data set before',
    );
    // The ε chart says the run stopped, not "computing…" for ever.
    await missing.page.waitForFunction(
      () =>
        /^ε: not computed — the run stopped before it began/.test(
          document.getElementById('epsilon-chart').dataset.message ?? '',
        ),
      null,
      { timeout: 10_000 },
    );
    await missing.page.close();
  },
);

// The lab at `hash`, its first run one epoch in, with the own-data panel open.
async function openOwnDataPanel(hash) {
  const lab = await openLab(hash);
  await waitForRun(lab.page, 0, 1);
  await lab.page.locator('#own-data summary').click();
  return lab;
}

// Loads a two-feature, two-class CSV of `n` rows as the student's own file (the own-data panel
// open), waits for its run's `epochs` to finish and returns the file's text.
async function loadTwoClassCsv(page, name, n, epochs) {
  const rows = [
    'x1,x2,label',
    ...Array.from({ length: n }, (_, i) => `${i % 17},${(i * 7) % 13},${i % 17 > 8 ? 'hi' : 'lo'}`),
  ].join('\n');
  await page.setInputFiles('#data-file', { name, mimeType: 'text/csv', buffer: Buffer.from(rows) });
  await page.waitForFunction(
    () => document.getElementById('label-column').value === 'label',
    null,
    { timeout: 5_000 },
  );
  const g = await generationOf(page);
  await page.click('#load-data');
  await waitForRun(page, g, epochs, { done: true });
  return rows;
}

test('own data is private data: no seed in the URL or the export, only what ε covers', async () => {
  const { page, problems } = await openOwnDataPanel('#v=1&epochs=3');
  const datasetBefore = await page.locator('#dataset').inputValue();
  await page.setInputFiles('#data-file', {
    name: 'bad.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from('a,b,label\n1,2,x\n3,oops,y\n'),
  });
  // The header is read asynchronously; the last column is offered as the label.
  await page.waitForFunction(
    () => document.getElementById('label-column').value === 'label',
    null,
    { timeout: 5_000 },
  );
  await page.click('#load-data');
  await page.waitForFunction(
    () => document.getElementById('message-text').textContent.includes('not loaded'),
    null,
    { timeout: 10_000 },
  );
  assert.match(
    await page.locator('#message-text').textContent(),
    /row 3, column 'b': expected a number, found 'oops'/,
  );
  assert.equal(await page.locator('#dataset').inputValue(), datasetBefore);

  const good = await loadTwoClassCsv(page, 'good.csv', 400, 3);
  // All runs on the file, composed (Rust): with one run on one preparation, that run's own ε.
  // The total as composed (an answer held up by a busy accounting worker adds "Updating…").
  const ledger = async () =>
    (await page.locator('#file-ledger').textContent()).replace(/ Updating: [^]*$/, '');
  const steps = await page.evaluate(() => window.labTest.reports().at(-1).steps);
  const stepsText = (n) => `${n.toLocaleString('en-US')} training steps reported`;
  await page.waitForFunction(
    (t) => document.getElementById('file-ledger').textContent.includes(`1 run, ${t}`),
    stepsText(steps),
    { timeout: 10_000 },
  );
  const moments = (text) => Number(text.match(/ε = ([\d.]+) \(moments/)[1]);
  assert.equal(
    moments(await ledger()),
    moments(await page.locator('#status').textContent()),
    await ledger(),
  );
  assert.match(
    await ledger(),
    /The status line's ε is the latest run alone; this is all of them\.$/,
  );
  assert.equal(await page.locator('#dataset').inputValue(), 'own');
  assert.equal(await page.locator('#report').inputValue(), 'private');
  assert.match(
    await page.locator('#own-option').textContent(),
    /good\.csv \(\d+ train, \d+ test, 2 features\)/,
  );
  assert.equal(await page.locator('#seed').isVisible(), false, 'the seed is hidden');
  assert.ok(!/seed=/.test(page.url()), page.url());
  // The link says the run is on one's own file (which it never carries): its reader is told.
  assert.ok(/dataset=own/.test(page.url()), page.url());
  assert.equal(await page.locator('#run-log thead .badge, #run-log td.not-private').count(), 0);
  assert.equal(
    await page.locator('#run-log th[data-key="test_acc"]').count(),
    0,
    'no exact accuracy on private rows',
  );
  assert.equal(await page.locator('#run-log th[data-key="private_test_acc"]').count(), 1);
  const csv = await downloadCsv(page);
  const head = csv.split('\n')[0];
  assert.ok(!/seed|not private|train_acc/.test(head), head);
  // A fixed seed, chosen explicitly, is allowed with Rust's warning on its run — and still goes
  // into no link, not even through a pinned run.
  const g2 = await generationOf(page);
  await page.check('#fixed-seed');
  await waitForRun(page, g2, 1, { done: true });
  assert.match(
    await page.locator('#run-notes').innerText(),
    /a fixed seed on private data: whoever knows it can recompute the noise and subtract it/,
  );
  assert.match(await page.locator('#not-covered').innerText(), /The fixed seed you chose/);
  // Two runs now: together they spent more than the last one alone.
  const both = steps + (await page.evaluate(() => window.labTest.reports().at(-1).steps));
  await page.waitForFunction(
    (t) => document.getElementById('file-ledger').textContent.includes(`2 runs, ${t}`),
    stepsText(both),
    { timeout: 10_000 },
  );
  assert.match(
    await ledger(),
    new RegExp(
      String.raw`^Not private in full: Your file, all runs in this tab together since you ` +
        String.raw`first loaded it here \(other tabs count their own\): 2 runs.* Runs with a ` +
        String.raw`fixed seed are not private against whoever knows it\.$`,
    ),
  );
  assert.ok(
    moments(await ledger()) > moments(await page.locator('#status').textContent()),
    await ledger(),
  );
  assert.match(
    await page.locator('#not-covered').innerText(),
    /All runs on your file since you first loaded it are composed/,
  );
  // The export says the same: each row's ε is this run's, the file's total is beside it, and
  // so is what ε does not cover (the fixed seed among it).
  const bothCsv = await downloadCsv(page);
  const [bothHead, ...bothRows] = bothCsv.trim().split('\n');
  assert.match(bothHead, /,notes,not_covered,file_all_runs_at_export,sigma,/);
  const total = await ledger();
  assert.ok(
    !total.includes('"') && bothRows.every((r) => r.includes(total)),
    `${total}\n${bothRows[0]}`,
  );
  assert.ok(
    bothRows.every(
      (r) =>
        r.includes('The fixed seed you chose: whoever has it can subtract the noise.') &&
        r.includes('All runs on your file since you first loaded it are composed'),
    ),
    bothRows[0],
  );
  await page.click('#pin');
  assert.equal(await page.locator('#pin-list li').count(), 1);
  assert.ok(!/seed|pins=/.test(decodeURIComponent(page.url())), page.url());
  assert.match(await page.locator('#covered').innerText(), /ranges of your numeric columns/);
  assert.match(await page.locator('#covered').innerText(), /noisy|Gaussian noise \(σ = 20\)/);
  await page.screenshot({ path: path.join(ARTIFACTS, 'page-own-csv.png'), fullPage: true });
  // At the teaching level the exact accuracy on the held-out rows is shown, and said not to
  // be private, in every line that shows it: an epoch's and the last.
  const g3 = await generationOf(page);
  await page.selectOption('#report', 'teaching');
  await waitForRun(page, g3, 1, { done: true });
  assert.match(
    await page.locator('#status').textContent(),
    /^Done: \d+ epochs, test accuracy [\d.]+% \(not private: your held-out rows, exactly\), ε = /,
  );
  await page.waitForFunction(
    () => /teaching level/.test(document.getElementById('file-ledger').textContent),
    null,
    { timeout: 10_000 },
  );
  // Another file starts its own count; the first file's contents loaded again, under another
  // name, take their count up where it was (one count per contents, not per name or date).
  const runsOf = (t) => Number(t.match(/: ([\d,]+) runs?, /)[1]);
  const firstRuns = runsOf(await ledger());
  const load = async (name, text) => {
    await page.setInputFiles('#data-file', {
      name,
      mimeType: 'text/csv',
      buffer: Buffer.from(text),
    });
    await page.waitForFunction(
      () => document.getElementById('label-column').value === 'label',
      null,
      { timeout: 5_000 },
    );
    const before = await generationOf(page);
    await page.click('#load-data');
    await waitForRun(page, before, 1, { done: true });
  };
  await load('other.csv', good.replace(/\n0,/g, '\n1,'));
  assert.ok(firstRuns >= 3, await ledger());
  await page
    .waitForFunction(
      () => {
        const t = document.getElementById('file-ledger').textContent;
        return (
          /since you first loaded it here \(other tabs count their own\): [12] runs?, /.test(t) &&
          !/prepared/.test(t)
        );
      },
      null,
      { timeout: 10_000 },
    )
    .catch(async (e) => assert.fail(`${e.message}; the ledger says: ${await ledger()}`));
  await load('renamed.csv', good);
  await page
    .waitForFunction(
      (n) => document.getElementById('file-ledger').textContent.includes(`: ${n} runs, `),
      firstRuns + 1,
      { timeout: 10_000 },
    )
    .catch(async (e) => assert.fail(`${e.message}; the ledger says: ${await ledger()}`));
  assert.match(await ledger(), /The file was prepared 2 times/);
  // A seed fixed for the file stays the file's: on a built-in set the box holds the page's own
  // seed again, and the link of its run carries no seed of the file's.
  const g4 = await generationOf(page);
  await page.fill('#seed', '987654');
  await page.locator('#seed').dispatchEvent('change');
  await waitForRun(page, g4, 1, { done: true });
  const g5 = await generationOf(page);
  await page.selectOption('#dataset', 'adult');
  await waitForRun(page, g5, 1);
  assert.equal(await page.locator('#seed').inputValue(), '1');
  assert.equal(await page.locator('#fixed-seed').isChecked(), false);
  assert.ok(!/987654/.test(page.url()) && /seed=1(&|$)/.test(page.url()), page.url());
  assert.deepEqual(problems, []);
  await page.close();
});

test(
  'a file refused after its range estimate still counts: its message says the ε it spent, ' +
    "which is in the file's total",
  async () => {
    const { page, problems } = await openOwnDataPanel('#v=1&epochs=1');
    // 100 rows (80 for training: enough for one column's estimate, so it is made), each value
    // of its own power of two: no bin of the noisy histogram stands out.
    const spread = [
      'x,label',
      ...Array.from({ length: 100 }, (_, i) => `${2 ** (i - 20)},${i % 2 ? 'a' : 'b'}`),
    ].join('\n');
    const file = { name: 'spread.csv', mimeType: 'text/csv', buffer: Buffer.from(spread) };
    await page.setInputFiles('#data-file', file);
    await page.waitForFunction(
      () => document.getElementById('label-column').value === 'label',
      null,
      { timeout: 5_000 },
    );
    await page.click('#load-data');
    await page.waitForFunction(
      () => document.getElementById('message-text').textContent.includes('not loaded'),
      null,
      { timeout: 10_000 },
    );
    const said = await page.locator('#message-text').textContent();
    assert.match(
      said,
      new RegExp(
        String.raw`column 'x': too few rows to estimate its range privately.* This attempt ` +
          String.raw`already released the noisy histograms of your columns' ranges \(one ` +
          String.raw`Gaussian release, σ = 5\), which counts toward what your file has ` +
          String.raw`released: ε = ([\d.]+) \(moments accountant, δ = 1e-5\) spent by this ` +
          String.raw`attempt alone\. The form under the file lists every numeric column`,
      ),
    );
    const spent = Number(said.match(/: ε = ([\d.]+) \(moments accountant/)[1]);
    assert.ok(spent > 0, said);
    assert.match(
      await page.locator('#ranges-why').textContent(),
      /^The private estimate found no range for some columns/,
    );
    // Stated bounds need no estimate: the second preparation releases nothing of its own, and
    // the file's total still has the first one's histograms.
    await page.fill('#bounds', 'x=0:1');
    const g = await generationOf(page);
    await page.click('#load-data');
    await waitForRun(page, g, 1, { done: true });
    const steps = await page.evaluate(() => window.labTest.reports().at(-1).steps);
    await page
      .waitForFunction(
        (n) =>
          new RegExp(
            `: 1 run, ${n} training steps? reported, .* The file was prepared 2 times`,
          ).test(document.getElementById('file-ledger').textContent),
        steps,
        { timeout: 10_000 },
      )
      .catch(async (e) =>
        assert.fail(
          `${e.message}; the ledger says: ${await page.locator('#file-ledger').textContent()}`,
        ),
      );
    const moments = (text) => Number(text.match(/ε = ([\d.]+) \(moments/)[1]);
    const total = moments(await page.locator('#file-ledger').textContent());
    assert.ok(
      total > moments(await page.locator('#status').textContent()),
      `the refused estimate adds to the run's own ` +
        `ε: ${await page.locator('#file-ledger').textContent()} ` +
        `/ ${await page.locator('#status').textContent()}`,
    );
    assert.deepEqual(problems, []);
    await page.close();
  },
);

test("Compare on a student's file asks first: three of its runs have no guarantee", async () => {
  const { page, problems } = await openOwnDataPanel('#v=1&epochs=1');
  await loadTwoClassCsv(page, 'mine.csv', 300, 1);
  const label = await page.locator('#compare').textContent();
  const before = await generationOf(page);
  await page.click('#compare');
  assert.match(
    await page.locator('#compare').textContent(),
    /^Click again to confirm: Compare trains on your file without noise or clipping \(ε = ∞/,
  );
  await page
    .locator('section.controls')
    .screenshot({ path: path.join(ARTIFACTS, 'compare-confirm.png') });
  await page.waitForTimeout(500);
  assert.equal(await generationOf(page), before, 'nothing trained on the first click');
  assert.equal(await page.locator('#pin-list li').count(), 0);
  await page.click('#compare');
  assert.equal(await page.locator('#compare').textContent(), label);
  await page.waitForFunction(() => document.querySelectorAll('#pin-list li').length === 4, null, {
    timeout: 60_000,
  });
  await page.waitForFunction(
    () =>
      /A run without privacy \(no noise, or no clipping\) showed your data/.test(
        document.getElementById('file-ledger').textContent,
      ),
    null,
    { timeout: 10_000 },
  );
  assert.deepEqual(problems, []);
  await page.close();
});

registerShuffled(register, cases);
