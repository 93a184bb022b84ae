// The production page (#54 §1): a page that no test asks for hooks (window.labTestWanted, set by
// tests/e2e/browser.mjs's launch) loads none — no window.labTest, no request for
// www/testing/ — its workers refuse the tests' messages, and it still trains; the same page
// asked for them has them. (Served without the
// service worker, whose offline copy fetches every file of the lab, test-hooks.js included.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launch } from './browser.mjs';
import { serveWww } from './serve.mjs';

for (const testHooks of [false, true]) {
  test(
    testHooks
      ? 'a page a test asks for hooks has window.labTest'
      : 'the production page loads no test hook, and trains',
    async () => {
      const server = await serveWww({ serviceWorker: false });
      const context = await launch({ testHooks });
      try {
        const page = await context.newPage();
        const problems = [];
        page.on('pageerror', (e) => problems.push(e.message));
        await page.goto(`${server.url}#v=1&epochs=1&dataset=blobs`);
        await page.waitForFunction(
          () =>
            document.body.dataset.ready === '1' &&
            /^Done/.test(document.getElementById('status').textContent),
          null,
          { timeout: 60_000 },
        );
        await page.waitForTimeout(300); // a hook's module, had it been asked for, is in by now
        assert.equal(
          await page.evaluate(() => typeof window.labTest),
          testHooks ? 'object' : 'undefined',
        );
        const hooks = server.requests.filter((r) => r.includes('/testing/'));
        assert.equal(
          hooks.length > 0,
          testHooks,
          `requests for www/testing/: ${JSON.stringify(hooks)}`,
        );
        // The workers obey the tests' messages only when a test asked (worker-shell.js): a
        // production page's worker refuses 'test-panic' as of no known type; a test's panics.
        const answer = await page.evaluate(async (named) => {
          const { pageModule } = await import('./core/wasm-module.js');
          const module = await pageModule();
          const url = new URL('workers/worker.js', location.href);
          const w = new Worker(
            url,
            named ? { type: 'module', name: 'lab-test' } : { type: 'module' },
          );
          return new Promise((resolve) => {
            w.onmessage = (ev) => {
              if (ev.data?.type !== 'refused' && ev.data?.type !== 'crashed') return;
              w.terminate();
              resolve(ev.data.type);
            };
            w.postMessage({ type: 'wasm', module });
            w.postMessage({ type: 'test-panic' });
          });
        }, testHooks);
        assert.equal(answer, testHooks ? 'crashed' : 'refused');
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
        await server.close();
      }
    },
  );
}
