// e2e: alone (the page times the cores, in two more browsers).
// The lab's smoke suite in Firefox ESR and in WebKitGTK (Safari's engine), beside the Chromium
// suites (#40, section 2): in each, the default run completes an epoch, a σ change restarts it,
// the charts are inked, the algorithm's formula (how-it-works.html) draws its norm bars, an
// audit runs on a 2-D set; then on a plain static host (no COOP/COEP headers: the service
// worker adds them) the second visit is cross-origin isolated, trains, and shows no banner, and
// the page reloads offline.
// Screenshots in test-artifacts/engine-*.png. Browsers: engines.mjs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import { ARTIFACTS } from './browser.mjs';
import { serveWww } from './serve.mjs';
import { launch, missing } from './engines.mjs';

let server; // like `make serve`: cross-origin isolated
before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  server = await serveWww();
});
after(() => server?.close());

// In the page: the run log's generation and rows, the status, the message box's text (empty
// when hidden).
const state = () => {
  const log = document.getElementById('run-log');
  const box = document.getElementById('message');
  return {
    generation: Number(log.dataset.generation || 0),
    rows: log.tBodies[0].rows.length,
    status: document.getElementById('status').textContent,
    message: box.hidden ? '' : document.getElementById('message-text').textContent,
    ready: document.body.dataset.ready === '1',
  };
};

// In the page: whether a run newer than `after` has `n` rows.
const hasRun = (after, n) => {
  const log = document.getElementById('run-log');
  return Number(log.dataset.generation) > after && log.tBodies[0].rows.length >= n;
};

// In the page: how many of canvas `id`'s pixels differ from its corner's (its background).
const inked = (id) => {
  const c = document.getElementById(id);
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let n = 0;
  for (let i = 0; i < d.length; i += 4) {
    if (Math.abs(d[i] - d[0]) + Math.abs(d[i + 1] - d[1]) + Math.abs(d[i + 2] - d[2]) > 60) n += 1;
  }
  return n;
};

// A fresh document of the lab at `url` (through about:blank: a new hash alone would only
// change the settings of the page on screen), once it has drawn.
async function open(b, url) {
  await b.goto('about:blank');
  await b.goto(url);
  await b.waitFor(() => document.body.dataset.ready === '1', [], 90_000);
}

