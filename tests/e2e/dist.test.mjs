// `make dist`'s folder is the whole lab: copied out and served by Python's plain static server
// (no COOP/COEP headers, no test server's help), it trains the default run.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cell, openLab, setUp, tearDown, waitForRun } from './lab.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'dpsgd-dist-'));
const DIST = path.join(tmp, 'dist');
let python;

// Python's http.server on a free port, serving `dir`; resolves with { url } once it listens.
function servePlain(dir) {
  python = spawn('python3', ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1', '--directory', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    python.on('error', reject);
    python.stdout.on('data', (chunk) => {
      const m = /port (\d+)/.exec(String(chunk));
      if (m) resolve({ url: `http://127.0.0.1:${m[1]}/` });
    });
  });
}

before(async () => {
  await setUp();
  execFileSync('bash', [path.join(REPO, 'scripts/dist'), DIST], { cwd: REPO, stdio: 'pipe' });
});
after(async () => {
  python?.kill();
  await tearDown();
  rmSync(tmp, { recursive: true, force: true });
});

test('the dist folder holds the page, both wasm builds, the data and the hosts\' header files', () => {
  for (const f of ['index.html', 'main.js', 'sw.js', 'pkg/dpsgd_lab.js', 'pkg/dpsgd_lab_bg.wasm', 'pkg/dpsgd_lab_relaxed_bg.wasm', 'data/adult.bin']) {
    assert.ok(existsSync(path.join(DIST, f)), f);
  }
  assert.match(readFileSync(path.join(DIST, '_headers'), 'utf8'), /Cross-Origin-Embedder-Policy: require-corp/);
  assert.match(readFileSync(path.join(DIST, '.htaccess'), 'utf8'), /AddType application\/wasm \.wasm/);
  // Every script the offline copy lists is in the folder.
  const shell = /const SHELL = \[([^\]]*)\]/.exec(readFileSync(path.join(DIST, 'sw.js'), 'utf8'))[1];
  for (const [, f] of shell.matchAll(/'([^']+)'/g)) assert.ok(existsSync(path.join(DIST, f === './' ? 'index.html' : f)), f);
});

test('served by a plain static server, the dist folder trains the default run', async () => {
  const from = await servePlain(DIST);
  const { page, problems } = await openLab('#v=1&epochs=2', null, { from });
  await waitForRun(page, 0, 1);
  assert.match(await cell(page, 0, 'test_acc'), /^\d+\.\d+%$/);
  assert.deepEqual(problems, []);
  await page.close();
});
