// `make bench`, data-parallel training: the training worker's own lot loop (worker.js) on the
// benchmark cases of `dpsgd bench` (private, lot 600), with 1 and 2 workers (twice each,
// alternating, each after a second's warm-up), in headless Chromium; prints examples/s and
// the ratio of the k = 2 and k = 1 means — figures, not a test.
import { serveWww } from '../tests/e2e/serve.mjs';
import { launch } from '../tests/e2e/browser.mjs';

const MS = Number(process.env.BENCH_MS || 3000);
const CASES = (process.env.CASES || 'mlp 60-1000-10,logistic 784-10,mlp 784-128-10').split(',');
const server = await serveWww();
const context = await launch();
try {
  const page = await context.newPage();
  await page.goto(`${server.url}#v=1`);
  // The page's own default run finishes first: it would compete for the cores.
  await page.waitForFunction(() => /^(Done|Stopped)/.test(document.getElementById('status').textContent), null, { timeout: 300_000 });
  for (const model of CASES) {
    const rates = { 1: [], 2: [] };
    for (const workers of [1, 2, 1, 2]) {
      const line = await page.evaluate(async ([model, workers, ms]) => {
        const { sendWasm } = await import('./wasm-module.js');
        const w = new Worker('worker.js', { type: 'module' });
        sendWasm(w);
        const answer = new Promise((resolve, reject) => {
          w.onmessage = (ev) => { if (ev.data?.type === 'bench') resolve(ev.data); };
          w.onerror = (e) => reject(new Error(e.message));
        });
        w.postMessage({ type: 'bench', model, workers, ms });
        const got = await answer;
        w.terminate();
        return got;
      }, [model, workers, MS]);
      rates[workers].push(line.examples_per_sec);
      console.log(JSON.stringify({ bench: 'data-parallel', impl: 'wasm', model, private: true, workers: line.workers, examples_per_sec: Math.round(line.examples_per_sec) }));
    }
    const mean = (v) => v.reduce((a, b) => a + b, 0) / v.length;
    console.log(JSON.stringify({ bench: 'data-parallel', model, k1: Math.round(mean(rates[1])), k2: Math.round(mean(rates[2])), speedup_2_over_1: +(mean(rates[2]) / mean(rates[1])).toFixed(2) }));
  }
} finally {
  await context.close();
  await server.close();
}