// The checks on one engine; `b` from engines.mjs.
async function smoke(b, tag) {
  const t0 = Date.now();
  const shot = (name) => b.screenshot(`${ARTIFACTS}/engine-${tag}-${name}.png`);
  // 1. The default run completes an epoch, its charts are inked.
  await open(b, server.url);
  await b.waitFor(hasRun, [0, 1], 120_000);
  for (const id of ['accuracy-chart', 'epsilon-chart', 'clipping-chart', 'noise-chart']) {
    await b.waitFor((c) => document.getElementById(c).width > 0, [id]);
    assert.ok((await b.evaluate(inked, id)) > 500, `${b.name}: ${id} has ink`);
  }
  // 2. A σ change restarts the run, which completes an epoch.
  const g = (await b.evaluate(state)).generation;
  await b.evaluate(() => {
    const s = document.getElementById('sigma');
    s.value = '2';
    s.dispatchEvent(new Event('input', { bubbles: true }));
  });
  await b.waitFor(hasRun, [g, 1], 120_000);
  // The default worker count is no more than this machine's cores, whatever the browser reports
  // (WebKitGTK: 4 on 2 cores), and the tooltip says where it comes from (#40, 2.3). The cores are
  // timed once a run has ended, on quiet cores (core-probe.js): the σ run's.
  // Waits for the timing's outcome, either way, so that a failure says which it was.
  await b
    .waitFor(
      () => /a short timing ran|could not be timed/.test(document.getElementById('workers').title),
      [],
      120_000,
    )
    .catch(async (e) => {
      const now = await b.evaluate(() => [
        document.getElementById('workers').title,
        document.getElementById('status').textContent,
      ]);
      throw new Error(`${e.message}; the Workers tooltip: ${now[0]}; status: ${now[1]}`);
    });
  const workers = await b.evaluate(() => [
    document.getElementById('workers').placeholder,
    document.getElementById('workers').title,
  ]);
  console.log(`${b.name}: ${workers[1]}`);
  assert.ok(
    Number(workers[0]) >= 1 && Number(workers[0]) <= os.availableParallelism(),
    `${b.name}: ${workers[0]} workers by default on ${os.availableParallelism()} cores`,
  );
  // A timing that took too long (a loaded machine) leaves the untimed default: no more than 2.
  assert.match(
    workers[1],
    new RegExp(
      String.raw`^By default \d+: this browser reports \d+ cores?, ((and|but) a short timing ` +
        String.raw`ran \d+ at full speed|which could not be timed)`,
    ),
  );
  await shot('page');
  const s = await b.evaluate(state);
  assert.equal(s.message, '', `${b.name}: no banner on the isolated host`);
  // The formula's norm bars are drawn (#40, 2.4), on the reading page the header links to: the
  // two ‖ of ‖g_i‖ have a width (WebKit drew a stretchy ‖ as nothing, 0 px wide).
  const reading = await b.evaluate(() => document.querySelector('a.how').href);
  await b.goto(reading);
  await b.waitFor(
    () => document.readyState === 'complete' && !!document.getElementById('how-dp-sgd-works'),
    [],
    30_000,
  );
  const bars = await b.evaluate(() =>
    [...document.querySelectorAll('#how-dp-sgd-works mo')]
      .filter((e) => e.textContent === '‖')
      .map((e) => e.getBoundingClientRect().width),
  );
  assert.equal(bars.length, 2, `${b.name}: two norm bars`);
  for (const w of bars) assert.ok(w >= 3, `${b.name}: a norm bar ${w} px wide`);
  await b.evaluate(() => document.getElementById('how-dp-sgd-works').scrollIntoView());
  await shot('formula');
  console.log(`${b.name}: default run, σ restart, charts, formula in ${Date.now() - t0} ms`);

  // 3. Two workers share the lots of a model large enough to split: through shared memory where
  // the browser lets the page share it, else by message, saying what is missing (WebKitGTK: no
  // SharedArrayBuffer, though the page is isolated and has Atomics.waitAsync: #40, 2.2).
  await open(b, `${server.url}#v=1&model=mlp&lot_size=1000&epochs=2`);
  await b.waitFor(hasRun, [0, 1], 120_000); // the link's own run first: it may start after 'ready'
  const g1 = (await b.evaluate(state)).generation;
  await b.evaluate(() => {
    const w = document.getElementById('workers');
    w.value = '2';
    w.dispatchEvent(new Event('change', { bubbles: true }));
  });
  await b.waitFor(hasRun, [g1, 1], 120_000);
  const used = await b.evaluate(() => [
    document.getElementById('workers-used').textContent,
    document.getElementById('workers-used').title,
  ]);
  assert.equal(used[0], '(2 in use)', `${b.name}: ${used.join(' ')}`);
  const shares = await b.evaluate(() => typeof SharedArrayBuffer === 'function');
  const how = shares
    ? /^Parts of each lot go to the helpers through shared memory\./
    : new RegExp(
        String.raw`^Parts of each lot go to the helpers by message: this browser does not let ` +
          String.raw`this page share memory with its workers \(no SharedArrayBuffer\), though ` +
          String.raw`the page is cross-origin isolated\.`,
      );
  assert.match(used[1], how, `${b.name}: ${used.join(' ')}`);
  console.log(`${b.name}: + two workers in ${Date.now() - t0} ms`);

  // 4. An audit on a 2-D set.
  await open(b, `${server.url}#v=1&dataset=blobs&model=logistic&lot_size=60&epochs=3&sigma=1`);
  await b.waitFor(hasRun, [0, 3], 120_000);
  await b.waitFor(
    () => /^(Done|Stopped)/.test(document.getElementById('status').textContent),
    [],
    120_000,
  );
  await b.evaluate(() => {
    document.getElementById('audit-runs').value = '4';
    document.getElementById('audit-runs').dispatchEvent(new Event('input', { bubbles: true }));
    document.getElementById('audit-start').click();
  });
  await b.waitFor(() => document.querySelectorAll('#audit-summary li').length === 2, [], 180_000);
  const summary = await b.evaluate(() => document.getElementById('audit-summary').textContent);
  assert.match(summary, /proved ε ≥ [\d.]+/, `${b.name}: the audit's summary`);
  assert.ok(
    (await b.evaluate(inked, 'audit-region')) > 500,
    `${b.name}: the audit's region has ink`,
  );
  console.log(`${b.name}: + audit in ${Date.now() - t0} ms`);

  // 5. A plain static host: the service worker isolates the second visit; no false banner;
  // then the page reloads offline (the host gone).
  const host = await serveWww({ isolated: false });
  try {
    await open(b, host.url);
    await b.evaluate(() => navigator.serviceWorker.ready.then(() => true));
    await b.reload();
    await b.waitFor(() => document.body.dataset.ready === '1', [], 90_000);
    assert.equal(
      await b.evaluate(() => self.crossOriginIsolated),
      true,
      `${b.name}: the second visit is isolated`,
    );
    await b.waitFor(hasRun, [0, 1], 120_000);
    await new Promise((r) => setTimeout(r, 3000)); // a worker that fails at start has failed by now
    const second = await b.evaluate(state);
    await shot('second-visit');
    assert.equal(second.message, '', `${b.name}: no banner on the second visit`);
    await host.close();
    await b.reload();
    await b.waitFor(() => document.body.dataset.ready === '1', [], 90_000);
    await b.waitFor(hasRun, [0, 1], 120_000);
    const offline = await b.evaluate(state);
    assert.equal(offline.message, '', `${b.name}: no banner offline`);
    assert.equal(
      await b.evaluate(() => navigator.serviceWorker.controller !== null),
      true,
      `${b.name}: served by the service worker`,
    );
  } finally {
    await host.close();
  }
  console.log(`${b.name}: + second visit and offline in ${Date.now() - t0} ms`);
  assert.deepEqual(b.problems, [], `${b.name}: console errors`);
}

// ENGINES=webkit (or firefox) runs one of them.
const ENGINES = (process.env.ENGINES || 'firefox,webkit').split(',');
for (const [engine, tag] of [
  ['firefox', 'firefox'],
  ['webkit', 'webkit'],
].filter(([e]) => ENGINES.includes(e))) {
  test(`${engine}: default run, σ restart, charts, formula, audit, revisit, offline`, async () => {
    const lacking = missing(engine);
    assert.equal(lacking, '', `${engine}: not installed (scripts/setup installs it): ${lacking}`);
    const b = await launch(engine);
    try {
      await smoke(b, tag);
    } finally {
      await b.close();
    }
  });
}
