// End to end: the served page trains in its worker, fills the run log, and restarts when a
// slider moves. Screenshots go to test-artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { serveWww } from './serve.mjs';
import { launch, ARTIFACTS } from './browser.mjs';

let server;
let context;
let page;
const problems = [];
const longTasks = [];

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  server = await serveWww();
  context = await launch();
  // Pixel helpers for every page: ink(id) counts a canvas's non-white pixels (and hashes where
  // they are, to tell redraws apart); near(id, rgb, tol) counts pixels within tol of a colour.
  await context.addInitScript(() => {
    const pixels = (id) => {
      const c = document.getElementById(id);
      return c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    };
    window.ink = (id) => {
      const d = pixels(id);
      let inked = 0;
      let hash = 0;
      for (let i = 0; i < d.length; i += 4) {
        if (d[i] < 200 || d[i + 1] < 200 || d[i + 2] < 200) {
          inked += 1;
          hash = (hash * 31 + i) % 1000000007;
        }
      }
      return { inked, hash };
    };
    window.near = (id, rgb, tol) => {
      const d = pixels(id);
      let n = 0;
      for (let i = 0; i < d.length; i += 4) {
        if ([0, 1, 2].every((k) => Math.abs(d[i + k] - rgb[k]) < tol[k])) n += 1;
      }
      return n;
    };
  });
  page = await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => { if (!r.url().startsWith(server.url) && !r.url().startsWith('data:')) problems.push(`outside request: ${r.url()}`); });
  // Every main-thread task over 50 ms (Chromium's Long Tasks API), across navigations, marked
  // as loading when it started before the lab had loaded and drawn once.
  await page.exposeFunction('reportLongTask', (t) => longTasks.push(t));
  await page.addInitScript(() => {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        window.reportLongTask({
          page: location.hash.slice(0, 40), start: Math.round(e.startTime), ms: Math.round(e.duration),
          loading: !(window.labReadyAt <= e.startTime),
        });
      }
    }).observe({ type: 'longtask', buffered: true });
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        if (e.blockingDuration > 0) {
          window.reportLongTask({ loaf: true, start: Math.round(e.startTime), ms: Math.round(e.duration), blocking: Math.round(e.blockingDuration),
            scripts: (e.scripts || []).map((x) => `${x.invoker} ${x.sourceFunctionName} ${Math.round(x.duration)}ms`) });
        }
      }
    }).observe({ type: 'long-animation-frame', buffered: true });
  });
  await page.goto(server.url);
});

after(async () => {
  await context?.close();
  await server?.close();
});

const rows = () => page.locator('#run-log tbody tr');
const generationOf = (p) => p.evaluate(() => Number(document.getElementById('run-log').dataset.generation || 0));
// Waits for a run newer than generation `after` with at least `n` rows (and, if `done`, finished).
const waitForRun = (after, n, { done = false, p = page, timeout = 60_000 } = {}) => p.waitForFunction(([g, want, fin]) => {
  const t = document.getElementById('run-log');
  return Number(t.dataset.generation) > g && t.tBodies[0].rows.length >= want
    && (!fin || /^(Done|Stopped)/.test(document.getElementById('status').textContent));
}, [after, n, done], { timeout });
const cellsOf = (i) => rows().nth(i).locator('td').allTextContents();

test('the page loads, trains, and fills the run log and the charts, PLD included', async () => {
  await page.waitForFunction(() => document.querySelectorAll('#run-log tbody tr').length >= 3, null, { timeout: 60_000 });
  const first = await cellsOf(0);
  assert.equal(first[0], '1');
  const text = await page.locator('#run-log tbody').innerText();
  assert.ok(!/NaN|undefined/.test(text), `run log shows ${text}`);
  // The charts drew something other than white: sample the canvases' pixels.
  for (const id of ['accuracy-chart', 'epsilon-chart']) {
    const { inked } = await page.evaluate((cid) => window.ink(cid), id);
    assert.ok(inked > 1000, `${id} has only ${inked} drawn pixels`);
  }
  // The PLD curve arrives from the accounting worker and joins the ε chart (orange).
  // Its name in full orange (230, 159, 0), its thin line orange faded to 45% (244, 212, 140).
  await page.waitForFunction(() => window.near('epsilon-chart', [230, 159, 30], [25, 25, 30]) > 40
    && window.near('epsilon-chart', [244, 212, 140], [6, 6, 8]) > 60, null, { timeout: 30_000 });
  await page.screenshot({ path: path.join(ARTIFACTS, 'page-default.png'), fullPage: true });
  await page.locator('#noise-chart').screenshot({ path: path.join(ARTIFACTS, 'noise-signal.png') });
  await page.check('#log-log');
  await page.locator('#epsilon-chart').screenshot({ path: path.join(ARTIFACTS, 'epsilon-log-log.png') });
  await page.uncheck('#log-log');
  assert.deepEqual(problems, []);
});

