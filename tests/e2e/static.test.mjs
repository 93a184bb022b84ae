// The page computes no privacy quantity: q, the steps per epoch, σ_eff and DP-PCA's step come
// from Rust (RunConfig::mechanism, through the accounting functions), never from arithmetic in
// www/*.js. This scans the page's scripts for the arithmetic such a copy would need. And the
// offline copy (sw.js, version.js) holds every script.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const WWW = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../www');

// Every script of the page's own, in any folder under www/ (#54: a scan that read the top folder
// only would see nothing once the scripts move into rooms): the tracked ones, not the built
// glue (pkg/, v/), as paths relative to www/.
const pageScripts = () =>
  execFileSync('git', ['ls-files', '--', '*.js'], { cwd: WWW, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);

// Each pattern is a way of deriving a privacy quantity from settings.
const FORBIDDEN = [
  [/lot_size\s*\/|\/\s*(n_?train|nTrain|facts\.n_train)\b/i, 'a sampling rate q = L/N'],
  [/(n_?train|nTrain)\s*\/\s*[\w.]*lot/i, 'steps per epoch N/L'],
  [/sigma\s*\/\s*Math\.sqrt|Math\.sqrt\([^)]*layers/i, 'a per-layer σ/√k'],
  [
    /accounted_sigma|count_noise_std|\*\s*steps_per_epoch|steps_per_epoch\s*\*/,
    'σ_eff or the step count',
  ],
  [/pca_sample|pcaArgs/, "DP-PCA's step"],
  [/Math\.(exp|log)\([^)]*(delta|sigma|eps)/i, 'an accountant formula'],
];

test('no script of the page derives q, T, σ_eff or a DP-PCA step', async () => {
  const files = pageScripts();
  assert.ok(files.length >= 40 && files.includes('main.js'), files.join(', '));
  const found = [];
  for (const f of files) {
    const lines = (await readFile(path.join(WWW, f), 'utf8')).split('\n');
    lines.forEach((line, i) => {
      if (/^\s*\/\//.test(line)) return; // comments may name the quantities
      for (const [pattern, what] of FORBIDDEN) {
        if (pattern.test(line)) found.push(`${f}:${i + 1}: ${what}: ${line.trim()}`);
      }
    });
  }
  assert.deepEqual(found, []);
});

test('the scan would catch the old copies', () => {
  // The arithmetic the page had before the mechanism moved to Rust.
  for (const line of [
    'const q = cfg.lot_size / nTrain;',
    'const stepsPerEpoch = Math.max(1, Math.round(nTrain / cfg.lot_size));',
    'export const pcaArgs = (cfg) => (cfg.pca ? [1.0, cfg.pca_sigma] : [0, 0]);',
  ]) {
    assert.ok(
      FORBIDDEN.some(([p]) => p.test(line)),
      line,
    );
  }
});

// The offline copy (sw.js) must hold every script the page or its workers import: one left out
// works online and fails offline, which no online test would see. It stores the files that
// version.js lists (scripts/version.py): every file of the folder, so every script, each with its
// hash; sw.js keeps no list of its own to forget one in.
test("the service worker's version lists every script of the page, with its hash", async () => {
  const text = execFileSync('python3', [path.join(WWW, '../scripts/version.py'), '--print', WWW], {
    encoding: 'utf8',
  });
  const version = JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1));
  assert.match(version.id, /^[0-9a-f]{16}$/);
  const scripts = pageScripts().filter((f) => f !== 'version.js');
  assert.deepEqual(
    scripts.filter((f) => !/^[0-9a-f]{64}$/.test(version.files[f] ?? '')),
    [],
  );
  for (const f of [
    'index.html',
    'style.css',
    'pkg/dpsgd_lab.js',
    'pkg/dpsgd_lab_bg.wasm',
    'pkg/dpsgd_lab_relaxed_bg.wasm',
    'data/adult.bin',
  ]) {
    assert.ok(Object.hasOwn(version.files, f), f);
  }
  assert.ok(
    !Object.keys(version.files).some((f) => f.startsWith('data/fashion-mnist-')),
    'Fashion-MNIST is never stored offline',
  );
  const sw = await readFile(path.join(WWW, 'sw.js'), 'utf8');
  assert.doesNotMatch(
    sw,
    /const SHELL|clients\.claim/,
    'sw.js lists no files of its own and never takes a running page',
  );
});
