// Shared helpers of the end-to-end tests: the served page in headless Chromium, one fresh page
// per test (so tests run in any order), with every console error, page error, outside request
// and main-thread long task recorded.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { serveWww } from './serve.mjs';
import { launch, ARTIFACTS } from './browser.mjs';

export { ARTIFACTS };

let server; // with the COOP/COEP headers of `make serve` (cross-origin isolated)
// without: a static host that cannot send headers (its sw.js an empty one: the lab's adds them)
let plainServer;
let context;

// Main-thread tasks are measured in the CPU time the page's main thread spent on them, from
// Chromium's trace (RunTask's thread duration), not in wall time: on a 2-core machine with a
// training worker, helpers and accounting workers busy, the OS deschedules the main thread in
// the middle of a 10 ms task and its wall time reads 50-190 ms (measured: 101 ms wall for 35 ms
// of work, 190 for 39). What the page asks of its main thread is the CPU time; that is what a
// test can hold it to. Every task over 50 ms of either is kept, with both figures.
let tracer;
let traceEvents = [];
const marks = [];
const threads = new Map();
const tasks = [];
const TRACE = {
  traceConfig: {
    includedCategories: [
      'disabled-by-default-devtools.timeline',
      'blink.user_timing',
      '__metadata',
    ],
  },
  transferMode: 'ReportEvents',
};

async function startTrace() {
  traceEvents = [];
  await tracer.send('Tracing.start', TRACE);
}

// Ends the trace so far, files its tasks under their pages, and traces on.
async function collectTrace() {
  const complete = new Promise((resolve) => tracer.once('Tracing.tracingComplete', resolve));
  await tracer.send('Tracing.end');
  await complete;
  for (const e of traceEvents) {
    if (e.name === 'thread_name') threads.set(`${e.pid}:${e.tid}`, e.args.name);
    const m = /^lab-(page|ready) (\S+) ([\d.]+)$/.exec(e.name);
    if (e.cat === 'blink.user_timing' && m)
      marks.push({ kind: m[1], page: m[2], now: Number(m[3]), pid: e.pid, ts: e.ts });
  }
  marks.sort((a, b) => a.ts - b.ts);
  for (const e of traceEvents) {
    if (e.name !== 'RunTask' || threads.get(`${e.pid}:${e.tid}`) !== 'CrRendererMain') continue;
    const opened = marks.filter((m) => m.kind === 'page' && m.pid === e.pid && m.ts <= e.ts).at(-1);
    if (!opened) continue;
    const ready = marks.some((m) => m.kind === 'ready' && m.page === opened.page && m.ts <= e.ts);
    tasks.push({
      page: opened.page,
      start: Math.round(opened.now + (e.ts - opened.ts) / 1000),
      ms: Math.round((e.tdur ?? e.dur) / 1000),
      wall: Math.round(e.dur / 1000),
      loading: !ready,
    });
  }
  await startTrace();
}

// Every main-thread task of every page so far that took over 50 ms of CPU or wall time:
// { page, start (the page's performance.now()), ms (CPU), wall, loading (started before the lab
// had loaded and drawn once) }.
export async function longTasks() {
  if (!tracer)
    throw new Error('long tasks are traced only in a file set up with setUp({ traced: true })');
  await collectTrace();
  return tasks;
}

