// e2e: alone (its pages' main-thread tasks are held to a CPU time (assertResponsive)).
// End to end: the served page trains in its worker, fills the run log and the charts, restarts
// when a slider moves, and shows only what ε covers when asked to (data sets, own data and
// offline use: datasets.test.mjs). Each test opens a page of its own, and they run in a
// shuffled order (printed; E2E_SEED=n repeats one). Screenshots go to test-artifacts/.
import { test as register, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch } from './browser.mjs';
import {
  ARTIFACTS,
  assertResponsive,
  cell,
  downloadCsv,
  epsilonChartSays,
  generationOf,
  longTasks,
  openLab,
  registerShuffled,
  setRange,
  setUp,
  tearDown,
  waitForRun,
} from './lab.mjs';

// Tests are collected, then registered in a shuffled order (the end of this file).
const cases = [];
const test = (name, fn) => cases.push([name, fn]);

let url;
before(async () => {
  url = (await setUp({ traced: true })).server.url;
});

after(async () => {
  try {
    await assertResponsive(busyOnPurpose);
  } finally {
    await tearDown();
  }
});

test('the relaxed-SIMD build where the browser has it, the simd128 build elsewhere', async () => {
  const wasmFetched = (page) => {
    const got = [];
    page.on('request', (r) => {
      if (r.url().endsWith('.wasm')) got.push(new URL(r.url()).pathname);
    });
    return got;
  };
  const relaxed = await openLab('#v=1&epochs=2&dataset=blobs');
  assert.match(
    await relaxed.page.locator('#engine').textContent(),
    /relaxed SIMD \(fused multiply-add/,
  );
  await relaxed.page.close();
  // A browser without relaxed SIMD: the probe does not validate.
  const { page, problems } = await openLab('#v=1&epochs=2&dataset=mnist&model=mlp', () => {
    const validate = WebAssembly.validate;
    WebAssembly.validate = (bytes) => (bytes.byteLength < 100 ? false : validate(bytes));
  });
  const fetched = wasmFetched(page);
  await waitForRun(page, 0, 1);
  assert.match(await page.locator('#engine').textContent(), /no relaxed SIMD in this browser/);
  assert.ok(!/NaN|undefined/.test(await page.locator('#run-log tbody').innerText()));
  await page.reload();
  await page.waitForFunction(() => document.body.dataset.ready === '1', null, {
    timeout: 60_000,
  });
  assert.ok(
    fetched.length > 0 && fetched.every((p) => p.endsWith('/dpsgd_lab_bg.wasm')),
    `fetched ${fetched}`,
  );
  assert.deepEqual(problems, []);
  await page.close();
});

// The page whose main thread the measure's own test keeps busy on purpose.
const busyOnPurpose = new Set();

test('the long-task measure sees 150 ms of main-thread work after load, as CPU time', async () => {
  const { page, problems } = await openLab('#v=1&epochs=2&dataset=blobs');
  const id = await page.evaluate(() => window.labPageId);
  busyOnPurpose.add(id);
  // Once the run is done no worker of the page competes for the cores; another program may.
  await waitForRun(page, 0, 2, { done: true });
  await page.waitForTimeout(500);
  // The task is seen, with its wall time (the loop's 150 ms) and some CPU time, never more than
  // the wall time (95 ms of CPU in 151 ms once, with a core busy). Up to three loops: once, in
  // a `make test` under load, no task of the page after load was in the trace (cause unknown).
  const misses = [];
  while (misses.length < 3) {
    const t0 = await page.evaluate(() => {
      const start = performance.now();
      for (let x = 0; performance.now() - start < 150;) x += Math.sqrt(x + 1);
      return start;
    });
    const mine = (await longTasks()).filter((t) => t.page === id);
    const seen = mine.filter((t) => !t.loading && t.start >= t0 - 20);
    if (seen.some((t) => t.wall >= 145 && t.ms > 0 && t.ms <= t.wall + 2)) break;
    misses.push({ t0, mine });
    console.log(`long-task measure missed the loop at ${t0}: ${JSON.stringify(misses.at(-1))}`);
  }
  assert.ok(misses.length < 3, `every loop missed: ${JSON.stringify(misses)}`);
  assert.deepEqual(problems, []);
  await page.close();
});

const rows = (page) => page.locator('#run-log tbody tr');

test('the page loads, trains, and fills the run log and the charts, PLD included', async () => {
  const { page, problems } = await openLab();
  await waitForRun(page, 0, 3);
  assert.equal(await cell(page, 0, 'epoch'), '1');
  const text = await page.locator('#run-log tbody').innerText();
  assert.ok(!/NaN|undefined/.test(text), `run log shows ${text}`);
  assert.match(
    await cell(page, 0, 'epsilon.pld'),
    /^\d+\.\d+$/,
    'every report carries the PLD accountant',
  );
  for (const id of ['accuracy-chart', 'epsilon-chart']) {
    const { inked } = await page.evaluate((cid) => window.ink(cid), id);
    assert.ok(inked > 1000, `${id} has only ${inked} drawn pixels`);
  }
  // The PLD curve arrives from the accounting worker and joins the ε chart (orange).
  // Its name in full orange (230, 159, 0), its thin line (the whole run) orange faded to 45%
  // (244, 212, 140) — until the run is done, when the thick curve covers the thin one (on a
  // busy machine the curve can arrive after the last epoch: not a failure).
  await page.waitForFunction(
    () =>
      window.near('epsilon-chart', [230, 159, 30], [25, 25, 30]) > 40 &&
      (window.near('epsilon-chart', [244, 212, 140], [6, 6, 8]) > 60 ||
        /^Done/.test(document.getElementById('status').textContent)),
    null,
    { timeout: 30_000 },
  );
  // What ε covers, from the run's mechanism.
  assert.match(await page.locator('#covered').innerText(), /Poisson-sampled lot \(q = 0\.00787\)/);
  assert.match(await page.locator('#not-covered').innerText(), /Train accuracy/);
  await page.screenshot({ path: path.join(ARTIFACTS, 'page-default.png'), fullPage: true });
  await page.locator('#noise-chart').screenshot({ path: path.join(ARTIFACTS, 'noise-signal.png') });
  await page.check('#log-log');
  await page
    .locator('#epsilon-chart')
    .screenshot({ path: path.join(ARTIFACTS, 'epsilon-log-log.png') });
  assert.deepEqual(problems, []);
  await page.close();
});

test('teaching diagnostics are marked not private, gone at the private release level', async () => {
  const { page, problems } = await openLab('#v=1&epochs=3');
  await waitForRun(page, 0, 2);
  for (const key of ['train_acc', 'clipped_fraction', 'median_grad_norm']) {
    assert.match(await page.locator(`#run-log th[data-key="${key}"]`).innerText(), /not private/);
  }
  assert.equal(await page.locator('#run-log th[data-key="test_acc"] .badge').count(), 0);
  const csv = await downloadCsv(page);
  assert.match(csv.split('\n')[0], /train_acc \(not private\)/);
  const g = await generationOf(page);
  await page.selectOption('#report', 'private');
  await waitForRun(page, g, 2);
  assert.equal(
    await page.locator('#run-log thead .badge, #run-log td.not-private').count(),
    0,
    'no column outside ε',
  );
  assert.equal(await page.locator('#run-log th[data-key="train_acc"]').count(), 0);
  const privateCsv = await downloadCsv(page);
  assert.ok(
    !/not private|train_acc|clipped_fraction|median_grad_norm|signal_norm/.test(privateCsv),
    privateCsv.split('\n')[0],
  );
  // The teaching views say why they are empty.
  const { inked } = await page.evaluate(() => window.ink('clipping-chart'));
  assert.ok(inked < 3000, `the histogram is not drawn (${inked} pixels)`);
  assert.match(page.url(), /report=private/);
  await page.screenshot({ path: path.join(ARTIFACTS, 'page-private.png'), fullPage: true });
  assert.deepEqual(problems, []);
  await page.close();
});

test("the clipping histogram's C line follows the slider at once", async () => {
  const { page, problems } = await openLab('#v=1&epochs=3');
  await waitForRun(page, 0, 1);
  // Mean x of the C line's (vermillion) pixels in the histogram canvas.
  const lineX = () =>
    page.evaluate(() => {
      const c = document.getElementById('clipping-chart');
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let sum = 0;
      let n = 0;
      const top = Math.round(c.height * 0.15); // below the "not private" badge
      for (let i = top * c.width * 4; i < d.length; i += 4) {
        if (Math.abs(d[i] - 213) < 12 && Math.abs(d[i + 1] - 94) < 12 && d[i + 2] < 20) {
          sum += (i / 4) % c.width;
          n += 1;
        }
      }
      return n > 20 ? sum / n : null;
    });
  const before = await lineX();
  assert.ok(before !== null, 'the C line is drawn');
  await setRange(page, '#clip', '-1'); // C = 0.1
  const after = await lineX(); // no waiting: the line moves on the input event itself
  assert.ok(after < before - 20, `C line moved from x=${before} to x=${after}`);
  await page.screenshot({ path: path.join(ARTIFACTS, 'page-clipping.png'), fullPage: true });
  assert.deepEqual(problems, []);
  await page.close();
});

test('moving the σ slider restarts the run with the new σ', async () => {
  const { page, problems } = await openLab('#v=1&epochs=3');
  await waitForRun(page, 0, 1);
  const before = Number(await cell(page, 0, 'epsilon.moments'));
  const g = await generationOf(page);
  await setRange(page, '#sigma', '4');
  assert.equal(await page.locator('#sigma-value').textContent(), '4.00');
  await waitForRun(page, g, 1);
  const after = Number(await cell(page, 0, 'epsilon.moments'));
  assert.ok(after < before / 2, `ε after one epoch: σ=1 gave ${before}, σ=4 gave ${after}`);
  assert.match(page.url(), /sigma=4/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a pin keeps a run drawn; a link gives back settings, pins, first-epoch figures', async () => {
  const { page, problems } = await openLab('#v=1&epochs=3');
  await waitForRun(page, 0, 3, { done: true });
  const firstRow = await rows(page).nth(0).locator('td').allTextContents();
  await page.click('#pin');
  assert.equal(await page.locator('#pin-list li').count(), 1);
  // The first pin is black at full strength (never a pale line): black pixels inside the
  // plot, where there is no text and the run's own curves are orange and blue.
  const pinDrawn = () => {
    const { plot } = window.labTest.chartLayout('accuracy-chart');
    const d = document
      .getElementById('accuracy-chart')
      .getContext('2d')
      .getImageData(plot.x + 3, plot.y + 3, plot.w - 6, plot.h - 6).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] < 40 && d[i + 1] < 40 && d[i + 2] < 40) n += 1;
    return n > 30;
  };
  let g = await generationOf(page);
  await setRange(page, '#sigma', '8'); // the next run trains while the pin stays
  await waitForRun(page, g, 1);
  // The charts redraw a few tasks after the run log's row (under load, once, not yet): wait.
  await page
    .waitForFunction(pinDrawn, null, { timeout: 20_000 })
    .catch(() => assert.fail('the pinned curve is still drawn'));
  assert.match(page.url(), /pins=/);

  // Open the link in a fresh page: pins re-train, then the link's own run, same numbers.
  const other = await openLab(new URL(page.url()).hash);
  await other.page.waitForFunction(
    () => document.querySelectorAll('#pin-list li').length === 1,
    null,
    { timeout: 60_000 },
  );
  await waitForRun(other.page, 1, 1); // generation 1 trained the pin; the link's run comes after
  assert.equal(await other.page.locator('#sigma-value').textContent(), '8.00');
  assert.equal(await other.page.locator('#epochs-value').textContent(), '3');
  const sameSeedRow = await rows(page).nth(0).locator('td').allTextContents();
  const reopened = await rows(other.page).nth(0).locator('td').allTextContents();
  assert.deepEqual(reopened, sameSeedRow, 'same settings and seed, same first epoch');
  assert.notDeepEqual(firstRow, sameSeedRow);
  assert.deepEqual(other.problems, []);
  await other.page.close();

  g = await generationOf(page);
  // Every preview the ε chart describes while Compare runs (its text alternative changes with it).
  await page.evaluate(() => {
    const canvas = document.getElementById('epsilon-chart');
    window.previews = [];
    new MutationObserver(() => window.previews.push(canvas.getAttribute('aria-label'))).observe(
      canvas,
      { attributes: true },
    );
  });
  await page.click('#compare');
  await page.waitForFunction(() => document.querySelectorAll('#pin-list li').length === 4, null, {
    timeout: 90_000,
  });
  // The non-private, clip-only and noise-only runs preview ε = ∞ (no guarantee), as their
  // reports say; DP-SGD a finite ε.
  const previews = await page.evaluate(() => window.previews);
  assert.ok(previews.filter((l) => /moments ∞/.test(l)).length >= 3, previews.join('\n'));
  assert.ok(
    previews.some((l) => /moments \d/.test(l)),
    previews.join('\n'),
  );
  assert.deepEqual(await page.locator('#pin-list li').allTextContents(), [
    '* non-private',
    '* clip only',
    '* noise only',
    'DP-SGD',
  ]);
  // One note for the three runs without a guarantee, naming each.
  assert.deepEqual((await page.locator('#run-notes li').allTextContents()).slice(-1), [
    'Note: pinned runs "* non-private", "* clip only", "* noise only": without both clipping ' +
      'and noise there is no privacy guarantee (ε = ∞).',
  ]);
  await page.screenshot({ path: path.join(ARTIFACTS, 'page-compare.png'), fullPage: true });
  assert.deepEqual(problems, []);
  await page.close();
});

