// Debian's Chromium, headless, driven by playwright-core (which never downloads a browser).
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const ARTIFACTS = path.resolve(
  path.dirname(new URL(import.meta.url).pathname),
  '../../test-artifacts',
);

// A fresh profile each launch, removed when the browser closes (each was 40 MB: hundreds of
// them filled /tmp with 12 GB over a few days' runs). Its pages ask for the lab's test hooks
// (window.labTest, www/testing/test-hooks.js) unless `testHooks` is false: the production page.
export async function launch({ testHooks = true } = {}) {
  const userDataDir = mkdtempSync(path.join(os.tmpdir(), 'dpsgd-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1400, height: 1000 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-quic',
      '--disable-sync',
      // Benchmarks only: V8 flags, e.g. JS_FLAGS=--no-wasm-dynamic-tiering (every function
      // optimised at once, no feedback) to tell the kernels' speed from the engine's tier-up.
      ...(process.env.JS_FLAGS ? [`--js-flags=${process.env.JS_FLAGS}`] : []),
    ],
  });
  if (testHooks)
    await context.addInitScript(() => {
      window.labTestWanted = true;
    });
  // After the browser has exited (its 'close' event comes while it still writes there).
  const close = context.close.bind(context);
  context.close = async (...args) => {
    await close(...args);
    try {
      rmSync(userDataDir, { recursive: true, force: true, maxRetries: 5 });
    } catch (e) {
      console.warn(`could not remove ${userDataDir}: ${e.message}`);
    }
  };
  return context;
}

// A page's cores are timed once its first run has ended (www/views/cores.js: about 0.2 s of busy
// loops in two or more workers); benchmarks wait for it, so that it does not run beside them.
export const coresTimed = (page) =>
  page.waitForFunction(
    () => /a short timing ran|could not be timed/.test(document.getElementById('workers').title),
    null,
    { timeout: 30_000 },
  );