// `traced`: the file reads its pages' main-thread tasks (longTasks, assertResponsive), so the
// browser records Chromium's timeline trace from here on. Only those files pay for it: the trace
// reports every task of every thread to this process, which cost the other files 5-10% of
// their CPU time (lesson-room and lesson-seeds, alternating with and without, 2026-12-01).
export async function setUp({ traced = false } = {}) {
  mkdirSync(ARTIFACTS, { recursive: true });
  server = await serveWww();
  plainServer = await serveWww({ isolated: false, serviceWorker: false });
  context = await launch();
  // Pixel helpers for every page: ink(id) counts a canvas's non-white pixels (and hashes where
  // they are, to tell redraws apart); near(id, rgb, tol) counts pixels within tol of a colour.
  await context.addInitScript(() => {
    window.labPageId = `${Date.now()}-${Math.random()}`.slice(-12);
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
    // The texts a canvas's current drawing holds, as drawn (plotters-canvas: fillText), since
    // its last clearing (a fill of the whole canvas, as each chart's drawing starts):
    // cut(id) lists those cut with "…" where they did not fit.
    const proto = CanvasRenderingContext2D.prototype;
    const { fillText, fillRect } = proto;
    proto.fillText = function (text, ...rest) {
      (this.canvas.labTexts ??= []).push(String(text));
      return fillText.call(this, text, ...rest);
    };
    proto.fillRect = function (x, y, w, h) {
      if (x <= 0 && y <= 0 && x + w >= this.canvas.width && y + h >= this.canvas.height)
        this.canvas.labTexts = [];
      return fillRect.call(this, x, y, w, h);
    };
    window.cut = (id) =>
      (document.getElementById(id).labTexts ?? []).filter((t) => t.includes('…'));
    window.near = (id, rgb, tol) => {
      const d = pixels(id);
      let n = 0;
      for (let i = 0; i < d.length; i += 4) {
        if ([0, 1, 2].every((k) => Math.abs(d[i + k] - rgb[k]) < tol[k])) n += 1;
      }
      return n;
    };
  });
  // The trace marks when each page opened (its clock then) and when it was ready.
  await context.addInitScript(() => {
    performance.mark(`lab-page ${window.labPageId} ${performance.now()}`);
    let readyAt;
    Object.defineProperty(window, 'labReadyAt', {
      get: () => readyAt,
      set: (v) => {
        readyAt = v;
        performance.mark(`lab-ready ${window.labPageId} ${v}`);
      },
    });
  });
  if (!traced) return { server, context };
  const blank = await context.newPage();
  tracer = await context.newCDPSession(blank);
  tracer.on('Tracing.dataCollected', ({ value }) => {
    for (const e of value) {
      if (e.ph === 'M' || e.cat === 'blink.user_timing' || (e.name === 'RunTask' && e.dur > 50_000))
        traceEvents.push(e);
    }
  });
  await startTrace();
  return { server, context };
}

export async function tearDown() {
  await context?.close();
  await server?.close();
  await plainServer?.close();
}

