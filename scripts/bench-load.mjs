// `make bench`, the first visit: a fresh browser profile opens the lab at its default
// settings; prints the bytes the server sent (by file, service-worker precache included),
// how often the wasm was fetched, and the time from navigation to the first epoch row
// (median of RUNS fresh profiles). Figures, not a test.
import { serveWww } from '../tests/e2e/serve.mjs';
import { launch } from '../tests/e2e/browser.mjs';

const RUNS = Number(process.env.LOAD_RUNS || 5);
const server = await serveWww();
const times = [];
let last = null;
try {
  for (let i = 0; i < RUNS; i++) {
    server.served.length = 0;
    const context = await launch();
    const page = await context.newPage();
    await page.goto(`${server.url}#v=1`);
    const ms = await page
      .waitForFunction(
        () => {
          const rows = document.querySelector('#run-log tbody')?.rows.length;
          return rows ? performance.now() : null;
        },
        null,
        { timeout: 60_000, polling: 'raf' },
      )
      .then((h) => h.jsonValue());
    times.push(ms);
    await page.evaluate(() => navigator.serviceWorker.ready); // its precache counts too
    await page.waitForTimeout(1500);
    last = [...server.served];
    await context.close();
  }
} finally {
  await server.close();
}
const byPath = new Map();
for (const { path, bytes } of last) {
  const e = byPath.get(path) || { path, fetches: 0, bytes: 0 };
  e.fetches += 1;
  e.bytes += bytes;
  byPath.set(path, e);
}
const files = [...byPath.values()].sort((a, b) => b.bytes - a.bytes);
const total = files.reduce((s, f) => s + f.bytes, 0);
times.sort((a, b) => a - b);
console.log(
  JSON.stringify({
    bench: 'first-visit',
    bytes: total,
    wasm_fetches: [...byPath]
      .filter(([p]) => p.endsWith('_bg.wasm'))
      .reduce((n, [, v]) => n + v.fetches, 0),
    first_row_ms_median: Math.round(times[Math.floor(times.length / 2)]),
    first_row_ms: times.map(Math.round),
    largest: files.slice(0, 6),
  }),
);
