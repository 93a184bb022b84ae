// `make dist`'s folder is the whole lab: copied out and served by Python's plain static server
// (no COOP/COEP headers, no test server's help), it trains the default run.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cell, openLab, setUp, tearDown, waitForRun } from './lab.mjs';
import { servePlain } from './serve.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'dpsgd-dist-'));
const DIST = path.join(tmp, 'dist');
let python; // the plain static server, once started

before(async () => {
  await setUp();
  execFileSync('bash', [path.join(REPO, 'scripts/dist'), DIST], { cwd: REPO, stdio: 'pipe' });
});
after(async () => {
  await python?.close();
  await tearDown();
  rmSync(tmp, { recursive: true, force: true });
});

test('the dist folder holds the page, both wasm builds, the data and the hosts\' header files', () => {
  for (const f of ['index.html', 'main.js', 'sw.js', 'pkg/dpsgd_lab.js', 'pkg/dpsgd_lab_bg.wasm', 'pkg/dpsgd_lab_relaxed_bg.wasm', 'data/adult.bin']) {
    assert.ok(existsSync(path.join(DIST, f)), f);
  }
  assert.match(readFileSync(path.join(DIST, '_headers'), 'utf8'), /Cross-Origin-Embedder-Policy: require-corp/);
  assert.match(readFileSync(path.join(DIST, '.htaccess'), 'utf8'), /AddType application\/wasm \.wasm/);
  // The folder's version (version.js, which the service worker installs) lists its files, each
  // with the hash of the copy in the folder.
  const text = readFileSync(path.join(DIST, 'version.js'), 'utf8');
  const { files } = JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1));
  assert.ok(Object.hasOwn(files, 'main.js') && Object.hasOwn(files, 'pkg/dpsgd_lab_bg.wasm'));
  for (const [f, hash] of Object.entries(files)) {
    assert.equal(createHash('sha256').update(readFileSync(path.join(DIST, f))).digest('hex'), hash, f);
  }
});

test('served by a plain static server, the dist folder trains the default run', async () => {
  const from = (python = await servePlain(DIST));
  const { page, problems } = await openLab('#v=1&epochs=2', null, { from });
  await waitForRun(page, 0, 1);
  assert.match(await cell(page, 0, 'test_acc'), /^\d+\.\d+%$/);
  assert.deepEqual(problems, []);
  await page.close();
});