// A fresh page of the lab at `hash`, with its problems recorded; waits until it has drawn once.
// `script` (optional) runs in the page before any of its own; `isolated: false` serves it
// without the COOP/COEP headers; `from` serves it from another server of `serveWww`'s.
export async function openLab(hash = '', script = null, { isolated = true, from = null } = {}) {
  const page = await context.newPage();
  const at = from || (isolated ? server : plainServer);
  if (script) await page.addInitScript(script);
  const problems = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  // The page's requests not yet answered: where a load that never finishes stood (seen twice
  // under load, "Loading the lab…" with nothing reported).
  const pending = new Set();
  const seen = [];
  page.on('request', (r) => {
    seen.push(r.url().replace(at.url, '/'));
    pending.add(r.url());
    if (!r.url().startsWith(at.url) && !r.url().startsWith('data:'))
      problems.push(`outside request: ${r.url()}`);
  });
  for (const done of ['requestfinished', 'requestfailed'])
    page.on(done, (r) => pending.delete(r.url()));
  await page.goto(at.url + hash);
  try {
    // Ready: its first run drawn, and the test hooks it loads on a test's asking (main.js).
    await page.waitForFunction(() => document.body.dataset.ready === '1' && window.labTest, null, {
      timeout: 60_000,
    });
  } catch (e) {
    // Say where it stood: the status line, the message, what the page reported wrong.
    // And how far its start-up got: main.js's marks (page started, wasm response, compiled,
    // ready, training worker ready), whether a service worker answered, and the wasm's fetch.
    const where = await page
      .evaluate(() => {
        const text = ['status', 'message', 'load-progress']
          .map((id) => `${id}: ${document.getElementById(id)?.textContent ?? '(none)'}`)
          .join('; ');
        const marks = performance
          .getEntriesByType('mark')
          .filter((m) => m.name.startsWith('dpsgd:'))
          .map((m) => `${m.name.slice(6)} ${Math.round(m.startTime)}`);
        const wasm = performance
          .getEntriesByType('resource')
          .filter((r) => r.name.endsWith('.wasm'))
          .map((r) => `${r.name.split('/').pop()} in ${Math.round(r.duration)} ms`);
        const sw = navigator.serviceWorker?.controller?.state ?? 'none';
        // What the page loaded, and when each ended (ms): a module that never came stalls main.js.
        const loaded = performance
          .getEntriesByType('resource')
          .map((r) => `${r.name.split('/').slice(-2).join('/')} ${Math.round(r.responseEnd)}`);
        return `${text}; marks: ${marks.join(', ') || 'none'}; wasm fetched: ${
          wasm.join(', ') || 'no'
        }; service worker: ${sw}; isolated: ${crossOriginIsolated}; document: ${
          document.readyState
        }; loaded: ${loaded.join(', ')}`;
      })
      .catch(() => '(page gone)');
    await page.screenshot({ path: `${ARTIFACTS}/not-ready-${Date.now()}.png` }).catch(() => {});
    const waiting = [...pending].map((u) => u.replace(at.url, '/')).join(', ') || 'none';
    // Whether the page can still fetch one of its modules now (through the service worker).
    const refetch = await page
      .evaluate(() =>
        Promise.race([
          fetch('core/wasm-choice.js').then((r) => `answered ${r.status}`),
          new Promise((ok) => setTimeout(() => ok('no answer in 5 s'), 5000)),
        ]),
      )
      .catch((err) => `failed (${err.message.slice(0, 80)})`);
    // Whether the context's service worker still answers (a stalled one holds the page's loads).
    const workers =
      (
        await Promise.all(
          context.serviceWorkers().map((w) =>
            Promise.race([
              w.evaluate(async () => {
                // its cache: does a lookup of a module the page waits for still answer?
                const t0 = performance.now();
                const keys = await caches.keys();
                const hit = await caches.match(
                  new URL('core/wasm-choice.js', self.registration.scope).href,
                );
                const ms = Math.round(performance.now() - t0);
                const state = self.registration.active?.state;
                const found = hit ? 'found' : 'missed';
                return `alive, ${state}; caches ${keys.length}, ${found} in ${ms} ms`;
              }),
              new Promise((ok) => setTimeout(() => ok('no answer in 5 s'), 5000)),
            ]).catch((err) => `gone (${err.message.slice(0, 80)})`),
          ),
        )
      ).join(' | ') || 'none seen';
    throw new Error(
      `${hash || 'the default page'} never became ready (${where}; ` +
        `problems: ${problems.join(' | ')}; requests unanswered: ${waiting}; ${seen.length} ` +
        `requests, the last: ${seen.slice(-6).join(', ')}; service workers: ${workers}; a module ` +
        `fetched again: ${refetch}): ` +
        e.message,
    );
  }
  // A start-up that stalled and reloaded itself (www/page/start-watch.js): said, so the stall
  // stays in sight though the page recovered from it.
  const kind = await page.evaluate(() => performance.getEntriesByType('navigation')[0]?.type);
  if (kind === 'reload') console.log(`${hash || 'the default page'} stalled and reloaded itself`);
  return { page, problems, url: at.url };
}

export const generationOf = (page) =>
  page.evaluate(() => Number(document.getElementById('run-log').dataset.generation || 0));

// Waits for a run newer than generation `after` with at least `n` rows (and, if `done`, finished).
export const waitForRun = (page, after, n, { done = false, timeout = 60_000 } = {}) =>
  page.waitForFunction(
    ([g, want, fin]) => {
      const t = document.getElementById('run-log');
      return (
        Number(t.dataset.generation) > g &&
        t.tBodies[0].rows.length >= want &&
        (!fin || /^(Done|Stopped)/.test(document.getElementById('status').textContent))
      );
    },
    [after, n, done],
    { timeout },
  );