test('the clipping histogram\'s C line follows the slider at once; the run log exports as CSV', async () => {
  // Mean x of the C line's (vermillion) pixels in the histogram canvas.
  const lineX = () => page.evaluate(() => {
    const c = document.getElementById('clipping-chart');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let sum = 0;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (Math.abs(d[i] - 213) < 12 && Math.abs(d[i + 1] - 94) < 12 && d[i + 2] < 20) {
        sum += (i / 4) % c.width;
        n += 1;
      }
    }
    return n > 20 ? sum / n : null;
  });
  const before = await lineX();
  assert.ok(before !== null, 'the C line is drawn');
  await page.locator('#clip').evaluate((el) => {
    el.value = '-1'; // C = 0.1
    el.dispatchEvent(new Event('input', { bubbles: true }));
  });
  const after = await lineX(); // no waiting: the line moves on the input event itself
  assert.ok(after < before - 20, `C line moved from x=${before} to x=${after}`);
  await page.screenshot({ path: path.join(ARTIFACTS, 'page-clipping.png'), fullPage: true });
  await page.waitForFunction(() => document.querySelectorAll('#run-log tbody tr').length >= 2, null, { timeout: 60_000 });
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-csv')]);
  const text = await (await import('node:fs/promises')).readFile(await download.path(), 'utf8');
  const lines = text.trim().split('\n');
  assert.match(lines[0], /^epoch,steps,train_acc,test_acc/);
  assert.ok(lines.length >= 3 && !/NaN|undefined/.test(text), text);
  await page.locator('#clip').evaluate((el) => {
    el.value = '0';
    el.dispatchEvent(new Event('input', { bubbles: true }));
  });
  assert.deepEqual(problems, []);
});

test('moving the σ slider restarts the run with the new σ', async () => {
  const before = await cellsOf(0);
  const epsMomentsBefore = Number(before[5]);
  const g = await generationOf(page);
  await page.locator('#sigma').evaluate((el) => {
    el.value = '4';
    el.dispatchEvent(new Event('input', { bubbles: true }));
  });
  assert.equal(await page.locator('#sigma-value').textContent(), '4.00');
  await waitForRun(g, 2); // a new run (debounced restart), with new rows
  const after = await cellsOf(0);
  const epsMomentsAfter = Number(after[5]);
  assert.equal(after[0], '1');
  assert.ok(epsMomentsAfter < epsMomentsBefore / 2, `ε after one epoch: σ=1 gave ${epsMomentsBefore}, σ=4 gave ${epsMomentsAfter}`);
  assert.match(page.url(), /sigma=4/);
  await page.screenshot({ path: path.join(ARTIFACTS, 'page-sigma-4.png'), fullPage: true });
  assert.deepEqual(problems, []);
});

