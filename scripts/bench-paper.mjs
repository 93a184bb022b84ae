// `make bench`, the paper's protocol in the browser: Fashion-MNIST (prepared by scripts/setup),
// PCA-60 -> 1000 ReLU -> 10, lot 600, per-layer clipping C = 4, sigma = 4 (sigma_p = 7),
// lr 0.1 -> 0.052 over 10 epochs, stopped by an eps = 2 budget under the moments accountant:
// the whole run in the page's training worker, with 1 and with 2 workers, in headless Chromium.
// Prints wall time, epochs and final accuracy for each — figures, not a test.
// PAPER_EPSILON=0.5|2|8 picks docs/engine.md's table row (σ, σ_p = 8, 16 / 4, 7 / 2, 4);
// PAPER_EPSILON=none its non-private row (exact PCA, no noise, 100 epochs).
// PAPER_WORKERS=1,2 the worker counts, run one after the other.
import { serveWww } from '../tests/e2e/serve.mjs';
import { coresTimed, launch } from '../tests/e2e/browser.mjs';

const ROWS = new Map([
  ['0.5', [8, 16]],
  ['2', [4, 7]],
  ['8', [2, 4]],
  ['none', null],
]);
const row = process.env.PAPER_EPSILON || '2';
if (!ROWS.has(row)) throw new Error(`PAPER_EPSILON must be one of ${[...ROWS.keys()].join(', ')}`);
const NON_PRIVATE = row === 'none';
const EPSILON = NON_PRIVATE ? null : Number(row);
const [sigma, pcaSigma] = ROWS.get(row) || [4, 7];
const config = {
  dataset: 'fashion-mnist',
  model: 'mlp',
  hidden: [1000],
  clipping: 'per-layer',
  clip: 4,
  lot_size: 600,
  pca: 60,
  pca_sigma: pcaSigma,
  sigma,
  lr: 0.1,
  lr_end: 0.052,
  lr_decay_epochs: 10,
  seed: 1,
  report: 'private',
  ...(NON_PRIVATE
    ? { mode: 'non-private', epochs: 100 }
    : { epochs: 400, budget_epsilon: EPSILON, budget_accountant: 'moments' }),
};
const server = await serveWww();
const context = await launch();
try {
  const page = await context.newPage();
  await page.goto(`${server.url}#v=1&epochs=1`);
  await page.waitForFunction(
    () => /^(Done|Stopped)/.test(document.getElementById('status').textContent),
    null,
    { timeout: 120_000 },
  );
  await coresTimed(page);
  for (const workers of (process.env.PAPER_WORKERS || '1,2').split(',').map(Number)) {
    const line = await page.evaluate(
      async ([config, workers]) => {
        const { sendWasm } = await import('./core/wasm-module.js');
        const w = new Worker('workers/worker.js', { type: 'module' });
        sendWasm(w);
        const t0 = performance.now();
        const result = new Promise((resolve, reject) => {
          let last = null;
          let used = null;
          w.onmessage = (ev) => {
            const m = ev.data;
            if (m.type === 'started') used = m.workers.used;
            if (m.type === 'report') last = m.report;
            if (m.type === 'error') reject(new Error(m.message));
            if (m.type === 'done') resolve({ last, used });
          };
          w.onerror = (e) => reject(new Error(e.message));
        });
        w.postMessage({ type: 'start', generation: 0, config, play: true, workers });
        const { last, used } = await result;
        w.terminate();
        return {
          workers: used,
          seconds: +((performance.now() - t0) / 1000).toFixed(1),
          epochs: last.epoch,
          epsilon_moments: Number.isFinite(last.epsilon?.moments)
            ? +last.epsilon.moments.toFixed(3)
            : null,
          private_test_acc: last.private_test_acc ?? last.test_acc,
        };
      },
      [config, workers],
    );
    console.log(
      JSON.stringify({
        bench: 'paper-protocol-fashion-mnist',
        impl: 'wasm',
        epsilon: EPSILON,
        ...(NON_PRIVATE ? { mode: 'non-private' } : { sigma, pca_sigma: pcaSigma }),
        ...line,
      }),
    );
  }
} finally {
  await context.close();
  await server.close();
}