// Waits until the ε chart says `why` ε = ∞ (`null`: until it draws curves), and checks that the
// caption describing its curves and the log-log choice are shown only with curves. At σ = 0 and
// with curves (σ > 0, nothing else open), also that the noise chart's caption speaks of noise
// and the σ chart's of the run's dot only when the run has them.
export async function epsilonChartSays(page, why) {
  const said = why === null ? null : `ε = ∞ — no privacy (${why})`;
  await page.waitForFunction(
    (s) => (document.getElementById('epsilon-chart').dataset.message ?? null) === s,
    said,
    { timeout: 20_000 },
  );
  for (const id of ['#epsilon-caption', '#log-log-choice'])
    assert.equal(await page.locator(id).isHidden(), said !== null, id);
  if (why !== null && why !== 'σ = 0') return;
  const ids = ['noise-caption-noise', 'sigma-caption-dot'];
  await page
    .waitForFunction(
      ([none, all]) => all.every((id) => document.getElementById(id).hidden === none),
      [why !== null, ids],
      { timeout: 20_000 },
    )
    .catch(() => assert.fail(`${ids} not ${why === null ? 'shown' : 'hidden'} (${why})`));
}

// The names of the pinned runs the page's link carries (its `pins`), in order.
export const linkedPinLabels = (page) =>
  JSON.parse(new URLSearchParams(new URL(page.url()).hash.slice(1)).get('pins') ?? '[]').map(
    (p) => p.label,
  );

// The text of row `i`'s cell for report field `key` (e.g. 'epsilon.moments').
export const cell = (page, i, key) =>
  page.locator('#run-log tbody tr').nth(i).locator(`td[data-key="${key}"]`).textContent();

export const setRange = (page, id, value) =>
  page.locator(id).evaluate((el, v) => {
    el.value = v;
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, value);

// Each main-thread task of the page is a few to 15 ms of CPU here (one chart, one report). So,
// on every page of a suite, in the main thread's CPU time (above: why not wall time): none over
// 100 ms after load, and at most two over 50 ms, every one printed. `busyOnPurpose`: pages a
// test kept busy on purpose. Call after the suite, once its pages are closed.
export async function assertResponsive(busyOnPurpose = new Set()) {
  const all = await longTasks();
  const interactive = all.filter((x) => !x.loading && !busyOnPurpose.has(x.page));
  console.log(`long tasks while loading: ${JSON.stringify(all.filter((x) => x.loading))}`);
  console.log(`long tasks after load: ${JSON.stringify(interactive)}`);
  assert.deepEqual(
    interactive.filter((x) => x.ms > 100),
    [],
    `main-thread tasks over 100 ms after load: ${JSON.stringify(interactive)}`,
  );
  const perPage = new Map();
  for (const t of interactive.filter((x) => x.ms > 50))
    perPage.set(t.page, (perPage.get(t.page) || 0) + 1);
  const busy = [...perPage].filter(([, n]) => n > 2);
  assert.deepEqual(
    busy,
    [],
    `pages with more than two main-thread tasks over 50 ms after ` +
      `load: ${JSON.stringify(interactive)}`,
  );
}

// A suite whose pages must stay responsive: the browser opened before its tests and, after
// them, the main thread's long tasks checked (assertResponsive) before it is closed.
export function responsiveSuite(before, after) {
  before(() => setUp({ traced: true }));
  after(async () => {
    try {
      await assertResponsive();
    } finally {
      await tearDown();
    }
  });
}

// A small seeded generator (mulberry32): uniform numbers in [0, 1), the same for a seed.
export function mulberry32(seed) {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Registers `cases` ([name, fn] pairs) with node:test in a seeded shuffle (mulberry32), so no
// test leans on another's leftovers and a failing order can be repeated with E2E_SEED=n.
export function registerShuffled(register, cases) {
  const seed = Number(process.env.E2E_SEED) || Math.floor(Math.random() * 2 ** 31);
  console.log(`e2e order: E2E_SEED=${seed}`);
  const random = mulberry32(seed);
  const order = [...cases];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  for (const [name, fn] of order) register(name, fn);
}

// The run log as the page's "Export CSV" button downloads it.
export async function downloadCsv(page) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-csv')]);
  return readFile(await download.path(), 'utf8');
}
