// Shared helpers of the end-to-end tests: the served page in headless Chromium, one fresh page
// per test (so tests run in any order), with every console error, page error, outside request
// and main-thread long task recorded.
import { mkdirSync } from 'node:fs';
import { serveWww } from './serve.mjs';
import { launch, ARTIFACTS } from './browser.mjs';

export { ARTIFACTS };

let server;
let context;
// Every main-thread task over 50 ms of every page, marked as loading when it started before the
// lab had loaded and drawn once.
export const longTasks = [];

export async function setUp() {
  mkdirSync(ARTIFACTS, { recursive: true });
  server = await serveWww();
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
    window.near = (id, rgb, tol) => {
      const d = pixels(id);
      let n = 0;
      for (let i = 0; i < d.length; i += 4) {
        if ([0, 1, 2].every((k) => Math.abs(d[i + k] - rgb[k]) < tol[k])) n += 1;
      }
      return n;
    };
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        window.reportLongTask?.({
          page: window.labPageId, start: Math.round(e.startTime), ms: Math.round(e.duration),
          loading: !(window.labReadyAt <= e.startTime),
        });
      }
    }).observe({ type: 'longtask', buffered: true });
  });
  await context.exposeFunction('reportLongTask', (t) => longTasks.push(t));
  return { server, context };
}

export async function tearDown() {
  await context?.close();
  await server?.close();
}

// A fresh page of the lab at `hash`, with its problems recorded; waits until it has drawn once.
export async function openLab(hash = '') {
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => { if (!r.url().startsWith(server.url) && !r.url().startsWith('data:')) problems.push(`outside request: ${r.url()}`); });
  await page.goto(server.url + hash);
  await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 60_000 });
  return { page, problems, url: server.url };
}

export const generationOf = (page) => page.evaluate(() => Number(document.getElementById('run-log').dataset.generation || 0));

// Waits for a run newer than generation `after` with at least `n` rows (and, if `done`, finished).
export const waitForRun = (page, after, n, { done = false, timeout = 60_000 } = {}) => page.waitForFunction(([g, want, fin]) => {
  const t = document.getElementById('run-log');
  return Number(t.dataset.generation) > g && t.tBodies[0].rows.length >= want
    && (!fin || /^(Done|Stopped)/.test(document.getElementById('status').textContent));
}, [after, n, done], { timeout });

// The text of row `i`'s cell for report field `key` (e.g. 'epsilon.moments').
export const cell = (page, i, key) => page.locator('#run-log tbody tr').nth(i).locator(`td[data-key="${key}"]`).textContent();

export const setRange = (page, id, value) => page.locator(id).evaluate((el, v) => {
  el.value = v;
  el.dispatchEvent(new Event('input', { bubbles: true }));
}, value);