test('a lab whose WebAssembly cannot load says so', async () => {
  // A context of its own: a service worker from another test could serve the real wasm.
  const own = await launch();
  try {
    const page = await own.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    await page.route('**/pkg/dpsgd_lab*_bg.wasm', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'application/wasm',
        body: Buffer.from('not wasm'),
      }),
    );
    await page.goto(`${url}#v=1`);
    await page.waitForFunction(() => !document.getElementById('message').hidden, null, {
      timeout: 30_000,
    });
    assert.match(await page.locator('#message-text').textContent(), /WebAssembly/);
    assert.match(await page.locator('#status').textContent(), /could not start/);
    assert.deepEqual(problems, []);
  } finally {
    await own.close();
  }
});

test('a bad setting gets a clear message and no NaN: σ = 0 shows ε = ∞', async () => {
  const { page, problems } = await openLab('#v=1&epochs=2&sigma=0');
  await waitForRun(page, 0, 1);
  for (const key of [
    'epsilon.naive',
    'epsilon.strong',
    'epsilon.moments',
    'epsilon.rdp',
    'epsilon.pld',
  ]) {
    assert.equal(await cell(page, 0, key), '∞', key);
  }
  await epsilonChartSays(page, 'σ = 0');
  assert.equal(await page.locator('#covered li').count(), 0);
  assert.match(
    await page.locator('#not-covered').innerText(),
    /Everything: this run does not both clip and add noise, so ε = ∞/,
  );
  // DP-PCA without noise (σ_p = 0) opens the run too: nothing covered, though the steps are noisy.
  const g = await generationOf(page);
  await page.evaluate(() => {
    location.hash = '#v=1&epochs=2&pca=3&pca_sigma=0';
  });
  await waitForRun(page, g, 1);
  assert.equal(await cell(page, 0, 'epsilon.moments'), '∞');
  assert.equal(await page.locator('#covered li').count(), 0);
  assert.match(
    await page.locator('#not-covered').innerText(),
    /Everything: DP-PCA's projection \(σ_p = 0\) has no noise, so ε = ∞/,
  );
  await epsilonChartSays(page, 'see “Not covered”'); // σ = 1: not "σ = 0"
  const before = await generationOf(page);
  await page.evaluate(() => (location.hash = '#v=1&epochs=2'));
  await waitForRun(page, before, 1);
  await epsilonChartSays(page, null); // curves again, and their caption
  const bad = await openLab('#v=1&sigma=banana&lr=-3&seed=x&dataset=__proto__');
  await waitForRun(bad.page, 0, 1);
  const message = await bad.page.locator('#message-text').textContent();
  assert.match(message, /sigma = 'banana' is not a number/);
  assert.match(message, /dataset = '__proto__' is not one of the choices/);
  assert.match(message, /seed = 'x' is not a whole number from 0 to 4294967295/); // was: silently 1
  assert.ok(!/NaN|undefined/.test(await bad.page.locator('body').innerText()));
  assert.deepEqual([...problems, ...bad.problems], []);
  await bad.page.close();
  await page.close();
});

