// `make dist`'s folder is the whole lab: copied out and served by Python's plain static server
// (no COOP/COEP headers, no test server's help), it trains the default run. And `scripts/dist
// DIR` loses nothing (#52 §3): it refuses the sources, a link, and a folder holding files no
// dist wrote, reads DIR from where it was run, and replaces only a dist of its own.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
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

test("dist holds the page, both wasm builds, the data and the hosts' header files", () => {
  for (const f of [
    'index.html',
    'main.js',
    'sw.js',
    'pkg/dpsgd_lab.js',
    'pkg/dpsgd_lab_bg.wasm',
    'pkg/dpsgd_lab_relaxed_bg.wasm',
    'data/adult.bin',
  ]) {
    assert.ok(existsSync(path.join(DIST, f)), f);
  }
  assert.match(
    readFileSync(path.join(DIST, '_headers'), 'utf8'),
    /Cross-Origin-Embedder-Policy: require-corp/,
  );
  assert.match(
    readFileSync(path.join(DIST, '.htaccess'), 'utf8'),
    /AddType application\/wasm \.wasm/,
  );
  // The folder's version (version.js, which the service worker installs) lists its files, each
  // with the hash of the copy in the folder.
  const text = readFileSync(path.join(DIST, 'version.js'), 'utf8');
  const { files } = JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1));
  assert.ok(Object.hasOwn(files, 'main.js') && Object.hasOwn(files, 'pkg/dpsgd_lab_bg.wasm'));
  for (const [f, hash] of Object.entries(files)) {
    assert.equal(
      createHash('sha256')
        .update(readFileSync(path.join(DIST, f)))
        .digest('hex'),
      hash,
      f,
    );
  }
  // The version's snapshot, which the page starts its workers from (www/core/build.js): its scripts
  // and glue, the same bytes; no snapshot of this machine's other builds.
  const { id } = JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1));
  assert.deepEqual(readdirSync(path.join(DIST, 'v')), [id]);
  for (const f of [
    'workers/worker.js',
    'workers/audit-worker.js',
    'workers/gradient-worker.js',
    'core/build.js',
    'pkg/dpsgd_lab.js',
  ]) {
    assert.equal(
      createHash('sha256')
        .update(readFileSync(path.join(DIST, 'v', id, f)))
        .digest('hex'),
      files[f],
      `v/${id}/${f}`,
    );
  }
  assert.ok(
    !existsSync(path.join(DIST, 'v', id, 'pkg/dpsgd_lab_bg.wasm')),
    "workers get the page's compiled module, not the file",
  );
});

test('served by a plain static server, the dist folder trains the default run', async () => {
  const from = (python = await servePlain(DIST));
  const { page, problems } = await openLab('#v=1&epochs=2', null, { from });
  await waitForRun(page, 0, 1);
  assert.match(await cell(page, 0, 'test_acc'), /^\d+\.\d+%$/);
  assert.deepEqual(problems, []);
  await page.close();
});

// `scripts/dist ARGS` run from `cwd`: {status, stderr}.
const dist = (args, cwd = REPO) => {
  const r = spawnSync('bash', [path.join(REPO, 'scripts/dist'), ...args], {
    cwd,
    encoding: 'utf8',
  });
  return { status: r.status, stderr: r.stderr };
};
// Every file under `dir`, with its bytes, to compare before and after.
const snapshot = (dir) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => {
      const f = path.join(e.parentPath ?? e.path, e.name);
      return [f, createHash('sha256').update(readFileSync(f)).digest('hex')];
    })
    .sort(([a], [b]) => a.localeCompare(b));

test('scripts/dist refuses the sources, the repo, a link and an empty path: no change', () => {
  const www = snapshot(path.join(REPO, 'www'));
  for (const [args, cwd, said] of [
    [['www'], REPO, /inside the lab's own www\//],
    [['.'], path.join(REPO, 'www'), /inside the lab's own www\//],
    [['src/site'], REPO, /inside the lab's own src\//],
    [['.'], REPO, /is the repository/],
    [[''], tmp, /empty path/],
  ]) {
    const r = dist(args, cwd);
    assert.equal(r.status, 2, `${args} from ${cwd}: ${r.stderr}`);
    assert.match(r.stderr, said);
    assert.match(r.stderr, /nothing was changed/);
  }
  assert.deepEqual(snapshot(path.join(REPO, 'www')), www, 'www/ is intact');
  assert.ok(!existsSync(path.join(REPO, 'src/site')));
  const real = path.join(tmp, 'real');
  mkdirSync(real);
  writeFileSync(path.join(real, 'mine.txt'), 'mine');
  symlinkSync(real, path.join(tmp, 'link'));
  const r = dist(['link'], tmp);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /symbolic link/);
  assert.deepEqual(readdirSync(real), ['mine.txt']);
});

test("scripts/dist keeps a folder of someone else's files, and replaces only its own dist", () => {
  const site = path.join(tmp, 'site');
  mkdirSync(site);
  writeFileSync(path.join(site, 'index.html'), "the department's page");
  const r = dist([site]);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /holds files that no dist wrote/);
  assert.equal(readFileSync(path.join(site, 'index.html'), 'utf8'), "the department's page");
  // A relative folder is read from where the command ran, not from the repository.
  assert.equal(dist(['again'], tmp).status, 0);
  assert.ok(
    existsSync(path.join(tmp, 'again/index.html')) && !existsSync(path.join(REPO, 'again')),
  );
  // Its own dist is replaced; once someone adds a file to it, it is not.
  assert.equal(dist(['again'], tmp).status, 0);
  writeFileSync(path.join(tmp, 'again/notes.txt'), 'keep');
  const kept = dist(['again'], tmp);
  assert.equal(kept.status, 2, kept.stderr);
  assert.match(kept.stderr, /no dist wrote \(notes\.txt\)/);
  assert.equal(readFileSync(path.join(tmp, 'again/notes.txt'), 'utf8'), 'keep');
});
