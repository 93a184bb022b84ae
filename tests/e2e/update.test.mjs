// e2e: alone (a worker it stops is found by the watchdog's clock: labTest.setSilence(2 s)).
// A returning student after the lab was rebuilt (#40, 3.1). A copy of www/ is served by Python's
// plain static server (no COOP/COEP, no help from the tests' server); two visits, so the
// service worker holds the lab. Then the copy is rebuilt as scripts/build-wasm would: one
// wasm-bindgen import renamed in the glue and in both wasm builds (an old compiled module with
// the new glue fails: "function import requires a callable"), and version.js written again;
// every script of each build also records its build number in each page and worker that runs
// it. The page opened then, and every worker it starts (after the new version is installed
// too), run one build with no error; the new build is taken at the next visit once the lab's
// tab is closed, and at once with the notice's button — refused while another tab is open. A
// data set first used then (MNIST) is stored in the new version's copy. And the offline copy
// itself, on the tests' own server: after a first visit the lab works with the network gone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openLab, setUp, tearDown, waitForRun } from './lab.mjs';
import { launch } from './browser.mjs';
import { serveDir, servePlain } from './serve.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'dpsgd-update-'));
const LAB = path.join(tmp, 'lab');
let host;
let context;

before(async () => {
  ({ context } = await setUp());
  // Not the snapshots, www/v/ (a prefix test of 'www/v' also left out www/views/).
  const snapshots = path.join(REPO, 'www', 'v');
  cpSync(path.join(REPO, 'www'), LAB, {
    recursive: true,
    filter: (f) =>
      !/fashion-mnist-/.test(f) && f !== snapshots && !f.startsWith(snapshots + path.sep),
  });
  rebuild(1);
  host = await servePlain(LAB);
});
after(async () => {
  await host?.close();
  await tearDown();
  rmSync(tmp, { recursive: true, force: true });
});

const MARK = /\n;\(globalThis\.labBuilds \|\|= \{\}\)\[.*\n$/;
let imported = null; // the wasm-bindgen import renamed at each rebuild, as it is now named

// The copy rebuilt as build `n`: every script marks its build (globalThis.labBuilds[file] = n),
// from build 2 on an import of the wasm renamed in the glue and both wasm files, and its
// version.js written again (scripts/version.py, as scripts/build-wasm does).
function rebuild(n) {
  // (Not the snapshots of earlier builds, v/ID/: scripts/version.py wrote them once.)
  const scripts = readdirSync(LAB, { recursive: true }).filter(
    (f) => f.endsWith('.js') && f !== 'sw.js' && f !== 'version.js' && !f.startsWith('v/'),
  );
  for (const f of scripts) {
    const file = path.join(LAB, f);
    const text = readFileSync(file, 'utf8').replace(MARK, '\n');
    writeFileSync(file, `${text}\n;(globalThis.labBuilds ||= {})[${JSON.stringify(f)}] = ${n};\n`);
  }
  if (n > 1) {
    const glue = path.join(LAB, 'pkg/dpsgd_lab.js');
    const text = readFileSync(glue, 'utf8');
    imported ??= /^\s+(__wbg_\w+_[0-9a-f]{16}): function\(/m.exec(text)?.[1];
    assert.ok(imported, 'the glue has a wasm-bindgen import');
    const renamed = imported.slice(0, -1) + ((parseInt(imported.at(-1), 16) + 1) % 16).toString(16);
    assert.equal(text.split(imported).length, 2, `${imported} once in the glue`);
    writeFileSync(glue, text.replace(imported, renamed));
    for (const wasm of ['pkg/dpsgd_lab_bg.wasm', 'pkg/dpsgd_lab_relaxed_bg.wasm']) {
      const bytes = readFileSync(path.join(LAB, wasm)); // the import, and its names for debuggers
      let at = bytes.indexOf(imported);
      assert.ok(at >= 0, `${imported} in ${wasm}`);
      for (; at >= 0; at = bytes.indexOf(imported, at + 1)) bytes.write(renamed, at, 'latin1');
      writeFileSync(path.join(LAB, wasm), bytes);
    }
    imported = renamed;
  }
  execFileSync('python3', [path.join(REPO, 'scripts/version.py'), LAB]);
}

// The builds that the page and each of its workers (training, accounting, …) run (each
// script's mark), as a set.
async function buildsOf(page) {
  assert.ok(page.workers().length >= 2, `the page's workers are seen (${page.workers().length})`);
  const seen = [await page.evaluate(() => globalThis.labBuilds)];
  for (const w of page.workers())
    seen.push(await w.evaluate(() => globalThis.labBuilds).catch(() => null)); // one may have ended
  return new Set(seen.filter(Boolean).flatMap((b) => Object.values(b)));
}

// Waits for the page (reloaded or opened) to be ready and to train an epoch; returns the builds
// it and its workers (training, accounting) run.
async function trained(page) {
  await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 60_000 });
  const g = Number(
    await page.evaluate(() => document.getElementById('run-log').dataset.generation || 0),
  );
  await waitForRun(page, g - 1, 1);
  return buildsOf(page);
}