test('keyboard only: a slider, pause, play and reset', async () => {
  const { page, problems } = await openLab('#v=1&epochs=5');
  await waitForRun(page, 0, 1);
  // Tab from the top of the page to the σ slider, move it with the arrow keys.
  const tabTo = async (id) => {
    for (let i = 0; i < 80; i++) {
      if (
        await page.evaluate(
          (want) => document.activeElement && document.activeElement.id === want,
          id,
        )
      )
        return;
      await page.keyboard.press('Tab');
    }
    throw new Error(`could not reach #${id} with Tab`);
  };
  await page.evaluate(() => document.activeElement && document.activeElement.blur());
  await tabTo('sigma');
  let g = await generationOf(page);
  await page.keyboard.press('ArrowRight');
  assert.notEqual(await page.locator('#sigma-value').textContent(), '1.00');
  await waitForRun(page, g, 1);
  await tabTo('play');
  await page.keyboard.press('Enter'); // pause
  assert.equal(await page.locator('#play').textContent(), 'Play');
  assert.equal(await page.locator('#play').getAttribute('aria-pressed'), 'false');
  await page.waitForTimeout(300); // a report already on its way may still land
  const paused = await rows(page).count();
  await page.waitForTimeout(700);
  assert.equal(await rows(page).count(), paused, 'no epochs while paused');
  await page.keyboard.press('Enter'); // play
  // "Pause" while the run goes on; a run that has just ended says "Play" (nothing to pause).
  const said = await page.locator('#play').textContent();
  assert.ok(said === 'Pause' || /^Done/.test(await page.locator('#status').textContent()), said);
  await tabTo('reset');
  g = await generationOf(page);
  await page.keyboard.press('Enter');
  await waitForRun(page, g, 1);
  assert.match(await page.locator('#status').getAttribute('aria-live'), /polite/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('teacher mode from the URL: hidden, locked controls, presenter layout, a lesson', async () => {
  const { page, problems } = await openLab(
    '#v=1&teacher=1&hide=lr,delta&lock=sigma&big=1&lesson=clipping',
  );
  await waitForRun(page, 0, 1);
  assert.equal(await page.locator('#lr').isVisible(), false);
  assert.equal(await page.locator('#delta').isVisible(), false);
  assert.equal(await page.locator('#sigma').isDisabled(), true);
  assert.equal(await page.evaluate(() => document.body.classList.contains('presenter')), true);
  assert.match(await page.locator('#lesson').textContent(), /What clipping does/);
  assert.equal(await page.locator('#clip-value').textContent(), '0.1');
  assert.match(
    page.url(),
    /lesson=clipping/,
    'the lesson stays in the link as the page rewrites it',
  );
  await page.screenshot({ path: path.join(ARTIFACTS, 'page-teacher.png'), fullPage: true });
  // A link hides controls only: never the words that say what ε does not cover.
  const odd = await openLab(
    '#v=1&lesson=constructor&hide=not-covered,status,coverage&lock=message-close',
  );
  await waitForRun(odd.page, 0, 1);
  assert.equal(
    await odd.page.locator('#lesson').isVisible(),
    false,
    'a prototype key is not a lesson',
  );
  for (const id of ['not-covered', 'status', 'coverage'])
    assert.equal(await odd.page.locator(`#${id}`).isVisible(), true, id);
  assert.match(
    await odd.page.locator('#message-text').textContent(),
    new RegExp(
      String.raw`teacher mode hides and locks controls only; "not-covered, status, coverage, ` +
        String.raw`message-close" are not one`,
    ),
  );
  assert.deepEqual([...problems, ...odd.problems], []);
  await odd.page.close();
  await page.close();
});

test("the lessons' privacy figures are Rust's for their settings (the texts quote)", async () => {
  // The ε chart's text alternative is the preview Rust computed for the whole run; the moments
  // lesson fills its numbers from the same preview, and the cost lesson from the run's report.
  const { page, problems } = await openLab('#v=1&lesson=moments');
  await page.waitForFunction(
    () =>
      /whole run \(100 epochs\)/.test(
        document.getElementById('epsilon-chart').getAttribute('aria-label'),
      ) && !/…/.test(document.getElementById('lesson-say').textContent),
    null,
    { timeout: 30_000 },
  );
  const label = await page.locator('#epsilon-chart').getAttribute('aria-label');
  const text = await page.locator('#lesson-say').textContent();
  const eps = Object.fromEntries(
    [...label.matchAll(/(naive|strong|moments)\*? ([\d.]+)/g)].map(([, k, v]) => [k, v]),
  );
  assert.match(
    text,
    new RegExp(
      `naive composition says ε = ${eps.naive}, strong composition ${eps.strong}, the ` +
        `moments accountant ${eps.moments}`,
    ),
    `${text} / ${label}`,
  );
  assert.ok(
    Math.abs(Number(eps.moments) - 1.26) < 0.01 && Math.abs(Number(eps.strong) - 9.37) < 0.05,
    JSON.stringify(eps),
  );
  assert.deepEqual(problems, []);
  await page.close();
});

registerShuffled(register, cases);
