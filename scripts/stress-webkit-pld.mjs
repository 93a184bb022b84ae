// Stress, not a test (#55): visits of the lab in WebKitGTK, each in a fresh browser, that move σ
// a few times after the page is ready (every move asks the accounting worker for the ε chart's
// PLD curve) and look for a worker that stopped. With realfft's real FFTs in the PLD
// accountant, WebKitGTK's accounting worker trapped ("Out of bounds memory access" in
// pld_preview) on about 1 visit in 150, mostly at the first move; never in Chromium or V8. Run it
// before bringing real FFTs back (docs/performance.md, "Real FFTs, tried and withdrawn").
// SECS=300 (how long), MOVES=1 (σ moves per visit). Needs `scripts/build-wasm` first.
import { serveWww } from '../tests/e2e/serve.mjs';
import { launch, missing } from '../tests/e2e/engines.mjs';

const SECS = Number(process.env.SECS || 300);
const MOVES = Number(process.env.MOVES || 1);

if (missing('webkit'))
  throw new Error(`not installed (scripts/setup installs them): ${missing('webkit')}`);
const server = await serveWww({ isolated: false, serviceWorker: false });
const stopped = [];
let visits = 0;
const t0 = Date.now();
try {
  while (Date.now() - t0 < SECS * 1000) {
    const b = await launch('webkit');
    visits += 1;
    try {
      await b.goto(server.url);
      await b.waitFor(() => document.body.dataset.ready === '1', [], 90_000);
      for (let i = 0; i < MOVES; i++) {
        const sigma = (0.4 + Math.random() * 5).toFixed(1);
        await b.evaluate((v) => {
          const el = document.getElementById('sigma');
          el.value = v;
          el.dispatchEvent(new Event('input', { bubbles: true }));
          el.dispatchEvent(new Event('change', { bubbles: true }));
        }, sigma);
        await new Promise((r) => setTimeout(r, 400 + Math.random() * 600));
        const said = await b.evaluate(() =>
          document.getElementById('message').hidden
            ? ''
            : document.getElementById('message-text').textContent,
        );
        if (/worker stopped/.test(said)) {
          stopped.push({ visit: visits, move: i, sigma, said });
          break;
        }
      }
    } finally {
      await b.close();
    }
  }
} finally {
  await server.close();
}
console.log(JSON.stringify({ bench: 'stress-webkit-pld', visits, stopped }));