const said = (page) =>
  page.evaluate(() =>
    document.getElementById('message').hidden
      ? ''
      : document.getElementById('message-text').textContent,
  );

test(
  'a rebuilt lab: the open page and every worker it starts keep one build; the next visit, or ' +
    'the notice, takes the new one',
  async () => {
    const hash = '#v=1&epochs=2&dataset=breast-cancer';
    let { page, problems } = await openLab(hash, null, { from: host });
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.reload(); // now from the offline copy
    assert.deepEqual(await trained(page), new Set([1]));
    assert.ok(
      await page.evaluate(() => navigator.serviceWorker.controller !== null),
      'controlled by the service worker',
    );

    rebuild(2);
    const before = await page.evaluate(() => caches.keys());
    await page.reload();
    assert.deepEqual(
      await trained(page),
      new Set([1]),
      'the visit after the rebuild runs the build it started with',
    );
    assert.equal(await said(page), '');
    // The new version installs in the background: the page offers it, and runs on as it was.
    await page.waitForFunction(
      (old) => caches.keys().then((keys) => keys.some((k) => !old.includes(k))),
      before,
      { timeout: 60_000 },
    );
    await page.locator('#update').waitFor({ state: 'visible', timeout: 30_000 });
    assert.match(
      await page.locator('#update').textContent(),
      /A new version of the lab is ready\.\s*Reload to use it/,
    );
    // Workers started now (a new training worker, its data) load the page's build, not the new one.
    const g = Number(
      await page.evaluate(() => document.getElementById('run-log').dataset.generation),
    );
    await page.evaluate(() => window.labTest.setSilence(2_000));
    await page.evaluate(() => window.labTest.killTrainingWorker());
    await page.waitForFunction(
      () => /training worker stopped/.test(document.getElementById('message-text').textContent),
      null,
      { timeout: 30_000 },
    );
    await page.evaluate(() => window.labTest.setSilence(null));
    await waitForRun(page, g, 1, { timeout: 60_000 });
    assert.deepEqual(await buildsOf(page), new Set([1]), 'a worker started after the install');
    assert.equal(
      await said(page),
      'The training worker stopped (it did not answer for 2 s). A new one was started with the ' +
        'last settings.',
    );
    assert.deepEqual(problems, []);
    await page.close();

    // The next visit, the lab's tab closed: the new build everywhere.
    // the browser takes the waiting version
    await new Promise((resolve) => setTimeout(resolve, 1000));
    ({ page, problems } = await openLab(hash, null, { from: host }));
    assert.deepEqual(await trained(page), new Set([2]), 'the next visit runs the new build');
    assert.equal(await page.locator('#update').isVisible(), false);
    assert.equal(await said(page), '');

    // Built again while this tab is open, with a second tab: the notice's button waits for it.
    rebuild(3);
    await page.reload();
    assert.deepEqual(await trained(page), new Set([2]));
    await page.locator('#update').waitFor({ state: 'visible', timeout: 60_000 });
    const other = await context.newPage();
    await other.goto(host.url + hash);
    await page.click('#update-reload');
    await page.waitForFunction(
      () => /close the lab's other tab first/.test(document.getElementById('update').textContent),
      null,
      { timeout: 10_000 },
    );
    assert.deepEqual(
      await buildsOf(page),
      new Set([2]),
      'not taken while another tab runs the old build',
    );
    await other.close();
    const reloaded = page.waitForEvent('load');
    await page.click('#update-reload');
    await reloaded;
    assert.deepEqual(await trained(page), new Set([3]), 'the notice reloads onto the new build');
    assert.equal(await page.locator('#update').isVisible(), false);
    assert.equal(await said(page), '');
    // A data set first used now (MNIST) is stored in this version's copy, once its bytes are
    // checked.
    const g3 = Number(
      await page.evaluate(() => document.getElementById('run-log').dataset.generation),
    );
    await page.selectOption('#dataset', 'mnist');
    await waitForRun(page, g3, 1);
    await page.waitForFunction(
      () =>
        caches
          .match(new URL('data/mnist-train-images.idx3-ubyte.gz', location.href).href)
          .then((r) => !!r),
      null,
      { timeout: 10_000 },
    );
    assert.deepEqual(problems, []);
    await page.close();
  },
);

