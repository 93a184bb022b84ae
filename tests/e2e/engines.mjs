// Firefox ESR and WebKitGTK for the engine smoke suite (engines.test.mjs), the way browser.mjs
// gives the other suites Chromium: Debian's browsers, never one a tool downloads, each behind one
// small interface — `goto(url)`, `reload()`, `evaluate(fn, ...args)` (fn runs in the page; its
// value comes back as JSON), `waitFor(fn, args, ms)`, `screenshot(file)`, `close()`.
// - Firefox: /usr/bin/firefox-esr, headless, driven by puppeteer-core (pinned in package.json,
//   installed with PUPPETEER_SKIP_DOWNLOAD) over WebDriver BiDi, in a fresh profile.
// - WebKit: Debian's WebKitWebDriver (webkit2gtk-driver) starting MiniBrowser in automation
//   mode under Xvfb (xvfb-run), driven by plain W3C WebDriver calls with node's fetch.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const FIREFOX = process.env.FIREFOX || '/usr/bin/firefox-esr';
export const WEBKIT_DRIVER = process.env.WEBKIT_DRIVER || '/usr/bin/WebKitWebDriver';
export const MINIBROWSER =
  process.env.MINIBROWSER || '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
const VIEWPORT = { width: 1400, height: 1000 };

// What is missing to run `engine`, or '' (scripts/setup installs them).
export function missing(engine) {
  const need = engine === 'firefox' ? [FIREFOX] : [WEBKIT_DRIVER, MINIBROWSER, '/usr/bin/xvfb-run'];
  return need.filter((f) => !existsSync(f)).join(', ');
}

// `env`: variables for WebKit's processes beside this one's (make bench's software-painted
// WebKit: scripts/bench-engines.mjs).
export async function launch(engine, { env = {} } = {}) {
  return engine === 'firefox' ? launchFirefox() : launchWebKit(env);
}

// The source of `fn` called with `args`, as one expression (both drivers take a string).
const call = (fn, args) => `(${fn})(...${JSON.stringify(args)})`;

async function launchFirefox() {
  const { default: puppeteer } = await import('puppeteer-core');
  const profile = mkdtempSync(path.join(os.tmpdir(), 'dpsgd-firefox-'));
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX,
    headless: true,
    userDataDir: profile,
    // No update checks, telemetry or remote settings: this machine reaches no such host.
    extraPrefsFirefox: {
      'app.update.enabled': false,
      'datareporting.policy.dataSubmissionEnabled': false,
    },
  });
  const page = await browser.newPage();
  await page.setViewport(VIEWPORT);
  const problems = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  return {
    name: 'Firefox',
    problems,
    goto: (url) => page.goto(url, { waitUntil: 'load' }),
    reload: () => page.reload({ waitUntil: 'load' }),
    evaluate: (fn, ...args) => page.evaluate(call(fn, args)),
    waitFor: (fn, args = [], timeout = 60_000) =>
      waitUntil((a) => page.evaluate(call(fn, a)), args, timeout),
    screenshot: (file) => page.screenshot({ path: file }),
    close: async () => {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

// A free TCP port on 127.0.0.1 for the driver.
const freePort = () =>
  new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });

async function launchWebKit(env) {
  const port = await freePort();
  // Its own process group, so that close() ends Xvfb, the driver and MiniBrowser together.
  const driver = spawn(
    'xvfb-run',
    ['-a', '-s', '-screen 0 1600x1200x24', WEBKIT_DRIVER, `--port=${port}`, '--host=127.0.0.1'],
    { detached: true, stdio: 'ignore', env: { ...process.env, ...env } },
  );
  const base = `http://127.0.0.1:${port}`;
  const rpc = async (method, url, body) => {
    const res = await fetch(base + url, {
      method,
      headers: { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json().catch(() => ({}));
    const said = JSON.stringify(json.value ?? json).slice(0, 400);
    if (!res.ok) throw new Error(`WebDriver ${method} ${url}: ${res.status} ${said}`);
    return json.value;
  };
  const started = Date.now();
  for (;;) {
    try {
      await rpc('GET', '/status');
      break;
    } catch (e) {
      if (Date.now() - started > 20_000)
        throw new Error(`WebKitWebDriver did not start: ${e.message}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  const { sessionId } = await rpc('POST', '/session', {
    capabilities: {
      alwaysMatch: { 'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] } },
    },
  });
  const s = `/session/${sessionId}`;
  await rpc('POST', `${s}/timeouts`, { script: 120_000, pageLoad: 60_000 });
  await rpc('POST', `${s}/window/rect`, VIEWPORT).catch(() => {}); // a size MiniBrowser may refuse
  const evaluate = async (fn, ...args) => {
    const script = `const done = arguments[0];
      Promise.resolve().then(() => ${call(fn, args)})
        .then((v) => done({ value: v === undefined ? null : v }),
          (e) => done({ error: String(e && e.stack || e) }));`;
    const r = await rpc('POST', `${s}/execute/async`, { script, args: [] });
    if (r && r.error) throw new Error(`in WebKit: ${r.error}`);
    return r?.value;
  };
  return {
    name: 'WebKit',
    problems: [], // WebDriver classic has no console: the tests read the page itself
    goto: (url) => rpc('POST', `${s}/url`, { url }),
    reload: () => rpc('POST', `${s}/refresh`, {}),
    evaluate,
    waitFor: (fn, args = [], timeout = 60_000) =>
      waitUntil((a) => evaluate(fn, ...a), args, timeout),
    screenshot: async (file) =>
      writeFileSync(file, Buffer.from(await rpc('GET', `${s}/screenshot`), 'base64')),
    close: async () => {
      await rpc('DELETE', s).catch(() => {});
      try {
        process.kill(-driver.pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
    },
  };
}

// Polls `check(args)` until it is truthy (returns its value) or `timeout` ms have passed.
async function waitUntil(check, args, timeout) {
  const until = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      last = await check(args);
      if (last) return last;
    } catch (e) {
      last = e.message; // a page between two documents
    }
    if (Date.now() > until)
      throw new Error(`timed out after ${timeout} ms (last: ${JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