test('calibrate σ hits the target ε within 1%; budget mode stops before exceeding it', async () => {
  const setRange = (id, v) => page.locator(id).evaluate((el, val) => {
    el.value = val;
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, v);
  let g = await generationOf(page);
  await setRange('#epochs', '5');
  await waitForRun(g, 5, { done: true });
  await page.fill('#budget-eps', '1.5');
  await page.selectOption('#budget-accountant', 'moments');
  g = await generationOf(page);
  await page.click('#calibrate');
  await waitForRun(g, 5, { done: true });
  const last = await cellsOf(4);
  const eps = Number(last[5]);
  assert.ok(eps <= 1.5 && eps >= 1.485, `calibrated run ended at ε = ${eps} for a target of 1.5`);

  await page.fill('#budget-eps', '1.2');
  g = await generationOf(page);
  await page.check('#until-budget');
  await waitForRun(g, 1, { done: true });
  assert.match(await page.locator('#status').textContent(), /^Stopped by the budget/);
  const stop = page.locator('#run-log tbody tr.budget-stop');
  assert.equal(await stop.count(), 1);
  const cells = await stop.locator('td').allTextContents();
  assert.ok(Number(cells[5]) <= 1.2, `stopped at ε = ${cells[5]}`);
  assert.ok(Number(cells[0]) < 5, `stopped in epoch ${cells[0]} of 5`);
  await page.screenshot({ path: path.join(ARTIFACTS, 'page-budget.png'), fullPage: true });
  await page.uncheck('#until-budget');
  await setRange('#epochs', '20');
  assert.deepEqual(problems, []);
});

test('pinning keeps a run on the charts; a link reproduces settings, pins and first-epoch numbers', async () => {
  const setRange = (id, v) => page.locator(id).evaluate((el, val) => {
    el.value = val;
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, v);
  let g = await generationOf(page);
  await setRange('#epochs', '3');
  await waitForRun(g, 3, { done: true });
  const firstRow = await cellsOf(0);
  await page.click('#pin');
  assert.equal(await page.locator('#pin-list li').count(), 1);
  // The pin colour (86, 180, 233) at 60% over white is about (154, 210, 242).
  const pinPixels = () => page.evaluate(() => window.near('accuracy-chart', [154, 210, 242], [16, 16, 14]));
  g = await generationOf(page);
  await setRange('#sigma', '8'); // the next run trains while the pin stays
  await waitForRun(g, 1);
  assert.ok((await pinPixels()) > 30, 'the pinned curve is still drawn');
  assert.match(page.url(), /pins=/);

  // Open the link in a fresh page: pins re-train, then the link's own run, same numbers.
  const url = page.url();
  const other = await context.newPage();
  other.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await other.goto(url);
  await other.waitForFunction(() => document.querySelectorAll('#pin-list li').length === 1, null, { timeout: 60_000 });
  await waitForRun(1, 1, { p: other }); // generation 1 trained the pin; the link's run comes after
  assert.equal(await other.locator('#sigma-value').textContent(), '8.00');
  assert.equal(await other.locator('#epochs-value').textContent(), '3');
  const sameSeedRow = await page.locator('#run-log tbody tr').nth(0).locator('td').allTextContents();
  const reopened = await other.locator('#run-log tbody tr').nth(0).locator('td').allTextContents();
  assert.deepEqual(reopened, sameSeedRow, 'same settings and seed, same first epoch');
  assert.notDeepEqual(firstRow, sameSeedRow);
  await other.close();

  await page.click('#compare');
  await page.waitForFunction(() => document.querySelectorAll('#pin-list li').length === 4, null, { timeout: 90_000 });
  assert.deepEqual(await page.locator('#pin-list li').allTextContents(), ['non-private', 'clip only', 'noise only', 'DP-SGD']);
  await page.screenshot({ path: path.join(ARTIFACTS, 'page-compare.png'), fullPage: true });
  await page.click('#clear-pins');
  await setRange('#sigma', '1');
  await setRange('#epochs', '20');
  assert.deepEqual(problems, []);
});

test('a bad setting gets a clear message and no NaN: σ = 0 shows ε = ∞', async () => {
  const g = await generationOf(page);
  await page.locator('#sigma').evaluate((el) => {
    el.value = '0';
    el.dispatchEvent(new Event('input', { bubbles: true }));
  });
  await waitForRun(g, 1);
  const cells = await cellsOf(0);
  assert.deepEqual(cells.slice(3, 7), ['∞', '∞', '∞', '∞']);
  assert.deepEqual(problems, []);
});

test('choosing another data set and model loads it and trains', async () => {
  const g = await generationOf(page);
  await page.selectOption('#dataset', 'xor');
  await page.selectOption('#model', 'mlp');
  await waitForRun(g, 3);
  assert.match(page.url(), /dataset=xor/);
  assert.equal(await page.locator('#boundary-figure').isVisible(), true, 'the boundary view shows for 2-D data');
  assert.match(page.url(), /model=mlp/);
  const max = Number(await page.locator('#lot-size').getAttribute('max'));
  assert.ok(Math.abs(10 ** max - 600) < 1, `lot-size slider spans 1..N = 600, max 10^${max}`);
  await page.screenshot({ path: path.join(ARTIFACTS, 'page-xor-mlp.png'), fullPage: true });
  assert.deepEqual(problems, []);
});

test('MNIST loads from its gzipped IDX files and trains', async () => {
  await page.locator('#sigma').evaluate((el) => {
    el.value = '2'; // a private run, so ε is finite
    el.dispatchEvent(new Event('input', { bubbles: true }));
  });
  const g = await generationOf(page);
  await page.selectOption('#dataset', 'mnist');
  await waitForRun(g, 2);
  assert.equal(await page.locator('#boundary-figure').isHidden(), true);
  const first = await cellsOf(0);
  assert.ok(parseFloat(first[2]) > 50, `MNIST test accuracy after one epoch: ${first[2]}`);
  // DP-PCA to 60 dimensions: its cost is in ε from the first epoch on.
  const g2 = await generationOf(page);
  await page.check('#pca-on');
  await waitForRun(g2, 1);
  const withPca = await cellsOf(0);
  assert.ok(Number(withPca[5]) > Number(first[5]), `ε moments with PCA ${withPca[5]} vs without ${first[5]}`);
  assert.match(page.url(), /pca=60/);
  const g3 = await generationOf(page);
  await page.uncheck('#pca-on');
  await waitForRun(g3, 1);
  assert.deepEqual(problems, []);
});

test('a bad CSV gets a message naming row and column and changes nothing; a good one trains', async () => {
  await page.locator('#own-data summary').click();
  const rowsBefore = await rows().count();
  const datasetBefore = await page.locator('#dataset').inputValue();
  await page.setInputFiles('#data-file', { name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from('a,b,label\n1,2,x\n3,oops,y\n') });
  // The header is read asynchronously; the last column is offered as the label.
  await page.waitForFunction(() => document.getElementById('label-column').value === 'label', null, { timeout: 5_000 });
  await page.click('#load-data');
  await page.waitForFunction(() => document.getElementById('status').textContent.includes('not loaded'), null, { timeout: 10_000 });
  const status = await page.locator('#status').textContent();
  assert.match(status, /row 3, column 'b': expected a number, found 'oops'/);
  assert.equal(await page.locator('#dataset').inputValue(), datasetBefore);
  assert.ok((await rows().count()) >= rowsBefore, 'the run log was kept');

  const good = ['x1,x2,label', ...Array.from({ length: 200 }, (_, i) => `${i % 17},${(i * 7) % 13},${i % 17 > 8 ? 'hi' : 'lo'}`)].join('\n');
  await page.setInputFiles('#data-file', { name: 'good.csv', mimeType: 'text/csv', buffer: Buffer.from(good) });
  await page.waitForFunction(() => document.getElementById('label-column').value === 'label', null, { timeout: 5_000 });
  const g = await generationOf(page);
  await page.click('#load-data');
  await waitForRun(g, 2);
  assert.equal(await page.locator('#dataset').inputValue(), 'own');
  assert.match(await page.locator('#own-option').textContent(), /good\.csv \(160 train, 40 test, 2 features\)/);
  await page.screenshot({ path: path.join(ARTIFACTS, 'page-own-csv.png'), fullPage: true });
  assert.deepEqual(problems, []);
});

test('keyboard only: a slider, pause, play and reset', async () => {
  await page.goto(server.url);
  await waitForRun(0, 1);
  // Tab from the top of the page to the σ slider, move it with the arrow keys.
  const tabTo = async (id) => {
    for (let i = 0; i < 60; i++) {
      if (await page.evaluate((want) => document.activeElement && document.activeElement.id === want, id)) return;
      await page.keyboard.press('Tab');
    }
    throw new Error(`could not reach #${id} with Tab`);
  };
  await page.evaluate(() => document.activeElement && document.activeElement.blur());
  await tabTo('sigma');
  let g = await generationOf(page);
  await page.keyboard.press('ArrowRight');
  assert.notEqual(await page.locator('#sigma-value').textContent(), '1.00');
  await waitForRun(g, 1);
  await tabTo('play');
  await page.keyboard.press('Enter'); // pause
  assert.equal(await page.locator('#play').textContent(), 'Play');
  assert.equal(await page.locator('#play').getAttribute('aria-pressed'), 'false');
  await page.waitForTimeout(300); // a report already on its way may still land
  const paused = await rows().count();
  await page.waitForTimeout(700);
  assert.equal(await rows().count(), paused, 'no epochs while paused');
  await page.keyboard.press('Enter'); // play
  assert.equal(await page.locator('#play').textContent(), 'Pause');
  await tabTo('reset');
  g = await generationOf(page);
  await page.keyboard.press('Enter');
  await waitForRun(g, 1);
  assert.match(await page.locator('#status').getAttribute('aria-live'), /polite/);
  assert.deepEqual(problems, []);
});

test('teacher mode from the URL: hidden and locked controls, presenter layout, a lesson', async () => {
  const other = await context.newPage();
  other.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await other.goto(`${server.url}#v=1&teacher=1&hide=lr,delta&lock=sigma&big=1&lesson=clipping`);
  await waitForRun(0, 1, { p: other });
  assert.equal(await other.locator('#lr').isVisible(), false);
  assert.equal(await other.locator('#delta').isVisible(), false);
  assert.equal(await other.locator('#sigma').isDisabled(), true);
  assert.equal(await other.evaluate(() => document.body.classList.contains('presenter')), true);
  assert.match(await other.locator('#lesson').textContent(), /What clipping does/);
  assert.equal(await other.locator('#clip-value').textContent(), '0.1');
  assert.match(other.url(), /lesson=clipping/, 'the lesson stays in the link as the page rewrites it');
  await other.screenshot({ path: path.join(ARTIFACTS, 'page-teacher.png'), fullPage: true });
  await other.close();
  assert.deepEqual(problems, []);
});

test('the σ-needed panel draws every accountant and follows the target ε, off the main thread', async () => {
  const fingerprint = () => page.evaluate(() => window.ink('sigma-chart'));
  await page.waitForFunction(() => window.ink('sigma-chart').inked > 2000, null, { timeout: 30_000 });
  const before = await fingerprint();
  await page.locator('#sigma-chart').screenshot({ path: path.join(ARTIFACTS, 'sigma-needed.png') });
  // A new target: the panel says it is computing, then draws the new curves.
  const redrawn = (h) => page.waitForFunction((old) => {
    const now = window.ink('sigma-chart');
    return now.hash !== old && now.inked > 2000;
  }, h, { timeout: 30_000 });
  await page.fill('#budget-eps', '0.5');
  await page.locator('#budget-eps').dispatchEvent('change');
  await redrawn(before.hash);
  await page.locator('#sigma-chart').screenshot({ path: path.join(ARTIFACTS, 'sigma-needed-eps-0.5.png') });
  // No target: the old curves give way to a message, never stay under a wrong caption.
  await page.fill('#budget-eps', '');
  await page.locator('#budget-eps').dispatchEvent('change');
  await page.waitForFunction(() => window.ink('sigma-chart').inked < 1500, null, { timeout: 10_000 });
  assert.match(await page.locator('#status').textContent(), /Target ε must be a number/);
  const empty = await fingerprint();
  await page.fill('#budget-eps', '2');
  await page.locator('#budget-eps').dispatchEvent('change');
  await redrawn(empty.hash);
  assert.deepEqual(problems, []);
});

// Each main-thread task of the page is a few to 15 ms here (one chart, one report); with
// training and two accounting workers busy on a 2-core machine the OS can stretch one past
// 50 ms now and then (seen: 52 ms once in eleven runs). So: none over 100 ms, and at most two
// over 50 ms in the whole suite, every one of them printed.
test('once loaded, the main thread never blocks: no task over 100 ms, at most two over 50 ms (every test above)', async (t) => {
  t.diagnostic(`long animation frames: ${JSON.stringify(longTasks.filter((x) => x.loaf))}`);
  const loading = longTasks.filter((x) => x.loading && !x.loaf);
  t.diagnostic(`long tasks while loading: ${JSON.stringify(loading)}`);
  const interactive = longTasks.filter((x) => !x.loading && !x.loaf);
  t.diagnostic(`long tasks after load: ${JSON.stringify(interactive)}`);
  assert.deepEqual(interactive.filter((x) => x.ms > 100), [], `main-thread tasks over 100 ms after load: ${JSON.stringify(interactive)}`);
  assert.ok(interactive.length <= 2, `${interactive.length} main-thread tasks over 50 ms after load: ${JSON.stringify(interactive)}`);
});

test('after the first visit the lab works offline (service worker)', async () => {
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.reload(); // now controlled by the service worker, which caches what it serves
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.waitForFunction(() => document.querySelectorAll('#run-log tbody tr').length >= 1, null, { timeout: 60_000 });
  await context.setOffline(true);
  try {
    await page.reload();
    await waitForRun(0, 2); // page, wasm and data all from the cache
    assert.ok(await page.evaluate(() => navigator.serviceWorker.controller !== null), 'served by the service worker');
  } finally {
    await context.setOffline(false);
  }
  assert.deepEqual(problems, []);
});