// A first visit (a fresh profile: no service worker holds the page), then the lab rebuilt under
// it (#52 §4): the page's workers started after that — a new training worker, the audit's —
// run the page's build, from its snapshot (www/core/build.js), on a plain static server and on one
// that sends `max-age=0, must-revalidate` (the browser then revalidates every file it cached).
test(
  "a first visit keeps its build: workers started after a rebuild load the page's own scripts " +
    'and glue',
  async () => {
    const revalidating = await serveDir(LAB, { 'Cache-Control': 'max-age=0, must-revalidate' });
    try {
      for (const [name, from] of [
        ['plain', host],
        ['max-age=0, must-revalidate', revalidating],
      ]) {
        const fresh = await launch();
        try {
          const page = await fresh.newPage();
          const problems = [];
          page.on('console', (m) => {
            if (m.type() === 'error') problems.push(`console: ${m.text()}`);
          });
          page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
          // What the page and its workers did, said when a wait below fails.
          const seen = [];
          const t0 = Date.now();
          const note = (what) => seen.push(`${((Date.now() - t0) / 1000).toFixed(1)} s ${what}`);
          page.on('console', (m) => note(`console ${m.type()}: ${m.text().slice(0, 200)}`));
          page.on('worker', (w) => {
            note(`worker ${w.url().replace(/^.*\/v\//, 'v/')}`);
            w.on('close', () => note(`closed ${w.url().replace(/^.*\/v\//, 'v/')}`));
          });
          page.on('requestfailed', (r) =>
            note(`request failed ${r.url()}: ${r.failure()?.errorText}`),
          );
          const state = async () =>
            `${name}: ${JSON.stringify(
              await page.evaluate(() => ({
                status: document.getElementById('status').textContent,
                message: document.getElementById('message').hidden
                  ? ''
                  : document.getElementById('message-text').textContent,
                generation: document.getElementById('run-log').dataset.generation,
                rows: document.getElementById('run-log').tBodies[0].rows.length,
                audit: [
                  document.getElementById('audit-status').textContent,
                  document.getElementById('audit-progress-text').textContent,
                  document.body.dataset.auditWorkers,
                ],
              })),
            )}; ${seen.slice(-30).join(' | ')}`;
          await page.goto(`${from.url}#v=1&epochs=1&dataset=breast-cancer`);
          const [build] = await trained(page);
          rebuild(build + 1);
          // A new training worker: the one the watchdog replaces.
          const g = Number(
            await page.evaluate(() => document.getElementById('run-log').dataset.generation),
          );
          await page.evaluate(() => window.labTest.setSilence(2_000));
          await page.evaluate(() => window.labTest.killTrainingWorker());
          await page.waitForFunction(
            () =>
              /training worker stopped/.test(document.getElementById('message-text').textContent),
            null,
            { timeout: 30_000 },
          );
          await page.evaluate(() => window.labTest.setSilence(null));
          await waitForRun(page, g, 1, { done: true, timeout: 60_000 }).catch(async (e) =>
            assert.fail(`the run after the restart: ${await state()}: ${e.message}`),
          );
          assert.deepEqual(
            await buildsOf(page),
            new Set([build]),
            `${name}: a training worker started after the rebuild`,
          );
          // The audit's workers, started now.
          await page.fill('#audit-runs', '4');
          await page.click('#audit-start');
          // Its two summary lines, or its stop said; on neither, what the panel, the message box
          // and the workers show (CI once waited 180 s here for an audit of 4 runs a side).
          const ended = await page
            .waitForFunction(
              () =>
                document.querySelectorAll('#audit-summary li').length === 2 ||
                /stopped|cancelled/.test(document.getElementById('audit-status').textContent),
              null,
              { timeout: 90_000 },
            )
            .then(
              () => true,
              () => false,
            );
          assert.ok(ended, `the audit neither ended nor stopped in 90 s: ${await state()}`);
          assert.equal(
            await page.locator('#audit-summary li').count(),
            2,
            `the audit stopped: ${await state()}`,
          );
          assert.deepEqual(await buildsOf(page), new Set([build]), `${name}: the audit's workers`);
          assert.deepEqual(problems, [], name);
        } finally {
          await fresh.close();
        }
      }
    } finally {
      await revalidating.close();
    }
  },
);

test('after the first visit the lab works offline (service worker)', async () => {
  const { page, problems } = await openLab('#v=1&epochs=3');
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.reload(); // now controlled by the service worker, which caches what it serves
  await page.evaluate(() => navigator.serviceWorker.ready);
  await waitForRun(page, 0, 1);
  // The service worker's own cache, not the HTTP cache: cleared, as a browser may do.
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.clearBrowserCache');
  await context.setOffline(true);
  try {
    await page.reload();
    await waitForRun(page, 0, 2); // page, wasm and data all from the cache
    assert.ok(
      await page.evaluate(() => navigator.serviceWorker.controller !== null),
      'served by the service worker',
    );
    // A data set never loaded here says why it cannot load (not "Failed to fetch"). Another
    // test may have loaded MNIST in this browser: its stored files are removed first.
    await page.evaluate(async () => {
      for (const name of await caches.keys()) {
        const cache = await caches.open(name);
        for (const req of await cache.keys())
          if (/mnist|ubyte/i.test(req.url)) await cache.delete(req);
      }
    });
    await page.selectOption('#dataset', 'mnist');
    await page.waitForFunction(
      () =>
        /network cannot be reached, and this data set has not been used here before/.test(
          document.getElementById('message-text').textContent,
        ),
      null,
      { timeout: 20_000 },
    );
  } finally {
    await context.setOffline(false);
  }
  assert.deepEqual(problems, []);
  await page.close();
});
