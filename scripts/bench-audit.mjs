// `make bench`, the audit's part: the page's audit at the default settings in headless
// Chromium, on one worker and then on two (R = 16 per side, both threat models: 64 runs).
// Prints runs/s for each and the speed-up — a figure, not a test.
import { setUp, tearDown, openLab } from '../tests/e2e/lab.mjs';
import { coresTimed } from '../tests/e2e/browser.mjs';

const RUNS = process.env.AUDIT_RUNS || '16';
await setUp();
try {
  const { page } = await openLab('#v=1');
  await page.waitForFunction(
    () => /^(Done|Stopped)/.test(document.getElementById('status').textContent),
    null,
    { timeout: 300_000 },
  );
  await coresTimed(page);
  const rates = [];
  for (const workers of ['1', '2']) {
    await page.fill('#workers', workers);
    await page.fill('#audit-runs', RUNS);
    await page.click('#audit-start');
    // The timing sentence sits below the charts (#audit-timing) since the audit lesson's layout.
    await page.waitForFunction(
      () => /runs in/.test(document.getElementById('audit-timing').textContent),
      null,
      { timeout: 600_000 },
    );
    const status = await page.locator('#audit-timing').textContent();
    rates.push(Number(status.match(/\(([\d.]+) runs\/s\)/)[1]));
    console.log(JSON.stringify({ bench: 'audit', workers: Number(workers), status }));
  }
  console.log(
    JSON.stringify({ bench: 'audit', speedup_2_over_1: +(rates[1] / rates[0]).toFixed(2) }),
  );
} finally {
  await tearDown();
}
